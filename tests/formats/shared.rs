//! The real collections under `../shared/data`: every game read and replayed, a table per
//! collection, a report of every reject under `target/`, and a move-by-move comparison with
//! the independent reading in `../shared/reference/*.jsonl.gz`.

use std::{
    collections::{BTreeMap, HashMap},
    fmt::Write as _,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
};

use qipu::{
    formats::{read_path, replay, GameError},
    notation::parse_move,
    rules::{AnyPosition, Move, Square, Variant},
};

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("QIPU_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    dir.join("data").is_dir().then_some(dir)
}

/// One collection: its folder under `data/`, its reference file (if any), and the share of
/// games that must replay fully legally (§17 ceilings, or `None` where no ceiling is known).
struct Collection {
    name: &'static str,
    path: &'static str,
    reference: Option<&'static str>,
    target: Option<f64>,
    /// A move of the collection's notation in the standard start position: the ceiling is
    /// only enforced once `notation::parse_move` reads that notation.
    probe: Option<(Variant, &'static str)>,
}

const COLLECTIONS: &[Collection] = &[
    Collection {
        name: "xiangqi/ccpd",
        path: "data/xiangqi/ccpd",
        reference: Some("xiangqi-ccpd"),
        target: Some(0.999),
        probe: Some((Variant::Xiangqi, "炮二平五")),
    },
    Collection {
        name: "xiangqi/eleeye-ccgc",
        path: "data/xiangqi/eleeye-ccgc",
        reference: Some("xiangqi-eleeye-ccgc"),
        target: Some(1.0),
        probe: Some((Variant::Xiangqi, "炮二平五")),
    },
    Collection {
        name: "xiangqi/wukong games_pgn",
        path: "data/xiangqi/wukong/xqdb/games_pgn",
        reference: Some("xiangqi-wukong-games_pgn"),
        target: Some(1.0),
        probe: Some((Variant::Xiangqi, "Ｃ２＝５")),
    },
    Collection {
        name: "xiangqi/wukong hu-ronghua (zip)",
        path: "data/xiangqi/wukong/xqdb/xqdb",
        reference: Some("xiangqi-wukong-hu-ronghua"),
        target: Some(1.0),
        probe: None,
    },
    Collection {
        name: "xiangqi/wukong pgn (XBoard SAN)",
        path: "data/xiangqi/wukong/pgn",
        reference: None,
        target: None,
        probe: None,
    },
    Collection {
        name: "xiangqi/xqmagic",
        path: "data/xiangqi/xqmagic",
        reference: None,
        target: None,
        probe: None,
    },
    Collection {
        name: "xiangqi/cchess-fixtures",
        path: "data/xiangqi/cchess-fixtures",
        reference: None,
        target: None,
        probe: None,
    },
    Collection {
        name: "xiangqi/cchess_c",
        path: "data/xiangqi/cchess_c",
        reference: None,
        target: None,
        probe: None,
    },
    Collection {
        name: "xiangqi/dhtmlxq-community",
        path: "data/xiangqi/dhtmlxq-community",
        reference: None,
        target: None,
        probe: None,
    },
    Collection {
        name: "janggi/gib",
        path: "data/janggi/gib",
        reference: Some("janggi-gib"),
        target: Some(0.999),
        probe: Some((Variant::Janggi, "08마87")),
    },
];

/// A reference game: start FEN and moves in Fairy-Stockfish squares (ranks 1–10).
struct RefGame {
    ok: bool,
    fen: String,
    moves: Vec<String>,
}

fn load_reference(shared: &Path, name: &str) -> HashMap<(String, usize), RefGame> {
    let path = shared.join("reference").join(format!("{name}.jsonl.gz"));
    let file = std::fs::File::open(&path).unwrap();
    let mut out = HashMap::new();
    for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let ok = v["status"] == "ok";
        let file = shared
            .join(v["file"].as_str().unwrap())
            .display()
            .to_string();
        let index = v["game_index"].as_u64().unwrap() as usize;
        let moves = v["moves"]
            .as_array()
            .map(|a| a.iter().map(|m| m.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        let fen = v["fen"].as_str().unwrap_or_default().to_string();
        out.insert((file, index), RefGame { ok, fen, moves });
    }
    out
}

/// A Fairy-Stockfish square move (`h3e3`, `e10e10`, ranks 1–10) as a qipu move; a general
/// moving to its own square is the pass.
fn fs_move(text: &str) -> Move {
    let b = text.as_bytes();
    let mut i = 0;
    let mut square = || {
        let f = b[i] - b'a';
        i += 1;
        let mut r = 0u8;
        while i < b.len() && b[i].is_ascii_digit() {
            r = r * 10 + (b[i] - b'0');
            i += 1;
        }
        Square::from_coords(f, r - 1).unwrap()
    };
    let from = square();
    let to = square();
    if from == to {
        Move::PASS
    } else {
        Move::new(from, to)
    }
}

/// Reject reasons grouped: backquoted tokens and numbers removed.
fn reason_class(e: &GameError) -> String {
    let mut out = String::new();
    let mut in_tick = false;
    for c in e.reason().chars() {
        if c == '`' {
            in_tick = !in_tick;
            if in_tick {
                out.push('…');
            }
            continue;
        }
        if !in_tick {
            out.push(c);
        }
    }
    out.chars().take(90).collect()
}

#[derive(Default)]
struct Stats {
    files: std::collections::BTreeSet<String>,
    games: usize,
    read: usize,
    legal: usize,
    rejects: BTreeMap<String, usize>,
    ref_checked: usize,
    ref_agree: usize,
    ref_missing: usize,
    ref_rejected: usize,
    /// Games replayed only under the servers' Janggi rules.
    noted: usize,
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn shared_collections() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: ../shared not found");
        return;
    };
    let mut report = String::new();
    let mut table = String::from(
        "collection                          files   games    read   legal      %   ref-ok  agree  disagree\n",
    );
    let mut failures = Vec::new();
    for c in COLLECTIONS {
        let dir = shared.join(c.path);
        if !dir.exists() {
            continue;
        }
        let reference = c.reference.map(|r| load_reference(&shared, r));
        let mut s = Stats::default();
        let mut disagreements = Vec::new();
        let mut unseen: std::collections::BTreeSet<(String, usize)> =
            reference.iter().flat_map(|r| r.keys().cloned()).collect();
        for r in read_path(&dir) {
            let (file, game) = match &r {
                Ok(g) => (g.source.file.clone(), Some(g.source.index)),
                Err(e) => (e.file.clone(), e.game),
            };
            let outer = file.split(".zip:").next().unwrap_or(&file).to_string();
            let outer = if outer.len() < file.len() {
                format!("{outer}.zip")
            } else {
                outer
            };
            s.files.insert(outer.clone());
            if let Some(i) = game {
                unseen.remove(&(outer.clone(), i));
            }
            if game.is_some() {
                s.games += 1;
            }
            let replayed = match r {
                Ok(g) => {
                    s.read += 1;
                    replay(&g).map(|rp| (g, rp))
                }
                Err(e) => Err(e),
            };
            match replayed {
                Ok((g, rp)) => {
                    s.legal += 1;
                    if !rp.notes.is_empty() {
                        s.noted += 1;
                    }
                    if let Some(refs) = &reference {
                        match refs.get(&(outer.clone(), g.source.index)) {
                            Some(rg) if rg.ok => {
                                s.ref_checked += 1;
                                let want: Vec<Move> = rg.moves.iter().map(|m| fs_move(m)).collect();
                                // Board and side to move; the move counters are not compared.
                                let placement = |fen: String| {
                                    fen.split(' ').take(2).collect::<Vec<_>>().join(" ")
                                };
                                let same_start = AnyPosition::from_fen(g.variant, &rg.fen)
                                    .map(|p| placement(p.fen()) == placement(rp.start.fen()))
                                    .unwrap_or(false);
                                if same_start && want == rp.moves {
                                    s.ref_agree += 1;
                                } else {
                                    let ply = want
                                        .iter()
                                        .zip(&rp.moves)
                                        .position(|(a, b)| a != b)
                                        .unwrap_or(want.len().min(rp.moves.len()));
                                    disagreements.push(format!(
                                        "{} game {}: start {} ply {} qipu {:?} ref {:?} ({} vs {} moves)",
                                        g.source.file,
                                        g.source.index,
                                        if same_start { "same" } else { "DIFFERENT" },
                                        ply + 1,
                                        rp.moves.get(ply).map(|m| m.to_string()),
                                        want.get(ply).map(|m| m.to_string()),
                                        rp.moves.len(),
                                        want.len()
                                    ));
                                }
                            }
                            Some(_) => s.ref_rejected += 1,
                            None => s.ref_missing += 1,
                        }
                    }
                }
                Err(e) => {
                    *s.rejects.entry(reason_class(&e)).or_default() += 1;
                    writeln!(report, "{}\t{e}", c.name).unwrap();
                }
            }
        }
        let pct = if s.games == 0 {
            100.0
        } else {
            100.0 * s.legal as f64 / s.games as f64
        };
        writeln!(
            table,
            "{:<34} {:>6} {:>7} {:>7} {:>7} {:>6.2} {:>8} {:>6} {:>9}",
            c.name,
            s.files.len(),
            s.games,
            s.read,
            s.legal,
            pct,
            s.ref_checked,
            s.ref_agree,
            disagreements.len()
        )
        .unwrap();
        if s.noted > 0 {
            writeln!(
                table,
                "      {} games play on after bikjang or two passes (kept, noted)",
                s.noted
            )
            .unwrap();
        }
        if s.ref_missing + s.ref_rejected + unseen.len() > 0 {
            writeln!(
                table,
                "      reference: {} games read here are not in it, {} replayed here are rejected by it, {} of its games not met here {:?}",
                s.ref_missing,
                s.ref_rejected,
                unseen.len(),
                unseen.iter().take(3).collect::<Vec<_>>()
            )
            .unwrap();
            if !unseen.is_empty() || s.ref_rejected > 0 {
                failures.push(format!(
                    "{}: reference games not met or rejected by it",
                    c.name
                ));
            }
        }
        for (reason, n) in &s.rejects {
            writeln!(table, "      {n:>6}  {reason}").unwrap();
        }
        for d in disagreements.iter().take(5) {
            writeln!(table, "      DISAGREE {d}").unwrap();
        }
        for d in &disagreements {
            writeln!(report, "{}\tDISAGREE {d}", c.name).unwrap();
        }
        if !disagreements.is_empty() {
            failures.push(format!(
                "{}: {} games disagree with the reference",
                c.name,
                disagreements.len()
            ));
        }
        let enforced = c
            .probe
            .is_none_or(|(v, m)| parse_move(&AnyPosition::new(v), m).is_ok());
        if !enforced {
            writeln!(
                table,
                "      (ceiling not enforced: notation::parse_move does not read `{}` yet)",
                c.probe.map(|p| p.1).unwrap_or_default()
            )
            .unwrap();
        }
        if let (Some(t), true) = (c.target, enforced) {
            if (s.legal as f64) < t * s.games as f64 - 1e-9 {
                failures.push(format!(
                    "{}: {:.2}% replay fully legal, target {:.1}%",
                    c.name,
                    pct,
                    t * 100.0
                ));
            }
        }
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/formats-rejects.txt");
    let _ = std::fs::create_dir_all(out.parent().unwrap());
    std::fs::write(&out, &report).unwrap();
    println!("{table}");
    println!("every reject: {}", out.display());
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Byte-level robustness on real records: a sample of every kind of shared file (PGN in
/// Big5/GBK/UTF-8, `.gib`, `.eglib`, zip, XQF, CCBridge, DhtmlXQ), each mutated many times
/// (bytes overwritten, truncated, spliced with its own bytes) by a fixed-seed generator, read
/// and replayed: no panic, and each read finishes within a generous time bound.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn mutated_real_records_never_panic_or_hang() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: ../shared not found");
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![shared.join("data")];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        // A few files per folder keep the sample small and varied.
        let mut taken = 0;
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if taken < 3
                && std::fs::metadata(&p)
                    .map(|m| m.len() < 4 << 20)
                    .unwrap_or(false)
            {
                files.push(p);
                taken += 1;
            }
        }
    }
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut runs = 0;
    for f in &files {
        let original = std::fs::read(f).unwrap();
        if original.is_empty() {
            continue;
        }
        for _ in 0..20 {
            let mut data = original.clone();
            let len = data.len();
            match next() % 3 {
                0 => {
                    for _ in 0..1 + next() % 16 {
                        let p = (next() as usize) % len;
                        data[p] = next() as u8;
                    }
                }
                1 => data.truncate((next() as usize) % len),
                _ => {
                    let a = (next() as usize) % len;
                    let b = (next() as usize) % len;
                    let chunk: Vec<u8> = original[a.min(b)..a.max(b)]
                        .iter()
                        .take(4096)
                        .copied()
                        .collect();
                    let at = (next() as usize) % len;
                    data.splice(at..at, chunk);
                }
            }
            let t = std::time::Instant::now();
            for g in qipu::formats::read_bytes("mutant", &data)
                .into_iter()
                .flatten()
            {
                let _ = replay(&g);
            }
            assert!(
                t.elapsed().as_secs() < 20,
                "{}: a mutant took {:?}",
                f.display(),
                t.elapsed()
            );
            runs += 1;
        }
    }
    println!(
        "{runs} mutants of {} real files read without panic",
        files.len()
    );
    assert!(runs > 100);
}

/// Every PGN file under `../shared/data`, cut at every game boundary `chunk_starts` allows:
/// the chunks read alone give exactly the games of the whole file.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn every_shared_pgn_cut_into_chunks_reads_the_same() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: ../shared not found");
        return;
    };
    let (mut files, mut chunks) = (0, 0);
    for p in files_with_extensions(&shared.join("data"), &["pgn"]) {
        let text = qipu::formats::decode::decode_text(&std::fs::read(&p).unwrap()).text;
        chunks += super::cut_anywhere_reads_the_same(&p.display().to_string(), &text);
        files += 1;
    }
    println!("{files} PGN files cut into {chunks} chunks, all read the same");
    assert!(files > 20_000 && chunks > files);
}

/// The decoder's shortcut (choosing a legacy encoding from byte pairs) agrees with decoding
/// every candidate and scoring it, on every text record under `../shared/data`.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn quick_encoding_choice_agrees_with_the_thorough_one() {
    use qipu::formats::decode::{decode_text, decode_text_thorough, TextEncoding};
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: ../shared not found");
        return;
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for p in files_with_extensions(&shared.join("data"), &["pgn", "gib", "eglib", "txt"]) {
        let bytes = std::fs::read(&p).unwrap();
        let quick = decode_text(&bytes);
        let thorough = decode_text_thorough(&bytes);
        assert_eq!(quick, thorough, "{}", p.display());
        let legacy = !matches!(
            quick.encoding,
            TextEncoding::Utf8 | TextEncoding::Utf16Le | TextEncoding::Utf16Be
        );
        *counts.entry(format!("{:?}", quick.encoding)).or_default() += usize::from(legacy);
    }
    println!("legacy-encoded text records, by encoding: {counts:?}");
    assert!(counts.get("Big5").copied().unwrap_or(0) > 20_000);
    assert!(counts.get("Cp949").copied().unwrap_or(0) > 200);
}

/// Every file below `dir` with one of these extensions (any case).
fn files_with_extensions(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            let ext = p
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            if p.is_dir() {
                stack.push(p);
            } else if extensions.contains(&ext.as_str()) {
                out.push(p);
            }
        }
    }
    out
}

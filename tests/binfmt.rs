//! Binary and board-based Xiangqi formats: XQF, CCBridge (CBR, CBL, CBF) and DhtmlXQ.
//!
//! Expected moves in the small committed fixtures were worked out by hand from the format
//! descriptions (see `tests/data/binfmt/make_fixtures.py`, which writes the files from the
//! specification independently of the readers).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use qipu::formats::{cbf, cbl, cbr, ccbridge, dhtmlxq, replay, xqf, Game, GameError, MoveNode};
use qipu::rules::{Color, Outcome};

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/binfmt")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn texts(line: &[MoveNode]) -> Vec<&str> {
    line.iter().map(|m| m.text.as_str()).collect()
}

fn one(games: Vec<Result<Game, GameError>>) -> Game {
    assert_eq!(games.len(), 1);
    games.into_iter().next().unwrap().unwrap()
}

/// Which reader a file goes to, by content.
fn read_any(file: &str, bytes: &[u8]) -> Option<(&'static str, Vec<Result<Game, GameError>>)> {
    if xqf::sniff(bytes) {
        Some(("XQF", xqf::read(file, bytes)))
    } else if cbl::sniff(bytes) {
        Some(("CBL", cbl::read(file, bytes)))
    } else if cbr::sniff(bytes) {
        Some(("CBR", cbr::read(file, bytes)))
    } else if cbf::sniff(bytes) {
        Some(("CBF", cbf::read(file, bytes)))
    } else if dhtmlxq::sniff(bytes) {
        Some(("DhtmlXQ", dhtmlxq::read(file, bytes)))
    } else {
        None
    }
}

// ---------------------------------------------------------------- committed fixtures

#[test]
fn xqf_v10_tree_comments_and_header() {
    let g = one(xqf::read("v10", &fixture("v10_variations.xqf")));
    assert_eq!(g.start_fen, None);
    assert_eq!(texts(&g.moves), ["h2e2", "h9g7", "h0g2", "i9h9"]);
    assert_eq!(g.comment.as_deref(), Some("中炮对屏风马"));
    assert_eq!(g.moves[0].comment.as_deref(), Some("炮二平五"));
    // Alternatives to Black's first move: 马2进3 then 车一平二; and 炮8平5.
    let vars = &g.moves[1].variations;
    assert_eq!(vars.len(), 2);
    assert_eq!(texts(&vars[0]), ["b9c7", "i0i1"]);
    assert_eq!(texts(&vars[1]), ["h7e7"]);
    assert_eq!(g.tags.event.as_deref(), Some("测试赛"));
    assert_eq!(g.tags.first.as_deref(), Some("红方"));
    assert_eq!(g.tags.second.as_deref(), Some("黑方"));
    assert_eq!(g.tags.date.as_deref(), Some("2001-04-16"));
    assert_eq!(
        g.tags.result,
        Some(Outcome::Decisive {
            winner: Color::First
        })
    );
    assert_eq!(replay(&g).unwrap().moves.len(), 4);
}

#[test]
fn xqf_v18_encrypted_custom_start_black_to_move() {
    let g = one(xqf::read("v18", &fixture("v18_endgame.xqf")));
    // Black to move (the first move is Black's), kings and a rook each.
    assert_eq!(
        g.start_fen.as_deref(),
        Some("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1")
    );
    assert_eq!(texts(&g.moves), ["e9f9", "e1f1"]);
    assert_eq!(g.moves[1].comment.as_deref(), Some("将军"));
    assert_eq!(g.tags.result, Some(Outcome::Draw));
    assert!(replay(&g).is_ok());
}

#[test]
fn xqf_v11_rotation_resolved_by_replay() {
    // The same game written with and without the version-12 rotation; both must read.
    for name in ["v11_plain.xqf", "v11_rotated.xqf"] {
        let g = one(xqf::read(name, &fixture(name)));
        assert_eq!(g.start_fen, None, "{name}");
        assert_eq!(texts(&g.moves), ["h2e2", "h9g7", "h0g2"], "{name}");
        assert!(replay(&g).is_ok(), "{name}");
    }
}

#[test]
fn cbr_v2_tree_and_header() {
    let g = one(cbr::read("v2", &fixture("v2_variations.cbr")));
    assert_eq!(g.start_fen, None);
    assert_eq!(texts(&g.moves), ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(texts(&g.moves[1].variations[0]), ["b9c7", "b0c2"]);
    assert_eq!(g.comment.as_deref(), Some("对局说明"));
    assert_eq!(g.moves[2].comment.as_deref(), Some("马二进三"));
    assert_eq!(g.tags.first.as_deref(), Some("许银川"));
    assert_eq!(g.tags.second.as_deref(), Some("吕钦"));
    assert_eq!(g.tags.event.as_deref(), Some("全国赛"));
    assert_eq!(
        g.tags.result,
        Some(Outcome::Decisive {
            winner: Color::Second
        })
    );
    assert!(replay(&g).is_ok());
}

#[test]
fn cbr_v1_squares_and_header() {
    let g = one(cbr::read("v1", &fixture("v1.cbr")));
    assert_eq!(texts(&g.moves), ["h2e2", "h9g7"]);
    assert_eq!(g.tags.first.as_deref(), Some("红"));
    assert!(replay(&g).is_ok());
}

#[test]
fn cbl_library_of_two() {
    let games = cbl::read("lib", &fixture("two_games.cbl"));
    assert_eq!(games.len(), 2);
    let a = games[0].as_ref().unwrap();
    let b = games[1].as_ref().unwrap();
    assert_eq!(texts(&a.moves), ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(texts(&b.moves), ["c3c4"]);
    assert_eq!(b.source.index, 1);
    assert_eq!(
        cbl::library_name(&fixture("two_games.cbl")).as_deref(),
        Some("测试库")
    );
    assert!(ccbridge::sniff(&fixture("two_games.cbl")));
}

#[test]
fn cbf_main_line_comment_and_fen() {
    let g = one(cbf::read("cbf", &fixture("small.cbf")));
    assert_eq!(g.comment.as_deref(), Some("开局 & 说明"));
    assert_eq!(texts(&g.moves), ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(g.moves[1].comment.as_deref(), Some("马8进7"));
    assert_eq!(g.tags.ecco.as_deref(), Some("B05"));
    assert_eq!(g.tags.result, Some(Outcome::Draw));
    assert_eq!(g.start_fen, None);
    assert!(replay(&g).is_ok());
}

#[test]
fn dhtmlxq_in_html_with_branches_out_of_order() {
    let games = dhtmlxq::read("page", &fixture("page.html"));
    assert_eq!(games.len(), 2);
    let g = games[0].as_ref().unwrap();
    assert_eq!(texts(&g.moves), ["c3c4", "g6g5", "b0c2", "h9g7"]);
    assert_eq!(g.comment.as_deref(), Some("仙人指路\n对卒底炮"));
    assert_eq!(g.moves[0].comment.as_deref(), Some("兵七进一"));
    // Branch 2 hangs off branch 1, which is listed after it.
    let b1 = &g.moves[1].variations[0];
    assert_eq!(texts(b1), ["c6c5", "h2e2"]);
    assert_eq!(b1[0].comment.as_deref(), Some("对兵"));
    assert_eq!(texts(&b1[1].variations[0]), ["h0g2"]);
    assert_eq!(b1[1].variations[0][0].comment.as_deref(), Some("马二进三"));
    assert_eq!(
        g.tags.result,
        Some(Outcome::Decisive {
            winner: Color::Second
        })
    );
    assert_eq!(g.tags.ecco.as_deref(), Some("E27"));
    assert_eq!(g.tags.date.as_deref(), Some("1995-10-16"));
    assert!(replay(g).is_ok());
    // The second game: an endgame from binit with Black to move.
    let e = games[1].as_ref().unwrap();
    assert_eq!(
        e.start_fen.as_deref(),
        Some("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1")
    );
    assert_eq!(texts(&e.moves), ["e9f9", "e1f1"]);
    assert!(replay(e).is_ok());
}

#[test]
fn dhjhtmlxq_numbered_tags() {
    let g = one(dhtmlxq::read("dhj", &fixture("dhj.txt")));
    assert_eq!(g.tags.event.as_deref(), Some("广东赛"));
    assert_eq!(
        g.start_fen.as_deref(),
        Some("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1")
    );
    assert_eq!(texts(&g.moves), ["e9f9", "e1f1"]);
    assert!(replay(&g).is_ok());
}

#[test]
fn truncated_and_bad_files_are_errors() {
    let v10 = fixture("v10_variations.xqf");
    let e = xqf::read("t.xqf", &v10[..600]).remove(0).unwrap_err();
    assert!(e.reason.contains("truncated XQF header"), "{e}");
    let e = xqf::read("t.xqf", &v10[..v10.len() - 3])
        .remove(0)
        .unwrap_err();
    assert_eq!(e.file, "t.xqf");
    assert_eq!(e.game, Some(0));
    let cbr2 = fixture("v2_variations.cbr");
    assert!(cbr::read("t.cbr", &cbr2[..2240]).remove(0).is_err());
    assert!(cbr::read("t.cbr", &cbr2[..100]).remove(0).is_err());
    let e = dhtmlxq::read("t", b"[DhtmlXQ][DhtmlXQ_movelist]77477[/DhtmlXQ_movelist]")
        .remove(0)
        .unwrap_err();
    assert!(e.reason.contains("multiple of 4"), "{e}");
    let e = dhtmlxq::read(
        "t",
        b"[DhtmlXQ][DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][DhtmlXQ_move_5_1_1]1927[/DhtmlXQ_move_5_1_1]",
    )
    .remove(0)
    .unwrap_err();
    assert!(e.reason.contains("does not exist"), "{e}");
}

// ---------------------------------------------------------------- fuzzing

/// xorshift64*: a small deterministic generator for mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Mutates a file: truncation, random bytes, flag bytes, length fields, duplicated spans.
fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    match rng.below(5) {
        0 => b.truncate(rng.below(b.len() + 1)),
        1 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(b.len());
                if let Some(x) = b.get_mut(i) {
                    *x = rng.next() as u8;
                }
            }
        }
        2 => {
            // Large little-endian lengths anywhere (comment lengths, counts).
            let i = rng.below(b.len());
            for (k, v) in [0xFFu8, 0xFF, 0xFF, 0x7F].iter().enumerate() {
                if let Some(x) = b.get_mut(i + k) {
                    *x = *v;
                }
            }
        }
        3 => {
            // Set every flag bit in a record-sized run.
            let i = rng.below(b.len());
            for x in b.iter_mut().skip(i).take(16) {
                *x |= 0xE7;
            }
        }
        _ => {
            let i = rng.below(b.len());
            let j = (i + rng.below(64)).min(b.len());
            let span = b[i..j].to_vec();
            b.splice(j..j, span);
        }
    }
    b
}

/// Every reader on every mutation: must return (errors or games), never panic or hang; every
/// returned game must have no more moves than the input has bytes.
fn fuzz_files(files: &[(String, Vec<u8>)], cases: usize, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let mut errors = 0;
    for case in 0..cases {
        let (name, base) = &files[case % files.len()];
        let input = mutate(&mut rng, base);
        let all = [
            xqf::read(name, &input),
            cbr::read(name, &input),
            cbl::read(name, &input),
            cbf::read(name, &input),
            dhtmlxq::read(name, &input),
        ];
        for r in all.iter().flatten() {
            match r {
                Ok(g) => {
                    fn count(line: &[MoveNode]) -> usize {
                        line.iter()
                            .map(|m| 1 + m.variations.iter().map(|v| count(v)).sum::<usize>())
                            .sum()
                    }
                    assert!(count(&g.moves) <= input.len(), "{name}: too many moves");
                    let _ = replay(g);
                }
                Err(e) => {
                    assert!(!e.reason.is_empty());
                    errors += 1;
                }
            }
        }
    }
    errors
}

#[test]
fn fuzz_committed_fixtures() {
    let names = [
        "v10_variations.xqf",
        "v18_endgame.xqf",
        "v11_rotated.xqf",
        "v2_variations.cbr",
        "v1.cbr",
        "two_games.cbl",
        "small.cbf",
        "page.html",
        "dhj.txt",
    ];
    let files: Vec<(String, Vec<u8>)> = names.iter().map(|n| (n.to_string(), fixture(n))).collect();
    let errors = fuzz_files(&files, 4000, 0x9E37_79B9_7F4A_7C15);
    assert!(errors > 0);
}

// ---------------------------------------------------------------- real data (../shared)

fn shared() -> Option<PathBuf> {
    let p = std::env::var_os("QIPU_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipping: no shared folder at {}", p.display());
        None
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The deliberately bad fixtures of cchess-fixtures and the error each must give.
const EXPECTED_BAD: &[(&str, &str)] = &[];

#[derive(Default)]
struct Row {
    files: usize,
    games: usize,
    legal: usize,
    rejects: BTreeMap<String, usize>,
}

fn reason_class(e: &GameError) -> String {
    let r = &e.reason;
    if r.starts_with("illegal move") {
        "illegal move".into()
    } else if r.starts_with("cannot read move") {
        "bad move text".into()
    } else if r.starts_with("bad start position") {
        "bad start position".into()
    } else {
        r.split(':').next().unwrap_or(r).chars().take(40).collect()
    }
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn real_fixtures_read_and_replay() {
    let Some(root) = shared() else { return };
    let base = root.join("data/xiangqi");
    let mut table: BTreeMap<String, Row> = BTreeMap::new();
    let mut rejects = Vec::new();
    for folder in [
        "cchess-fixtures",
        "cchess_c",
        "xqmagic",
        "dhtmlxq-community",
    ] {
        let mut files = Vec::new();
        walk(&base.join(folder), &mut files);
        for path in files {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let rel = path
                .strip_prefix(&base)
                .unwrap_or(&path)
                .display()
                .to_string();
            let Some((kind, games)) = read_any(&rel, &bytes) else {
                continue;
            };
            let row = table.entry(format!("{folder} {kind}")).or_default();
            row.files += 1;
            for g in games {
                row.games += 1;
                let res = g.and_then(|g| replay(&g).map(|_| ()));
                match res {
                    Ok(()) => row.legal += 1,
                    Err(e) => {
                        *row.rejects.entry(reason_class(&e)).or_default() += 1;
                        rejects.push(e);
                    }
                }
            }
        }
    }
    println!(
        "\n{:<28} {:>6} {:>6} {:>6}  rejects",
        "folder/format", "files", "games", "legal"
    );
    for (k, r) in &table {
        println!(
            "{:<28} {:>6} {:>6} {:>6}  {:?}",
            k, r.files, r.games, r.legal, r.rejects
        );
    }
    println!("\nrejects:");
    for e in &rejects {
        println!("  {e}");
    }
    let _ = EXPECTED_BAD;
}

//! Reading throughput per text format (MB/s and games/s): `read_bytes` alone, and
//! `read_bytes` + `replay` of every game. Inputs come from `../shared/data` (or
//! `$QIPU_SHARED`); without it the committed fixtures are used.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qipu::formats::{read_bytes, replay};

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("QIPU_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    dir.join("data").is_dir().then_some(dir.join("data"))
}

fn files_under(dir: &Path, ext: &str, limit: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out.truncate(limit);
    out
}

/// (name, bytes) inputs; a multi-file collection is concatenated into one multi-game text.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    let Some(data) = shared() else {
        let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats");
        return vec![
            ("pgn-gbk-chinese", read(&fx.join("gbk-crlf.pgn"))),
            ("gib-cp949", read(&fx.join("games.gib"))),
            ("eglib", read(&fx.join("puzzles.eglib"))),
        ];
    };
    let cat = |files: Vec<PathBuf>| -> Vec<u8> {
        let mut v = Vec::new();
        for f in files {
            v.extend(read(&f));
            v.push(b'\n');
        }
        v
    };
    vec![
        (
            "pgn-big5-chinese (ccpd games)",
            cat(files_under(
                &data.join("xiangqi/ccpd/Dataset/對局"),
                "pgn",
                2000,
            )),
        ),
        (
            "pgn-iccs (zip)",
            read(&data.join("xiangqi/wukong/xqdb/xqdb/Hu_Ronghua_1391_UCI_games.pgn.zip")),
        ),
        (
            "pgn-gbk-chinese (eleeye)",
            cat(files_under(&data.join("xiangqi/eleeye-ccgc"), "pgn", 100)),
        ),
        (
            "gib-cp949",
            cat(files_under(&data.join("janggi/gib"), "gib", 20)),
        ),
        (
            "eglib",
            read(&data.join("xiangqi/xqmagic/Books/已整理残局Book/杀局谱.eglib")),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, bytes) in inputs() {
        if bytes.is_empty() {
            continue;
        }
        let games = read_bytes(name, &bytes).len() as u64;
        eprintln!("{name}: {} bytes, {games} games", bytes.len());
        for (unit, tp) in [
            ("MB", Throughput::Bytes(bytes.len() as u64)),
            ("games", Throughput::Elements(games)),
        ] {
            let mut g = c.benchmark_group(format!("formats/{name} [{unit}]"));
            g.sample_size(10);
            g.throughput(tp);
            g.bench_function("read", |b| b.iter(|| read_bytes(name, &bytes)));
            g.bench_function("read+replay", |b| {
                b.iter(|| {
                    read_bytes(name, &bytes)
                        .into_iter()
                        .flatten()
                        .filter(|g| replay(g).is_ok())
                        .count()
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

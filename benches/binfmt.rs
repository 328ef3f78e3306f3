//! Reading throughput of the XQF, CCBridge and DhtmlXQ readers: MB/s and games/s per format,
//! over the real collections in `../shared/data/xiangqi` when present, else the committed
//! fixtures. `cargo bench --bench binfmt`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qipu::formats::{cbf, cbl, cbr, dhtmlxq, xqf, Game, GameError};

type Reader = fn(&str, &[u8]) -> Vec<Result<Game, GameError>>;
type Sniffer = fn(&[u8]) -> bool;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn inputs() -> Vec<PathBuf> {
    let root = std::env::var_os("QIPU_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let mut files = Vec::new();
    walk(&root.join("data/xiangqi"), &mut files);
    if files.is_empty() {
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/binfmt"),
            &mut files,
        );
    }
    files
}

fn bench(c: &mut Criterion) {
    let formats: [(&str, Sniffer, Reader); 5] = [
        ("xqf", xqf::sniff, xqf::read),
        ("cbl", cbl::sniff, cbl::read),
        ("cbr", cbr::sniff, cbr::read),
        ("cbf", cbf::sniff, cbf::read),
        ("dhtmlxq", dhtmlxq::sniff, dhtmlxq::read),
    ];
    let files: Vec<(String, Vec<u8>)> = inputs()
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(&p).ok()?)))
        .collect();
    for (name, sniff, read) in formats {
        let set: Vec<&(String, Vec<u8>)> = files.iter().filter(|(_, b)| sniff(b)).collect();
        if set.is_empty() {
            continue;
        }
        let bytes: usize = set.iter().map(|(_, b)| b.len()).sum();
        let games: usize = set.iter().map(|(n, b)| read(n, b).len()).sum();
        let run = || {
            let mut n = 0;
            for (file, b) in &set {
                n += read(file, b).len();
            }
            n
        };
        let mut g = c.benchmark_group(format!("read/{name}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function(format!("{} files, MB/s", set.len()), |b| b.iter(run));
        g.throughput(Throughput::Elements(games as u64));
        g.bench_function(format!("{games} games, games/s"), |b| b.iter(run));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Parse+resolve and render throughput per notation, over the committed fixture positions
//! (tests/data/notation/positions.txt): every legal move of every position, rendered once
//! up front, then read back. Criterion reports the throughput in moves per second (elem/s).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qipu::notation::coord::RankBase;
use qipu::notation::{parse_move, render, MoveReader, Notation};
use qipu::rules::{AnyPosition, Move, Variant};
use std::hint::black_box;

fn positions(variant: Variant) -> Vec<AnyPosition> {
    include_str!("../tests/data/notation/positions.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .filter(|(v, _)| v.parse::<Variant>().ok() == Some(variant))
        .filter_map(|(_, fen)| AnyPosition::from_fen(variant, fen).ok())
        .collect()
}

fn cases(pos: &[AnyPosition], n: Notation) -> Vec<(usize, String, Move)> {
    let mut out = Vec::new();
    for (i, p) in pos.iter().enumerate() {
        for &m in p.legal_moves().iter() {
            out.push((i, render(p, m, n), m));
        }
    }
    out
}

/// CPU time of this thread in seconds (Linux `schedstat`), so that the moves/s printed below
/// mean "per core" even on a loaded machine; `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Reads every case back once; returns how many came back as the rendered move.
fn read_all(pos: &[AnyPosition], cs: &[(usize, String, Move)], n: Notation) -> usize {
    let mut ok = 0usize;
    for (i, text, m) in cs {
        let got = if n == Notation::FsUci {
            MoveReader::with_rank_base(RankBase::One).read(&pos[*i], text)
        } else {
            parse_move(&pos[*i], text)
        };
        ok += usize::from(got == Ok(*m));
    }
    ok
}

fn bench(c: &mut Criterion) {
    let sets = [
        (
            Variant::Xiangqi,
            Notation::Chinese { traditional: false },
            "chinese",
        ),
        (
            Variant::Xiangqi,
            Notation::Chinese { traditional: true },
            "chinese-traditional",
        ),
        (Variant::Xiangqi, Notation::Wxf, "wxf"),
        (Variant::Xiangqi, Notation::Iccs, "iccs"),
        (Variant::Xiangqi, Notation::Coord, "coord"),
        (Variant::Xiangqi, Notation::FsUci, "fs-uci"),
        (Variant::Janggi, Notation::Korean { hanja: false }, "korean"),
        (
            Variant::Janggi,
            Notation::Korean { hanja: true },
            "korean-hanja",
        ),
        (Variant::Janggi, Notation::FsUci, "janggi-fs-uci"),
    ];
    let mut parse = c.benchmark_group("parse+resolve");
    for (variant, n, name) in sets {
        let pos = positions(variant);
        let cs = cases(&pos, n);
        parse.throughput(Throughput::Elements(cs.len() as u64));
        parse.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let ok = read_all(&pos, &cs, n);
                assert_eq!(ok, cs.len());
                black_box(ok)
            })
        });
        if let Some(t0) = cpu_seconds() {
            let mut moves = 0usize;
            let mut t = t0;
            while t - t0 < 1.0 {
                moves += black_box(read_all(&pos, &cs, n));
                t = cpu_seconds().unwrap_or(t0 + 1.0);
            }
            println!(
                "notation {name}: {:.2} million moves parsed+resolved per CPU second ({} moves in {} positions)",
                moves as f64 / (t - t0) / 1e6,
                cs.len(),
                pos.len()
            );
        }
    }
    parse.finish();
    let mut write = c.benchmark_group("render");
    for (variant, n, name) in sets {
        let pos = positions(variant);
        let cs = cases(&pos, n);
        write.throughput(Throughput::Elements(cs.len() as u64));
        write.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let mut len = 0usize;
                for (i, _, m) in &cs {
                    len += render(&pos[*i], *m, n).len();
                }
                black_box(len)
            })
        });
    }
    write.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);

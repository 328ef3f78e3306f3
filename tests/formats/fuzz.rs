//! A bounded, seeded mutation fuzzer over real records of every format: the bundled `data/`
//! and `tests/data/` fixtures on every `cargo test` (a fixed number of mutants), the shared
//! files for a bounded time from `.ci/run` (`QIPU_FUZZ_SECS`, default 150). Each mutant is
//! read and replayed; it must not panic, and every error must name its file. Every input that
//! ever failed is kept in `tests/data/fuzz/` and read first.

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use qipu::formats::{read_bytes, replay};

fn files_under(dir: &Path, max_bytes: u64, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files_under(&p, max_bytes, out);
        } else if std::fs::metadata(&p).is_ok_and(|m| m.len() > 0 && m.len() <= max_bytes) {
            out.push(p);
        }
    }
}

/// xorshift64: the same mutants on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutant of `original`: bytes overwritten, a cut, a splice of its own bytes, a run of a
/// structural byte (brackets, parentheses, quotes: what nests or delimits), or a zip header.
fn mutate(original: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = original.to_vec();
    let len = data.len();
    match rng.next() % 5 {
        0 => {
            for _ in 0..1 + rng.below(16) {
                let p = rng.below(len);
                data[p] = rng.next() as u8;
            }
        }
        1 => data.truncate(rng.below(len)),
        2 => {
            let (a, b) = (rng.below(len), rng.below(len));
            let chunk: Vec<u8> = original[a.min(b)..a.max(b)]
                .iter()
                .take(4096)
                .copied()
                .collect();
            let at = rng.below(len);
            data.splice(at..at, chunk);
        }
        3 => {
            let byte = b"[](){}<>\"\n;"[rng.below(11)];
            let at = rng.below(len);
            data.splice(at..at, std::iter::repeat_n(byte, 1 + rng.below(20_000)));
        }
        _ => {
            let at = rng.below(len);
            data.splice(at..at, *b"PK\x03\x04");
        }
    }
    data
}

/// Reads and replays one input; `Err` describes a failure (a panic, an error without its file).
fn check(name: &str, data: &[u8]) -> Result<(), String> {
    let run = catch_unwind(AssertUnwindSafe(|| {
        for g in read_bytes(name, data) {
            match g {
                Ok(g) => {
                    if g.source.file.is_empty() {
                        return Err("a game without its file".to_string());
                    }
                    if let Err(e) = replay(&g) {
                        if !e.file.starts_with(name) {
                            return Err(format!("replay error without its file: {e}"));
                        }
                    }
                }
                Err(e) if !e.file.starts_with(name) => {
                    return Err(format!("read error without its file: {e}"));
                }
                Err(_) => {}
            }
        }
        Ok(())
    }));
    run.unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("panic: {msg}"))
    })
}

/// Fuzzes `files` until `runs` mutants or `budget` is spent; returns (mutants, failures).
fn fuzz(files: &[PathBuf], runs: usize, budget: Duration, seed: u64) -> (usize, Vec<String>) {
    let found = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-found");
    let started = Instant::now();
    let mut rng = Rng(seed);
    let originals: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    let mut done = 0;
    let mut failures = Vec::new();
    while done < runs && started.elapsed() < budget && !originals.is_empty() {
        let k = done % originals.len();
        let data = mutate(&originals[k], &mut rng);
        if let Err(why) = check("mutant", &data) {
            let _ = std::fs::create_dir_all(&found);
            let path = found.join(format!(
                "mutant-{done}-of-{}",
                files[k]
                    .file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            ));
            let _ = std::fs::write(&path, &data);
            failures.push(format!(
                "{}: {why} (kept as {})",
                files[k].display(),
                path.display()
            ));
        }
        done += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fuzz: {done} mutants of {} files in {secs:.1} s ({:.0} executions/s), {} failures",
        files.len(),
        done as f64 / secs.max(1e-9),
        failures.len()
    );
    (done, failures)
}

#[test]
fn regression_inputs_read_without_panic() {
    let mut files = Vec::new();
    files_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz"),
        u64::MAX,
        &mut files,
    );
    assert!(files.len() >= 2);
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let name = f.display().to_string();
        assert_eq!(check(&name, &data), Ok(()), "{name}");
    }
}

#[test]
fn bundled_records_survive_seeded_mutation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    files_under(&root.join("tests/data/formats"), 1 << 20, &mut files);
    files_under(&root.join("tests/data/binfmt"), 1 << 20, &mut files);
    // A few of the bundled sample's games and its zip.
    let mut sample = Vec::new();
    files_under(&root.join("data"), 2 << 20, &mut sample);
    files.extend(sample.into_iter().step_by(97));
    let (runs, failures) = fuzz(&files, 3000, Duration::from_secs(600), 0x5eed_0001);
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(runs >= 3000);
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn shared_records_survive_seeded_mutation_for_a_bounded_time() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if !shared.is_dir() {
        eprintln!("skipping: ../shared not found");
        return;
    }
    let mut all = Vec::new();
    files_under(&shared, 4 << 20, &mut all);
    // Every kind of file, a spread of each folder.
    let files: Vec<PathBuf> = all.into_iter().step_by(53).collect();
    let secs = std::env::var("QIPU_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let (runs, failures) = fuzz(&files, usize::MAX, Duration::from_secs(secs), 0x5eed_0002);
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(runs > 100);
}

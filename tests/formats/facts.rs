//! Facts of play (time control, speed, termination, mode) read from real records, counted
//! against an independent reading by `scripts/facts_oracle.py` (Python's own parsing of the
//! same tag values).

use std::{collections::BTreeMap, path::Path, process::Command};

use qipu::formats::{read_path, replay};
use qipu::rules::EndReason;

fn shared() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    dir.is_dir().then_some(dir)
}

fn oracle(args: &[&str]) -> BTreeMap<String, u64> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/facts_oracle.py");
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.rsplit_once('\t'))
        .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
        .collect()
}

/// Every `.gib` game's speed and termination, counted by qipu and by the Python oracle; and
/// the board's own ending for the results that name none (`완승`): printed, so that the
/// mapping's choice (a bare `완승` says nothing of how) stays checked against the data.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn gib_clocks_and_endings_match_an_independent_count() {
    let Some(data) = shared() else { return };
    let dir = data.join("janggi/gib");
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    let mut wan: BTreeMap<String, u64> = BTreeMap::new();
    for g in read_path(&dir).flatten() {
        let speed = g.tags.speed.map_or("none".to_string(), |s| s.to_string());
        *ours.entry(format!("speed={speed}")).or_default() += 1;
        let term = g
            .tags
            .termination
            .map_or("none".to_string(), |t| t.to_string());
        *ours.entry(format!("termination={term}")).or_default() += 1;
        if let Some(tc) = g.tags.time_control {
            *ours.entry(format!("clock={tc}")).or_default() += 1;
        }
        let result = g.tags.raw.iter().find(|(n, _)| n == "대국결과");
        if result.is_some_and(|(_, v)| v.ends_with("완승")) {
            let end = replay(&g).ok().and_then(|r| r.end).map(|e| e.reason);
            let key = match end {
                Some(EndReason::Checkmate) => "mate on the board",
                Some(_) => "other end on the board",
                None => "no end on the board",
            };
            *wan.entry(key.to_string()).or_default() += 1;
        }
    }
    println!("완승 games: {wan:?}");
    let theirs = oracle(&["gib", dir.to_str().unwrap()]);
    let clocks = |m: &BTreeMap<String, u64>| -> BTreeMap<String, u64> {
        m.iter()
            .filter(|(k, _)| k.starts_with("clock="))
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    assert_eq!(clocks(&ours), clocks(&theirs));
    let rest = |m: &BTreeMap<String, u64>| -> BTreeMap<String, u64> {
        m.iter()
            .filter(|(k, _)| !k.starts_with("clock=") && !k.ends_with("=none"))
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    assert_eq!(rest(&ours), rest(&theirs));
    assert!(theirs.get("speed=rapid").copied().unwrap_or(0) > 3000);
}

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

/// One game's facts written as `scripts/facts_oracle.py csv` writes them.
fn csv_facts_line(g: &qipu::formats::Game) -> String {
    use qipu::formats::facts::Score;
    use qipu::rules::{Color, Outcome};
    let raw = |name: &str| {
        g.tags
            .raw
            .iter()
            .find(|(n, _)| n == name)
            .map_or("-".to_string(), |(_, v)| v.clone())
    };
    let result = match g.tags.result {
        Some(Outcome::Decisive {
            winner: Color::First,
        }) => "1-0",
        Some(Outcome::Decisive {
            winner: Color::Second,
        }) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
        None => "*",
    };
    let opt = |x: Option<String>| x.unwrap_or_else(|| "-".to_string());
    let evals: Vec<String> = g
        .moves
        .iter()
        .map(|m| match m.eval.as_ref().map(|e| e.score) {
            Some(Score::Cp(n)) => format!("cp{n}"),
            Some(Score::Mate(n)) => format!("mate{n}"),
            None => "-".to_string(),
        })
        .collect();
    [
        raw("game_id"),
        g.moves.len().to_string(),
        g.moves
            .iter()
            .take(6)
            .map(|m| m.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        opt(g.tags.date.clone()),
        opt(g.tags.first_rating.map(|r| r.to_string())),
        opt(g.tags.second_rating.map(|r| r.to_string())),
        result.to_string(),
        opt(g.tags.termination.map(|t| t.to_string())),
        opt(g.tags.time_control.map(|t| t.to_string())),
        opt(g.tags.speed.map(|s| s.to_string())),
        opt(g.tags.mode.map(|m| m.to_string())),
        evals.join(","),
        g.moves
            .iter()
            .filter(|m| m.eval.is_some())
            .count()
            .to_string(),
    ]
    .join("|")
}

/// The shared month-file of the elephantchess dataset: every game's facts, moves and first
/// evaluations equal the Python reading of the CSV, and every game replays.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn elephantchess_csv_matches_an_independent_reading() {
    let Some(data) = shared() else { return };
    let dir = data.join("xiangqi/elephantchess");
    let csv: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    assert!(!csv.is_empty());
    let mut ours = BTreeMap::new();
    let mut replayed = 0;
    for f in &csv {
        for g in read_path(f) {
            let g = g.unwrap_or_else(|e| panic!("{e}"));
            replay(&g).unwrap_or_else(|e| panic!("{e}"));
            replayed += 1;
            *ours.entry(csv_facts_line(&g)).or_insert(0u64) += 1;
        }
    }
    let args: Vec<&str> = std::iter::once("csv")
        .chain(csv.iter().map(|p| p.to_str().unwrap()))
        .collect();
    let theirs = oracle(&args);
    let only_ours: Vec<_> = ours
        .keys()
        .filter(|k| !theirs.contains_key(*k))
        .take(3)
        .collect();
    let only_theirs: Vec<_> = theirs
        .keys()
        .filter(|k| !ours.contains_key(*k))
        .take(3)
        .collect();
    assert_eq!(
        ours, theirs,
        "\nours only: {only_ours:#?}\ntheirs only: {only_theirs:#?}"
    );
    println!("{replayed} elephantchess games read and replayed, facts equal to the oracle's");
    assert_eq!(replayed, 167);
}

//! The rules core against Fairy-Stockfish: perft tables, legal-move sets, check and game end,
//! keys (incremental = from scratch, frozen reference), FEN round trips.

use std::{collections::BTreeSet, path::Path};

use qipu::rules::{
    divide, perft, AnyPosition, Color, EndReason, History, Janggi, Move, Outcome, Position, Setup,
    Square, Variant, Xiangqi,
};

use crate::common::{
    fixture, fixture_positions, fs_move, oracle_positions, read_jsonl, shared_dir,
};

/// Published perft counts (Fairy-Stockfish tests/perft.sh and independent xiangqi engines, as
/// collected in shared/specs/oracle.md §5).
const XIANGQI_PERFT: &[(&str, &[u64])] = &[
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        &[44, 1920, 79666, 3290240],
    ),
    (
        "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
        &[49, 2265, 100326, 4485547],
    ),
    (
        "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
        &[13, 272, 3707, 92741],
    ),
    (
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        &[38, 1128, 43929, 1339047],
    ),
    (
        "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1",
        &[58, 1651, 90744, 2605437],
    ),
];

const JANGGI_PERFT: &[(&str, &[u64])] = &[
    (
        "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
        &[32, 1024, 33000, 1065277],
    ),
    (
        "1n1kaabn1/cr2N4/5C1c1/p1pNp3p/9/9/P1PbP1P1P/3r1p3/4A4/R1BA1KB1R b - - 0 1",
        &[2, 61, 2644, 76763],
    ),
    (
        "1Pbcka3/3nNn1c1/N2CaC3/1pB6/9/9/5P3/9/4K4/9 w - - 0 23",
        &[25, 378, 8835, 151202],
    ),
];

fn check_perft<P: Position>(fen: &str, expected: &[u64]) {
    let pos = P::from_fen(fen).unwrap();
    for (i, &n) in expected.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(perft(&pos, depth, true), n, "{fen} depth {depth}");
        if depth <= 3 {
            let sum: u64 = divide(&pos, depth, true).iter().map(|(_, n)| n).sum();
            assert_eq!(sum, n, "divide {fen} depth {depth}");
        }
    }
    let shallow = expected.len().min(3) as u32;
    assert_eq!(
        perft(&pos, shallow, false),
        expected[shallow as usize - 1],
        "{fen} without bulk"
    );
}

#[test]
fn perft_table_xiangqi() {
    for (fen, counts) in XIANGQI_PERFT {
        check_perft::<Xiangqi>(fen, counts);
    }
}

#[test]
fn perft_table_janggi() {
    for (fen, counts) in JANGGI_PERFT {
        check_perft::<Janggi>(fen, counts);
    }
}

#[test]
fn perft_janggi_sixteen_setups() {
    // oracle.md §5: d3 depends only on Cho's back rank; d4 given for eight pairs.
    let d3 = [
        ("RNBA1ABNR", 33000),
        ("RBNA1ANBR", 33336),
        ("RNBA1ANBR", 33168),
        ("RBNA1ABNR", 33168),
    ];
    let d4 = [
        ("rnba1abnr", "RNBA1ABNR", 1065277),
        ("rnba1abnr", "RBNA1ANBR", 1076739),
        ("rnba1abnr", "RNBA1ANBR", 1071008),
        ("rnba1abnr", "RBNA1ABNR", 1071008),
        ("rbna1anbr", "RNBA1ABNR", 1076353),
        ("rnba1anbr", "RNBA1ABNR", 1070815),
        ("rbna1abnr", "RNBA1ABNR", 1070815),
        ("rbna1anbr", "RBNA1ANBR", 1087883),
    ];
    let fen = |han: &str, cho: &str| {
        format!("{han}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{cho} w - - 0 1")
    };
    for han in ["rnba1abnr", "rbna1anbr", "rnba1anbr", "rbna1abnr"] {
        for (cho, n3) in d3 {
            let pos = Janggi::from_fen(&fen(han, cho)).unwrap();
            assert_eq!(perft(&pos, 1, true), 32);
            assert_eq!(perft(&pos, 2, true), 1024);
            assert_eq!(perft(&pos, 3, true), n3, "{han} / {cho}");
        }
    }
    for (han, cho, n4) in d4 {
        assert_eq!(
            perft(&Janggi::from_fen(&fen(han, cho)).unwrap(), 4, true),
            n4,
            "{han} / {cho}"
        );
    }
}

#[test]
#[ignore = "depth 5: run by .ci/run"]
fn perft_depth_five() {
    assert_eq!(perft(&Xiangqi::new(), 5, true), 133_312_995);
    let pos = Xiangqi::from_fen(XIANGQI_PERFT[3].0).unwrap();
    assert_eq!(perft(&pos, 5, true), 53_112_976);
    let pos = Xiangqi::from_fen(XIANGQI_PERFT[4].0).unwrap();
    assert_eq!(perft(&pos, 5, true), 140_822_416);
}

fn variant_of(record: &serde_json::Value) -> Variant {
    record["variant"].as_str().unwrap().parse().unwrap()
}

fn start_of(record: &serde_json::Value) -> AnyPosition {
    AnyPosition::from_fen(variant_of(record), record["start_fen"].as_str().unwrap()).unwrap()
}

/// Checks every record of an oracle perft file; returns how many were checked.
fn check_perft_file(path: &Path) -> usize {
    let records = read_jsonl(path);
    for r in &records {
        let pos = AnyPosition::from_fen(variant_of(r), r["fen"].as_str().unwrap()).unwrap();
        for (i, n) in r["perft"].as_array().unwrap().iter().enumerate() {
            let depth = i as u32 + 1;
            let expected = n.as_u64().unwrap();
            let got = match &pos {
                AnyPosition::Xiangqi(p) => perft(p, depth, true),
                AnyPosition::Janggi(p) => perft(p, depth, true),
            };
            assert_eq!(got, expected, "{} depth {depth}", r["fen"]);
            // `divide` splits the same count by root move, with and without bulk leaves.
            for bulk in [true, false] {
                let split = match &pos {
                    AnyPosition::Xiangqi(p) => divide(p, depth, bulk),
                    AnyPosition::Janggi(p) => divide(p, depth, bulk),
                };
                assert_eq!(split.len(), pos.legal_moves().len(), "{}", r["fen"]);
                let sum: u64 = split.iter().map(|(_, n)| n).sum();
                assert_eq!(
                    sum, expected,
                    "divide {} depth {depth} bulk {bulk}",
                    r["fen"]
                );
            }
        }
    }
    records.len()
}

/// Replays each record's moves from its start and compares legal moves (as a set), check,
/// game end, FEN and keys with the oracle. Returns how many records were checked.
fn check_positions_file(path: &Path) -> usize {
    let records = read_jsonl(path);
    for r in &records {
        let mut pos = start_of(r);
        let mut history = History::new(pos.key());
        for text in r["moves_played_uci"].as_array().unwrap() {
            let m = fs_move(text.as_str().unwrap());
            pos.play(m)
                .unwrap_or_else(|e| panic!("{e} replaying {}", r["start_fen"]));
            history.push(pos.key(), pos.board().halfmoves());
            // The incrementally updated key equals the key computed from scratch.
            let fresh = AnyPosition::from_fen(pos.variant(), &pos.fen())
                .unwrap_or_else(|e| panic!("{e}: {} after {text}", pos.fen()));
            assert_eq!(
                pos.key(),
                fresh.key(),
                "incremental key after {text} in {}",
                pos.fen()
            );
        }
        let fen = r["fen"].as_str().unwrap();
        let ours = pos.fen();
        let first_two = |f: &str| f.split(' ').take(2).collect::<Vec<_>>().join(" ");
        assert_eq!(first_two(&ours), first_two(fen));

        let expected: BTreeSet<String> = r["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| fs_move(m.as_str().unwrap()).to_string())
            .collect();
        let got: BTreeSet<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(got, expected, "legal moves of {fen}");
        assert_eq!(
            pos.is_check(),
            r["in_check"].as_bool().unwrap(),
            "check in {fen}"
        );

        let ours_end = pos.end();
        let result = &r["result"];
        if result.is_null() {
            assert_eq!(ours_end, None, "no game end expected in {fen}");
            assert_eq!(history.end(), None, "no repetition expected in {fen}");
            continue;
        }
        let winner = match result["winner"].as_str().unwrap() {
            "w" => Outcome::Decisive {
                winner: Color::First,
            },
            "b" => Outcome::Decisive {
                winner: Color::Second,
            },
            _ => Outcome::Draw,
        };
        let end = match result["kind"].as_str().unwrap() {
            "no_moves" => {
                let end = ours_end.unwrap_or_else(|| panic!("expected mate/stalemate in {fen}"));
                assert!(matches!(
                    end.reason,
                    EndReason::Checkmate | EndReason::Stalemate
                ));
                end
            }
            "immediate" => {
                let end =
                    ours_end.unwrap_or_else(|| panic!("expected bikjang/double pass in {fen}"));
                assert!(matches!(
                    end.reason,
                    EndReason::Bikjang | EndReason::DoublePass
                ));
                end
            }
            "optional" => history
                .end()
                .unwrap_or_else(|| panic!("expected repetition/move limit in {fen}")),
            other => panic!("unknown result kind {other}"),
        };
        assert_eq!(end.outcome, winner, "winner in {fen}");
    }
    records.len()
}

#[test]
fn oracle_fixtures() {
    let mut n = 0;
    for name in [
        "xiangqi-positions",
        "janggi-positions",
        "xiangqi-endgame-positions",
    ] {
        n += check_positions_file(&fixture(&format!("rules/{name}.jsonl")));
    }
    for name in ["xiangqi-perft", "janggi-perft"] {
        n += check_perft_file(&fixture(&format!("rules/{name}.jsonl")));
    }
    assert!(n > 500, "only {n} fixture records");
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn oracle_full() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("oracle");
    for name in [
        "xiangqi-positions",
        "janggi-positions",
        "xiangqi-endgame-positions",
    ] {
        let n = check_positions_file(&dir.join(format!("{name}.jsonl")));
        eprintln!("oracle {name}: {n} records agree");
    }
    for name in ["xiangqi-perft", "janggi-perft"] {
        let n = check_perft_file(&dir.join(format!("{name}.jsonl")));
        eprintln!("oracle {name}: {n} records agree");
    }
}

/// Visits every position reached in the fixture games, with every legal move.
fn for_each_fixture_position(mut f: impl FnMut(&AnyPosition)) {
    for name in [
        "xiangqi-positions",
        "janggi-positions",
        "xiangqi-endgame-positions",
    ] {
        for r in read_jsonl(&fixture(&format!("rules/{name}.jsonl"))) {
            let mut pos = start_of(&r);
            for text in r["moves_played_uci"].as_array().unwrap() {
                pos.play_unchecked(fs_move(text.as_str().unwrap()));
            }
            f(&pos);
        }
    }
}

/// Checks `is_legal` against the full legal-move list for every origin and destination of
/// a position (and the pass); returns how many moves were compared.
fn is_legal_agrees(pos: &AnyPosition) -> usize {
    let legal = pos.legal_moves();
    let mut candidates = vec![Move::PASS];
    for from in 0..90u8 {
        for to in 0..90u8 {
            if let (Some(f), Some(t)) = (Square::new(from), Square::new(to)) {
                if f != t {
                    candidates.push(Move::new(f, t));
                }
            }
        }
    }
    for &m in &candidates {
        assert_eq!(pos.is_legal(m), legal.contains(m), "{m} in {}", pos.fen());
    }
    candidates.len()
}

/// `is_legal` tests one move (Xiangqi: its shape and the general's safety, directly; Janggi:
/// the moved piece's moves); on every fixture position it must agree with the full
/// legal-move list for every origin and destination (and the pass).
#[test]
fn is_legal_agrees_with_the_legal_move_list() {
    let mut checked = 0;
    for_each_fixture_position(|pos| checked += is_legal_agrees(pos));
    assert!(checked > 4_000_000, "{checked}");
}

/// The same over the notation fixtures' positions (middlegames and endgames of both games).
#[test]
fn is_legal_agrees_on_the_notation_positions() {
    let checked: usize = fixture_positions().iter().map(is_legal_agrees).sum();
    assert!(checked > 1_000_000, "{checked}");
}

/// The same over every position of the full oracle files.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn is_legal_agrees_on_all_oracle_positions() {
    let Some(shared) = shared_dir() else { return };
    let (positions, refused) = oracle_positions(&shared.join("oracle"));
    assert!(refused < 20, "{refused}");
    let checked: usize = positions.iter().map(is_legal_agrees).sum();
    eprintln!("is_legal: {checked} moves agree with the oracle positions' move lists");
}

#[test]
fn generated_moves_never_leave_the_mover_in_check() {
    // Validation rejects a position whose side not to move is in check, independently of
    // move generation: so every child of a legal move must validate.
    for_each_fixture_position(|pos| {
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let fen = child.fen();
            assert!(
                AnyPosition::from_fen(pos.variant(), &fen).is_ok(),
                "{m} from {} leaves the mover in check",
                pos.fen()
            );
        }
    });
}

#[test]
fn copy_make_keeps_the_parent_and_fen_round_trips() {
    for_each_fixture_position(|pos| {
        let before = (pos.fen(), pos.key());
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let again = AnyPosition::from_fen(pos.variant(), &child.fen()).unwrap();
            assert_eq!(again.fen(), child.fen());
            assert_eq!(again.key(), child.key());
        }
        assert_eq!((pos.fen(), pos.key()), before);
        let setup = Setup::from_fen(&pos.fen()).unwrap();
        assert_eq!(setup.to_fen(), pos.fen());
    });
}

#[test]
fn keys_differ_between_games_sides_and_mirrors() {
    let xq = AnyPosition::new(Variant::Xiangqi);
    let jg = AnyPosition::new(Variant::Janggi);
    assert_ne!(xq.key(), jg.key());
    let black = AnyPosition::from_fen(
        Variant::Xiangqi,
        &Variant::Xiangqi.start_fen().replace(" w ", " b "),
    )
    .unwrap();
    assert_ne!(xq.key(), black.key());
    let mut a = xq.clone();
    a.play("h2e2".parse().unwrap()).unwrap();
    let mut b = xq;
    b.play("b2e2".parse().unwrap()).unwrap();
    assert_ne!(a.key(), b.key());
}

#[test]
fn zobrist_reference_keys_are_frozen() {
    // Each row: variant, start FEN (empty = standard), canonical moves, key. The keys were
    // computed by scripts/gen-zobrist-reference.py straight from the frozen table, not by qipu.
    let text = std::fs::read_to_string(fixture("rules/zobrist.csv")).unwrap();
    let mut rows = 0;
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let variant: Variant = cols[0].parse().unwrap();
        let mut pos = if cols[1].is_empty() {
            AnyPosition::new(variant)
        } else {
            AnyPosition::from_fen(variant, cols[1]).unwrap()
        };
        for m in cols[2].split_whitespace() {
            pos.play(m.parse().unwrap()).unwrap();
        }
        assert_eq!(format!("{:016x}", pos.key()), cols[3], "{line}");
        rows += 1;
    }
    assert!(rows >= 20);
}

#[test]
fn janggi_rule_sets_differ_where_they_should() {
    use qipu::rules::{JanggiRules, Move};
    // Bikjang: from oracle.md §3, only blocks, king moves off the file, or the pass.
    let fen = "4a4/bc3n3/5k3/R8/4P4/3P5/P2c5/3AC2N1/2N2K3/2B2A1B1 w - - 9 53";
    let pos = Janggi::from_fen(fen).unwrap();
    let moves: BTreeSet<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    let expected: BTreeSet<String> = ["a6f6", "c0f2", "e5f5", "f1e1", "pass", "h0f3", "h2f3"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(moves, expected);
    // Under server rules the generals may stay facing.
    let mut server = pos.clone();
    server.set_rules(JanggiRules::SERVER);
    assert!(server.legal_moves().len() > expected.len());
    // Two passes: a counted end under tournament rules (Han +1.5 wins the start), a draw in
    // casual play, and nothing at all on the servers.
    for (rules, outcome) in [
        (
            JanggiRules::TOURNAMENT,
            Some(Outcome::Decisive {
                winner: Color::Second,
            }),
        ),
        (JanggiRules::CASUAL, Some(Outcome::Draw)),
        (JanggiRules::SERVER, None),
    ] {
        let mut p = Janggi::new();
        p.set_rules(rules);
        p.play(Move::PASS).unwrap();
        p.play(Move::PASS).unwrap();
        assert_eq!(p.end().map(|e| e.outcome), outcome, "{rules:?}");
    }
}

/// A small deterministic generator for random playouts (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn random_playouts_keep_every_invariant() {
    // 300 random games per variant (Janggi from random setups and under every rule set):
    // after every move the key equals the key from scratch, the FEN round-trips, the mover
    // is not left in check, and the game stops exactly when no legal move remains.
    use qipu::rules::JanggiRules;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let janggi_ranks = ["rnba1abnr", "rbna1anbr", "rnba1anbr", "rbna1abnr"];
    let rule_sets = [
        JanggiRules::TOURNAMENT,
        JanggiRules::TRADITIONAL,
        JanggiRules::CASUAL,
        JanggiRules::SERVER,
    ];
    let mut plies = 0;
    for game in 0..600 {
        let mut pos = if game % 2 == 0 {
            AnyPosition::new(Variant::Xiangqi)
        } else {
            let han = janggi_ranks[(rng.next() % 4) as usize];
            let cho = janggi_ranks[(rng.next() % 4) as usize].to_ascii_uppercase();
            let fen = format!("{han}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{cho} w - - 0 1");
            AnyPosition::from_fen(Variant::Janggi, &fen)
                .unwrap()
                .with_janggi_rules(rule_sets[(rng.next() % 4) as usize])
        };
        for _ in 0..150 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                assert!(pos.end().is_some(), "no moves but no end in {}", pos.fen());
                break;
            }
            assert!(pos.end().is_none(), "moves but an end in {}", pos.fen());
            let m = moves[(rng.next() % moves.len() as u64) as usize];
            pos.play(m).unwrap();
            plies += 1;
            let fresh = AnyPosition::from_fen(pos.variant(), &pos.fen())
                .unwrap_or_else(|e| panic!("{e} after {m} in {}", pos.fen()));
            assert_eq!(fresh.key(), pos.key());
            assert_eq!(fresh.fen(), pos.fen());
            assert_eq!(qipu::rules::Move::from_u16(m.to_u16()), Some(m));
        }
    }
    assert!(plies > 30_000, "{plies} plies");
}

/// `qipu perft --divide` prints one line per root move whose counts add up to the total,
/// which is the perft count of the full depth, with bulk leaves or not (README's example:
/// Janggi depth 4 is 1,065,277; Xiangqi depth 2 is 1,920).
#[test]
fn perft_divide_on_the_command_line_sums_to_the_full_depth() {
    for (variant, depth, total, root) in [
        ("xiangqi", "2", 1920u64, 44usize),
        ("janggi", "3", 33_000, 32),
    ] {
        for extra in [None, Some("--no-bulk")] {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_qipu"));
            cmd.args(["perft", "--variant", variant, "--depth", depth, "--divide"]);
            cmd.args(extra);
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let counts: Vec<u64> = lines
                .iter()
                .filter_map(|l| l.split_once(": "))
                .map(|(_, n)| n.parse().unwrap())
                .collect();
            assert_eq!(counts.len(), root, "{variant} {extra:?}: {text}");
            assert_eq!(counts.iter().sum::<u64>(), total, "{variant} {extra:?}");
            assert_eq!(lines.last().copied(), Some(total.to_string().as_str()));
        }
    }
}

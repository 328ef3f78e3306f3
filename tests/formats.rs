//! Readers, decoding, `read_path`, replay and writers on small fixtures
//! (`tests/data/formats/`, made by `make_fixtures.py` there), byte-level robustness, and the
//! real collections under `../shared` (ignored by default).

mod dumps;
mod errors;
mod facts;
mod fuzz;
mod shared;

use std::path::Path;

use qipu::{
    formats::{
        decode::{decode_text, TextEncoding},
        pgn, read_bytes, read_path, replay,
        write::write_pgn,
        Game, GameError,
    },
    rules::{Color, Move, Outcome, Variant},
};

use crate::common::fixture;

fn read_fixture(name: &str) -> Vec<Result<Game, GameError>> {
    let path = fixture(&format!("formats/{name}"));
    let bytes = std::fs::read(&path).unwrap();
    read_bytes(name, &bytes)
}

fn games(name: &str) -> Vec<Game> {
    read_fixture(name)
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn texts(g: &Game) -> Vec<&str> {
    g.moves.iter().map(|m| m.text.as_str()).collect()
}

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

#[test]
fn gbk_pgn_with_advert_inner_quotes_and_variations() {
    let bytes = std::fs::read(fixture("formats/gbk-crlf.pgn")).unwrap();
    assert_eq!(decode_text(&bytes).encoding, TextEncoding::Gb18030);
    let g = games("gbk-crlf.pgn");
    assert_eq!(g.len(), 2);
    let t = &g[0].tags;
    assert_eq!(t.event.as_deref(), Some("\"中立杯\"象棋快棋赛"));
    assert_eq!(t.date.as_deref(), Some("2006-08-03"));
    assert_eq!(t.first.as_deref(), Some("甲"));
    assert_eq!(t.second.as_deref(), Some("乙"));
    assert_eq!(t.first_team.as_deref(), Some("北京"));
    assert_eq!(t.second_team.as_deref(), Some("上海"));
    assert_eq!(t.ecco.as_deref(), Some("B00"));
    assert_eq!(t.opening.as_deref(), Some("中炮局"));
    assert_eq!(
        t.result,
        Some(Outcome::Decisive {
            winner: Color::First
        })
    );
    assert_eq!(
        texts(&g[0]),
        ["炮二平五", "马８进７", "马二进三", "车９平８"]
    );
    assert_eq!(g[0].moves[0].comment.as_deref(), Some("中炮"));
    let var = &g[0].moves[0].variations;
    assert_eq!(var.len(), 1);
    assert_eq!(
        var[0].iter().map(|n| n.text.as_str()).collect::<Vec<_>>(),
        ["相三进五", "马８进７"]
    );
    assert_eq!(var[0][1].variations[0][0].text, "炮８平５");
    // The advert after the result is not a game; the second game follows.
    assert_eq!(g[1].source.index, 1);
    assert_eq!(g[1].tags.date.as_deref(), Some("2007-01"));
    assert_eq!(texts(&g[1]), ["兵七进一", "卒７进１"]);
}

#[test]
fn big5_black_to_move_numbering() {
    let bytes = std::fs::read(fixture("formats/big5-black-first.pgn")).unwrap();
    assert_eq!(decode_text(&bytes).encoding, TextEncoding::Big5);
    let g = games("big5-black-first.pgn");
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].tags.event.as_deref(), Some("測試"));
    assert_eq!(g[0].tags.date.as_deref(), Some("1981"));
    assert_eq!(
        g[0].start_fen.as_deref(),
        Some("4k4/9/9/4p4/9/9/9/9/9/3K5 b - - 0 1")
    );
    assert_eq!(texts(&g[0]), ["卒５進１", "帥四進一", "卒５進１"]);
}

#[test]
fn utf16_and_utf8_bom() {
    let g = games("utf16le.pgn");
    assert_eq!(g[0].tags.first.as_deref(), Some("红"));
    assert_eq!(texts(&g[0]), ["H2-E2", "H9-G7", "H0-G2", "I9-H9"]);
    let rp = replay(&g[0]).unwrap();
    assert_eq!(rp.moves, [mv("h2e2"), mv("h9g7"), mv("h0g2"), mv("i9h9")]);
    let g = games("utf8-bom-wxf.pgn");
    assert_eq!(
        texts(&g[0]),
        ["Ｃ２＝５", "Ｈ８＋７", "Ｈ２＋３", "Ｒ９＝８"]
    );
    assert_eq!(g[0].tags.result, Some(Outcome::Draw));
}

#[test]
fn gib_games_forfeit_board_and_old_coordinates() {
    let bytes = std::fs::read(fixture("formats/games.gib")).unwrap();
    assert_eq!(decode_text(&bytes).encoding, TextEncoding::Cp949);
    let g = games("games.gib");
    assert_eq!(g.len(), 4);
    assert!(g.iter().all(|g| g.variant == Variant::Janggi));
    // 1: formations (Cho 상마상마, Han 마상마상), comments, clock marks and a pass.
    let t = &g[0].tags;
    assert_eq!(t.event.as_deref(), Some("연습대국"));
    assert_eq!(t.round.as_deref(), Some("1"));
    assert_eq!(t.site, None); // 미상 = unknown
    assert_eq!(t.date.as_deref(), Some("2016-12-06"));
    assert_eq!(t.first.as_deref(), Some("가"));
    assert_eq!(t.second.as_deref(), Some("나"));
    assert_eq!(t.first_formation.as_deref(), Some("상마상마"));
    assert_eq!(t.second_formation.as_deref(), Some("마상마상"));
    assert_eq!(
        t.result,
        Some(Outcome::Decisive {
            winner: Color::First
        })
    );
    assert_eq!(
        g[0].start_fen.as_deref(),
        Some("rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ABNR w - - 0 1")
    );
    assert_eq!(
        texts(&g[0]),
        ["71졸72", "41병42", "08마87", "한수쉼", "79楚卒78"]
    );
    assert_eq!(g[0].moves[2].comment.as_deref(), Some("말"));
    // 2: a forfeit without moves (stray 0x1A 0xFF before it).
    assert!(g[1].moves.is_empty());
    assert_eq!(g[1].tags.first.as_deref(), Some("다"));
    assert_eq!(
        g[1].tags.result,
        Some(Outcome::Decisive {
            winner: Color::Second
        })
    );
    // 3: a [판] board, Han without advisors, Han moves first.
    assert_eq!(
        g[2].start_fen.as_deref(),
        Some("rnb3nbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR b - - 0 1")
    );
    assert_eq!(g[2].tags.result, Some(Outcome::Draw));
    // 4: old coordinates are refused at replay with a clear message.
    let e = replay(&g[3]).unwrap_err();
    assert_eq!(e.game, Some(3));
    assert!(e.reason().contains("구좌표"), "{e}");
}

#[test]
fn tygem_go_gib_is_one_file_error() {
    let r = read_fixture("tygem-go.gib");
    assert_eq!(r.len(), 1);
    let e = r[0].as_ref().unwrap_err();
    assert_eq!(e.game, None);
    assert!(e.reason().contains("Go"), "{e}");
}

#[test]
fn eglib_and_move_list() {
    let g = games("puzzles.eglib");
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].tags.event.as_deref(), Some("车的杀法"));
    let rp = replay(&g[0]).unwrap();
    assert_eq!(rp.moves, [mv("e4e8"), mv("d9e8")]);
    assert!(g[1].moves.is_empty());
    assert!(replay(&g[1]).is_ok()); // a two-field FEN
    let g = games("movelist.txt");
    assert_eq!(g.len(), 1);
    let rp = replay(&g[0]).unwrap();
    assert_eq!(rp.moves, [mv("h2e2"), mv("h9g7"), mv("h0g2"), mv("i9h9")]);
}

#[test]
fn janggi_pgn_pychess() {
    let g = games("janggi-pychess.pgn");
    assert_eq!(g[0].variant, Variant::Janggi);
    assert_eq!(g[0].tags.first.as_deref(), Some("cho"));
    // FS squares, ranks 1–10: a4b4 = a3b3, a7b7 = a6b6, e2e2 = Cho's general passes.
    let rp = replay(&g[0]).unwrap();
    assert_eq!(rp.moves, [mv("a3b3"), mv("a6b6"), Move::PASS]);
}

/// Cuts a PGN text at every game boundary `chunk_starts` allows, reads each chunk alone and
/// checks that together they are exactly the games of the whole text (byte offsets too).
/// Returns the number of chunks.
pub fn cut_anywhere_reads_the_same(name: &str, text: &str) -> usize {
    let whole: Vec<Game> = pgn::read_pgn(name, text, Variant::Xiangqi)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let starts = pgn::chunk_starts(text, 1);
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    let mut joined = Vec::new();
    for (start, end) in starts.iter().copied().zip(ends) {
        assert!(
            start == 0 || text[start..].starts_with('['),
            "{name}: cut at {start}"
        );
        for g in pgn::read_pgn(name, &text[start..end], Variant::Xiangqi) {
            let mut g = g.unwrap();
            g.source.index = joined.len();
            // Offsets count from the chunk's start: moved to the whole text's, they must agree.
            g.offset = g.offset.map(|o| o + u32::try_from(start).unwrap());
            joined.push(g);
        }
    }
    assert_eq!(joined.len(), whole.len(), "{name}");
    for (a, b) in joined.iter().zip(&whole) {
        assert_eq!(a, b, "{name}: game {}", b.source.index);
    }
    starts.len()
}

#[test]
fn pgn_cut_at_any_game_boundary_reads_the_same_games() {
    let mut chunks = 0;
    for name in [
        "big5-black-first.pgn",
        "gbk-crlf.pgn",
        "janggi-pychess.pgn",
        "utf16le.pgn",
        "utf8-bom-wxf.pgn",
    ] {
        let bytes = std::fs::read(fixture(&format!("formats/{name}"))).unwrap();
        chunks += cut_anywhere_reads_the_same(name, &decode_text(&bytes).text);
    }
    // The bundled 1,391-game ICCS file, and a text whose comments hold tag-like lines.
    let zip = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/wukong/Hu_Ronghua_1391_UCI_games.pgn.zip");
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip).unwrap()).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_index(0).unwrap(), &mut text).unwrap();
    assert_eq!(cut_anywhere_reads_the_same("hu.pgn", &text), 1391);
    let tricky = "[Event \"a\"]\n1. h2e2 {\n[Event \"not a game\"]\n} h9g7 ; {\n[Red \"b\"]\n1. h0g2 1-0\nadvert {\n[Red \"c\"]\n1. b0c2 *\n";
    // Three games; no cut before the third, as a `{` in the skipped text after a result
    // is taken (conservatively) for an open comment.
    assert_eq!(cut_anywhere_reads_the_same("tricky.pgn", tricky), 2);
    assert!(chunks >= 5);

    // Through the public readers: the default chunks of the zip give every game, numbered
    // 0..1391 within the member, as the file read at once.
    let via_chunks = read_path(&zip).map(|g| g.unwrap()).collect::<Vec<_>>();
    assert!(qipu::formats::chunks(&zip).count() > 3);
    let whole = pgn::read_pgn(
        &format!("{}:Hu_Ronghua_1391_UCI_games.pgn", zip.display()),
        &text,
        Variant::Xiangqi,
    );
    assert_eq!(
        via_chunks,
        whole.into_iter().map(Result::unwrap).collect::<Vec<_>>()
    );
}

#[test]
fn read_path_walks_sorted_with_zip_members_and_skips_non_records() {
    let dir = fixture("formats");
    let all: Vec<Result<Game, GameError>> = read_path(&dir).collect();
    let names: Vec<String> = all
        .iter()
        .map(|r| match r {
            Ok(g) => g.source.file.clone(),
            Err(e) => e.file.clone(),
        })
        .map(|f| {
            Path::new(&f)
                .strip_prefix(&dir)
                .map(|p| p.display().to_string())
                .unwrap_or(f)
        })
        .collect();
    let mut dedup = names.clone();
    dedup.dedup();
    assert_eq!(
        dedup,
        [
            "archive.zip:inner/a.pgn",
            "archive.zip:inner/b.pgn",
            "big5-black-first.pgn",
            "elephantchess.csv",
            "games.gib",
            "gbk-crlf.pgn",
            "janggi-pychess.pgn",
            "movelist.txt",
            "puzzles.eglib",
            "tygem-go.gib",
            "utf16le.pgn",
            "utf8-bom-wxf.pgn",
        ]
    );
    // The one error is the Go record; the README and the zip's notes.txt are skipped.
    let errors: Vec<&GameError> = all.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].file.ends_with("tygem-go.gib"));
    // A file named directly is always reported.
    let readme: Vec<_> = read_path(&dir.join("README")).collect();
    assert_eq!(readme.len(), 1);
    assert!(readme[0].is_err());
    let missing: Vec<_> = read_path(&dir.join("no-such-file.pgn")).collect();
    assert_eq!(missing[0].as_ref().unwrap_err().game, None);
}

#[test]
fn replay_error_names_file_game_ply_and_token() {
    let r = read_bytes("x.pgn", b"[Red \"a\"]\n1. h2e2 h9g7 2. h2h9 *\n");
    let e = replay(r[0].as_ref().unwrap()).unwrap_err();
    assert_eq!(e.file, "x.pgn");
    assert_eq!(e.game, Some(0));
    assert_eq!(e.ply, Some(3));
    assert_eq!(e.token.as_deref(), Some("h2h9"));
}

#[test]
fn pgn_round_trip_keeps_moves_variations_and_comments() {
    let g = games("utf16le.pgn");
    let text = write_pgn(&g[0], &|_, m| m.to_string(), Some("ICCS")).unwrap();
    let back = read_bytes("back.pgn", text.as_bytes());
    let back = back[0].as_ref().unwrap();
    assert_eq!(replay(back).unwrap().moves, replay(&g[0]).unwrap().moves);
    assert_eq!(back.tags.first, g[0].tags.first);
    // Variations and comments (moves in coordinates so that they resolve without Chinese).
    let src = "[Red \"a\"]\n{intro} 1. h2e2 {c1} (1. b2e2 h9g7 (1... b9c7)) h9g7 2. h0g2 1-0\n";
    let g = read_bytes("v.pgn", src.as_bytes());
    let g = g[0].as_ref().unwrap();
    let text = write_pgn(g, &|_, m| m.to_string(), None).unwrap();
    let back = read_bytes("v2.pgn", text.as_bytes());
    let back = back[0].as_ref().unwrap();
    assert_eq!(back.moves, g.moves);
    assert_eq!(back.comment, g.comment);
    assert_eq!(back.tags.result, g.tags.result);
}

#[test]
fn janggi_play_after_two_passes_is_kept_and_noted() {
    let text = "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 한수쉼 2. 한수쉼 3. 71졸72\n";
    let g = read_bytes("p.gib", text.as_bytes());
    let rp = replay(g[0].as_ref().unwrap()).unwrap();
    assert_eq!(rp.moves, [Move::PASS, Move::PASS, mv("a3b3")]);
    assert_eq!(rp.notes, ["ply 2: play went on after two passes in a row"]);
}

#[test]
fn second_player_first_is_numbered_from_one_dots() {
    let src = "[FEN \"4k4/9/9/4p4/9/9/9/9/9/3K5 b - - 0 1\"]\n1... e6e5 2. d0d1 e5e4 *\n";
    let g = read_bytes("b.pgn", src.as_bytes());
    let text = write_pgn(g[0].as_ref().unwrap(), &|_, m| m.to_string(), None).unwrap();
    assert!(text.contains("\n1... e6e5 2. d0d1 e5e4 *"), "{text}");
}

/// Byte-level robustness: random bytes and real fixtures mutated (bytes flipped, truncated,
/// spliced) never panic and always terminate; every reader is reached through `read_bytes`.
#[test]
fn mutated_and_random_inputs_never_panic() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(fixture("formats"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x != "py"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    seeds.sort();
    let n = seeds.len();
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..n,
        proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        any::<usize>(),
        proptest::collection::vec(any::<u8>(), 0..64),
        any::<bool>(),
    );
    runner
        .run(&strategy, |(i, flips, cut, junk, random)| {
            let mut data = if random {
                junk.clone()
            } else {
                seeds[i].clone()
            };
            for (pos, b) in flips {
                if !data.is_empty() {
                    let p = pos % data.len();
                    data[p] = b;
                }
            }
            if !random && !data.is_empty() {
                let c = cut % (data.len() + 1);
                if c % 3 == 0 {
                    data.truncate(c);
                } else if c % 3 == 1 {
                    data.splice(c..c, junk.iter().copied());
                }
            }
            for g in read_bytes("fuzz", &data).into_iter().flatten() {
                let _ = replay(&g);
                let _ = write_pgn(&g, &|_, m| m.to_string(), None);
            }
            Ok(())
        })
        .unwrap();
}

/// `qipu convert`: Chinese PGN out of a GBK file, `.gib` out of a `.gib`; both read back to
/// the same moves; a rejected game makes the exit code 1.
#[test]
fn convert_cli_round_trips() {
    let bin = env!("CARGO_BIN_EXE_qipu");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .arg("convert")
            .args(args)
            .output()
            .unwrap()
    };
    let gbk = fixture("formats/gbk-crlf.pgn");
    let out = run(&[gbk.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[Format \"Chinese\"]"));
    assert!(
        text.contains("1. 炮二平五 {中炮} (1. 相三进五 马８进７ (1... 炮８平５)) 1... 马８进７"),
        "{text}"
    );
    let out = run(&[gbk.to_str().unwrap(), "--notation", "wxf"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1. C2.5 {中炮} (1. E3+5 H8+7 (1... C8.5)) 1... H8+7 2. H2+3 R9.8"),
        "{text}"
    );

    let gib = fixture("formats/games.gib");
    let out = run(&[gib.to_str().unwrap(), "--to", "gib"]);
    assert_eq!(out.status.code(), Some(1)); // the old-coordinates game is refused
    let text = out.stdout;
    let before: Vec<Vec<Move>> = games("games.gib")
        .iter()
        .filter_map(|g| replay(g).ok())
        .map(|r| r.moves)
        .collect();
    let after: Vec<Vec<Move>> = read_bytes("out.gib", &text)
        .into_iter()
        .map(|r| replay(&r.unwrap()).unwrap().moves)
        .collect();
    assert_eq!(before.len(), 3);
    assert_eq!(after, before);
    // .gib comes out in CP949 like real .gib files; `--encoding utf-8` on request.
    assert!(std::str::from_utf8(&text).is_err(), "CP949, not UTF-8");
    let utf8 = run(&[gib.to_str().unwrap(), "--to", "gib", "--encoding", "utf-8"]).stdout;
    let utf8 = String::from_utf8(utf8).unwrap();
    assert!(utf8.contains("대국"), "{utf8}");
    let (decoded, _, bad) = encoding_rs::EUC_KR.decode(&text);
    assert!(!bad);
    assert_eq!(decoded, utf8);
}

/// PGN `TimeControl` and `Termination` tags become facts; unknown or malformed values leave
/// them out and the game still reads.
#[test]
fn pgn_clock_and_termination_tags() {
    use qipu::formats::facts::{Speed, Termination, TimeControl};
    let text = "[Event \"a\"]\n[TimeControl \"300+3\"]\n[Termination \"time forfeit\"]\n1. h2e2 h9g7 1-0\n\
                [Event \"b\"]\n[TimeControl \"40/7200:1800\"]\n1. h2e2 *\n\
                [Event \"c\"]\n[TimeControl \"15-5-15\"]\n[Termination \"normal\"]\n1. h2e2 *\n\
                [Event \"d\"]\n[TimeControl \"?\"]\n1. h2e2 *\n";
    let games: Vec<_> = read_bytes("t.pgn", text.as_bytes())
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(games.len(), 4);
    let t = &games[0].tags;
    assert_eq!(
        t.time_control,
        Some(TimeControl {
            base_secs: 300,
            increment_secs: 3
        })
    );
    assert_eq!(
        (t.speed, t.termination),
        (Some(Speed::Blitz), Some(Termination::Time))
    );
    let t = &games[1].tags;
    assert_eq!((t.time_control, t.speed), (None, Some(Speed::Classical)));
    for g in &games[2..] {
        assert_eq!(
            (g.tags.time_control, g.tags.speed, g.tags.termination),
            (None, None, None)
        );
        assert_eq!(g.moves.len(), 1);
    }
}

/// The elephantchess CSV fixture (rows written by hand in the dataset's columns, out of
/// order): games by game_id, moves by move_index, facts from the columns, evaluations of the
/// position before each move from the mover's side.
#[test]
fn elephantchess_csv_fixture() {
    use qipu::formats::facts::{Mode, Score, Speed, Termination, TimeControl};
    let games: Vec<Game> = read_fixture("elephantchess.csv")
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(games.len(), 2);
    let one = &games[0];
    let moves: Vec<&str> = one.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(moves, ["h2e2", "h9g7", "h0g2"]);
    assert!(replay(one).is_ok());
    let t = &one.tags;
    assert_eq!(t.date.as_deref(), Some("2026-07-08"));
    assert_eq!(
        (t.first.as_deref(), t.second.as_deref()),
        (Some("redA"), Some("blackB"))
    );
    assert_eq!((t.first_rating, t.second_rating), (Some(1500), Some(1450)));
    assert_eq!(
        t.result,
        Some(qipu::rules::Outcome::Decisive {
            winner: qipu::rules::Color::First
        })
    );
    assert_eq!(t.termination, Some(Termination::Resignation));
    assert_eq!(
        t.time_control,
        Some(TimeControl {
            base_secs: 600,
            increment_secs: 5
        })
    );
    assert_eq!((t.speed, t.mode), (Some(Speed::Rapid), Some(Mode::Rated)));
    let scores: Vec<Option<(Score, Option<u32>)>> = one
        .moves
        .iter()
        .map(|m| m.eval.as_ref().map(|e| (e.score, e.depth)))
        .collect();
    assert_eq!(
        scores,
        [
            // before h2e2: its row's engine_analysis negated (no row before it)
            Some((Score::Cp(25), Some(14))),
            // before h9g7 and h0g2: the previous row's move_analysis, the position after
            // the previous move from the side to move there
            Some((Score::Cp(-30), Some(12))),
            Some((Score::Cp(10), Some(12))),
        ]
    );
    let two = &games[1];
    assert_eq!(two.moves.len(), 2);
    assert_eq!((two.tags.result, two.tags.termination), (None, None));
    assert_eq!(
        (two.tags.first_rating, two.tags.mode),
        (None, Some(Mode::Casual))
    );
    assert_eq!(two.tags.speed, Some(Speed::Blitz));
    assert_eq!(two.moves[0].eval, None);
    assert_eq!(
        two.moves[1].eval.as_ref().map(|e| e.score),
        Some(Score::Mate(-2))
    );
}

/// A zip of elephantchess CSVs (the dataset is published as monthly zips) is read by content.
#[test]
fn elephantchess_csv_inside_a_zip() {
    use std::io::Write as _;
    let csv = std::fs::read(fixture("formats/elephantchess.csv")).unwrap();
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default();
        z.start_file("pvp_game_moves_xiangqi_001.csv", opts)
            .unwrap();
        z.write_all(&csv).unwrap();
        z.finish().unwrap();
    }
    let games = read_bytes("month.zip", buf.get_ref());
    assert_eq!(games.len(), 2);
    let g = games[0].as_ref().unwrap();
    assert_eq!(g.source.file, "month.zip:pvp_game_moves_xiangqi_001.csv");
    assert_eq!(g.moves.len(), 3);
}

/// Hostile inputs (generated here): each ends at once with an error naming the file, game
/// and ply, and the rest of the file still reads.
#[test]
fn variations_nested_30000_deep_are_one_game_error() {
    let text = format!(
        "[Event \"deep\"]\n1. h2e2 {}{} *\n[Event \"next\"]\n1. h2e2 h9g7 *\n",
        "(h9g7 ".repeat(30_000),
        ")".repeat(30_000)
    );
    let games = read_bytes("deep.pgn", text.as_bytes());
    assert_eq!(games.len(), 2);
    let e = games[0].as_ref().unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.game, e.ply),
        ("deep.pgn", Some(0), Some(2))
    );
    assert!(e.reason().contains("nested deeper than 400"), "{e}");
    assert_eq!(games[1].as_ref().unwrap().moves.len(), 2);
    // 400 levels are still a game.
    let ok = format!(
        "[Event \"ok\"]\n1. h2e2 {}{} *",
        "(h9g7 ".repeat(400),
        ")".repeat(400)
    );
    assert!(read_bytes("ok.pgn", ok.as_bytes())[0].is_ok());
}

#[test]
fn a_game_longer_than_the_cap_is_refused_alone() {
    // Comments make the text long with few moves; then moves alone make a game too long.
    let comment = "x".repeat(qipu::formats::pgn::MAX_GAME_BYTES);
    let moves = "h2e2 h9g7 ".repeat(qipu::formats::pgn::MAX_GAME_MOVES / 2 + 1);
    let text = format!(
        "[Event \"a\"]\n1. h2e2 {{{comment}}} h9g7 {{{comment}}} *\n[Event \"c\"]\n1. {moves}*\n[Event \"b\"]\n1. h2e2 *\n"
    );
    let games = read_bytes("long.pgn", text.as_bytes());
    assert_eq!(games.len(), 3);
    let e = games[0].as_ref().unwrap_err();
    assert!(e.reason().contains("game text longer than"), "{e}");
    assert_eq!((e.game, e.ply), (Some(0), Some(2)));
    let e = games[1].as_ref().unwrap_err();
    assert!(e.reason().contains("more than 200000 moves"), "{e}");
    assert_eq!(e.game, Some(1));
    assert_eq!(games[2].as_ref().unwrap().tags.event.as_deref(), Some("b"));
}

#[test]
fn zip_bomb_members_are_refused_and_the_others_read() {
    use std::io::Write as _;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("a-bomb.pgn", opts).unwrap();
        let block = vec![b' '; 1 << 20];
        for _ in 0..32 {
            z.write_all(&block).unwrap();
        }
        z.start_file("b-game.pgn", opts).unwrap();
        z.write_all(b"[Event \"x\"]\n1. h2e2 h9g7 *\n").unwrap();
        z.finish().unwrap();
    }
    assert!(buf.get_ref().len() < 1 << 20);
    let games = read_bytes("bomb.zip", buf.get_ref());
    assert_eq!(games.len(), 2, "{games:?}");
    let e = games[0].as_ref().unwrap_err();
    assert_eq!(e.file, "bomb.zip:a-bomb.pgn");
    assert!(e.reason().contains("zip bomb"), "{e}");
    assert_eq!(games[1].as_ref().unwrap().moves.len(), 2);
}

#[cfg(unix)]
#[test]
fn devices_are_refused_at_once() {
    let dev = Path::new("/dev/zero");
    if !dev.exists() {
        return;
    }
    let games: Vec<_> = read_path(dev).collect();
    assert_eq!(games.len(), 1);
    let e = games[0].as_ref().unwrap_err();
    assert_eq!((e.file.as_str(), e.game), ("/dev/zero", None));
    assert!(e.reason().contains("not a regular file"), "{e}");
}

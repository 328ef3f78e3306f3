//! The elephantchess.io dataset CSV: one row per move (`timestamp, move_index, move,
//! game_id, red_player, black_player, red_elo_before, …, time_control,
//! time_control_category, rating_mode, game_status, outcome, …, engine_analysis, …`),
//! moves in ICCS with ranks 0–9. Rows are grouped by `game_id` and ordered by `move_index`
//! whatever their order in the file; games come in the order their first row appears.
//!
//! Game facts come from the game's first move (lowest `move_index`): date from `timestamp`,
//! ratings from `*_elo_before`, result from `outcome` (none: unknown), how it ended from
//! `game_status`, the clock from `time_control` (`1800+0`), the speed as stated by
//! `time_control_category`, rated or casual from `rating_mode`.
//!
//! **Evaluations.** Two columns hold a UCI `info … depth D … score cp N | mate N … pv …`
//! line: `engine_analysis` and `move_analysis`. Read against the moves, the principal
//! variations of both start with a move of the *other* side (in the shared month-file: all
//! 4,894 `move_analysis` lines with a pv start with a piece of the opponent in the position
//! after the played move), and `cpl` equals the first's score minus the second's:
//! `move_analysis` is the engine's view of the position *after the played move*, from the
//! opponent's side (the side to move there), and `engine_analysis` that of the position
//! after the engine's own best move. So each move's node gets the eval of the position
//! before it ([`MoveNode::eval`]'s meaning), from its mover's side:
//! - the previous row's `move_analysis`, as it stands (that position, its side to move, and
//!   its pv, which starts with the engine's choice there), when there is one;
//! - else the row's own `engine_analysis` negated (a mate for the opponent in N is a mate
//!   against the mover in N; the opponent mated in N is a mate for the mover in N + 1), at
//!   the line's depth, without its pv (the best move itself is not in the row).
//!
//! The last row's `move_analysis` has no node after it and is not kept. A `lowerbound` or
//! `upperbound` score is not a value and is not read. The lines name no engine: the evals
//! carry [`ENGINE`].
//!
//! Owns reading this CSV into [`Game`]s only; it may not touch the store.
//!
//! ```
//! use qipu::formats::{elephant, facts::{Score, Speed, Termination}};
//! let csv = "timestamp,move_index,move,game_id,red_player,black_player,red_elo_before,\
//! black_elo_before,time_control,time_control_category,rating_mode,game_status,outcome,\
//! engine_analysis\n\
//! 2026-07-07T08:31:09Z,1,h9g7,g1,r,b,1111,898,300+0,BLITZ,rated,RESIGNED,RED_WINS,\
//! info depth 20 score cp 31 pv h0g2\n\
//! 2026-07-07T08:31:02Z,0,h2e2,g1,r,b,1111,898,300+0,BLITZ,rated,RESIGNED,RED_WINS,\
//! info depth 18 score cp -16 pv h9g7\n";
//! assert!(elephant::sniff(csv.as_bytes()));
//! let g = elephant::read("m.csv", csv.as_bytes()).remove(0).unwrap();
//! assert_eq!(g.moves.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["h2e2", "h9g7"]);
//! assert_eq!(g.tags.date.as_deref(), Some("2026-07-07"));
//! assert_eq!((g.tags.speed, g.tags.termination), (Some(Speed::Blitz), Some(Termination::Resignation)));
//! let eval = g.moves[0].eval.as_ref().unwrap();
//! assert_eq!((eval.score, eval.depth), (Score::Cp(16), Some(18)));
//! ```

use std::collections::HashMap;

use super::{
    error::{ErrorKind, GameError},
    facts::{EngineEval, Mode, Score, Speed, Termination},
    game::{Game, MoveNode, Source, Tags},
    playtags, tags,
};
use crate::{
    notation::coord::RankBase,
    rules::{Color, Outcome, Variant},
};

/// The engine name given to the dataset's evaluations (its lines name none).
pub const ENGINE: &str = "elephantchess.io analysis (engine not named)";

/// Columns a file must have to be read as this dataset.
const REQUIRED: [&str; 3] = ["game_id", "move_index", "move"];

/// Most moves one game may have (real games stay far below; a longer one is refused, so that
/// a hostile file cannot make one game of its every row).
pub const MAX_MOVES: usize = 4096;

/// Whether the bytes are such a CSV: the header line names `game_id`, `move_index` and
/// `move` (quoted or not).
///
/// ```
/// assert!(qipu::formats::elephant::sniff(b"\"timestamp\",\"move_index\",\"move\",\"game_id\"\n"));
/// assert!(!qipu::formats::elephant::sniff(b"[Event \"move_index game_id move\"]\n"));
/// ```
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let end = memchr::memchr(b'\n', bytes)
        .unwrap_or(bytes.len())
        .min(4096);
    let Ok(line) = std::str::from_utf8(&bytes[..end]) else {
        return false;
    };
    let names: Vec<&str> = line
        .trim_end()
        .split(',')
        .map(|c| c.trim().trim_matches('"'))
        .collect();
    REQUIRED.iter().all(|r| names.contains(r))
}

/// One move row, with what the game needs of it.
struct Row {
    index: u64,
    text: String,
    /// The position before the move, from `engine_analysis`.
    before: Option<EngineEval>,
    /// The position after it, from `move_analysis`.
    after: Option<EngineEval>,
    line: u64,
}

/// A game being gathered: the facts of its lowest-indexed row, and its moves.
struct Gathered {
    first_index: u64,
    facts: Vec<(String, String)>,
    rows: Vec<Row>,
    error: Option<String>,
}

/// Reads every game of the CSV. A game with a bad row (a `move_index` that is not a number,
/// repeated or missing indices, too many moves) is an error naming it; the others read.
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let file_error = |reason: String| GameError::file(file, ErrorKind::Malformed(reason));
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_string()).collect(),
        Err(e) => return vec![Err(file_error(format!("bad CSV header: {e}")))],
    };
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(c_game), Some(c_index), Some(c_move)) =
        (col("game_id"), col("move_index"), col("move"))
    else {
        return vec![Err(file_error(
            "not an elephantchess CSV (no game_id, move_index and move columns)".into(),
        ))];
    };
    let c_analysis = col("engine_analysis");
    let c_after = col("move_analysis");
    let fact_cols: Vec<(usize, &str)> = FACT_COLUMNS
        .iter()
        .filter_map(|&name| col(name).map(|c| (c, name)))
        .collect();

    let mut order: Vec<String> = Vec::new();
    let mut games: HashMap<String, Gathered> = HashMap::new();
    let mut out_of_game = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                // An unreadable row (bad UTF-8, broken quoting) belongs to no known game.
                out_of_game.push(format!("line {line}: bad CSV row: {e}"));
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    break;
                }
                continue;
            }
        }
        let field = |c: usize| record.get(c).unwrap_or("").trim();
        let id = field(c_game);
        if id.is_empty() {
            out_of_game.push(format!("line {line}: row without a game_id"));
            continue;
        }
        let g = games.entry(id.to_string()).or_insert_with(|| {
            order.push(id.to_string());
            Gathered {
                first_index: u64::MAX,
                facts: Vec::new(),
                rows: Vec::new(),
                error: None,
            }
        });
        if g.error.is_some() {
            continue;
        }
        let Ok(index) = field(c_index).parse::<u64>() else {
            g.error = Some(format!(
                "line {line}: move_index `{}` is not a number",
                field(c_index)
            ));
            g.rows = Vec::new();
            continue;
        };
        if g.rows.len() >= MAX_MOVES {
            g.error = Some(format!("more than {MAX_MOVES} moves"));
            g.rows = Vec::new();
            continue;
        }
        if index < g.first_index {
            g.first_index = index;
            g.facts = fact_cols
                .iter()
                .map(|&(c, name)| (name.to_string(), field(c).to_string()))
                .filter(|(_, v)| !v.is_empty())
                .collect();
        }
        g.rows.push(Row {
            index,
            text: field(c_move).to_string(),
            before: c_analysis.and_then(|c| eval_before(field(c))),
            after: c_after.and_then(|c| eval_of(field(c))),
            line,
        });
    }

    let mut out: Vec<Result<Game, GameError>> = Vec::with_capacity(order.len());
    for (index, id) in order.into_iter().enumerate() {
        let source = Source {
            file: file.to_string(),
            index,
        };
        let Some(g) = games.remove(&id) else { continue };
        out.push(build(source, &id, g));
    }
    out.extend(out_of_game.into_iter().map(|r| Err(file_error(r))));
    out
}

/// The per-game columns kept as raw tags (and read into facts).
const FACT_COLUMNS: [&str; 13] = [
    "timestamp",
    "red_player",
    "black_player",
    "red_elo_before",
    "black_elo_before",
    "red_elo_after",
    "black_elo_after",
    "time_control",
    "time_control_category",
    "rating_mode",
    "game_status",
    "outcome",
    "game_join_source",
];

fn build(source: Source, id: &str, mut g: Gathered) -> Result<Game, GameError> {
    if let Some(e) = g.error {
        return Err(GameError::new(&source, format!("game {id}: {e}").into()));
    }
    g.rows.sort_by_key(|r| r.index);
    for (expected, row) in (g.first_index..).zip(&g.rows) {
        if row.index != expected {
            let what = if row.index < expected {
                "twice"
            } else {
                "missing"
            };
            let shown = if row.index < expected {
                row.index
            } else {
                expected
            };
            return Err(GameError {
                ply: usize::try_from(expected - g.first_index + 1).ok(),
                ..GameError::new(
                    &source,
                    format!("game {id}: move_index {shown} {what} (line {})", row.line).into(),
                )
            });
        }
    }
    if g.first_index != 0 {
        return Err(GameError::new(
            &source,
            format!(
                "game {id}: its moves start at move_index {}, not 0",
                g.first_index
            )
            .into(),
        ));
    }
    let mut game = Game::new(Variant::Xiangqi, source);
    game.rank_base = Some(RankBase::Zero);
    let mut previous_after = None;
    game.moves = g
        .rows
        .into_iter()
        .map(|r| {
            let mut node = MoveNode::new(r.text);
            node.eval = previous_after.take().or(r.before);
            previous_after = r.after;
            node
        })
        .collect();
    let mut raw = vec![("game_id".to_string(), id.to_string())];
    raw.extend(g.facts);
    game.tags = facts_of(raw);
    Ok(game)
}

/// Tags from the dataset's columns.
fn facts_of(raw: Vec<(String, String)>) -> Tags {
    let mut t = Tags::default();
    for (name, v) in &raw {
        match name.as_str() {
            "timestamp" => t.date = tags::parse_date(v.get(..10).unwrap_or(v)),
            "red_player" => t.first = Some(v.clone()),
            "black_player" => t.second = Some(v.clone()),
            "red_elo_before" => t.first_rating = v.parse().ok().filter(|&r| r > 0),
            "black_elo_before" => t.second_rating = v.parse().ok().filter(|&r| r > 0),
            "time_control" => {
                let clock = playtags::pgn_time_control(v);
                t.time_control = clock.time_control;
                t.speed = t.speed.or(clock.speed);
            }
            "time_control_category" => {
                if let Ok(s) = v.parse::<Speed>() {
                    t.speed = Some(s);
                }
            }
            "rating_mode" => t.mode = v.parse::<Mode>().ok(),
            "game_status" => t.termination = termination(v),
            "outcome" => t.result = outcome(v),
            _ => {}
        }
    }
    t.raw = raw;
    t
}

/// `game_status` → how the game ended (`JOINED`, a game never finished, and unknown words:
/// not said).
fn termination(status: &str) -> Option<Termination> {
    Some(match status {
        "CHECKMATED" => Termination::Mate,
        "RESIGNED" => Termination::Resignation,
        "FLAGGED" => Termination::Time,
        "STALEMATED" => Termination::Stalemate,
        "PERPETUAL_CHECKING" => Termination::Repetition,
        "DRAW_ACCEPTED" => Termination::Agreement,
        "ABANDONED" | "ABORTED" | "DISCONNECTED" => Termination::Other,
        _ => return None,
    })
}

fn outcome(text: &str) -> Option<Outcome> {
    Some(match text {
        "RED_WINS" => Outcome::Decisive {
            winner: Color::First,
        },
        "BLACK_WINS" => Outcome::Decisive {
            winner: Color::Second,
        },
        "DRAW" => Outcome::Draw,
        _ => return None,
    })
}

/// What a UCI `info` line says of the position it searched, from the side to move there:
/// its score (not a `lowerbound`/`upperbound` one), depth and pv, named [`ENGINE`].
///
/// ```
/// use qipu::formats::{elephant::eval_of, facts::Score};
/// let e = eval_of("info depth 20 seldepth 23 multipv 1 score cp 23 nodes 7 pv h9g7 b2e2").unwrap();
/// assert_eq!((e.score, e.depth, e.pv.len()), (Score::Cp(23), Some(20), 2));
/// assert_eq!(eval_of("info depth 9 score mate -5 pv d9e8").unwrap().score, Score::Mate(-5));
/// assert_eq!(eval_of("info depth 9 score cp 40 lowerbound pv d9e8"), None);
/// assert_eq!(eval_of(""), None);
/// ```
pub fn eval_of(line: &str) -> Option<EngineEval> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    let depth = after("depth").and_then(|d| d.parse::<u32>().ok());
    let at = words.iter().position(|w| *w == "score")?;
    let n: i32 = words.get(at + 2)?.parse().ok()?;
    if matches!(words.get(at + 3), Some(&("lowerbound" | "upperbound"))) {
        return None;
    }
    let score = match *words.get(at + 1)? {
        "cp" => Score::Cp(n),
        "mate" => Score::Mate(n),
        _ => return None,
    };
    let pv = match words.iter().position(|w| *w == "pv") {
        Some(i) => words[i + 1..].iter().map(|w| w.to_string()).collect(),
        None => Vec::new(),
    };
    Some(EngineEval {
        score,
        depth,
        pv,
        engine: Some(ENGINE.to_string()),
    })
}

/// The position before a move, from its mover's side, out of the row's `engine_analysis`
/// (see the module doc for why the score is negated); no pv.
///
/// ```
/// use qipu::formats::{elephant::eval_before, facts::Score};
/// let e = eval_before("info depth 20 seldepth 23 multipv 1 score cp 23 nodes 7 pv h9g7 b2e2").unwrap();
/// assert_eq!((e.score, e.depth), (Score::Cp(-23), Some(20)));
/// assert_eq!(eval_before("info depth 0 score mate 0").unwrap().score, Score::Mate(1));
/// assert_eq!(eval_before("info depth 9 score mate -5 pv d9e8").unwrap().score, Score::Mate(6));
/// assert_eq!(eval_before("info depth 9 score mate 3 pv d9e8").unwrap().score, Score::Mate(-3));
/// assert_eq!(eval_before(""), None);
/// ```
pub fn eval_before(line: &str) -> Option<EngineEval> {
    let e = eval_of(line)?;
    let score = match e.score {
        Score::Cp(n) => Score::Cp(n.checked_neg()?),
        Score::Mate(n) if n > 0 => Score::Mate(-n),
        Score::Mate(n) => Score::Mate(n.checked_neg()?.checked_add(1)?),
    };
    Some(EngineEval {
        score,
        pv: Vec::new(),
        ..e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "timestamp,move_index,move,game_id,red_player,black_player,red_elo_before,black_elo_before,outcome,game_status\n";

    #[test]
    fn rows_in_any_order_and_bad_games_alone() {
        let csv = format!(
            "{HEAD}t2,1,h9g7,a,r,b,1,2,DRAW,DRAW_ACCEPTED\n\
             t9,0,c3c4,b,r,b,,,,JOINED\n\
             t1,0,h2e2,a,r,b,1,2,DRAW,DRAW_ACCEPTED\n\
             t3,x,h0g2,c,r,b,1,2,,\n\
             t4,0,h2e2,d,r,b,1,2,,\n\
             t5,2,h0g2,d,r,b,1,2,,\n\
             t6,0,h2e2,e,r,b,1,2,,\n\
             t7,0,h2e2,e,r,b,1,2,,\n"
        );
        let g = read("f.csv", csv.as_bytes());
        assert_eq!(g.len(), 5);
        let a = g[0].as_ref().unwrap();
        assert_eq!(a.moves.len(), 2);
        assert_eq!(a.moves[0].text, "h2e2");
        assert_eq!(a.tags.date, None, "t1 is no date");
        assert_eq!(a.tags.result, Some(Outcome::Draw));
        assert_eq!(a.tags.termination, Some(Termination::Agreement));
        let b = g[1].as_ref().unwrap();
        assert_eq!((b.tags.result, b.tags.termination), (None, None));
        assert_eq!(b.tags.first_rating, None);
        let c = g[2].as_ref().unwrap_err();
        assert!(c.reason().contains("not a number"), "{c}");
        let d = g[3].as_ref().unwrap_err();
        assert!(d.reason().contains("move_index 1 missing"), "{d}");
        assert_eq!(d.ply, Some(2));
        let e = g[4].as_ref().unwrap_err();
        assert!(e.reason().contains("move_index 0 twice"), "{e}");
        assert_eq!(e.game, Some(4));
    }

    #[test]
    fn too_many_moves_is_an_error() {
        let mut csv = String::from(HEAD);
        for i in 0..=MAX_MOVES {
            csv.push_str(&format!("t,{i},h2e2,z,r,b,1,2,,\n"));
        }
        let g = read("f.csv", csv.as_bytes());
        assert!(g[0].as_ref().unwrap_err().reason().contains("more than"));
    }
}

//! Evaluations that game records carry (e.g. the elephantchess dataset's UCI `info … score
//! … pv …` line before each move, in [`MoveNode::eval`](crate::formats::MoveNode)), turned
//! into move scores for the evaluation table without running an engine.
//!
//! A record's evaluation is of the position before a move, from its mover's view. Two move
//! scores follow from it: the engine's choice there (the first move of its principal
//! variation) gets that score, and the move played before it gets the score seen from the
//! other side ([`score_before`]: negated, mate distances counted from the earlier position).
//! When the principal variation starts with the move that was played, the direct score wins.
//! This module reads games and writes through [`Store::write_evals`]; it runs nothing
//! ([`import_record_evals`] is `qipu analyse --records`).

use std::collections::BTreeMap;

use crate::{
    engine::score_before,
    formats::{facts::EngineEval, replay, Game, GameError, Replay},
    notation::coord::parse_coord,
    rules::AnyPosition,
    store::{evals::EvalRow, Store, StoreError},
};

/// The name stored for a record's evaluation that does not say which engine made it.
pub const UNNAMED_ENGINE: &str = "unnamed engine (from the record)";

/// The options stored for evaluations taken from records.
pub const RECORD_OPTIONS: &str = "from a game record";

/// A move score taken from a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordEval {
    /// The position's key.
    pub key: u64,
    /// The move and its score from the mover's view (depth 0 when the record gives none).
    pub row: EvalRow,
    /// The engine the record names.
    pub engine: String,
}

fn engine_of(e: &EngineEval) -> String {
    e.engine
        .clone()
        .unwrap_or_else(|| UNNAMED_ENGINE.to_string())
}

/// The move scores a replayed game's evaluations give (see the module doc), in the order of
/// the game. `replay` must be `formats::replay(game)`; nodes beyond its moves are ignored.
/// Variation moves are read in the game's rank base when it has one, else as their text
/// reads legally (0–9 first).
///
/// ```
/// use qipu::analysis::records::record_evals;
/// use qipu::formats::{facts::{EngineEval, Score}, replay, Game, MoveNode, Source};
/// use qipu::rules::Variant;
///
/// let mut game = Game::new(Variant::Xiangqi, Source::default());
/// game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
/// game.moves[1].eval = Some(EngineEval {
///     score: Score::Cp(-20), depth: Some(9), pv: vec![], engine: None,
/// });
/// let rows = record_evals(&game, &replay(&game).unwrap());
/// assert_eq!(rows.len(), 1); // h2e2 at the start: +20 for Red, from Black's -20 after it
/// assert_eq!((rows[0].row.mv.to_string(), rows[0].row.score), ("h2e2".into(), Score::Cp(20)));
/// ```
pub fn record_evals(game: &Game, replay: &Replay) -> Vec<RecordEval> {
    let mut out = Vec::new();
    let mut pos: AnyPosition = replay.start.clone();
    let evals: Vec<Option<&EngineEval>> = game.moves.iter().map(|n| n.eval.as_ref()).collect();
    for (i, &played) in replay.moves.iter().enumerate() {
        let key = pos.key();
        let here = evals.get(i).copied().flatten();
        let choice = here.and_then(|e| {
            let first = e.pv.first()?;
            parse_coord(&pos, first, game.rank_base)
                .ok()
                .map(|m| (m, e))
        });
        if let Some((m, e)) = choice {
            out.push(RecordEval {
                key,
                row: EvalRow {
                    mv: m,
                    score: e.score,
                    depth: e.depth.unwrap_or(0),
                },
                engine: engine_of(e),
            });
        }
        let direct = choice.is_some_and(|(m, _)| m == played);
        if let (false, Some(next)) = (direct, evals.get(i + 1).copied().flatten()) {
            out.push(RecordEval {
                key,
                row: EvalRow {
                    mv: played,
                    score: score_before(next.score),
                    depth: next.depth.unwrap_or(0),
                },
                engine: engine_of(next),
            });
        }
        pos.play_unchecked(played);
    }
    out
}

/// Stores records' move scores (each engine name once, with [`RECORD_OPTIONS`]) in one
/// transaction per engine; a stored score is replaced only by a deeper one. Returns how many
/// were written.
///
/// # Errors
/// [`StoreError`] if a write fails.
pub fn store_record_evals(store: &mut Store, rows: &[RecordEval]) -> Result<usize, StoreError> {
    let mut by_engine: BTreeMap<&str, Vec<(u64, EvalRow)>> = BTreeMap::new();
    for r in rows {
        by_engine.entry(&r.engine).or_default().push((r.key, r.row));
    }
    let mut written = 0;
    for (engine, rows) in by_engine {
        let id = store.eval_engine(engine, RECORD_OPTIONS)?;
        written += store.write_evals(id, &rows)?;
    }
    Ok(written)
}

/// What [`import_record_evals`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordsReport {
    /// Games read and replayed.
    pub games: usize,
    /// Of those, games carrying at least one evaluation.
    pub with_evals: usize,
    /// Move scores the records gave.
    pub scores: usize,
    /// Of those, written or replacing a shallower one.
    pub written: usize,
    /// Games that could not be read or replayed, with the error.
    pub rejected: Vec<GameError>,
}

/// Games between two writes of [`import_record_evals`] (a bound on the rows held).
const GAMES_PER_WRITE: usize = 10_000;

/// Stores the move scores that records carry ([`record_evals`] of each game, through
/// [`store_record_evals`]), without an engine: `qipu analyse --records`. A game that cannot be
/// read or replayed is reported and skipped.
///
/// # Errors
/// [`StoreError`] if a write fails (what was written before stays).
pub fn import_record_evals(
    store: &mut Store,
    games: impl Iterator<Item = Result<Game, GameError>>,
) -> Result<RecordsReport, StoreError> {
    let mut report = RecordsReport::default();
    let mut rows = Vec::new();
    let mut pending = 0;
    for game in games {
        let game = match game {
            Ok(g) => g,
            Err(e) => {
                report.rejected.push(e);
                continue;
            }
        };
        let replayed = match replay(&game) {
            Ok(r) => r,
            Err(e) => {
                report.rejected.push(e);
                continue;
            }
        };
        report.games += 1;
        let before = rows.len();
        rows.extend(record_evals(&game, &replayed));
        if rows.len() > before {
            report.with_evals += 1;
        }
        pending += 1;
        if pending >= GAMES_PER_WRITE {
            report.scores += rows.len();
            report.written += store_record_evals(store, &rows)?;
            rows.clear();
            pending = 0;
        }
    }
    report.scores += rows.len();
    report.written += store_record_evals(store, &rows)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        formats::{facts::Score, replay, MoveNode, Source},
        rules::{Move, Variant},
    };

    fn eval(score: Score, depth: u32, pv: &[&str], engine: Option<&str>) -> Option<EngineEval> {
        Some(EngineEval {
            score,
            depth: Some(depth),
            pv: pv.iter().map(|s| s.to_string()).collect(),
            engine: engine.map(String::from),
        })
    }

    #[test]
    fn a_hand_built_game_gives_the_choices_and_the_played_moves() {
        let mut game = Game::new(Variant::Xiangqi, Source::default());
        game.moves = ["h2e2", "h9g7", "h0g2"].map(MoveNode::new).to_vec();
        // Before h2e2: the engine likes h2e2 itself (Fairy-Stockfish spelling, ranks 1–10).
        game.moves[0].eval = eval(Score::Cp(30), 12, &["h3e3", "h10g8"], Some("Pikafish"));
        // Before h9g7: Black's engine prefers b9c7.
        game.moves[1].eval = eval(Score::Cp(-25), 11, &["b9c7"], Some("Pikafish"));
        // Before h0g2: Red is mated in 3, says an unnamed engine; no variation.
        game.moves[2].eval = eval(Score::Mate(-3), 9, &[], None);
        let r = replay(&game).unwrap();
        let rows = record_evals(&game, &r);
        let m = |t: &str| t.parse::<Move>().unwrap();
        let mut pos = AnyPosition::new(Variant::Xiangqi);
        let k0 = pos.key();
        pos.play(m("h2e2")).unwrap();
        let k1 = pos.key();
        let want = vec![
            // the choice at the start, which was also played: the direct score only
            (k0, m("h2e2"), Score::Cp(30), 12, "Pikafish"),
            // Black's choice, and the move Black played, scored from Red's eval after it:
            // Red mated in 3 there = Black mates in 4 counting h9g7
            (k1, m("b9c7"), Score::Cp(-25), 11, "Pikafish"),
            (k1, m("h9g7"), Score::Mate(4), 9, UNNAMED_ENGINE),
        ];
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.key, r.row.mv, r.row.score, r.row.depth, r.engine.as_str()))
            .collect();
        assert_eq!(got, want);

        let mut store = Store::open_in_memory().unwrap();
        assert_eq!(store_record_evals(&mut store, &rows).unwrap(), 3);
        let at1 = store.evals_at(k1).unwrap();
        assert_eq!(at1.len(), 2);
        assert!(at1.iter().all(|e| e.options == RECORD_OPTIONS && !e.best));
        // Again: nothing deeper, nothing written.
        assert_eq!(store_record_evals(&mut store, &rows).unwrap(), 0);
    }

    #[test]
    fn unreadable_variations_and_missing_evals_give_nothing() {
        let mut game = Game::new(Variant::Xiangqi, Source::default());
        game.moves = ["h2e2", "h9g7"].map(MoveNode::new).to_vec();
        game.moves[0].eval = eval(Score::Cp(5), 3, &["z9z9"], None);
        let rows = record_evals(&game, &replay(&game).unwrap());
        assert!(rows.is_empty());
    }
}

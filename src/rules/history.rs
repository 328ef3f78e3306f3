//! [`History`]: the keys of a game so far, for repetition and the move limit.

use super::position::{EndReason, GameEnd, Outcome};

/// The positions a game went through, by key, and the plies since the last capture.
/// The rules core does not adjudicate perpetual check or chasing; a third occurrence of a
/// position and 100 plies without capture are reported as draws.
///
/// ```
/// use qipu::rules::{History, Position, Xiangqi, Move};
/// let mut pos = Xiangqi::new();
/// let mut history = History::new(pos.key());
/// for _ in 0..2 {
///     for m in ["h0g2", "h9g7", "g2h0", "g7h9"] {
///         pos.play(m.parse::<Move>().unwrap()).unwrap();
///         history.push(pos.key(), pos.board().halfmoves());
///     }
/// }
/// assert_eq!(history.repetitions(), 3);
/// assert!(history.end().is_some());
/// ```
#[derive(Clone, Debug, Default)]
pub struct History {
    keys: Vec<u64>,
    halfmoves: u32,
}

impl History {
    /// A history that starts at a position.
    pub fn new(start_key: u64) -> History {
        History {
            keys: vec![start_key],
            halfmoves: 0,
        }
    }

    /// Records the position after a move, with its capture counter.
    pub fn push(&mut self, key: u64, halfmoves: u32) {
        self.keys.push(key);
        self.halfmoves = halfmoves;
    }

    /// How many times the current position has occurred (1 = first time).
    pub fn repetitions(&self) -> usize {
        match self.keys.last() {
            Some(last) => self.keys.iter().filter(|k| *k == last).count(),
            None => 0,
        }
    }

    /// A draw by threefold repetition or by 100 plies without capture.
    pub fn end(&self) -> Option<GameEnd> {
        let reason = if self.repetitions() >= 3 {
            EndReason::Repetition
        } else if self.halfmoves >= 100 {
            EndReason::MoveLimit
        } else {
            return None;
        };
        Some(GameEnd {
            reason,
            outcome: Outcome::Draw,
        })
    }
}

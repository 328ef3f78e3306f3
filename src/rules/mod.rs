//! The rules of Xiangqi and Janggi: boards, legal moves, check, game end and Zobrist keys.
//!
//! This module knows nothing of files, databases or threads. A [`Setup`] is any arrangement of
//! pieces; [`Xiangqi::from_setup`] and [`Janggi::from_setup`] validate it into a position that
//! implements [`Position`]. Squares are numbered from the first player's (Red/Cho) side:
//! files `a`–`i`, ranks `0`–`9`.
//!
//! ```
//! use qipu::rules::{perft, Janggi, Position, Xiangqi};
//! assert_eq!(perft(&Xiangqi::new(), 3, true), 79_666);
//! assert_eq!(perft(&Janggi::new(), 3, true), 33_000);
//! ```

mod any;
mod board;
mod history;
mod janggi;
mod perft;
mod position;
mod setup;
mod tables;
mod types;
mod xiangqi;
mod zobrist;
mod zobrist_table;

pub use any::AnyPosition;
pub use board::Board;
pub use history::History;
pub use janggi::{Janggi, JanggiRules};
pub use perft::{divide, perft};
pub use position::{EndReason, GameEnd, IllegalMove, MoveList, Outcome, Position, PositionError};
pub use setup::{FenError, Setup};
pub use types::{Color, Move, Piece, Role, Square, Variant};
pub(crate) use xiangqi::attacked as xiangqi_attacked;
pub use xiangqi::Xiangqi;

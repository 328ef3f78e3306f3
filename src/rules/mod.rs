//! The rules of Xiangqi and Janggi: boards, legal moves, check, game end and Zobrist keys.
//!
//! This module knows nothing of files, databases or threads, and nothing else of the crate: it
//! imports only from itself (`super::`), so it can be lifted into a crate of its own unchanged.
//! A [`Setup`] is any arrangement of pieces; [`Position::from_setup`] (for [`Xiangqi`] or
//! [`Janggi`]) validates it into a position. Squares are numbered from the first player's
//! (Red/Cho) side: files `a`–`i`, ranks `0`–`9`.
//!
//! The [`Board`] keeps its representation private (piece codes per square, occupancy sets,
//! generals, key); other modules read it through its accessors. The piece code is written in
//! `types.rs` only; `movegen.rs` holds the helpers both games' move generators share.
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
mod movegen;
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
pub use setup::{FenError, Formation, Formations, Setup};
pub use types::{Color, Move, Piece, Role, Square, Variant};
pub use xiangqi::Xiangqi;

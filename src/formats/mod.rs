//! Game record formats: readers that turn bytes into [`Game`]s without judging legality,
//! and [`replay`], which resolves a game's moves against the rules.

mod game;
mod replay;

mod board90;
pub mod cbf;
pub mod cbl;
pub mod cbr;
pub mod ccbridge;
pub mod dhtmlxq;
pub mod xqf;

pub use game::{Game, GameError, MoveNode, Source, Tags};
pub use replay::{replay, Replay};

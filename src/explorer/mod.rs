//! The opening explorer: statistics of a position and of every move played from it.

mod types;

pub use types::{Explore, GameSummary, MoveStats, Opening, Query};

//! Game record formats: readers that turn bytes into [`Game`]s without judging legality,
//! and [`replay`], which resolves a game's moves against the rules.
//!
//! [`read_bytes`] and [`read_path`] are the entry points: they sniff each record's format by
//! content, decode text at the edge ([`decode`]) and hand it to the reader of that format.

pub mod decode;
pub mod dump;
pub mod eglib;
pub mod elephant;
mod error;
pub mod facts;
mod game;
pub mod gib;
pub mod names;
pub mod persons;
pub mod pgn;
pub mod playtags;
mod read;
mod replay;
pub mod spellings;
pub mod tags;
pub mod write;

mod board90;
pub mod cbf;
pub mod cbl;
pub mod cbr;
pub mod ccbridge;
pub mod dhtmlxq;
pub mod xqf;

pub use error::{ErrorKind, GameError};
pub use game::{Game, MoveNode, Source, Tags};
pub use read::{
    chunks, chunks_of_bytes, read_bytes, read_path, BinaryReader, Chunk, GameNumbers, Placed,
    BINARY_READERS, PGN_CHUNK_BYTES,
};
pub use replay::{distinct_positions, replay, replay_or_prefix, Replay};

//! # qipu (棋谱)
//!
//! Xiangqi (Chinese chess) and Janggi (Korean chess) game records → position database →
//! opening explorer and engine opening books.
//!
//! Data flow: `formats` readers yield games; `notation` resolves every move against a
//! position of `rules`; `pipeline` replays games in parallel; `store` keeps games and
//! position→move statistics in SQLite; `explorer` and `book` read them back.
//!
//! ```
//! use qipu::rules::{Position, Xiangqi};
//! let pos = Xiangqi::new();
//! assert_eq!(pos.legal_moves().len(), 44);
//! ```
//!
//! The layers, bottom up, and what each may not import (checked by `scripts/check-layering.sh`):
//! `rules` (nothing of the crate), `notation` (no `formats` and up), `formats` (no `store` and
//! up), `book` (no `store` and up), `store` (no `pipeline` and up), `bulk` (the Spark build's map and load: no `explorer`, `web`, `cli`), `explorer` (no `pipeline`,
//! `web`, `cli`), `web` (no `pipeline`, `cli`), and `cli` on top. `cli` is the binary's
//! plumbing, not library API.

#![warn(missing_docs)]

pub mod analysis;
pub mod book;
pub mod bulk;
mod cli;
pub mod engine;
pub mod explorer;
pub mod formats;
pub mod notation;
pub mod pipeline;
pub mod rules;
pub mod store;
pub mod web;

/// Runs the `qipu` command line (the binary's whole `main`): parses the arguments, runs the
/// command and returns its exit code (0 success, 1 partial failure, 2 fatal error).
pub use cli::main as run_cli;

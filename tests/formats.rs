//! Readers, decoding, `read_path` and replay on small fixtures (`tests/data/formats/`), and
//! the real collections under `../shared` (ignored by default).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod shared;

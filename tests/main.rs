//! Integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod binfmt;
mod common;
mod formats;
mod notation;
mod pipeline;
mod rules;
mod store;

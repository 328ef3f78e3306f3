//! Integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod e2e;
mod notation;
mod rules;
mod web;

//! Integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod analyse;
mod binfmt;
mod book;
mod common;
mod copies;
mod db_guard;
mod e2e;
mod filters;
mod formats;
mod notation;
mod pipeline;
mod rules;
mod sources;
mod spark;
mod store;
mod web;
mod web_limits;

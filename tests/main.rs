//! Integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod analyse;
mod binfmt;
mod book;
mod common;
mod copies;
mod db_guard;
mod e2e;
mod export;
mod filters;
mod formats;
mod move_table;
mod notation;
mod openings;
mod persons;
mod pipeline;
mod players_cli;
mod rules;
mod serve_reads;
mod sources;
mod spark;
mod store;
mod top_games;
mod web;
mod web_limits;
mod web_serve;

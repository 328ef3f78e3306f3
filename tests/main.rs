//! Integration tests.
mod web;

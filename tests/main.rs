//! Integration tests.
mod notation;

//! Integration tests.
mod binfmt;

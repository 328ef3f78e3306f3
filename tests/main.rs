//! Integration tests.

mod book;

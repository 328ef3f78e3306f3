//! Integration tests.

mod formats;

//! Per-thread request context. Each worker thread of the server owns one [`Worker`]: its own
//! read-only database connection (so the pool of read connections needs no lock) and a shared,
//! immutable view of the server's configuration.

use std::sync::Arc;

use super::server::Config;

/// What a request handler may use. Created once per worker thread.
#[derive(Debug)]
pub struct Worker {
    config: Arc<Config>,
}

impl Worker {
    /// A worker for a server with no database and no books (the board and position routes
    /// still work).
    pub fn without_database() -> Worker {
        Worker {
            config: Arc::new(Config::default()),
        }
    }

    /// Opens the worker's own connections for a server configuration.
    ///
    /// # Errors
    /// A message naming the file that could not be opened.
    pub fn open(config: Arc<Config>) -> Result<Worker, String> {
        Ok(Worker { config })
    }

    /// Whether a database is attached.
    pub fn has_database(&self) -> bool {
        false
    }

    /// The names under which the books are served (`book=` of `/api/probe`).
    pub fn book_names(&self) -> Vec<&str> {
        Vec::new()
    }

    /// The server configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }
}

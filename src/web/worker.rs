//! Per-thread request context. Each worker thread of the server owns one [`Worker`]: its own
//! read-only database connection (so the pool of read connections needs no lock; SQLite in WAL
//! mode lets an import write beside them) and shared views of the configuration and the
//! answer cache.

use std::{borrow::Cow, sync::Arc};

use super::{
    cache::Cache,
    config::{Config, StartError},
};
use crate::{
    book::{Book, BookFacts},
    formats::Source,
    store::Store,
};

/// What a request handler may use. Created once per worker thread.
#[derive(Debug)]
pub struct Worker {
    config: Arc<Config>,
    store: Option<Store>,
    cache: Option<Arc<Cache>>,
    books: Vec<(String, Book, BookFacts)>,
}

impl Worker {
    /// A worker for a server with no database and no books (the board and position routes
    /// still work).
    pub fn without_database() -> Worker {
        Worker {
            config: Arc::new(Config::default()),
            store: None,
            cache: None,
            books: Vec::new(),
        }
    }

    /// Opens the worker's own read-only connection to the configured database (and its
    /// books); it keeps no answer cache.
    ///
    /// # Errors
    /// [`StartError`] naming the file that could not be opened, with the store's or book's
    /// error as its source.
    pub fn open(config: Arc<Config>) -> Result<Worker, StartError> {
        Worker::with_cache(config, None)
    }

    /// [`Worker::open`], sharing the server's answer cache.
    pub(crate) fn with_cache(
        config: Arc<Config>,
        cache: Option<Arc<Cache>>,
    ) -> Result<Worker, StartError> {
        let store =
            match &config.db {
                Some(path) => Some(Store::open_read_only(path).map_err(|e| {
                    StartError::because(format!("cannot open {}", path.display()), e)
                })?),
                None => None,
            };
        let books = config
            .books
            .iter()
            .map(|(name, path)| {
                let because =
                    |e| StartError::because(format!("cannot open book {}", path.display()), e);
                let book = Book::open(path).map_err(because)?;
                let facts = book.facts().map_err(because)?;
                Ok((name.clone(), book, facts))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Worker {
            config,
            store,
            cache,
            books,
        })
    }

    /// Whether a database is attached.
    pub fn has_database(&self) -> bool {
        self.store.is_some()
    }

    /// The database connection, if any.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The answer cache, if enabled.
    pub(crate) fn cache(&self) -> Option<&Cache> {
        self.cache.as_deref()
    }

    /// The names under which the books are served (`book=` of `/api/probe`).
    pub fn book_names(&self) -> Vec<&str> {
        self.books.iter().map(|(n, _, _)| n.as_str()).collect()
    }

    /// A book by name with its facts (read once, when the worker opened it); with a single
    /// book the name may be left out.
    pub fn book(&self, name: Option<&str>) -> Option<(&str, &Book, &BookFacts)> {
        match name {
            None if self.books.len() == 1 => self.books.first(),
            None => None,
            Some(n) => self.books.iter().find(|(b, _, _)| b == n),
        }
        .map(|(n, b, f)| (n.as_str(), b, f))
    }

    /// The server configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A game's source as the API shows it: the stored path with `--show-paths`, otherwise
    /// [`file_name_only`].
    pub fn shown_source<'s>(&self, source: &'s Source) -> Cow<'s, Source> {
        if self.config.show_paths {
            return Cow::Borrowed(source);
        }
        Cow::Owned(Source {
            file: file_name_only(&source.file).to_string(),
            ..source.clone()
        })
    }
}

/// A stored source path without its folders, which tell another web page about the user's
/// file system: `/home/u/games/a.pgn` → `a.pgn`, `C:\games\a.pgn` → `a.pgn`, and inside an
/// archive the member path stays: `/home/u/all.zip:2020/a.pgn` → `all.zip:2020/a.pgn`.
/// (The store keeps paths as they were given to `qipu import`; it does not know the folder
/// the import started from. A `:` inside a folder name may leave that folder's name.)
///
/// ```
/// use qipu::web::file_name_only;
/// assert_eq!(file_name_only("/home/u/games/a.pgn"), "a.pgn");
/// assert_eq!(file_name_only("../data/all.zip:2020/x/a.pgn"), "all.zip:2020/x/a.pgn");
/// assert_eq!(file_name_only(r"C:\games\a.pgn"), "a.pgn");
/// assert_eq!(file_name_only("a.pgn"), "a.pgn");
/// ```
pub fn file_name_only(path: &str) -> &str {
    // A drive letter's colon (`C:`) is not an archive's.
    let skip = if path.as_bytes().get(1) == Some(&b':') {
        2
    } else {
        0
    };
    let outer_end = path
        .get(skip..)
        .and_then(|p| p.find(':'))
        .map_or(path.len(), |i| i + skip);
    match path[..outer_end].rfind(['/', '\\']) {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

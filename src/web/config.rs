//! How `qipu serve` is configured: the [`Config`] the CLI fills in, its [`Timeouts`], and
//! the check of a `--cors` origin. Plain data, read by the server (sockets, pools) and by
//! each worker (what a request may use); it depends on neither, so the two need not import
//! each other.

use std::{path::PathBuf, time::Duration};

/// Time limits on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// To send a whole request head.
    pub head: Duration,
    /// To send a request body.
    pub body: Duration,
    /// Between the answer to a request and the first byte of the next one.
    pub idle: Duration,
    /// To take an answer (each write).
    pub write: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            head: Duration::from_secs(10),
            body: Duration::from_secs(10),
            idle: Duration::from_secs(5),
            write: Duration::from_secs(10),
        }
    }
}

/// How to run the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (default `127.0.0.1:8080`; port 0 picks a free port).
    pub addr: String,
    /// Worker threads (each holds one read connection).
    pub threads: usize,
    /// The database (opened read-only), if any.
    pub db: Option<PathBuf>,
    /// Memory for cached answers of the database routes, in bytes (0 = no cache).
    pub cache_bytes: usize,
    /// Opening books served by `/api/probe`, each under the name given.
    pub books: Vec<(String, PathBuf)>,
    /// The one other origin whose pages may read the answers (CORS
    /// `Access-Control-Allow-Origin`); `None`: only the server's own page.
    pub cors: Option<String>,
    /// Whether `/api/games/{id}` shows the stored source paths in full; otherwise only their
    /// file name (and the member's path inside an archive).
    pub show_paths: bool,
    /// Most connections open at once.
    pub max_connections: usize,
    /// Time limits on each connection.
    pub timeouts: Timeouts,
    /// The access log (one line per request: time, client, request line, status, duration),
    /// appended to; `None`: no log.
    pub log: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: "127.0.0.1:8080".to_string(),
            threads: 4,
            db: None,
            cache_bytes: 64 << 20,
            books: Vec::new(),
            cors: None,
            show_paths: false,
            max_connections: 4096,
            timeouts: Timeouts::default(),
            log: None,
        }
    }
}

/// Checks a `--cors` origin: `*`, or `scheme://host[:port]` in printable ASCII without a path.
///
/// ```
/// use qipu::web::valid_origin;
/// assert!(valid_origin("https://example.org"));
/// assert!(valid_origin("http://localhost:3000"));
/// assert!(!valid_origin("example.org"));
/// assert!(!valid_origin("https://example.org/path"));
/// assert!(!valid_origin("https://a\r\nSet-Cookie: x"));
/// ```
pub fn valid_origin(origin: &str) -> bool {
    if origin == "*" {
        return true;
    }
    let Some((scheme, host)) = origin.split_once("://") else {
        return false;
    };
    !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        && !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b))
}

/// Why the server could not start: what failed (`cannot open book.obk`, `cannot listen on
/// 127.0.0.1:80`, a malformed `--cors`), and the error underneath when there is one (the
/// store's, the book's, the socket's), kept as the [`source`](std::error::Error::source).
///
/// ```
/// use qipu::web::StartError;
/// let io = std::io::Error::from(std::io::ErrorKind::AddrInUse);
/// let e = StartError::because("cannot listen on 127.0.0.1:8080", io);
/// assert!(e.to_string().starts_with("cannot listen on 127.0.0.1:8080: "));
/// let source = std::error::Error::source(&e).unwrap();
/// assert_eq!(
///     source.downcast_ref::<std::io::Error>().map(|e| e.kind()),
///     Some(std::io::ErrorKind::AddrInUse)
/// );
/// ```
#[derive(Debug)]
pub struct StartError {
    what: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl StartError {
    /// A failure of its own (no error underneath), displayed as `what`.
    pub fn new(what: impl Into<String>) -> StartError {
        StartError {
            what: what.into(),
            source: None,
        }
    }

    /// A failure caused by `source`, displayed as `what: source`.
    pub fn because(
        what: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> StartError {
        StartError {
            what: what.into(),
            source: Some(source.into()),
        }
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Some(e) => write!(f, "{}: {e}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

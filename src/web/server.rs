//! The HTTP server: the event loop, the connections and their time limits, shutdown. It
//! owns how connections are accepted, timed and closed; what a request is answered is
//! [`super::service`]'s and [`super::routes`]' business, HTTP syntax hyper's.
//!
//! Why hyper over tokio (and not a hand-written server, as before): a thread per connection
//! made every held connection cost a thread and its memory (RSS rose past 1 GB under 1,000
//! reconnecting clients, threads were never given back, and 256 idle connections shut every
//! other client out). hyper is the HTTP/1 implementation of axum, reqwest and of the
//! Lichess opening explorer that this API resembles; it parses strictly and is fuzzed and
//! kept by others. axum's router is not used: [`super::routes`] already routes, and its
//! answers are the contract, byte for byte. tower-http compresses the answers.
//!
//! - An event loop of at most 2 threads (the machine's cores, at most 2) holds every
//!   connection: an idle or slow connection costs memory (its task and hyper's buffers, a few
//!   KB to ~40 KB: see [`MAX_HEAD`]), never a thread.
//! - At most [`Config::max_connections`] connections are open at once; when full, the
//!   oldest idle connection (first of an address over its share) is closed to make room, and
//!   only when every connection is answering a request is the newcomer answered `503`
//!   ([`super::conn`]).
//! - A connection has [`Timeouts::head`](super::Timeouts::head) to send a request head
//!   (counted from its start, and for later requests from the end of the previous answer),
//!   [`Timeouts::body`](super::Timeouts::body) for a body, is closed after
//!   [`Timeouts::idle`](super::Timeouts::idle) without a byte of a next request, and a
//!   client that does not take its answer within [`Timeouts::write`](super::Timeouts::write)
//!   is dropped. Slow and idle connections are closed without a word; a malformed request
//!   is answered by hyper (`400`, `414`, `431`) and its connection closed.
//! - The database work runs on a fixed pool of [`Config::threads`] read-only connections
//!   (tokio's blocking pool, bounded to that many threads), never on the event loop; an
//!   answer in the cache is taken without a worker.
//! - Memory is bounded by the connections (`max_connections` × ~40 KB, 160 MB at the default
//!   4,096), the workers (SQLite's page cache, a few MB each) and the answers in flight (at
//!   most one being computed per worker), plus the cache (`--cache-mb`, at most twice it).
//!   That is the server's own (anonymous) memory: 13–79 MB measured at 1M games under the
//!   loads of `scripts/bench-serve-loads.sh`. `VmRSS` also counts the database pages each
//!   worker's connection maps (`RssFile`; see `store::READ_MMAP_BYTES`): they are the
//!   operating system's page cache, at most the file's size, shared with every process
//!   reading the file and given back under memory pressure, and `VmRSS` counts a page once
//!   per connection that touched it (447 MB of a 1 GB database after those loads).
//! - On SIGTERM or Ctrl-C ([`Server::run`]) the server stops accepting, lets the requests
//!   in flight finish (at most 30 s), closes the idle connections and returns.
//! - Bound to a loopback address, the server answers only requests addressed to this machine
//!   ([`super::http::loopback_host`]; a request without `Host` is served): a page of another
//!   site whose name was re-pointed at 127.0.0.1 (DNS rebinding) is answered `403`.

use std::{
    future::Future,
    io,
    net::{SocketAddr, TcpListener},
    sync::Arc,
    time::Duration,
};

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{io::AsyncWriteExt, sync::watch};
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;

use super::{
    cache::{Cache, DbVersion},
    config::{valid_origin, Config, StartError},
    conn::{Table, Ticket, Timed},
    reply::Reply,
    service::{handle, AccessLog, Pool, Shared},
    worker::Worker,
};

/// Largest request head hyper reads (request line and headers); larger is answered `431`.
pub const MAX_HEAD: usize = super::query::MAX_TARGET + 16 * 1024;

/// A bound server, not yet answering.
///
/// ```no_run
/// use qipu::web::{Config, Server};
/// let server = Server::bind(Config { addr: "127.0.0.1:0".into(), ..Config::default() }).unwrap();
/// println!("listening on http://{}", server.local_addr());
/// server.run(); // blocks
/// ```
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    config: Arc<Config>,
    workers: Vec<Worker>,
    cache: Option<Arc<Cache>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}

/// The start of the message when the address cannot be bound.
fn cannot_listen(config: &Config) -> String {
    format!("cannot listen on {}", config.addr)
}

impl Server {
    /// Opens every worker's connections, then binds the address.
    ///
    /// # Errors
    /// [`StartError`] if a file cannot be opened, the `cors` origin is malformed or the
    /// address cannot be bound (with the store's, book's or socket's error as its source).
    pub fn bind(config: Config) -> Result<Server, StartError> {
        if let Some(origin) = &config.cors {
            if !valid_origin(origin) {
                return Err(StartError::new(format!(
                    "--cors `{origin}`: give an origin like https://example.org (scheme, host, port; no path)"
                )));
            }
        }
        let config = Arc::new(config);
        let cache = (config.cache_bytes > 0)
            .then(|| Arc::new(Cache::new(config.db.as_deref(), config.cache_bytes)));
        let workers = (0..config.threads.max(1))
            .map(|_| Worker::with_cache(config.clone(), cache.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let listener =
            listen(&config.addr).map_err(|e| StartError::because(cannot_listen(&config), e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| StartError::because(cannot_listen(&config), e))?;
        Ok(Server {
            listener,
            addr,
            config,
            workers,
            cache,
        })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Answers requests until SIGTERM or Ctrl-C, then shuts down gracefully
    /// ([`Server::run_until`]).
    pub fn run(self) {
        self.run_until(stop_signal());
    }

    /// Answers requests until `stop` is ready; then stops accepting, lets the requests in
    /// flight finish (at most 30 s), closes the idle connections and returns.
    ///
    /// ```no_run
    /// use qipu::web::{Config, Server};
    /// let server = Server::bind(Config { addr: "127.0.0.1:0".into(), ..Config::default() }).unwrap();
    /// server.run_until(async { tokio::time::sleep(std::time::Duration::from_secs(1)).await });
    /// ```
    pub fn run_until(self, stop: impl Future<Output = ()> + Send + 'static) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(event_threads())
            .max_blocking_threads(self.workers.len().max(1))
            .thread_name("qipu-serve")
            .enable_all()
            .build();
        let runtime = match runtime {
            Ok(r) => r,
            Err(e) => return eprintln!("qipu serve: cannot start the event loop: {e}"),
        };
        let Server {
            listener,
            addr,
            config,
            workers,
            cache,
        } = self;
        let log = match &config.log {
            Some(file) => match AccessLog::open(file) {
                Ok(l) => Some(l),
                Err(e) => return eprintln!("qipu serve: {}: {e}", file.display()),
            },
            None => None,
        };
        let shared = Arc::new(Shared {
            version: DbVersion::new(config.db.as_deref()),
            pool: Pool::new(workers),
            cache,
            loopback: addr.ip().is_loopback(),
            log,
            config,
        });
        runtime.block_on(accept_loop(listener, shared, stop));
        runtime.shutdown_timeout(Duration::from_secs(1));
    }
}

/// SIGTERM or Ctrl-C (SIGINT).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// The event loop's threads: the machine's cores, at most 2.
fn event_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: impl Future<Output = ()> + Send + 'static,
) {
    let listener = match listener
        .set_nonblocking(true)
        .and_then(|()| tokio::net::TcpListener::from_std(listener))
    {
        Ok(l) => l,
        Err(e) => return eprintln!("qipu serve: {e}"),
    };
    let table = Table::new(shared.config.max_connections);
    let (stopping, stopped) = watch::channel(false);
    // Each connection task holds a sender; all are gone when the last connection closed.
    let (alive, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    let stop = std::pin::pin!(stop);
    let mut stop = stop;
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait for connections to close.
                    eprintln!("qipu serve: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(ticket) = table.admit(peer.ip()) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let (shared, table, stopped, alive) = (
            shared.clone(),
            table.clone(),
            stopped.clone(),
            alive.clone(),
        );
        tokio::spawn(async move {
            serve_connection(stream, peer, &shared, &table, ticket, stopped).await;
            drop(alive);
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    drop(alive);
    let _ = tokio::time::timeout(Duration::from_secs(30), all_closed.recv()).await;
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    shared: &Arc<Shared>,
    table: &Table,
    ticket: Ticket,
    mut stopped: watch::Receiver<bool>,
) {
    let limits = shared.config.timeouts;
    let _ = stream.set_nodelay(true);
    let conn = ticket.conn.clone();
    let io = TokioIo::new(Timed::new(stream, limits.write, conn.clone()));
    let svc = {
        let (shared, conn) = (shared.clone(), conn.clone());
        ServiceBuilder::new()
            .layer(CompressionLayer::new())
            .service(tower::service_fn(move |req| {
                let (shared, conn) = (shared.clone(), conn.clone());
                async move {
                    conn.set_busy(true);
                    let answer = handle(shared, peer, req).await;
                    conn.set_busy(false);
                    Ok::<_, std::convert::Infallible>(answer)
                }
            }))
    };
    let http = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.head)
        .max_buf_size(MAX_HEAD)
        .serve_connection(io, hyper_util::service::TowerToHyperService::new(svc));
    let mut http = std::pin::pin!(http);
    // The idle limit: checked a few times per period, closing a connection that was idle
    // (no request answered, no byte read) for the whole of it after its first answer.
    let tick = (limits.idle / 4).max(Duration::from_millis(10));
    let mut seen = 0;
    let mut quiet = Duration::ZERO;
    let mut answered = false;
    loop {
        tokio::select! {
            _ = http.as_mut() => return,
            _ = conn.evicted.notified() => return,
            changed = stopped.changed() => {
                if changed.is_err() || *stopped.borrow() {
                    http.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(30), http.as_mut()).await;
                    return;
                }
            }
            _ = tokio::time::sleep(tick) => {
                let now = conn.bytes_in.load(std::sync::atomic::Ordering::Relaxed);
                if conn.is_busy() || now != seen {
                    answered |= now != seen;
                    seen = now;
                    quiet = Duration::ZERO;
                    table.touch(&ticket);
                } else if answered {
                    quiet += tick;
                    if quiet >= limits.idle {
                        return;
                    }
                }
            }
        }
    }
}

/// Answers `503` to a connection over the limit and closes it.
async fn refuse(mut stream: tokio::net::TcpStream) {
    let reply = Reply::error(503, "too many connections: try again shortly");
    let mut bytes = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {}\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n",
        reply.content_type,
        reply.body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(&reply.body);
    let write = async {
        stream.write_all(&bytes).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_millis(200), write).await;
}

/// Binds a listening socket with `TCP_NODELAY` (inherited by accepted connections on Linux),
/// so that small answers are not held back by Nagle's algorithm and delayed ACKs.
fn listen(addr: &str) -> io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let addr: SocketAddr = std::net::ToSocketAddrs::to_socket_addrs(addr)?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address"))?;
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{
        io::{Read, Write},
        net::TcpStream,
        thread,
    };

    /// Sends one raw request to `addr` and returns the status line.
    fn status_line(addr: SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut text = Vec::new();
        let _ = s.read_to_end(&mut text);
        let text = String::from_utf8_lossy(&text).into_owned();
        text.lines().next().unwrap_or_default().to_string()
    }

    #[test]
    fn on_loopback_only_requests_addressed_to_this_machine_are_answered() {
        let server = Server::bind(Config {
            addr: "127.0.0.1:0".into(),
            threads: 1,
            ..Config::default()
        })
        .unwrap();
        let addr = server.local_addr();
        thread::spawn(move || server.run());
        let get = |host: Option<&str>, target: &str| {
            let host = host.map_or(String::new(), |h| format!("Host: {h}\r\n"));
            status_line(
                addr,
                &format!("GET {target} HTTP/1.1\r\n{host}Connection: close\r\n\r\n"),
            )
        };
        let port = addr.port();
        for ok in [
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            "[::1]".to_string(),
        ] {
            assert!(
                get(Some(&ok), "/api/status").starts_with("HTTP/1.1 200"),
                "{ok}"
            );
        }
        assert!(get(None, "/api/status").starts_with("HTTP/1.1 200"));
        // A rebinding page sends its own name, whatever the address it reached.
        for evil in [format!("evil.example:{port}"), "127.0.0.1.nip.io".into()] {
            assert!(
                get(Some(&evil), "/api/status").starts_with("HTTP/1.1 403"),
                "{evil}"
            );
        }
        let absolute = format!("http://evil.example:{port}/api/status");
        assert!(get(Some("localhost"), &absolute).starts_with("HTTP/1.1 403"));
    }
}

//! The HTTP server: sockets, time limits and the two pools. It owns how connections are
//! accepted, read, answered and closed; what a request is answered is [`super::routes`]'
//! business, the HTTP syntax [`super::http`]'s.
//!
//! - One thread accepts. At most [`Config::max_connections`] connections are open at once;
//!   one more is answered `503` and closed at once.
//! - Each open connection is served by a thread of the connection pool (threads are started
//!   as connections need them, up to that bound, and kept for the next ones). It reads a
//!   request head within [`Timeouts::head`](super::Timeouts::head) (counted from the connection's start, or from the
//!   first byte of a later request), a body within [`Timeouts::body`], waits at most
//!   [`Timeouts::idle`](super::Timeouts::idle) for the next request of a kept-alive connection, and gives up on a
//!   client that does not read its answer within [`Timeouts::write`](super::Timeouts::write). A request that is too
//!   slow is answered `408`, a malformed one `400` (or `411`/`413`/`414`/`431`), and the
//!   connection is closed; a quiet idle connection is closed without a word.
//! - A fixed pool of [`Worker`]s (each with its own read-only database connection;
//!   [`Config::threads`] of them) answers the requests: once a connection thread has read a
//!   whole request it borrows an idle worker (waiting for one when all are busy), computes
//!   the answer with it on its own thread, gives the worker back, and only then writes the
//!   answer. A worker is never held while a client is read or written, so slow clients
//!   cannot hold the database, and at most that many answers are computed at once. (There is
//!   no hand-off to another thread: a request costs no thread switch beyond its socket's.) An
//!   answer already in the [`Cache`] is taken without a worker.
//! - Bound to a loopback address, the server answers only requests addressed to this machine
//!   ([`http::loopback_host`]; a request without `Host` is served): a page of another site
//!   whose name was re-pointed at 127.0.0.1 (DNS rebinding) is answered `403`.

use std::{
    collections::VecDeque,
    io::{self, Read, Write},
    net::{Shutdown, SocketAddr, TcpListener, TcpStream},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{
        atomic::{AtomicUsize, Ordering},
        mpsc, Arc, Condvar, Mutex, MutexGuard,
    },
    thread,
    time::{Duration, Instant},
};

use super::{
    cache::Cache,
    config::{valid_origin, Config, StartError},
    http::{self, Head, MAX_HEAD},
    reply::Reply,
    routes::route,
    worker::Worker,
};

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

    /// Answers requests until the process ends.
    pub fn run(self) {
        let max = self.config.max_connections.max(1);
        let shared = Arc::new(Shared {
            workers: Pool::new(self.workers),
            open: AtomicUsize::new(0),
            config: self.config,
            cache: self.cache,
            loopback: self.addr.ip().is_loopback(),
        });
        let (queue, waiting) = mpsc::channel::<TcpStream>();
        let waiting = Arc::new(Mutex::new(waiting));
        let mut threads = 0;
        for stream in self.listener.incoming() {
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    // Out of file descriptors and the like: wait for connections to close.
                    eprintln!("qipu serve: {e}");
                    thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            let open = shared.open.load(Ordering::Acquire);
            if open >= max {
                refuse(stream, "too many connections: try again shortly");
                continue;
            }
            // Every open connection has a thread: start one when all are taken.
            if threads <= open {
                let (shared, waiting) = (shared.clone(), waiting.clone());
                let started = thread::Builder::new()
                    .name("qipu-conn".into())
                    .spawn(move || connection_thread(&shared, &waiting));
                if let Err(e) = started {
                    eprintln!("qipu serve: cannot start a thread: {e}");
                    refuse(stream, "server busy: try again shortly");
                    continue;
                }
                threads += 1;
            }
            shared.open.fetch_add(1, Ordering::AcqRel);
            if queue.send(stream).is_err() {
                return;
            }
        }
    }
}

/// What every connection thread shares.
struct Shared {
    workers: Pool,
    open: AtomicUsize,
    config: Arc<Config>,
    /// The workers' answer cache, read here first.
    cache: Option<Arc<Cache>>,
    /// Bound to a loopback address: only requests addressed to this machine are answered.
    loopback: bool,
}

/// The workers not computing an answer right now, and the requests waiting for one, served
/// in the order they came: a worker given back goes straight to the oldest waiting request.
/// (Waiters on one condition variable are woken in no order, and the thread that gave a
/// worker back could take it again at once: at 16 connections on 4 workers some requests
/// waited for many turns, the p99.)
struct Pool {
    state: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    idle: Vec<Worker>,
    waiting: VecDeque<Arc<Handoff>>,
}

/// Where a waiting request receives its worker.
#[derive(Default)]
struct Handoff {
    worker: Mutex<Option<Worker>>,
    given: Condvar,
}

impl Pool {
    fn new(workers: Vec<Worker>) -> Pool {
        Pool {
            state: Mutex::new(PoolState {
                idle: workers,
                waiting: VecDeque::new(),
            }),
        }
    }

    /// An idle worker when no request waits before this one, else the worker given back to
    /// this one in its turn.
    fn take(&self) -> Worker {
        let handoff = {
            let mut state = lock(&self.state);
            if state.waiting.is_empty() {
                if let Some(w) = state.idle.pop() {
                    return w;
                }
            }
            let h = Arc::new(Handoff::default());
            state.waiting.push_back(Arc::clone(&h));
            h
        };
        let mut slot = lock(&handoff.worker);
        loop {
            if let Some(w) = slot.take() {
                return w;
            }
            slot = handoff
                .given
                .wait(slot)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Gives a worker to the oldest waiting request, or back to the idle ones.
    fn give_back(&self, worker: Worker) {
        let mut state = lock(&self.state);
        match state.waiting.pop_front() {
            Some(h) => {
                *lock(&h.worker) = Some(worker);
                h.given.notify_one();
            }
            None => state.idle.push(worker),
        }
    }

    /// Answers a request with a worker ([`Pool::take`]); the worker is given back before this
    /// returns, even if the route panicked (a bug: the answer is then 500).
    fn answer(&self, method: &str, target: &str) -> Reply {
        let mut worker = self.take();
        let reply = catch_unwind(AssertUnwindSafe(|| route(&mut worker, method, target)))
            .unwrap_or_else(|_| Reply::error(500, "internal error"));
        self.give_back(worker);
        reply
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Shared {
    /// Answers `head` from the cache, or else with a worker (waiting for one to be free).
    /// Only the database routes' successful answers are cached, under their target, and only
    /// `GET`/`HEAD` are looked up, so a hit is what the route would answer.
    fn answer(&self, head: &Head) -> Reply {
        if matches!(head.method.as_str(), "GET" | "HEAD") {
            if let Some(reply) = self.cache.as_deref().and_then(|c| c.answer(&head.target)) {
                return reply;
            }
        }
        self.workers.answer(&head.method, &head.target)
    }
}

fn connection_thread(shared: &Shared, waiting: &Mutex<mpsc::Receiver<TcpStream>>) {
    loop {
        let next = lock(waiting).recv();
        let Ok(stream) = next else {
            return;
        };
        // A panic here would be a bug; the connection is dropped, the thread goes on.
        let _ = catch_unwind(AssertUnwindSafe(|| serve_connection(stream, shared)));
        shared.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Answers `503` to a connection over the limit and closes it.
fn refuse(stream: TcpStream, message: &str) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    let reply = Reply::error(503, message);
    let bytes = http::answer(
        503,
        &[
            ("Content-Type", reply.content_type),
            ("Retry-After", "1"),
            ("Connection", "close"),
        ],
        &reply.body,
        true,
    );
    let mut s = &stream;
    let _ = s.write_all(&bytes);
    let _ = stream.shutdown(Shutdown::Write);
}

/// How reading a request head ended.
enum HeadRead {
    /// The head is `buf[..n]`.
    Complete(usize),
    /// The client closed, or the connection failed.
    Closed,
    /// Time ran out; `partial`: some of a request had arrived.
    TimedOut { partial: bool },
    /// The head exceeds [`MAX_HEAD`]; `line`: the request line alone does.
    TooLong { line: bool },
}

/// One client connection: its socket and the bytes read but not yet used (pipelining).
struct Connection<'a> {
    stream: TcpStream,
    buf: Vec<u8>,
    shared: &'a Shared,
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let limits = shared.config.timeouts;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(limits.write));
    let mut c = Connection {
        stream,
        buf: Vec::new(),
        shared,
    };
    let mut first = true;
    loop {
        let read = c.read_head(if first { limits.head } else { limits.idle }, !first);
        first = false;
        let end = match read {
            HeadRead::Complete(end) => end,
            HeadRead::Closed | HeadRead::TimedOut { partial: false } => return,
            HeadRead::TimedOut { partial: true } => {
                return c.fail(408, "the request head did not arrive in time");
            }
            HeadRead::TooLong { line: true } => return c.fail(414, "request target too long"),
            HeadRead::TooLong { line: false } => return c.fail(431, "request head too large"),
        };
        let parsed = http::parse(&c.buf[..end]);
        c.buf.drain(..end);
        let head = match parsed {
            Ok(h) => h,
            Err(m) => return c.fail(m.status, m.message),
        };
        if !c.read_body(head.content_length, limits.body) {
            return c.fail(408, "the request body did not arrive in time");
        }
        if shared.loopback
            && head
                .host
                .as_deref()
                .is_some_and(|h| !http::loopback_host(h))
        {
            return c.fail(
                403,
                "this server is bound to a loopback address and answers only requests \
                 addressed to this machine (Host: localhost, 127.0.0.1 or [::1])",
            );
        }
        let (keep_alive, http10, with_body) = (head.keep_alive, head.http10, head.method != "HEAD");
        let reply = shared.answer(&head);
        if c.send(keep_alive, http10, with_body, &reply).is_err() || !keep_alive {
            return c.close();
        }
    }
}

impl Connection<'_> {
    /// Reads until a whole head is in `buf`. The first byte must come within `wait`; when
    /// `restart` (a later request on the connection), the head then has [`Timeouts::head`]
    /// from that byte, otherwise from the start of `wait`.
    fn read_head(&mut self, wait: Duration, restart: bool) -> HeadRead {
        let limit = self.shared.config.timeouts.head;
        let mut deadline = Instant::now() + if self.buf.is_empty() { wait } else { limit };
        let mut partial = !self.buf.is_empty();
        let mut scanned = 0;
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = http::head_end(&self.buf, &mut scanned) {
                return HeadRead::Complete(end);
            }
            if self.buf.len() >= MAX_HEAD {
                return HeadRead::TooLong {
                    line: !self.buf.contains(&b'\n'),
                };
            }
            let n = match self.read_before(deadline, &mut chunk) {
                Ok(0) => return HeadRead::Closed,
                Ok(n) => n,
                Err(e) if is_timeout(&e) => return HeadRead::TimedOut { partial },
                Err(_) => return HeadRead::Closed,
            };
            if !partial && restart {
                deadline = Instant::now() + limit;
            }
            partial = true;
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// One read that must end by `deadline` (a timeout error after it).
    fn read_before(&mut self, deadline: Instant, chunk: &mut [u8]) -> io::Result<usize> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            self.stream.set_read_timeout(Some(left))?;
            match self.stream.read(chunk) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    /// Reads and drops a body of `len` bytes within `limit`; false if it did not come.
    fn read_body(&mut self, len: usize, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut chunk = [0u8; 4096];
        while self.buf.len() < len {
            match self.read_before(deadline, &mut chunk) {
                Ok(0) | Err(_) => return false,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
        self.buf.drain(..len);
        true
    }

    /// Writes the answer to a request.
    fn send(
        &mut self,
        keep_alive: bool,
        http10: bool,
        with_body: bool,
        reply: &Reply,
    ) -> io::Result<()> {
        let config = &self.shared.config;
        let mut headers: Vec<(&str, &str)> = vec![
            ("Content-Type", reply.content_type),
            ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-cache"),
            (
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
            ),
            ("Referrer-Policy", "no-referrer"),
        ];
        if let Some(origin) = &config.cors {
            headers.push(("Access-Control-Allow-Origin", origin));
            headers.push(("Vary", "Origin"));
        }
        if reply.status == 405 {
            headers.push(("Allow", "GET, HEAD"));
        }
        if !keep_alive {
            headers.push(("Connection", "close"));
        } else if http10 {
            headers.push(("Connection", "keep-alive"));
        }
        let body: &[u8] = if with_body { &reply.body } else { &[] };
        // A small body goes in the head's buffer; a large one beside it (one system call
        // either way, no copy of a large body).
        let mut head = http::head(reply.status, &headers, reply.body.len(), SMALL_BODY);
        if body.len() <= SMALL_BODY {
            head.extend_from_slice(body);
            return self.stream.write_all(&head);
        }
        write_both(&mut self.stream, &head, body)
    }

    /// Answers an error that ends the connection, then closes it.
    fn fail(mut self, status: u16, message: &str) {
        let reply = Reply::error(status, message);
        let bytes = http::answer(
            status,
            &[
                ("Content-Type", reply.content_type),
                ("Connection", "close"),
            ],
            &reply.body,
            true,
        );
        let _ = self.stream.write_all(&bytes);
        self.close();
    }

    /// Closes after the answer has gone: what the client still sends is read (briefly) and
    /// dropped, since closing with unread input would reset the connection and could
    /// destroy the answer on its way.
    fn close(mut self) {
        let _ = self.stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut chunk = [0u8; 4096];
        for _ in 0..64 {
            match self.read_before(deadline, &mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }
}

/// Bodies up to this size are copied behind the head and written with it.
const SMALL_BODY: usize = 4096;

/// Writes `a` then `b` with as few system calls as the socket allows (vectored writes).
fn write_both(stream: &mut TcpStream, a: &[u8], b: &[u8]) -> io::Result<()> {
    let mut parts = [io::IoSlice::new(a), io::IoSlice::new(b)];
    let mut parts: &mut [io::IoSlice<'_>] = &mut parts;
    while !parts.is_empty() {
        match stream.write_vectored(parts) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut parts, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
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

    /// Requests waiting for a worker get it in the order they came, and a request that
    /// comes while others wait does not take a worker before them.
    #[test]
    fn a_worker_given_back_goes_to_the_oldest_waiting_request() {
        let pool = Arc::new(Pool::new(vec![Worker::without_database()]));
        let held = pool.take();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for i in 0..4 {
            let (pool2, order2) = (Arc::clone(&pool), Arc::clone(&order));
            waiting.push(thread::spawn(move || {
                let w = pool2.take();
                lock(&order2).push(i);
                thread::sleep(Duration::from_millis(2));
                pool2.give_back(w);
            }));
            while lock(&pool.state).waiting.len() <= i {
                thread::sleep(Duration::from_millis(1));
            }
        }
        pool.give_back(held);
        // Taken while four wait: this one comes last.
        let late = pool.take();
        lock(&order).push(4);
        pool.give_back(late);
        for t in waiting {
            t.join().unwrap();
        }
        assert_eq!(*lock(&order), [0, 1, 2, 3, 4]);
        assert_eq!(lock(&pool.state).idle.len(), 1);
    }

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

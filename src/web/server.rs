//! The HTTP server: `tiny_http` reads requests on its connection threads; a fixed pool of
//! worker threads, each with its own [`Worker`] (read connection), answers them.

use std::{
    io,
    net::SocketAddr,
    panic::{catch_unwind, AssertUnwindSafe},
    path::PathBuf,
    sync::Arc,
    thread,
};

use tiny_http::{Header, Response, StatusCode};

use super::{cache::Cache, reply::Reply, routes::route, worker::Worker};

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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: "127.0.0.1:8080".to_string(),
            threads: 4,
            db: None,
            cache_bytes: 64 << 20,
            books: Vec::new(),
        }
    }
}

/// A bound server, not yet answering.
///
/// ```no_run
/// use qipu::web::{Config, Server};
/// let server = Server::bind(Config { addr: "127.0.0.1:0".into(), ..Config::default() }).unwrap();
/// println!("listening on http://{}", server.local_addr());
/// server.run(); // blocks
/// ```
pub struct Server {
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
    config: Arc<Config>,
    workers: Vec<Worker>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}

impl Server {
    /// Opens every worker's connections, then binds the address.
    ///
    /// # Errors
    /// A message if a file cannot be opened or the address cannot be bound.
    pub fn bind(config: Config) -> Result<Server, String> {
        let config = Arc::new(config);
        let cache = (config.cache_bytes > 0)
            .then(|| Arc::new(Cache::new(config.db.as_deref(), config.cache_bytes)));
        let workers = (0..config.threads.max(1))
            .map(|_| Worker::open(config.clone(), cache.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let listener =
            listen(&config.addr).map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
        let http = tiny_http::Server::from_listener(listener, None)
            .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| format!("{} is not an IP address", config.addr))?;
        Ok(Server {
            http: Arc::new(http),
            addr,
            config,
            workers,
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
        let handles: Vec<_> = self
            .workers
            .into_iter()
            .map(|mut worker| {
                let http = self.http.clone();
                thread::spawn(move || loop {
                    match http.recv() {
                        Ok(rq) => answer(&mut worker, rq),
                        Err(e) => eprintln!("qipu serve: {e}"),
                    }
                })
            })
            .collect();
        for h in handles {
            let _ = h.join();
        }
    }
}

/// Binds a listening socket with `TCP_NODELAY` (inherited by accepted connections on Linux):
/// tiny_http writes the head and the body of a response separately, and without it Nagle's
/// algorithm and delayed ACKs hold the body back for ~40 ms.
fn listen(addr: &str) -> io::Result<std::net::TcpListener> {
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

/// Answers one request; a panic in a handler becomes a 500 and the worker goes on.
fn answer(worker: &mut Worker, rq: tiny_http::Request) {
    let method = rq.method().clone();
    let reply = catch_unwind(AssertUnwindSafe(|| {
        route(worker, method.as_str(), rq.url())
    }))
    .unwrap_or_else(|_| Reply::error(500, "internal error"));
    let _ = send(rq, reply);
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// Writes a reply (tiny_http leaves the body out for HEAD requests itself).
fn send(rq: tiny_http::Request, reply: Reply) -> io::Result<()> {
    let len = reply.body.len();
    let body: Vec<u8> = reply.body.into_owned();
    let mut headers: Vec<Header> = [
        header("Content-Type", reply.content_type),
        header("X-Content-Type-Options", "nosniff"),
        header("Cache-Control", "no-cache"),
        header("Access-Control-Allow-Origin", "*"),
        header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    if reply.status == 405 {
        headers.extend(header("Allow", "GET, HEAD"));
    }
    let response = Response::new(
        StatusCode(reply.status),
        headers,
        io::Cursor::new(body),
        Some(len),
        None,
    );
    rq.respond(response)
}

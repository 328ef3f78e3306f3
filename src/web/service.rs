//! One request, from hyper's parsed head to the answer's head and body: the body is read
//! (and dropped) within its time limit, the loopback `Host` check, `/api/health`, the answer
//! cache, the [`Pool`] of database workers, the headers every answer carries (CORS, `ETag`,
//! `304` on `If-None-Match`) and the access log. Routing is [`super::routes`]' business, the
//! connections [`super::server`]'s.

use std::{
    io::Write,
    net::SocketAddr,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{mpsc, Arc, Mutex},
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{
    body::Incoming,
    header::{self, HeaderValue},
    Request, Response,
};
use tokio::sync::Semaphore;

use super::{
    cache::{hash_of, Cache, DbVersion},
    config::Config,
    http::loopback_host,
    reply::{Reply, JSON},
    routes::route,
    worker::Worker,
};

/// Largest request body read (and thrown away: every route is a `GET`).
pub const MAX_BODY: usize = 64 * 1024;

/// The database workers: at most as many answers computed at once as there are workers,
/// each on the blocking pool (never on the event loop), requests waiting their turn in the
/// order they came (the semaphore is fair).
pub struct Pool {
    idle: Mutex<Vec<Worker>>,
    permits: Arc<Semaphore>,
}

impl Pool {
    /// A pool of these workers.
    pub fn new(workers: Vec<Worker>) -> Arc<Pool> {
        Arc::new(Pool {
            permits: Arc::new(Semaphore::new(workers.len())),
            idle: Mutex::new(workers),
        })
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Worker>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers with a worker; a panic of the route (a bug) is answered 500. The worker goes
    /// back even when the client left meanwhile (the blocking job owns it).
    pub async fn answer(self: &Arc<Self>, method: String, target: String) -> Reply {
        let Ok(permit) = self.permits.clone().acquire_owned().await else {
            return Reply::error(503, "server stopping");
        };
        let pool = self.clone();
        let job = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let Some(mut worker) = pool.idle().pop() else {
                return Reply::error(500, "internal error: no idle worker");
            };
            let reply = catch_unwind(AssertUnwindSafe(|| route(&mut worker, &method, &target)))
                .unwrap_or_else(|_| Reply::error(500, "internal error"));
            pool.idle().push(worker);
            reply
        });
        job.await
            .unwrap_or_else(|_| Reply::error(500, "internal error"))
    }
}

/// The access log: one line per request, written by a thread of its own so that a slow
/// disk does not hold the event loop (up to 4,096 lines wait in memory, then requests do).
pub struct AccessLog {
    lines: mpsc::SyncSender<String>,
}

impl AccessLog {
    /// Appends to `file` (created if missing).
    ///
    /// # Errors
    /// If the file cannot be opened or the thread started.
    pub fn open(file: &std::path::Path) -> std::io::Result<AccessLog> {
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)?;
        let (lines, rx) = mpsc::sync_channel::<String>(4096);
        std::thread::Builder::new()
            .name("qipu-log".into())
            .spawn(move || {
                let mut out = std::io::LineWriter::new(f);
                for line in rx {
                    if out.write_all(line.as_bytes()).is_err() {
                        eprintln!("qipu serve: cannot write the access log");
                        return;
                    }
                }
            })?;
        Ok(AccessLog { lines })
    }

    fn write(&self, line: String) {
        let _ = self.lines.send(line);
    }
}

/// What every request shares.
pub struct Shared {
    /// The server's configuration.
    pub config: Arc<Config>,
    /// The answer cache, read before a worker is asked.
    pub cache: Option<Arc<Cache>>,
    /// The database workers.
    pub pool: Arc<Pool>,
    /// The database's version, in every `ETag`.
    pub version: DbVersion,
    /// Bound to a loopback address: only requests addressed to this machine are answered.
    pub loopback: bool,
    /// The access log, if asked for.
    pub log: Option<AccessLog>,
}

/// The answer's body type.
pub type Answer = Response<Full<Bytes>>;

/// Answers one request from `peer`.
pub async fn handle(shared: Arc<Shared>, peer: SocketAddr, req: Request<Incoming>) -> Answer {
    let started = Instant::now();
    let method = req.method().as_str().to_string();
    let target = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let answer = answer(&shared, req, &method, &target).await;
    if let Some(log) = &shared.log {
        let when = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        log.write(format!(
            "{}.{:03} {peer} \"{method} {target}\" {} {:.1}ms\n",
            when.as_secs(),
            when.subsec_millis(),
            answer.status().as_u16(),
            started.elapsed().as_secs_f64() * 1e3,
        ));
    }
    answer
}

async fn answer(shared: &Shared, req: Request<Incoming>, method: &str, target: &str) -> Answer {
    let limits = shared.config.timeouts;
    let host = req
        .uri()
        .authority()
        .map(|a| a.as_str().to_string())
        .or_else(|| {
            req.headers()
                .get(header::HOST)
                .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        });
    if !target.is_ascii() {
        return closing(400, "malformed request: bytes outside ASCII in the target");
    }
    if req.headers().get_all(header::HOST).iter().nth(1).is_some() {
        return closing(400, "more than one Host header");
    }
    let etags = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return closing(413, "request body too large");
    }
    let body = Limited::new(req.into_body(), MAX_BODY).collect();
    match tokio::time::timeout(limits.body, body).await {
        Err(_) => return closing(408, "the request body did not arrive in time"),
        Ok(Err(_)) => return closing(400, "malformed or too large request body"),
        Ok(Ok(_)) => {}
    }
    if shared.loopback && host.as_deref().is_some_and(|h| !loopback_host(h)) {
        return closing(
            403,
            "this server is bound to a loopback address and answers only requests \
             addressed to this machine (Host: localhost, 127.0.0.1 or [::1])",
        );
    }
    let reply = if target == "/api/health" && matches!(method, "GET" | "HEAD") {
        Reply {
            status: 200,
            content_type: JSON,
            body: super::reply::Body::shared(br#"{"ok":true}"#[..].into()),
        }
    } else if let Some(hit) = matches!(method, "GET" | "HEAD")
        .then(|| shared.cache.as_deref().and_then(|c| c.answer(target)))
        .flatten()
    {
        hit
    } else {
        shared
            .pool
            .answer(method.to_string(), target.to_string())
            .await
    };
    respond(shared, reply, etags.as_deref())
}

/// The headers every answer carries, then the body (or `304` when the client's tag matches).
fn respond(shared: &Shared, reply: Reply, etags: Option<&str>) -> Answer {
    let config = &shared.config;
    let tag = (reply.status == 200).then(|| {
        format!(
            "\"{:016x}-{:016x}\"",
            shared.version.current(),
            hash_of(&*reply.body)
        )
    });
    let not_modified = tag
        .as_deref()
        .zip(etags)
        .is_some_and(|(tag, etags)| matches_tag(etags, tag));
    let status = if not_modified { 304 } else { reply.status };
    let length = reply.body.len();
    let body = if not_modified {
        Bytes::new()
    } else {
        reply.body.into_bytes()
    };
    let mut r = Response::new(Full::new(body));
    *r.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
        ),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if let Some(origin) = config
        .cors
        .as_deref()
        .and_then(|o| HeaderValue::from_str(o).ok())
    {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    if status == 405 {
        h.insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    if let Some(tag) = tag.and_then(|t| HeaderValue::from_str(&t).ok()) {
        h.insert(header::ETAG, tag);
    }
    if !not_modified {
        // Set for `HEAD` too, whose body hyper does not send.
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    }
    r
}

/// Whether an `If-None-Match` value (`*`, or tags separated by commas, weak or not) names
/// `tag`.
fn matches_tag(etags: &str, tag: &str) -> bool {
    etags
        .split(',')
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

/// An error answer that closes the connection.
fn closing(status: u16, message: &str) -> Answer {
    let reply = Reply::error(status, message);
    let mut r = Response::new(Full::new(reply.body.into_bytes()));
    *r.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_names_the_tag_alone_or_in_a_list() {
        let tag = "\"00ab-01cd\"";
        assert!(matches_tag("\"00ab-01cd\"", tag));
        assert!(matches_tag("\"x\", W/\"00ab-01cd\"", tag));
        assert!(matches_tag("*", tag));
        assert!(!matches_tag("\"00ab-01ce\"", tag));
        assert!(!matches_tag("", tag));
    }
}

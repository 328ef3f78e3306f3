//! The router: request target → [`Reply`]. Pure (no sockets), so every route can be tested
//! directly as well as over HTTP.

use serde::Serialize;

use super::{
    assets,
    position::{Line, PositionJson},
    query::{BadRequest, Params, MAX_TARGET},
    reply::Reply,
    worker::Worker,
};

/// Answers one request. Never panics on any input (the server also catches panics as a last
/// resort and answers 500).
///
/// ```
/// use qipu::web::{route, Worker};
/// let mut w = Worker::without_database();
/// assert_eq!(route(&mut w, "GET", "/api/position?moves=h2e2").status, 200);
/// assert_eq!(route(&mut w, "GET", "/api/position?moves=h2h8").status, 400);
/// assert_eq!(route(&mut w, "GET", "/nope").status, 404);
/// ```
pub fn route(worker: &mut Worker, method: &str, target: &str) -> Reply {
    if target.len() > MAX_TARGET {
        return Reply::error(
            414,
            &format!("request target too long (at most {MAX_TARGET} bytes)"),
        );
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if !matches!(method, "GET" | "HEAD") {
        return Reply::error(405, &format!("method {method} not allowed (use GET)"));
    }
    let api = |f: fn(&mut Worker, &Params) -> Result<Reply, ApiError>, worker: &mut Worker| {
        match Params::parse(query)
            .map_err(ApiError::from)
            .and_then(|p| f(worker, &p))
        {
            Ok(r) => r,
            Err(ApiError::BadRequest(e)) => Reply::error(400, &e.0),
            Err(ApiError::NotFound(e)) => Reply::error(404, &e),
            Err(ApiError::Unavailable(e)) => Reply::error(503, &e),
            Err(ApiError::Internal(e)) => Reply::error(500, &e),
        }
    };
    match path {
        "/" | "/index.html" => Reply::asset("text/html; charset=utf-8", assets::INDEX_HTML),
        "/app.js" => Reply::asset("text/javascript; charset=utf-8", assets::APP_JS),
        "/style.css" => Reply::asset("text/css; charset=utf-8", assets::STYLE_CSS),
        "/favicon.svg" | "/favicon.ico" => Reply::asset("image/svg+xml", assets::FAVICON_SVG),
        "/api/status" => api(status, worker),
        "/api/position" => api(position, worker),
        _ => Reply::error(404, &format!("no such route `{}`", clip(path))),
    }
}

/// Why an API call failed, mapped to a status code.
#[derive(Debug)]
pub enum ApiError {
    /// 400: the client's parameters are wrong.
    BadRequest(BadRequest),
    /// 404: the thing asked for does not exist.
    NotFound(String),
    /// 503: the server was started without what the route needs.
    Unavailable(String),
    /// 500: the server failed.
    Internal(String),
}

impl From<BadRequest> for ApiError {
    fn from(e: BadRequest) -> Self {
        ApiError::BadRequest(e)
    }
}

/// Shortens text quoted back in an error message.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn status(worker: &mut Worker, params: &Params) -> Result<Reply, ApiError> {
    params.only(&[])?;
    #[derive(Serialize)]
    struct Status<'a> {
        version: &'static str,
        database: bool,
        books: Vec<&'a str>,
    }
    Ok(Reply::json(&Status {
        version: env!("CARGO_PKG_VERSION"),
        database: worker.has_database(),
        books: worker.book_names(),
    }))
}

fn position(_worker: &mut Worker, params: &Params) -> Result<Reply, ApiError> {
    params.only(&["variant", "fen", "moves", "rules"])?;
    let line = Line::from_params(params)?;
    Ok(Reply::json(&PositionJson::new(&line)))
}

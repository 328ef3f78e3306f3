//! The router: request target → [`Reply`]. Pure (no sockets), so every route can be tested
//! directly as well as over HTTP.

use serde::Serialize;

use super::{
    assets,
    game::{GameJson, GameParts},
    position::{line_from_params, PositionJson},
    probe,
    query::{BadRequest, Params, MAX_TARGET},
    reply::{Body, Reply},
    worker::Worker,
};
use crate::{
    explorer::{self, json::ExploreJson, ExploreWithFormations},
    rules::JanggiRules,
    store::Store,
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
            Err(e) => e.reply(),
        }
    };
    match path {
        "/" | "/index.html" => Reply::asset("text/html; charset=utf-8", assets::INDEX_HTML),
        "/app.js" => Reply::asset("text/javascript; charset=utf-8", assets::APP_JS),
        "/style.css" => Reply::asset("text/css; charset=utf-8", assets::STYLE_CSS),
        "/favicon.svg" | "/favicon.ico" => Reply::asset("image/svg+xml", assets::FAVICON_SVG),
        "/fonts/qipu-board.woff2" => Reply::asset("font/woff2", assets::BOARD_FONT),
        "/fonts/qipu-text.woff2" => Reply::asset("font/woff2", assets::TEXT_FONT),
        "/fonts/OFL.txt" => Reply::asset("text/plain; charset=utf-8", assets::FONT_LICENSE),
        "/api/status" => api(status, worker),
        "/api/position" => api(position, worker),
        "/api/explore" => cached(worker, target, |w| api(explore, w)),
        "/api/player" => cached(worker, target, |w| api(player, w)),
        "/api/probe" => api(probe::probe, worker),
        _ => match path.strip_prefix("/api/games/") {
            Some(id) => cached(worker, target, |w| match game(w, id, query) {
                Ok(r) => r,
                Err(e) => e.reply(),
            }),
            None => Reply::error(404, &format!("no such route `{}`", clip(path))),
        },
    }
}

/// Answers from the cache when possible; successful answers are stored.
fn cached(worker: &mut Worker, key: &str, f: impl FnOnce(&mut Worker) -> Reply) -> Reply {
    if let Some(reply) = worker.cache().and_then(|c| c.answer(key)) {
        return reply;
    }
    let mut reply = f(worker);
    if reply.status == 200 {
        if let Some(c) = worker.cache() {
            let body = reply.body.into_shared();
            c.put(key, body.clone());
            reply.body = Body::shared(body);
        }
    }
    reply
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
    /// 500: the server failed; the error underneath (the store's, a book's) is kept as the
    /// [`source`](std::error::Error::source), and its text is the answer's message.
    Internal(Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    /// The JSON error answer.
    pub fn reply(&self) -> Reply {
        match self {
            ApiError::BadRequest(e) => Reply::error(400, &e.0),
            ApiError::NotFound(e) => Reply::error(404, e),
            ApiError::Unavailable(e) => Reply::error(503, e),
            ApiError::Internal(e) => Reply::error(500, &e.to_string()),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::BadRequest(e) => f.write_str(&e.0),
            ApiError::NotFound(m) | ApiError::Unavailable(m) => f.write_str(m),
            ApiError::Internal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ApiError::Internal(e) => Some(e.as_ref()),
            ApiError::BadRequest(_) | ApiError::NotFound(_) | ApiError::Unavailable(_) => None,
        }
    }
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
    let line = line_from_params(params, JanggiRules::TOURNAMENT)?;
    Ok(Reply::json(&PositionJson::new(&line)))
}

const NO_DATABASE: &str = "no database: start the server with `qipu serve --db FILE`";

fn store(worker: &Worker) -> Result<&Store, ApiError> {
    worker
        .store()
        .ok_or_else(|| ApiError::Unavailable(NO_DATABASE.to_string()))
}

fn explore(worker: &mut Worker, params: &Params) -> Result<Reply, ApiError> {
    let q = super::explore::query(params)?;
    let listed = super::explore::wants_formations(params)?;
    let store = store(worker)?;
    let answered = explorer::explore(store, &q).and_then(|answer| {
        // Without a Janggi game every pair has none: the list is empty, and its 16 explores
        // (each asking the games table whether it holds a Janggi game, a scan of the whole
        // table when it does not) are skipped.
        let formations = match (listed, answer.no_games) {
            (false, _) => None,
            (true, Some(explorer::NoGames::EmptyDatabase)) => Some(Vec::new()),
            (true, _) => Some(explorer::formation_counts(store, &q)?),
        };
        Ok(ExploreWithFormations {
            answer: ExploreJson::from(&answer),
            formations,
        })
    });
    match answered {
        Ok(json) => Ok(Reply::json(&json)),
        Err(explorer::Error::Query(m)) => Err(ApiError::BadRequest(BadRequest(m))),
        Err(explorer::Error::NoPlayer(m)) => Err(ApiError::NotFound(m)),
        Err(explorer::Error::Store(e)) => Err(ApiError::Internal(e.into())),
    }
}

fn player(worker: &mut Worker, params: &Params) -> Result<Reply, ApiError> {
    let q = super::player::query(params)?;
    match explorer::dossier(store(worker)?, &q) {
        Ok(d) => Ok(Reply::json(&d)),
        Err(explorer::Error::Query(m)) => Err(ApiError::BadRequest(BadRequest(m))),
        Err(explorer::Error::NoPlayer(m)) => Err(ApiError::NotFound(m)),
        Err(explorer::Error::Store(e)) => Err(ApiError::Internal(e.into())),
    }
}

fn game(worker: &mut Worker, id: &str, query: &str) -> Result<Reply, ApiError> {
    Params::parse(query)?.only(&[])?;
    let id: i64 = match id.parse() {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(ApiError::BadRequest(BadRequest(format!(
                "game id must be a positive integer, not `{}`",
                clip(id)
            ))))
        }
    };
    let store = store(worker)?;
    match store.game(id) {
        Ok(Some(g)) => Ok(Reply::json(&GameJson::new(GameParts {
            id: g.id,
            variant: g.variant,
            start_fen: &g.start_fen,
            moves: &g.moves,
            result: g.result,
            tags: &g.tags,
            source: &worker.shown_source(&g.source),
        }))),
        Ok(None) => Err(ApiError::NotFound(format!("no game {id}"))),
        Err(e) => Err(ApiError::Internal(e.into())),
    }
}

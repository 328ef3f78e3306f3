//! `qipu serve`: the HTTP JSON API and the web explorer page.
//!
//! Routes (all `GET`; errors are JSON `{"error": "...", "status": N}`):
//!
//! | route | answer |
//! |---|---|
//! | `/` | the explorer page (HTML, script and style are embedded in the binary) |
//! | `/api/status` | `{"version", "database", "books"}` |
//! | `/api/health` | `{"ok":true}`, answered on the event loop (no database worker) |
//! | `/api/position?variant=&fen=&moves=&rules=` | FEN, side to move, pieces, check, game end, legal moves (canonical and in WXF/Chinese or Korean) |
//! | `/api/explore?variant=&fen=&setup=&moves=&rules=&since=&until=&min_rating=&max_rating=&player=&side=&event=&speed=&mode=&mirror=&limit=&top_games=&top_move=&min_games=&novelties=` | the JSON of `qipu explore --json` (each parameter read as the CLI reads the flag of the same name) |
//! | `/api/games/{id}` | a stored game: tags, moves, result, source, PGN text |
//! | `/api/probe?book=&variant=&fen=&moves=` | the moves a `--book` holds for the position (`book` may be left out with one book), with the book's `format`, `variant`, `records`, `positions` (keys) and `mirror_merged`; per move `weight`, `games`, `wins`, `draws`, `losses` (wins and losses of the side to move), `score` (of the side to move, with `score_low`/`score_high`), each `null` where the format stores none (BOOK.DAT: all; `.obk`: `games`) |
//!
//! Bad parameters answer 400, unknown routes and games 404, other methods 405, over-long
//! request targets 414; without a database (or books) their routes answer 503. Malformed
//! requests are answered by hyper (400, 414 or 431) and slow ones closed, and their
//! connection is closed (see the [`Server`] for the limits). Answers carry no CORS header
//! unless `--cors ORIGIN` names the one other origin allowed to read them, and
//! `/api/games/{id}` shows a source's file name only, unless `--show-paths`. Successful
//! answers carry an `ETag` (the database files' version and the body's hash) and are
//! answered `304` without a body when `If-None-Match` names it; they are compressed with
//! brotli or gzip when `Accept-Encoding` asks (`Vary: Accept-Encoding`). Each worker keeps
//! its own read-only SQLite connection (WAL: an import may write beside the server);
//! answers of `/api/explore` and `/api/games` are cached until the database files change
//! (checked every 250 ms). `--log FILE` appends one line per request (unix time, client,
//! request line, status, milliseconds). Parameters: `moves` is a list separated by commas
//! or spaces in any notation (send a WXF `+` as `%2B`); unknown parameters are rejected so
//! a misspelt filter is never silently ignored.
//!
//! ```
//! use qipu::web::{route, Worker};
//! let mut w = Worker::without_database();
//! let r = route(&mut w, "GET", "/api/position?variant=janggi");
//! assert_eq!(r.status, 200);
//! let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
//! assert_eq!(v["turn"], "first");
//! assert_eq!(v["legal"].as_array().unwrap().len(), 32);
//! ```

mod assets;
mod cache;
mod config;
mod conn;
mod explore;
mod game;
mod http;
mod player;
mod position;
mod probe;
mod query;
mod reply;
mod routes;
mod server;
mod service;
mod worker;

pub use config::{valid_origin, Config, StartError, Timeouts};
pub use query::BadRequest;
pub use reply::{Body, Reply};
pub use routes::{route, ApiError};
pub use server::Server;
pub use worker::{file_name_only, Worker};

//! The store's values: what it is given ([`GameRecord`]) and what it answers ([`MoveRow`],
//! [`PositionStats`], [`GameThrough`], [`StoredGame`], [`DbStats`] …), with the small rules
//! that belong to them (how a game counts, the best-games order). No SQL and no blob format
//! here; every other file of the store may use these, and this one uses none of them. How a
//! game is counted (the rows, the sums, the history's months) is in `model/counts.rs`.

use std::fmt;

use crate::{
    formats::{
        facts::{Mode, Speed, Termination},
        GameError, Source, Tags,
    },
    rules::{Move, Outcome, Variant},
};

mod counts;

pub use counts::{GameCounts, MonthCounts, MoveRow, Played, PlayerCounts, ENDINGS};

/// A position's key: qipu's frozen 64-bit Zobrist key ([`crate::rules::AnyPosition::key`]).
/// The database stores it as a signed 64-bit rowid; [`PositionKey::to_rowid`] and
/// [`PositionKey::from_rowid`] are the one place where the sign flips.
///
/// ```
/// use qipu::store::PositionKey;
/// let k = PositionKey::from(u64::MAX);
/// assert_eq!(k.to_rowid(), -1);
/// assert_eq!(PositionKey::from_rowid(-1), k);
/// assert_eq!(k.to_string(), "ffffffffffffffff");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PositionKey(pub u64);

impl PositionKey {
    /// The key as the `INTEGER PRIMARY KEY` it is stored under (same bits, signed).
    pub fn to_rowid(self) -> i64 {
        self.0 as i64
    }

    /// The key stored as `rowid`.
    pub fn from_rowid(rowid: i64) -> PositionKey {
        PositionKey(rowid as u64)
    }

    /// The key as a number that sorts like its rowid (the sign bit flipped), for sorting
    /// keys in table order without a signed compare.
    pub fn table_order(self) -> u64 {
        self.0 ^ 1 << 63
    }
}

impl From<u64> for PositionKey {
    fn from(key: u64) -> PositionKey {
        PositionKey(key)
    }
}

impl fmt::Display for PositionKey {
    /// 16 lower-case hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// A replayed game reduced to what the store keeps: its identity hash, header, moves, and
/// each distinct position it went through (up to the depth limit) with the move played
/// there. Built by the import pipeline (`GameRecord::from_game`, in `pipeline/record.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Variant.
    pub variant: Variant,
    /// Content hash (see [`super::content_hash`]).
    pub hash: u64,
    /// Where it was read.
    pub source: Source,
    /// Header (the `raw` list is not stored).
    pub tags: Tags,
    /// Result: the header's, else the end the board shows (mate, stalemate, Janggi endings).
    pub result: Option<Outcome>,
    /// Start FEN when it is not the variant's standard start.
    pub start_fen: Option<String>,
    /// The main line.
    pub moves: Vec<Move>,
    /// The depth limit `positions` was listed with (0 = the whole game). A database holds
    /// one depth: [`super::Store::write_batch`] refuses a record of another.
    pub max_ply: usize,
    /// Each distinct position with the move played there (`None` for the final position),
    /// in order of first occurrence; a repeated position keeps the move of its last visit
    /// (see [`crate::formats::distinct_positions`]).
    pub positions: Vec<(PositionKey, Option<Move>)>,
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi), for the opening name.
    pub opening_label: Option<String>,
    /// Set when the game is kept only up to the move before one that cannot be read or is
    /// illegal (`GameRecord::from_game_or_prefix`): that move's error, whose ply is the first
    /// move not kept. The store writes the ply in `games.truncated_ply`.
    pub truncated: Option<Box<GameError>>,
}

impl GameRecord {
    /// The 1-based ply of the move the game was cut before, if it was.
    pub fn truncated_ply(&self) -> Option<usize> {
        self.truncated.as_ref().and_then(|e| e.ply)
    }
}

impl crate::formats::Placed for GameRecord {
    fn source_mut(&mut self) -> &mut Source {
        &mut self.source
    }

    /// The offset of the error a truncated game keeps (placed in its file like a
    /// rejected game's).
    fn offset_mut(&mut self) -> Option<&mut Option<u32>> {
        self.truncated.as_mut().map(|e| &mut e.offset)
    }
}

impl GameRecord {
    /// About how much memory the record takes until its batch is written, for the import's
    /// batch budget: what it holds, and the touch the writer sorts for each of its positions
    /// (`write::TOUCH_BYTES`, beside the record while the batch is written).
    pub fn memory_bytes(&self) -> usize {
        let t = &self.tags;
        let text: usize = t
            .text_fields()
            .into_iter()
            .chain([&self.start_fen, &self.opening_label])
            .map(|s| s.as_ref().map_or(0, String::len))
            .sum();
        std::mem::size_of::<GameRecord>()
            + text
            + self.source.file.len()
            + self.moves.capacity() * std::mem::size_of::<Move>()
            + self.positions.capacity() * std::mem::size_of::<(PositionKey, Option<Move>)>()
            + self.positions.len() * super::write::TOUCH_BYTES
    }
}

/// A game that went through a position, with the move it played there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameThrough {
    /// Game id.
    pub id: i64,
    /// Move played in the position; `None` if the game ended there.
    pub mv: Option<Move>,
    /// First player.
    pub first: Option<String>,
    /// Second player.
    pub second: Option<String>,
    /// First player's rating.
    pub first_rating: Option<u32>,
    /// Second player's rating.
    pub second_rating: Option<u32>,
    /// Result.
    pub result: Option<Outcome>,
    /// Date.
    pub date: Option<String>,
    /// Event.
    pub event: Option<String>,
    /// ECCO code as tagged.
    pub ecco: Option<String>,
    /// Janggi formation of the first player.
    pub first_formation: Option<String>,
    /// Janggi formation of the second player.
    pub second_formation: Option<String>,
    /// Speed category, when known.
    pub speed: Option<Speed>,
    /// Rated or casual, when known.
    pub mode: Option<Mode>,
    /// How the game ended, when known.
    pub termination: Option<Termination>,
}

impl GameThrough {
    /// The game's opening label: its ECCO code (Xiangqi) or `first/second` formations
    /// (Janggi).
    pub fn opening_label(&self, variant: Variant) -> Option<String> {
        crate::formats::tags::label_of(
            variant,
            self.ecco.as_deref(),
            self.first_formation.as_deref(),
            self.second_formation.as_deref(),
        )
    }

    /// The sort key of best-games lists, smallest first: the higher [`top_score`] (a known
    /// result, real names, the mean known rating, the later date), then the smaller id.
    pub fn top_key(&self) -> (std::cmp::Reverse<u64>, i64) {
        let score = top_score(
            self.result,
            [self.first.as_deref(), self.second.as_deref()],
            [self.first_rating, self.second_rating],
            self.date.as_deref(),
        );
        (std::cmp::Reverse(score), self.id)
    }
}

/// A person found by [`super::Store::players`]: a player under every spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// The name the person is shown by: the one a spelling file or `--merge` gives them, else
    /// their spelling with the most games (as written most often).
    pub name: String,
    /// Games they played (either side, every spelling).
    pub games: u64,
    /// Every spelling (player of the index) with its games, most games first.
    pub spellings: Vec<super::persons::Spelling>,
}

/// An opening label and how many games through the position carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningRow {
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi).
    pub label: String,
    /// Games with that label.
    pub games: u64,
}

/// A stored game, as the opening-book writers and `GET /api/games/{id}` read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Database id.
    pub id: i64,
    /// Variant.
    pub variant: Variant,
    /// Start position (the standard one filled in).
    pub start_fen: String,
    /// The main line.
    pub moves: Vec<Move>,
    /// Result, first player's view; `None` when unknown.
    pub result: Option<Outcome>,
    /// Header (normalised fields; `raw` is empty).
    pub tags: Tags,
    /// The file and index it was first imported from.
    pub source: Source,
}

/// Games per variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantCount {
    /// Variant.
    pub variant: Variant,
    /// Games stored.
    pub games: u64,
}

/// What is in a database (`qipu stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbStats {
    /// Games per variant.
    pub games: Vec<VariantCount>,
    /// Games kept up to a bad move (counted in `games` too).
    pub truncated: u64,
    /// Distinct positions with statistics.
    pub positions: u64,
    /// (position, move) rows.
    pub position_moves: u64,
    /// (position, game) links.
    pub position_games: u64,
    /// Segments the statistics are kept in (`store::segments`): one per import, fewer
    /// once they are merged.
    pub segments: u64,
    /// Depth limit the database was built with.
    pub max_ply: Option<usize>,
    /// File size in bytes (pages × page size).
    pub size_bytes: u64,
    /// Most frequent events: (event, games).
    pub top_events: Vec<(String, u64)>,
}

/// Everything the explorer shows of one position, read from its row at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionStats {
    /// Every move played from the position, by move code, plus a row with `mv == None` for
    /// the games that ended there.
    pub moves: Vec<MoveRow>,
    /// Opening labels of the games through the position, most frequent first (games
    /// without a label are left out).
    pub openings: Vec<OpeningRow>,
    /// The best games through it: best rated first, then latest, then by id.
    pub top: Vec<GameThrough>,
    /// The latest games through it: latest date first, then the greater id.
    pub recent: Vec<GameThrough>,
    /// Its games per month of play, by month (games dated to a year only, or not at all,
    /// are in no month); months without games are left out.
    pub history: Vec<MonthCounts>,
}

/// Whether a player name is a real one: not empty and not a word for "unknown" (compared
/// folded by [`crate::formats::names::fold`]): question marks, `-`, `nn`, `unknown`, and the
/// side placeholders some programs write (`红方棋手`, `黑方`, …).
///
/// ```
/// use qipu::store::is_real_name;
/// assert!(is_real_name(Some("呂欽")));
/// assert!(!is_real_name(Some(" ? ")) && !is_real_name(Some("紅方棋手")) && !is_real_name(None));
/// ```
pub fn is_real_name(name: Option<&str>) -> bool {
    const PLACEHOLDERS: [&str; 11] = [
        "-",
        "nn",
        "unknown",
        "红方",
        "黑方",
        "红方棋手",
        "黑方棋手",
        "红方选手",
        "黑方选手",
        "红棋",
        "黑棋",
    ];
    name.is_some_and(|n| {
        let f = crate::formats::names::fold(n);
        !f.is_empty() && !f.chars().all(|c| c == '?') && !PLACEHOLDERS.contains(&f.as_str())
    })
}

/// Sort key of the best-games lists, higher = better, the one ranking of every best-games
/// list (the kept list of a busy position, a quiet position's games, a filtered answer): a
/// known result first, then real names on both sides ([`is_real_name`]), then the higher
/// mean known rating, then the later date (`YYYYMMDD`, missing or unreadable parts 0). The
/// flags are bits 62 and 61, the rating × 10^8 and the date below them.
///
/// ```
/// use qipu::rules::Outcome;
/// use qipu::store::top_score;
/// let (named, unnamed) = ([Some("呂欽"), Some("胡榮華")], [Some("?"), Some("黑方棋手")]);
/// let draw = Some(Outcome::Draw);
/// // Rating, then date.
/// assert!(top_score(draw, named, [Some(2500), None], Some("2001"))
///     > top_score(draw, named, [None, None], Some("2020-01-02")));
/// // Real names before a rating, a known result before real names.
/// assert!(top_score(draw, named, [None, None], None)
///     > top_score(draw, unnamed, [Some(2700), Some(2700)], Some("2020")));
/// assert!(top_score(draw, unnamed, [None, None], None)
///     > top_score(None, named, [Some(2700), Some(2700)], Some("2020")));
/// ```
pub fn top_score(
    result: Option<Outcome>,
    names: [Option<&str>; 2],
    ratings: [Option<u32>; 2],
    date: Option<&str>,
) -> u64 {
    top_score_of(
        result.is_some(),
        names.into_iter().all(is_real_name),
        ratings,
        date,
    )
}

/// [`top_score`] with the result and the names already judged.
pub(super) fn top_score_of(
    known_result: bool,
    real_names: bool,
    ratings: [Option<u32>; 2],
    date: Option<&str>,
) -> u64 {
    let (sum, known) = ratings.into_iter().flatten().fold((0, 0), |(sum, n), r| {
        (sum + u64::from(r.min(99_999)), n + 1)
    });
    let rating = sum.checked_div(known).unwrap_or(0);
    (u64::from(known_result) << 62)
        | (u64::from(real_names) << 61)
        | (rating * 100_000_000 + date_number(date))
}

/// `YYYY-MM-DD` → YYYYMMDD as a number (missing or unreadable parts count as 0).
fn date_number(date: Option<&str>) -> u64 {
    let Some(d) = date else { return 0 };
    let mut parts = d.split('-').map(|p| p.parse::<u64>().unwrap_or(0));
    let y = parts.next().unwrap_or(0).min(9999);
    let m = parts.next().unwrap_or(0).min(99);
    let day = parts.next().unwrap_or(0).min(99);
    y * 10_000 + m * 100 + day
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_score_orders_result_names_rating_then_date() {
        let s = |result: bool, names: bool, r: [Option<u32>; 2], d: Option<&str>| {
            let names = if names {
                [Some("A"), Some("B")]
            } else {
                [Some("A"), Some("红方")]
            };
            top_score(result.then_some(Outcome::Draw), names, r, d)
        };
        let a = s(true, true, [Some(2600), Some(2500)], Some("2001"));
        let b = s(true, true, [Some(2500), None], Some("2020-01-01"));
        let c = s(true, true, [None, None], Some("2020-01-02"));
        let d = s(true, true, [None, None], Some("2020-01"));
        let e = s(
            true,
            false,
            [Some(99_999), Some(99_999)],
            Some("9999-99-99"),
        );
        let f = s(
            false,
            true,
            [Some(99_999), Some(99_999)],
            Some("9999-99-99"),
        );
        let g = s(false, false, [None, None], None);
        assert!(
            a > b && b > c && c > d && d > e && e > f && f > g,
            "{a} {b} {c} {d} {e} {f}"
        );
        assert_eq!(g, 0);
    }

    #[test]
    fn keys_sort_in_table_order_like_their_rowids() {
        let keys: Vec<PositionKey> = [u64::MAX, 0, 1 << 63, 5, (1 << 63) - 1, 1 << 62]
            .into_iter()
            .map(PositionKey)
            .collect();
        let mut by_rowid = keys.clone();
        by_rowid.sort_by_key(|k| k.to_rowid());
        let mut by_order = keys.clone();
        by_order.sort_by_key(|k| k.table_order());
        assert_eq!(by_rowid, by_order);
        for k in keys {
            assert_eq!(PositionKey::from_rowid(k.to_rowid()), k);
        }
    }
}

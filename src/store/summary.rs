//! The summary blob of a busy position (`positions.summary`): per-move sums, opening-label
//! counts and its best games, so that the start position (tens of thousands of games) is
//! answered from one small blob. No SQL here.
//!
//! A position keeps the list of games through it (see `links`). A position with at most
//! [`LIST_MAX`] games — four in five positions of a real collection are reached by a single
//! game — keeps nothing else: its statistics are counted from those few games when asked. A
//! busier one has a [`Summary`] too.
//!
//! Frozen layout (format 4; any change is a new format number; format 2 is rebuilt by the
//! migration of schema 7, format 3 re-encoded by that of schema 14):
//!
//! ```text
//! summary  = varint 4 (format)
//!            varint n, then n × move row, by move code
//!            varint n, then n × (string label, varint games), by label
//!            varint n, then n × (varint bucket, rank, varint game id, varint move code),
//!                                best first
//!            varint n, then n × (varint game id, varint move code, varint bucket,
//!                                varint day), latest first (by month code, day, id)
//!            varint n, then n × (varint month code − previous, the first from 0,
//!                                varint games, first_wins, draws, second_wins), by month:
//!            the position's history (calendar months only)
//! move row = varint move code, varint games, first_wins, draws, second_wins,
//!            rating_sum, rating_count, first_rating_sum, first_rating_count,
//!            string first_date, string last_date, varint first game id + 1 (0 = none),
//!            varint year_sum, varint dated,
//!            varint k, then k × (varint termination code, varint games), by code
//! string   = varint byte length, UTF-8 bytes (empty = none)
//! rank     = the top score as `position_lists` writes it (`lists`): varint ((((rating ×
//!            32 + day) × 4 + names and result) × 2 + odd), then if odd varint date number,
//!            where day = the date number's day (0 when above 31) and odd = the date number
//!            is not `YYYYMMDD` of the bucket's month and that day
//! ```
//!
//! Format 3 was format 4 with each best game as (varint top score, varint game id, varint
//! move code, varint bucket): the score took 9 bytes (2^62 for a known result), the rank 3.
//!
//! The bucket of a kept game (see `filter`) lets a filtered question pick the kept games that
//! pass without reading them.

use super::{
    filter::{calendar_month, year_of, PER_MONTH},
    game_facts::GameFacts,
    links::{move_code, move_from_code, Link},
    lists,
    model::{is_real_name, top_score_of, MonthCounts, MoveRow, OpeningRow, Played, ENDINGS},
    varint::{self, Reader},
    StoreError,
};
use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::{Move, Outcome},
};

/// Positions with more games than this keep a summary.
pub const LIST_MAX: usize = 32;

/// How many best games a summary keeps (the web API's maximum `top_games`).
pub const TOP_KEPT: usize = 100;

/// What the statistics need to know of a game. Equal facts count the same in every
/// statistic and rank a game alike among the best games (`==` is derived, so a field added
/// here is compared too: a richer copy with equal facts changes no position's sums).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Facts<'a> {
    pub result: Option<Outcome>,
    pub ratings: [Option<u32>; 2],
    pub date: Option<&'a str>,
    /// Whether both players' names are real ones ([`is_real_name`]), for the best games.
    pub real_names: bool,
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi).
    pub label: Option<&'a str>,
    /// Speed category (the record's, else its clock's).
    pub speed: Option<Speed>,
    /// Rated or casual.
    pub mode: Option<Mode>,
    /// How the game ended.
    pub termination: Option<Termination>,
}

impl<'a> Facts<'a> {
    /// The facts of a game with this result, header and opening label.
    pub(super) fn of(
        result: Option<Outcome>,
        tags: &'a crate::formats::Tags,
        label: Option<&'a str>,
    ) -> Facts<'a> {
        Facts {
            result,
            ratings: [tags.first_rating, tags.second_rating],
            date: tags.date.as_deref(),
            real_names: is_real_name(tags.first.as_deref()) && is_real_name(tags.second.as_deref()),
            label,
            speed: tags.speed.or(tags.time_control.map(|t| t.speed())),
            mode: tags.mode,
            termination: tags.termination,
        }
    }

    /// What the buckets and the `game_facts` row keep of the game.
    pub(super) fn game_facts(&self) -> GameFacts {
        GameFacts::new(
            self.result,
            self.ratings,
            self.date,
            self.speed,
            self.mode,
            self.termination,
        )
    }

    /// Sort key of the best-games list, higher = better ([`super::top_score`]).
    pub(super) fn top_score(&self) -> u64 {
        top_score_of(
            self.result.is_some(),
            self.real_names,
            self.ratings,
            self.date,
        )
    }
}

/// Adds one game to a list of move rows kept sorted by move code.
fn add_to_rows(rows: &mut Vec<MoveRow>, mv: Option<Move>, id: i64, g: &Facts<'_>, f: &GameFacts) {
    let code = move_code(mv);
    let i = match rows.binary_search_by_key(&code, |r| move_code(r.mv)) {
        Ok(i) => i,
        Err(i) => {
            rows.insert(
                i,
                MoveRow {
                    mv,
                    ..MoveRow::default()
                },
            );
            i
        }
    };
    rows[i].count(&played(id, g, f));
}

/// A game as a move row counts it.
fn played<'a>(id: i64, g: &Facts<'a>, f: &GameFacts) -> Played<'a> {
    Played {
        id,
        result: g.result,
        ratings: g.ratings,
        date: g.date,
        year: year_of(f.month()),
        termination: g.termination,
    }
}

/// Adds one to a label's count in a list kept sorted by label.
fn add_label(labels: &mut Vec<OpeningRow>, label: &str, games: u64) {
    match labels.binary_search_by(|o| o.label.as_str().cmp(label)) {
        Ok(i) => labels[i].games += games,
        Err(i) => labels.insert(
            i,
            OpeningRow {
                label: label.to_string(),
                games,
            },
        ),
    }
}

/// One of a position's best games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Best {
    /// Its [`Facts::top_score`].
    pub score: u64,
    /// The game.
    pub link: Link,
    /// Its bucket (see `filter`).
    pub bucket: u32,
}

/// One of a position's latest games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Recent {
    /// The game.
    pub link: Link,
    /// Its bucket (see `filter`).
    pub bucket: u32,
    /// Its day of the month (0 = none).
    pub day: u8,
}

impl Recent {
    /// Sort key, greater = later: month code, day, id.
    fn key(&self) -> (u32, u8, i64) {
        (self.bucket / PER_MONTH, self.day, self.link.game)
    }
}

/// The precomputed statistics of a busy position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Summary {
    /// One row per move (and one for the games that ended here), by move code.
    pub moves: Vec<MoveRow>,
    /// Opening labels and their games, by label.
    pub labels: Vec<OpeningRow>,
    /// The best [`TOP_KEPT`] games, best first, then by id.
    pub top: Vec<Best>,
    /// The latest [`TOP_KEPT`] games, latest first (by month code, day, then the greater id).
    pub recent: Vec<Recent>,
    /// The games through the position per calendar month, by month.
    pub history: Vec<MonthCounts>,
}

const SUMMARY_FORMAT: u64 = 4;
/// Format 3: the best games' top scores in full (re-encoded by schema 14).
const FORMAT_3: u64 = 3;

impl Summary {
    /// Counts one game that played `mv` here (`f`: what the buckets keep of it).
    pub(super) fn add(
        &mut self,
        id: i64,
        mv: u16,
        g: &Facts<'_>,
        f: &GameFacts,
    ) -> Result<(), StoreError> {
        add_to_rows(&mut self.moves, move_from_code(mv)?, id, g, f);
        if let Some(label) = g.label {
            add_label(&mut self.labels, label, 1);
        }
        if let Some((year, month)) = calendar_month(f.month()) {
            let i = match self
                .history
                .binary_search_by_key(&(year, month), |h| (h.year, h.month))
            {
                Ok(i) => i,
                Err(i) => {
                    self.history.insert(
                        i,
                        MonthCounts {
                            year,
                            month,
                            ..MonthCounts::default()
                        },
                    );
                    i
                }
            };
            let mut c = super::model::GameCounts::default();
            c.add_game(g.result, g.ratings);
            self.history[i].add(&c);
        }
        let recent = Recent {
            link: Link { game: id, mv },
            bucket: f.bucket,
            day: f.day,
        };
        let i = self
            .recent
            .binary_search_by(|r| recent.key().cmp(&r.key()))
            .unwrap_or_else(|i| i);
        if i < TOP_KEPT {
            self.recent.insert(i, recent);
            self.recent.truncate(TOP_KEPT);
        }
        let entry = Best {
            score: g.top_score(),
            link: Link { game: id, mv },
            bucket: f.bucket,
        };
        let i = self
            .top
            .binary_search_by(|t| {
                entry
                    .score
                    .cmp(&t.score)
                    .then(t.link.game.cmp(&entry.link.game))
            })
            .unwrap_or_else(|i| i);
        if i < TOP_KEPT {
            self.top.insert(i, entry);
            self.top.truncate(TOP_KEPT);
        }
        Ok(())
    }

    /// Adds another summary's games, of other games than this one's (another segment's,
    /// `store::compact`): the sums as one summary of both counts them, the best and the
    /// latest games the best of both (each keeps its best [`TOP_KEPT`], so the best of all
    /// are among them).
    pub(super) fn merge(&mut self, other: Summary) {
        let moves = std::mem::take(&mut self.moves);
        self.moves = super::read::merge_moves(vec![moves, other.moves]);
        for l in &other.labels {
            add_label(&mut self.labels, &l.label, l.games);
        }
        self.top.extend(other.top);
        self.top
            .sort_by(|a, b| b.score.cmp(&a.score).then(a.link.game.cmp(&b.link.game)));
        self.top.truncate(TOP_KEPT);
        self.recent.extend(other.recent);
        self.recent.sort_by_key(|r| std::cmp::Reverse(r.key()));
        self.recent.truncate(TOP_KEPT);
        let mut history = std::mem::take(&mut self.history);
        history.extend(other.history);
        self.history = super::read::merge_months(history);
    }

    /// The blob stored in `positions.summary` (format 4).
    pub(super) fn encode(&self) -> Vec<u8> {
        self.encode_in(SUMMARY_FORMAT)
    }

    /// The blob in format 4, or in format 3 (what the schemas before 14 wrote).
    fn encode_in(&self, format: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.moves.len() * 24 + self.top.len() * 8);
        varint::put(&mut out, format);
        varint::put(&mut out, self.moves.len() as u64);
        for m in &self.moves {
            varint::put(&mut out, u64::from(move_code(m.mv)));
            varint::put_counts(&mut out, &m.counts);
            varint::put_str(&mut out, m.first_date.as_deref());
            varint::put_str(&mut out, m.last_date.as_deref());
            varint::put(&mut out, m.first_game.map_or(0, |g| g.unsigned_abs() + 1));
            varint::put(&mut out, m.year_sum);
            varint::put(&mut out, m.dated);
            varint::put(
                &mut out,
                m.endings.iter().filter(|n| **n > 0).count() as u64,
            );
            for (code, n) in m.endings.iter().enumerate().filter(|e| *e.1 > 0) {
                varint::put(&mut out, code as u64);
                varint::put(&mut out, *n);
            }
        }
        varint::put(&mut out, self.labels.len() as u64);
        for l in &self.labels {
            varint::put_str(&mut out, Some(&l.label));
            varint::put(&mut out, l.games);
        }
        varint::put(&mut out, self.top.len() as u64);
        for b in &self.top {
            if format == FORMAT_3 {
                varint::put(&mut out, b.score);
                varint::put(&mut out, b.link.game.unsigned_abs());
                varint::put(&mut out, u64::from(b.link.mv));
                varint::put(&mut out, u64::from(b.bucket));
                continue;
            }
            varint::put(&mut out, u64::from(b.bucket));
            lists::put_score(&mut out, b.score, b.bucket / PER_MONTH);
            varint::put(&mut out, b.link.game.unsigned_abs());
            varint::put(&mut out, u64::from(b.link.mv));
        }
        varint::put(&mut out, self.recent.len() as u64);
        for r in &self.recent {
            varint::put(&mut out, r.link.game.unsigned_abs());
            varint::put(&mut out, u64::from(r.link.mv));
            varint::put(&mut out, u64::from(r.bucket));
            varint::put(&mut out, u64::from(r.day));
        }
        varint::put(&mut out, self.history.len() as u64);
        let mut prev = 0;
        for h in &self.history {
            let code = month_code(h);
            varint::put(&mut out, u64::from(code - prev));
            prev = code;
            for n in [h.games, h.first_wins, h.draws, h.second_wins] {
                varint::put(&mut out, n);
            }
        }
        out
    }

    /// The inverse of [`Summary::encode`].
    pub(super) fn decode(bytes: &[u8]) -> Result<Summary, StoreError> {
        let (mut r, format) = reader(bytes)?;
        let n: usize = r.int()?;
        let mut moves = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            moves.push(read_move_row(&mut r)?);
        }
        let n: usize = r.int()?;
        let mut labels = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let label = r.str()?.unwrap_or_default();
            labels.push(OpeningRow {
                label,
                games: r.u64()?,
            });
        }
        let n: usize = r.int()?;
        let mut top = Vec::with_capacity(n.min(TOP_KEPT));
        for _ in 0..n {
            top.push(if format == FORMAT_3 {
                Best {
                    score: r.u64()?,
                    link: Link {
                        game: r.int()?,
                        mv: r.int()?,
                    },
                    bucket: r.int()?,
                }
            } else {
                let bucket: u32 = r.int()?;
                let (_, score) = lists::read_rank(&mut r, bucket / PER_MONTH)?;
                Best {
                    score,
                    link: Link {
                        game: r.int()?,
                        mv: r.int()?,
                    },
                    bucket,
                }
            });
        }
        let n: usize = r.int()?;
        let mut recent = Vec::with_capacity(n.min(TOP_KEPT));
        for _ in 0..n {
            recent.push(Recent {
                link: Link {
                    game: r.int()?,
                    mv: r.int()?,
                },
                bucket: r.int()?,
                day: r.int()?,
            });
        }
        let n: usize = r.int()?;
        let mut history = Vec::with_capacity(n.min(1 << 14));
        let mut code: u32 = 0;
        for _ in 0..n {
            let delta: u32 = r.int()?;
            code = code
                .checked_add(delta)
                .filter(|c| history.is_empty() || delta > 0 && *c > 0)
                .ok_or_else(|| StoreError::Corrupt("summary blob: bad month".into()))?;
            let Some((year, month)) = calendar_month(code) else {
                return Err(StoreError::Corrupt("summary blob: bad month".into()));
            };
            history.push(MonthCounts {
                year,
                month,
                games: r.u64()?,
                first_wins: r.u64()?,
                draws: r.u64()?,
                second_wins: r.u64()?,
            });
        }
        if !r.is_empty() {
            return Err(StoreError::Corrupt("summary blob: trailing bytes".into()));
        }
        Ok(Summary {
            moves,
            labels,
            top,
            recent,
            history,
        })
    }
}

/// A reader of a summary blob past its format number, which must be this build's or format
/// 3 (read for the migration of schema 14), and that number.
fn reader(bytes: &[u8]) -> Result<(Reader<'_>, u64), StoreError> {
    let mut r = Reader::new(bytes, "summary");
    let format = r.u64()?;
    if format != SUMMARY_FORMAT && format != FORMAT_3 {
        return Err(StoreError::Corrupt(format!(
            "summary blob: unknown format {format}"
        )));
    }
    Ok((r, format))
}

impl Summary {
    /// Counts a game again with other facts: `old` (with what the buckets keep of them) is
    /// taken off and `new` counted in its place, the same game `id` playing the same `mv`,
    /// as if it had been counted with `new` from the start. This is the delta of a richer
    /// copy (`store::copies`): no other game is read. Returns `false` when the sums alone
    /// cannot tell the answer (the game held its move's first or last date and `new` does
    /// not put back one as early or as late; or it leaves a full best or latest list and
    /// `new` would rank last): the summary must then be counted again from its games and
    /// this one is not to be stored.
    pub(super) fn replace(
        &mut self,
        id: i64,
        mv: u16,
        old: (&Facts<'_>, &GameFacts),
        new: (&Facts<'_>, &GameFacts),
    ) -> Result<bool, StoreError> {
        let total: u64 = self.moves.iter().map(|m| m.counts.games).sum();
        let Ok(i) = self.moves.binary_search_by_key(&mv, |r| move_code(r.mv)) else {
            return Ok(false);
        };
        let Some((first_lost, last_lost)) = self.moves[i].uncount(&played(id, old.0, old.1)) else {
            return Ok(false);
        };
        if let Some(label) = old.0.label {
            let Ok(j) = self
                .labels
                .binary_search_by(|o| o.label.as_str().cmp(label))
            else {
                return Ok(false);
            };
            let Some(left) = self.labels[j].games.checked_sub(1) else {
                return Ok(false);
            };
            self.labels[j].games = left;
            if left == 0 {
                self.labels.remove(j);
            }
        }
        if let Some((year, month)) = calendar_month(old.1.month()) {
            let Ok(j) = self
                .history
                .binary_search_by_key(&(year, month), |h| (h.year, h.month))
            else {
                return Ok(false);
            };
            let mut c = super::model::GameCounts::default();
            c.add_game(old.0.result, old.0.ratings);
            if !self.history[j].remove(&c) {
                return Ok(false);
            }
            if self.history[j].games == 0 {
                self.history.remove(j);
            }
        }
        // A list that keeps all the games stays whole; from a full one the game leaves a
        // hole that only a game ranking above its last entry fills exactly.
        let full = total > TOP_KEPT as u64;
        let top_hole = match self.top.iter().position(|b| b.link.game == id) {
            Some(j) => {
                self.top.remove(j);
                full
            }
            None => false,
        };
        let recent_hole = match self.recent.iter().position(|r| r.link.game == id) {
            Some(j) => {
                self.recent.remove(j);
                full
            }
            None => false,
        };
        self.add(id, mv, new.0, new.1)?;
        let dates = old.0.date.zip(new.0.date);
        let exact = (!first_lost || dates.is_some_and(|(o, n)| n <= o))
            && (!last_lost || dates.is_some_and(|(o, n)| n >= o))
            && (!top_hole || self.top.last().is_some_and(|b| b.link.game != id))
            && (!recent_hole || self.recent.last().is_some_and(|r| r.link.game != id));
        Ok(exact)
    }
}

/// Reads one move row of a summary blob.
fn read_move_row(r: &mut Reader<'_>) -> Result<MoveRow, StoreError> {
    let mv = move_from_code(r.int()?)?;
    let counts = r.counts()?;
    let (first_date, last_date) = (r.str()?, r.str()?);
    let first_game = r
        .u64()?
        .checked_sub(1)
        .map(i64::try_from)
        .transpose()
        .map_err(|_| StoreError::Corrupt("summary blob: bad first game".into()))?;
    let (year_sum, dated) = (r.u64()?, r.u64()?);
    let mut endings = [0; ENDINGS];
    let k: usize = r.int()?;
    if k > ENDINGS {
        return Err(StoreError::Corrupt("summary blob: bad terminations".into()));
    }
    for _ in 0..k {
        let code: usize = r.int()?;
        *endings
            .get_mut(code)
            .ok_or_else(|| StoreError::Corrupt("summary blob: bad termination".into()))? =
            r.u64()?;
    }
    Ok(MoveRow {
        mv,
        counts,
        first_date,
        last_date,
        first_game,
        year_sum,
        dated,
        endings,
        ..MoveRow::default()
    })
}

/// The games of a summary blob (every move row's, the games that ended here included), read
/// from its move rows alone.
pub(super) fn games(bytes: &[u8]) -> Result<u64, StoreError> {
    let (mut r, _) = reader(bytes)?;
    let n: usize = r.int()?;
    let mut games: u64 = 0;
    for _ in 0..n {
        games = games.saturating_add(read_move_row(&mut r)?.counts.games);
    }
    Ok(games)
}

/// The month code (see `filter::date_code`) of a history entry.
fn month_code(h: &MonthCounts) -> u32 {
    1 + u32::from(h.year) * 13 + u32::from(h.month)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{rules::Color, store::END_OF_GAME};

    #[test]
    fn merged_summaries_equal_the_summary_of_all_their_games() {
        let moves = ["h2e2", "c3c4", "b2e2"].map(|m| m.parse::<Move>().unwrap().to_u16());
        let dates: Vec<String> = (0..300)
            .map(|id| format!("{}-{:02}-{:02}", 1990 + id % 7, 1 + id % 12, 1 + id % 5))
            .collect();
        let game = |id: i64| Facts {
            result: [None, Some(Outcome::Draw)][(id % 2) as usize],
            ratings: [Some(1500 + (id as u32 * 37) % 900), None],
            date: Some(&dates[id as usize]),
            label: ["A", "B", "C"].get((id % 5) as usize).copied(),
            ..Facts::default()
        };
        let mv = |id: i64| {
            if id % 11 == 0 {
                END_OF_GAME
            } else {
                moves[(id % 3) as usize]
            }
        };
        let mut all = Summary::default();
        let mut parts = [Summary::default(), Summary::default(), Summary::default()];
        for id in 1..300 {
            let g = game(id);
            all.add(id, mv(id), &g, &g.game_facts()).unwrap();
            // Interleaved ids, one part without the games that ended here.
            let part = if mv(id) == END_OF_GAME {
                2
            } else {
                (id % 2) as usize
            };
            parts[part].add(id, mv(id), &g, &g.game_facts()).unwrap();
        }
        let [mut a, b, c] = parts;
        a.merge(c);
        a.merge(b);
        assert_eq!(a.top.len(), TOP_KEPT);
        assert_eq!(a, all);
        assert_eq!(a.encode(), all.encode());
    }

    #[test]
    fn summary_counts_keeps_the_best_games_and_round_trips() {
        let h2e2 = "h2e2".parse::<Move>().unwrap().to_u16();
        let red = Some(Outcome::Decisive {
            winner: Color::First,
        });
        let mut s = Summary::default();
        for id in 1..=(TOP_KEPT as i64 + 20) {
            let date = if id % 4 == 0 {
                format!("{}", 1900 + id)
            } else {
                format!("{}-{:02}-{:02}", 1900 + id, 1 + id % 12, 1 + id % 28)
            };
            let g = Facts {
                result: if id % 2 == 0 {
                    red
                } else {
                    Some(Outcome::Draw)
                },
                ratings: [Some(2000), None],
                date: Some(&date),
                label: (id % 3 == 0).then_some("C45"),
                termination: (id == 111).then_some(Termination::Time),
                ..Facts::default()
            };
            s.add(
                id,
                if id == 111 { END_OF_GAME } else { h2e2 },
                &g,
                &g.game_facts(),
            )
            .unwrap();
        }
        let n = TOP_KEPT as u64 + 20;
        assert_eq!(s.moves.len(), 2);
        assert_eq!(s.moves[0].mv.unwrap().to_string(), "h2e2");
        assert_eq!(s.moves[0].counts.games + s.moves[1].counts.games, n);
        assert_eq!(s.moves[1].mv, None);
        assert_eq!(s.moves[0].counts.first_wins, n / 2);
        assert_eq!(s.moves[0].counts.rating_sum, 2000 * (n - 1));
        assert_eq!(s.moves[0].first_date.as_deref(), Some("1901-02-02"));
        assert_eq!(s.moves[0].first_game, Some(1));
        assert_eq!(s.moves[1].endings[Termination::Time.code() as usize], 1);
        assert_eq!(s.moves[0].dated, n - 1);
        let years: u64 = (1..=n).filter(|&id| id != 111).map(|id| 1900 + id).sum();
        assert_eq!(s.moves[0].year_sum, years);
        // One month per game dated to the day, in order.
        assert_eq!(s.history.len() as u64, n - n / 4);
        assert!(s
            .history
            .windows(2)
            .all(|w| (w[0].year, w[0].month) < (w[1].year, w[1].month)));
        assert_eq!(s.history.iter().map(|h| h.games).sum::<u64>(), n - n / 4);
        // The latest kept: the greatest year first.
        assert_eq!(s.recent.len(), TOP_KEPT);
        assert_eq!(s.recent[0].link.game, n as i64);
        assert_eq!(s.recent[TOP_KEPT - 1].link.game, 21);
        assert_eq!(
            s.labels,
            vec![OpeningRow {
                label: "C45".into(),
                games: n / 3
            }]
        );
        // Same rating for all: the latest first.
        assert_eq!(s.top.len(), TOP_KEPT);
        assert_eq!(s.top[0].link.game, n as i64);
        assert_eq!(s.top[TOP_KEPT - 1].link.game, 21);
        assert_eq!(s.top[9].link.mv, END_OF_GAME);
        let back = Summary::decode(&s.encode()).unwrap();
        assert_eq!(back, s);
        // Scores whose date number is not their bucket's month and day (no date, a day above
        // 31, another month), the highest rating a score holds, unknown results: each rank
        // reads back to its score.
        let month = |y: u32, m: u32| (1 + y * 13 + m) * PER_MONTH + 7;
        let odd = [
            (0u64, 0, 0, 0),
            (3, 2100, 19991231, month(2005, 3)),
            (2, 99_999, 20010099, month(2001, 0)),
            (1, 1500, 20010000, month(2001, 0)),
            (0, 0, 20200615, month(2020, 6)),
            (3, 2400, 20200615, 0),
        ];
        for (i, &(flags, rating, dn, bucket)) in odd.iter().enumerate() {
            s.top[i] = Best {
                score: flags << 61 | (rating * 100_000_000 + dn),
                bucket,
                ..s.top[i]
            };
        }
        let four = s.encode();
        assert_eq!(Summary::decode(&four).unwrap(), s);
        // Format 3 (the scores in full) reads to the same summary, in more bytes.
        let three = s.encode_in(FORMAT_3);
        assert_eq!(three[0], 3);
        assert_eq!(Summary::decode(&three).unwrap(), s);
        assert!(
            four.len() + 5 * TOP_KEPT < three.len(),
            "{} {}",
            four.len(),
            three.len()
        );
        let mut bad = s.encode();
        bad.push(0);
        assert!(Summary::decode(&bad).is_err());
        assert!(Summary::decode(&s.encode()[..10]).is_err());
    }
}

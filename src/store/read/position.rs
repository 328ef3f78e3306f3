//! The questions about one position: its moves, opening labels, best and latest games and
//! history ([`Store::lookup`], [`Store::lookup_filtered`]), its moves under a filter, the
//! games it holds and how many of them pass a filter. Each is answered from the rows `read`
//! reads (a quiet position's links and games, a busy one's summary, buckets, lists or games'
//! facts rows); nothing is written, and no SQL but the facts rows' lookups.

use rusqlite::Row;

use super::{add_counted, add_history, at_position, not_stored, recent_games, Through};
use crate::{
    rules::Move,
    store::{
        buckets,
        filter::{BucketFilter, Matcher},
        game_facts::GameFacts,
        links::{move_code, Link},
        lists::{Item, LISTS_FROM},
        model::{GameThrough, MoveRow, OpeningRow, PositionKey, PositionStats},
        ranges::Entry,
        sql,
        summary::{self, Summary, TOP_KEPT},
        Store, StoreError,
    },
};

/// Most frequent first, then by label; unlabelled games left out.
fn sort_openings(mut openings: Vec<OpeningRow>) -> Vec<OpeningRow> {
    openings.retain(|o| !o.label.is_empty());
    openings.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.label.cmp(&b.label)));
    openings
}

/// The best `n` of some games ([`GameThrough::top_key`]).
fn best_games_of(games: &[Through], n: usize) -> Vec<GameThrough> {
    let mut games: Vec<GameThrough> = games.iter().map(|t| t.game.clone()).collect();
    games.sort_by_cached_key(GameThrough::top_key);
    games.truncate(n);
    games
}

impl Store {
    /// [`Store::lookup`] in the segment addressed now (`store::segments`).
    pub(super) fn lookup_one(
        &self,
        key: PositionKey,
        top: usize,
    ) -> Result<PositionStats, StoreError> {
        match self.entry(key)? {
            None => Ok(PositionStats::default()),
            Some(Entry::Busy) => {
                let s = self.busy_summary(key)?;
                let complete = |kept: usize| top <= kept || kept < TOP_KEPT;
                let (best, recent) = if complete(s.top.len()) && complete(s.recent.len()) {
                    let read = |l: &Link| Ok(self.through(l.game, l.mv)?.game);
                    (
                        s.top
                            .iter()
                            .take(top)
                            .map(|b| read(&b.link))
                            .collect::<Result<_, StoreError>>()?,
                        s.recent
                            .iter()
                            .take(top)
                            .map(|r| read(&r.link))
                            .collect::<Result<_, StoreError>>()?,
                    )
                } else {
                    let row = self.busy_row(key)?;
                    let games = self.throughs(&row.links)?;
                    (best_games_of(&games, top), recent_games(games, top))
                };
                Ok(PositionStats {
                    moves: s.moves,
                    openings: sort_openings(s.labels),
                    top: best,
                    recent,
                    history: s.history,
                })
            }
            Some(Entry::Quiet(links)) => {
                let (s, games) = self.summarize(&links)?;
                Ok(PositionStats {
                    moves: s.moves,
                    openings: sort_openings(s.labels),
                    top: best_games_of(&games, top),
                    recent: recent_games(games, top),
                    history: s.history,
                })
            }
        }
    }

    /// [`Store::lookup_filtered`] in the segment addressed now (`store::segments`).
    pub(super) fn lookup_filtered_one(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        top: usize,
    ) -> Result<PositionStats, StoreError> {
        if filter.is_empty() {
            return self.lookup_one(key, top);
        }
        let matcher = filter.matcher();
        match self.entry(key)? {
            None => Ok(PositionStats::default()),
            Some(Entry::Quiet(links)) => {
                // The few games are read once: for the labels, the counts and the lists.
                let (s, games) = self.summarize(&links)?;
                let mut rows: Vec<MoveRow> = Vec::new();
                let mut history = Vec::new();
                let mut passing = Vec::new();
                for (l, t) in links.iter().zip(games) {
                    let g = t.facts().game_facts();
                    if matcher.passes(g.bucket) {
                        add_counted(&mut rows, l.mv, l.game, &g)?;
                        add_history(&mut history, &g);
                        passing.push(t);
                    }
                }
                Ok(PositionStats {
                    moves: rows,
                    openings: sort_openings(s.labels),
                    top: passing.iter().map(|t| t.game.clone()).collect(),
                    recent: recent_games(passing, top),
                    history,
                })
            }
            Some(Entry::Busy) => {
                let s = self.busy_summary(key)?;
                let summed = self.bucket_sums(key, &matcher)?;
                let (best, recent) = if top == 0 {
                    (Vec::new(), Vec::new())
                } else {
                    self.filtered_lists(key, &s, &matcher, top)?
                };
                Ok(PositionStats {
                    moves: summed.rows,
                    openings: sort_openings(s.labels),
                    top: best,
                    recent,
                    history: summed.history,
                })
            }
        }
    }

    /// A busy position's candidates for the best games and its latest `top` games among those
    /// that pass `matcher` (see [`Store::lookup_filtered`]).
    fn filtered_lists(
        &self,
        key: PositionKey,
        s: &Summary,
        matcher: &Matcher,
        top: usize,
    ) -> Result<(Vec<GameThrough>, Vec<GameThrough>), StoreError> {
        let all: u64 = s.moves.iter().map(|r| r.counts.games).sum();
        let read =
            |l: &Link| -> Result<GameThrough, StoreError> { Ok(self.through(l.game, l.mv)?.game) };
        // The kept lists answer when `top` of their games pass, or when they hold every game;
        // else the position's full lists do (a position of more than `LISTS_FROM` games), or
        // its games (one of at most that many).
        let whole = |kept: usize| kept as u64 >= all;
        let kept_best: Vec<&Link> = s
            .top
            .iter()
            .filter(|b| matcher.passes(b.bucket))
            .take(top)
            .map(|b| &b.link)
            .collect();
        let kept_recent: Vec<&Link> = s
            .recent
            .iter()
            .filter(|r| matcher.passes(r.bucket))
            .take(top)
            .map(|r| &r.link)
            .collect();
        let best_ok = kept_best.len() >= top || whole(s.top.len());
        let recent_ok = kept_recent.len() >= top || whole(s.recent.len());
        let listed = if (best_ok && recent_ok) || all <= LISTS_FROM as u64 {
            None
        } else {
            self.listed(key, matcher, top, (!best_ok, !recent_ok))?
        };
        let Some((listed_best, listed_recent)) = listed else {
            // A position of at most `LISTS_FROM` games, or a big one without lists (it
            // cannot be after schema 11): what the kept lists do not answer, its games'
            // facts do.
            let (facts_best, facts_recent) = if best_ok && recent_ok {
                (Vec::new(), Vec::new())
            } else {
                self.lists_from_facts(key, matcher, top, (!best_ok, !recent_ok))?
            };
            let best = if best_ok {
                kept_best.into_iter().map(read).collect::<Result<_, _>>()?
            } else {
                facts_best
            };
            let recent = if recent_ok {
                kept_recent
                    .into_iter()
                    .map(read)
                    .collect::<Result<_, _>>()?
            } else {
                facts_recent
            };
            return Ok((best, recent));
        };
        let of = |it: &Item| {
            read(&Link {
                game: it.id,
                mv: it.mv,
            })
        };
        let best = if best_ok {
            kept_best.into_iter().map(read).collect::<Result<_, _>>()?
        } else {
            listed_best.iter().map(of).collect::<Result<_, _>>()?
        };
        let recent = if recent_ok {
            kept_recent
                .into_iter()
                .map(read)
                .collect::<Result<_, _>>()?
        } else {
            listed_recent.iter().map(of).collect::<Result<_, _>>()?
        };
        Ok((best, recent))
    }

    /// A busy position's best and latest `top` games that pass `matcher` (each list only if
    /// `want` asks for it), from the facts rows of all its games: the latest are ranked by
    /// their facts alone, the best by an upper bound of their score
    /// ([`GameFacts::top_score_bound`]), read fully best bound first until no game left can
    /// beat the `top`-th. Only the games listed (and a few the bound cannot tell apart)
    /// have their rows read.
    fn lists_from_facts(
        &self,
        key: PositionKey,
        matcher: &Matcher,
        top: usize,
        want: (bool, bool),
    ) -> Result<(Vec<GameThrough>, Vec<GameThrough>), StoreError> {
        let links = self.busy_row_links(key)?;
        let passing: Vec<(Link, GameFacts)> = self
            .facts_of(&links)?
            .into_iter()
            .filter(|(_, g)| matcher.passes(g.bucket))
            .collect();
        let read =
            |l: &Link| -> Result<GameThrough, StoreError> { Ok(self.through(l.game, l.mv)?.game) };
        let best = if want.0 {
            let mut bounded: Vec<(std::cmp::Reverse<u64>, i64, u16)> = passing
                .iter()
                .map(|(l, g)| (std::cmp::Reverse(g.top_score_bound()), l.game, l.mv))
                .collect();
            bounded.sort_unstable();
            let mut held: Vec<GameThrough> = Vec::new();
            for &(bound, game, mv) in &bounded {
                // Every game from here on ranks at or below its bound, so below the
                // `top`-th held one once that is better than this bound.
                if top > 0 && held.len() >= top && held[top - 1].top_key() < (bound, game) {
                    break;
                }
                held.push(read(&Link { game, mv })?);
                held.sort_by_cached_key(GameThrough::top_key);
                held.truncate(top);
            }
            held
        } else {
            Vec::new()
        };
        let recent = if want.1 {
            let mut keyed: Vec<((u32, u8, i64), Link)> = passing
                .iter()
                .map(|(l, g)| ((g.month(), g.day, l.game), *l))
                .collect();
            keyed.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
            keyed.truncate(top);
            keyed
                .iter()
                .map(|(_, l)| read(l))
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        Ok((best, recent))
    }

    /// The facts rows of some links' games (sorted by id), like [`Store::throughs`]: many
    /// links close together are read with one scan of their id range.
    fn facts_of(&self, links: &[Link]) -> Result<Vec<(Link, GameFacts)>, StoreError> {
        let (Some(first), Some(last)) = (links.first(), links.last()) else {
            return Ok(Vec::new());
        };
        let span = last.game.abs_diff(first.game).saturating_add(1);
        let decode = |r: &Row<'_>| {
            Ok((
                r.get::<_, i64>(0)?,
                GameFacts::decode(r.get_ref(1)?.as_blob()?),
            ))
        };
        let mut stmt;
        let mut rows = if span > 8 * links.len() as u64 {
            // Scattered games: one statement looks them all up.
            let mut ids = String::with_capacity(links.len() * 8 + 2);
            ids.push('[');
            for (i, l) in links.iter().enumerate() {
                if i > 0 {
                    ids.push(',');
                }
                ids.push_str(&l.game.to_string());
            }
            ids.push(']');
            stmt = self.conn.prepare_cached(sql::GAME_FACTS_OF)?;
            stmt.query_map([ids], decode)?
        } else {
            stmt = self.conn.prepare_cached(sql::GAME_FACTS_BETWEEN)?;
            stmt.query_map([first.game, last.game], decode)?
        };
        let mut out = Vec::with_capacity(links.len());
        for l in links {
            let facts = loop {
                match rows.next().transpose()? {
                    Some((id, facts)) if id == l.game => break facts,
                    Some((id, _)) if id < l.game => continue,
                    _ => return Err(not_stored(l.game)),
                }
            };
            let facts = facts.map_err(|e| match e {
                StoreError::Corrupt(m) => StoreError::Corrupt(format!("game {}: {m}", l.game)),
                other => other,
            })?;
            out.push((*l, facts));
        }
        Ok(out)
    }

    /// [`Store::games_at`] in the segment addressed now, and with `known` = (games,
    /// passing) [`Store::games_after`] of a position this segment alone counts.
    pub(super) fn count_at(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        known: Option<(u64, u64)>,
    ) -> Result<u64, StoreError> {
        let Some(entry) = self.entry(key)? else {
            return Ok(0);
        };
        if known.is_some() || filter.is_empty() {
            let all = match &entry {
                Entry::Quiet(links) => links.len() as u64,
                Entry::Busy => self.busy_games(key)?,
            };
            match known {
                Some((games, passing)) if games == all => return Ok(passing),
                _ if filter.is_empty() => return Ok(all),
                _ => {}
            }
        }
        let m = filter.matcher();
        match entry {
            Entry::Quiet(links) => {
                let mut n = 0;
                for l in &links {
                    n += u64::from(m.passes(self.game_facts(l.game)?.bucket));
                }
                Ok(n)
            }
            Entry::Busy => {
                let mut row = self.buckets_row(key)?;
                buckets::total(&mut row, &m).map_err(|e| at_position(key, e))
            }
        }
    }

    /// A busy position's games, the count kept in its summary (nothing else of it decoded).
    fn busy_games(&self, key: PositionKey) -> Result<u64, StoreError> {
        self.read_summary(key, summary::games)
    }

    /// [`Store::position`] in the segment addressed now (`store::segments`).
    pub(super) fn position_one(&self, key: PositionKey) -> Result<Vec<MoveRow>, StoreError> {
        Ok(self.lookup_one(key, 0)?.moves)
    }

    /// [`Store::moves_filtered`] in the segment addressed now (`store::segments`).
    pub(super) fn moves_filtered_one(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        if filter.is_empty() {
            return self.position_one(key);
        }
        let matcher = filter.matcher();
        match self.entry(key)? {
            None => Ok(Vec::new()),
            Some(Entry::Busy) => Ok(self.bucket_sums(key, &matcher)?.rows),
            Some(Entry::Quiet(links)) => {
                let mut rows: Vec<MoveRow> = Vec::new();
                for l in &links {
                    let g = self.game_facts(l.game)?;
                    if matcher.passes(g.bucket) {
                        add_counted(&mut rows, l.mv, l.game, &g)?;
                    }
                }
                Ok(rows)
            }
        }
    }

    /// [`Store::games_playing`] in the segment addressed now (`store::segments`).
    pub(super) fn games_playing_one(
        &self,
        key: PositionKey,
        mv: Option<Move>,
        limit: usize,
    ) -> Result<Vec<GameThrough>, StoreError> {
        let Some(row) = self.position_row(key)? else {
            return Ok(Vec::new());
        };
        let code = move_code(mv);
        let links: Vec<Link> = row.links.into_iter().filter(|l| l.mv == code).collect();
        Ok(best_games_of(&self.throughs(&links)?, limit))
    }

    /// [`Store::games_through`] in the segment addressed now (`store::segments`).
    pub(super) fn games_through_one(
        &self,
        key: PositionKey,
        limit: Option<usize>,
    ) -> Result<Vec<GameThrough>, StoreError> {
        match limit {
            Some(n) => Ok(self.lookup_one(key, n)?.top),
            None => {
                let Some(row) = self.position_row(key)? else {
                    return Ok(Vec::new());
                };
                Ok(best_games_of(&self.throughs(&row.links)?, usize::MAX))
            }
        }
    }
}

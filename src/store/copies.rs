//! One game counted once: copies of the same game with differently written metadata.
//!
//! Collections file a game several times (by tournament, by player, by opening), each copy
//! with its header written differently (`湖北 洪智` / `湖北洪智`, `2001` / `2001-12-20`, no
//! names at all). Their content hashes differ, so the hash alone stores them all. The rule:
//!
//! - a game of at least [`LONG_GAME`] plies is identified by its variant, start position,
//!   moves and result alone ([`identity`]): two different games that long with the very same
//!   moves and result do not happen in practice;
//! - a shorter game by its content hash (variant, start, moves, players, date), as before;
//! - of the copies of one game the database keeps one, the copy with the greatest
//!   [`richness`] (real names, a full date, event, ratings …), ties by the smallest content
//!   hash. The choice depends on the copies only, not on the order they arrive in: when a
//!   richer copy comes in a later batch or import, the stored game takes its metadata and its
//!   statistics move with it (`Store::take_copies`).
//!
//! This file owns the rule (identity and richness, both pure functions of one game, so a
//! job outside the store can compute them as columns and only group and sort) and the
//! writer's part of it (which records of a batch are new, copies or richer copies, and how a
//! stored game takes a richer copy's metadata). It is called by `write.rs` inside the
//! batch's transaction and by the schema-6 migration; it never touches the range blobs
//! itself (it re-counts busy positions through the reading and writing functions of the
//! store).

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use super::{
    buckets::Buckets,
    codec::{content_hash, result_code, StableHasher, END_OF_GAME},
    game_facts::GameFacts,
    links::move_code,
    lists::Item,
    model::{is_real_name, GameRecord, PositionKey},
    players::Players,
    read::Through,
    sql,
    summary::{Facts, Summary},
    Store, StoreError,
};
use crate::{
    formats::{facts::Speed, Tags},
    rules::{Move, Outcome, Variant},
};

/// From this many plies on, a game is identified by its moves and result alone.
pub const LONG_GAME: usize = 30;

/// The identity of a record: copies of one game share it. See [`identity_of`].
///
/// ```
/// use qipu::formats::{Game, MoveNode, Source};
/// use qipu::rules::{Outcome, Variant};
/// use qipu::store::{copies, GameRecord};
/// // 32 plies: both right horses out and back, eight times.
/// let line = "h0g2 h9g7 g2h0 g7h9";
/// let mut g = Game::new(Variant::Xiangqi, Source::default());
/// g.moves = [line; 8].join(" ").split(' ').map(MoveNode::new).collect();
/// g.tags.result = Some(Outcome::Draw);
/// let a = GameRecord::from_game(&g, 40).unwrap();
/// g.tags.first = Some("洪智".into());
/// let b = GameRecord::from_game(&g, 40).unwrap();
/// assert_ne!(a.hash, b.hash);
/// assert_eq!(copies::identity(&a), copies::identity(&b));
/// assert!(copies::richness(&b.tags) > copies::richness(&a.tags));
/// ```
pub fn identity(r: &GameRecord) -> u64 {
    identity_of(
        r.variant,
        r.start_fen.as_deref(),
        &r.moves,
        r.result,
        r.hash,
    )
}

/// The identity of a game from its parts: for a game of at least [`LONG_GAME`] plies a
/// stable hash of (variant, start board and side to move, moves, result); for a shorter one
/// its content hash `hash`. `start_fen` `None` is the variant's standard start.
pub fn identity_of(
    variant: Variant,
    start_fen: Option<&str>,
    moves: &[Move],
    result: Option<Outcome>,
    hash: u64,
) -> u64 {
    if moves.len() < LONG_GAME {
        return hash;
    }
    let start = board_and_turn(start_fen.unwrap_or(variant.start_fen()));
    let mut h = StableHasher::new();
    h.bytes(b"qipu game identity 1");
    h.bytes(variant.name().as_bytes());
    h.bytes(&(start.len() as u64).to_le_bytes());
    h.bytes(start.as_bytes());
    h.bytes(&(moves.len() as u64).to_le_bytes());
    for m in moves {
        h.bytes(&m.to_u16().to_le_bytes());
    }
    h.bytes(&[result_code(result) as u8]);
    h.finish()
}

/// How much a copy's header tells, higher = richer; of a game's copies the richest is kept.
/// Counts only what the database stores, so that a stored game scores as its record did
/// (not the result: a long game's copies share it, a short game's identity is its content):
///
/// | field | points |
/// |---|---|
/// | each real player name (not empty, `?`, `红方棋手` …) | 16, plus 1 a character up to 8 (spaces not counted) |
/// | date `YYYY-MM-DD` / `YYYY-MM` / `YYYY` | 12 / 8 / 4 |
/// | event | 6 |
/// | site, round | 2 each |
/// | each rating | 3 |
/// | ECCO code, opening, variation, each formation, clock, speed, mode, termination | 1 each |
///
/// ```
/// use qipu::formats::Tags;
/// use qipu::store::copies::richness;
/// let mut t = Tags::default();
/// t.first = Some("红方棋手".into());
/// assert_eq!(richness(&t), 0);
/// t.first = Some("宗永".into());
/// let short = richness(&t);
/// t.first = Some("宗永生".into());
/// assert_eq!(richness(&t), short + 1);
/// t.date = Some("2001".into());
/// let year = richness(&t);
/// t.date = Some("2001-12-20".into());
/// assert_eq!(richness(&t), year + 8);
/// ```
pub fn richness(t: &Tags) -> u32 {
    let mut score = 0;
    for name in [&t.first, &t.second] {
        if is_real_name(name.as_deref()) {
            let chars = name
                .as_deref()
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_whitespace())
                .count();
            score += 16 + chars.min(8) as u32;
        }
    }
    score += match t.date.as_deref().map(|d| d.split('-').count()) {
        Some(3..) => 12,
        Some(2) => 8,
        Some(_) => 4,
        None => 0,
    };
    let has = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
    score += 6 * u32::from(has(&t.event));
    score += 2 * (u32::from(has(&t.site)) + u32::from(has(&t.round)));
    score += 3 * (u32::from(t.first_rating.is_some()) + u32::from(t.second_rating.is_some()));
    let speed: Option<Speed> = t.speed.or(t.time_control.map(|c| c.speed()));
    let small = [
        has(&t.ecco),
        has(&t.opening),
        has(&t.variation),
        has(&t.first_formation),
        has(&t.second_formation),
        t.time_control.is_some(),
        speed.is_some(),
        t.mode.is_some(),
        t.termination.is_some(),
    ];
    score + small.iter().map(|&b| u32::from(b)).sum::<u32>()
}

/// The board and side-to-move fields of a FEN (as qipu writes it: one space between
/// fields): what the content hash and the identity know of a start position.
///
/// ```
/// assert_eq!(qipu::store::copies::board_and_turn("9/9 w - - 0 1"), "9/9 w");
/// ```
pub fn board_and_turn(fen: &str) -> &str {
    let end = fen.match_indices(' ').nth(1).map_or(fen.len(), |(i, _)| i);
    &fen[..end]
}

/// The last tie-break between copies of equal richness and content hash (the same players,
/// date and result, another event or site): a stable hash of every stored header field,
/// smaller first. Copies with the same header tie on it: they are exact duplicates, and the
/// first one read gives the source.
pub fn header_hash(t: &Tags) -> u64 {
    let mut h = StableHasher::new();
    for s in t.text_fields() {
        let s = s.as_deref().unwrap_or("");
        h.bytes(&(s.len() as u64).to_le_bytes());
        h.bytes(s.as_bytes());
    }
    for n in [
        t.first_rating,
        t.second_rating,
        t.time_control.map(|c| c.base_secs),
        t.time_control.map(|c| c.increment_secs),
        t.speed
            .or(t.time_control.map(|c| c.speed()))
            .map(|s| u32::from(s.code())),
        t.mode.map(|m| u32::from(m.code())),
        t.termination.map(|m| u32::from(m.code())),
    ] {
        h.bytes(&n.map_or(0, |n| u64::from(n) + 1).to_le_bytes());
    }
    h.finish()
}

/// A busy position's summary and buckets as stored.
type BusyBlobs = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A stored game whose richer copy changed its facts: its id, the game as it was, the copy.
type Changed<'a> = (i64, Through, &'a GameRecord);

/// The facts a record counts with, stored or taken by a stored game.
fn record_facts(r: &GameRecord) -> Facts<'_> {
    Facts::of(r.result, &r.tags, r.opening_label.as_deref())
}

/// Where a copy ranks among the copies of its game: (richness, content hash, header hash).
type Rank = (u32, u64, u64);

/// The order of copies, greatest first: the richer, then the smaller content hash, then the
/// smaller [`header_hash`].
fn better(a: Rank, b: Rank) -> bool {
    a.0 > b.0 || (a.0 == b.0 && (a.1, a.2) < (b.1, b.2))
}

/// What a batch does with one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fate {
    /// A game not stored yet: insert it.
    New,
    /// The same content as a stored game or an earlier record: nothing to do.
    Duplicate,
    /// A poorer copy of a stored game or of a richer record of the batch: not stored.
    Copy,
    /// A richer copy of the stored game with this id: the game takes its metadata.
    Richer(i64),
}

/// A record's identity and richness, as the batch plan computed them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    /// The record this place of the batch writes (see [`plan`]).
    pub record: usize,
    pub identity: u64,
    pub richness: u32,
    pub header: u64,
    pub fate: Fate,
}

/// A richer copy of a stored game: the game's id, the copy, its mark, its source row.
pub(super) type Richer<'a> = (i64, &'a GameRecord, Mark, i64);

/// Decides, for every place of a batch (`Mark::record` says which record it writes: its own,
/// but for a new game's earliest and richest copies, which swap places), whether it is new, a duplicate, a poorer copy, or a
/// richer copy of a stored game (one index lookup per distinct identity). Runs inside the
/// batch's transaction.
pub(super) fn plan(conn: &Connection, records: &[GameRecord]) -> Result<Vec<Mark>, StoreError> {
    let mut marks: Vec<Mark> = records
        .iter()
        .enumerate()
        .map(|(record, r)| Mark {
            record,
            identity: identity(r),
            richness: richness(&r.tags),
            header: header_hash(&r.tags),
            fate: Fate::Copy,
        })
        .collect();
    // The best record of each identity in the batch.
    let mut best: HashMap<u64, usize> = HashMap::with_capacity(records.len());
    for (i, m) in marks.iter().enumerate() {
        let e = best.entry(m.identity).or_insert(i);
        let b = &marks[*e];
        if better(
            (m.richness, records[i].hash, m.header),
            (b.richness, records[*e].hash, b.header),
        ) {
            *e = i;
        }
    }
    let mut stored_of = conn.prepare_cached(sql::GAME_BY_IDENTITY)?;
    let mut stored: HashMap<u64, Option<(i64, Rank)>> = HashMap::new();
    for (&identity, &i) in &best {
        let row: Option<(i64, i64, i64, i64)> = stored_of
            .query_row([identity as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        let row = row.map(|(id, rich, hash, header)| {
            let rich = u32::try_from(rich).unwrap_or(0);
            (id, (rich, hash as u64, header as u64))
        });
        let r = &records[i];
        let rank = (marks[i].richness, r.hash, marks[i].header);
        marks[i].fate = match row {
            None => Fate::New,
            Some((id, s)) if better(rank, s) => Fate::Richer(id),
            Some(_) => Fate::Duplicate,
        };
        if let (Fate::Duplicate, Some((_, s))) = (marks[i].fate, row) {
            if s.1 != r.hash {
                marks[i].fate = Fate::Copy;
            }
        }
        stored.insert(identity, row);
    }
    for (i, r) in records.iter().enumerate() {
        let b = best[&marks[i].identity];
        if b == i {
            continue;
        }
        let same_as_stored = stored[&marks[i].identity].is_some_and(|s| s.1 .1 == r.hash);
        marks[i].fate = if records[b].hash == r.hash || same_as_stored {
            Fate::Duplicate
        } else {
            Fate::Copy
        };
    }
    // A new game is stored at the place of its earliest copy in the batch, with the richest
    // copy's content: its id is then the one it would get were the copies in other batches
    // (the earliest copy's), so ids follow the input order however the input is batched.
    let mut earliest: HashMap<u64, usize> = HashMap::with_capacity(best.len());
    for (i, m) in marks.iter().enumerate() {
        earliest.entry(m.identity).or_insert(i);
    }
    for (identity, b) in best {
        let e = earliest[&identity];
        if e != b && marks[b].fate == Fate::New {
            marks.swap(e, b);
        }
    }
    Ok(marks)
}

impl Store {
    /// The stored games take the metadata of their richer copies ([`Store::take_copy`]),
    /// then the busy positions they went through count them with their new facts: a delta
    /// (the old facts taken off and the new ones counted, [`Summary::replace`] and
    /// [`Buckets::replace`]) that reads no other game, each position's row once; only a
    /// position whose sums cannot tell the answer alone is counted again from all its games
    /// ([`Store::recount_busy`]). Runs in the batch's transaction, after its new games are
    /// counted. Returns (busy positions changed by a delta, busy positions counted again);
    /// adds the players (ids) whose games changed to `touched`.
    pub(super) fn take_copies(
        &self,
        richer: &[Richer<'_>],
        touched: &mut Vec<i64>,
    ) -> Result<(u64, u64), StoreError> {
        // Each changed game's facts before (as stored) and its richer copy (whose facts it
        // now has: `take_copy` stores the copy's header, and its moves and result are the
        // game's), and the positions it went through.
        let mut changed: Vec<Changed<'_>> = Vec::new();
        let mut touches: Vec<(PositionKey, u16, usize)> = Vec::new();
        for (id, r, mark, source) in richer {
            let before = self.through(*id, END_OF_GAME)?;
            if !self.take_copy(*id, r, mark, *source, touched)? {
                continue;
            }
            if before.facts() == record_facts(r) {
                continue;
            }
            let n = changed.len();
            changed.push((*id, before, r));
            touches.extend(r.positions.iter().map(|&(key, mv)| (key, move_code(mv), n)));
        }
        // Each game is counted in the segment of its id: its positions are changed there.
        let segments = self.segments()?;
        let segment_of = |n: usize| {
            let id = changed[n].0;
            segments.iter().position(|s| s.games.contains(&id))
        };
        let mut touches: Vec<(usize, (PositionKey, u16, usize))> = touches
            .into_iter()
            .filter_map(|t| Some((segment_of(t.2)?, t)))
            .collect();
        touches.sort_unstable_by_key(|(s, t)| (*s, t.0, t.2));
        let (mut delta, mut again) = (0, 0);
        for in_one in touches.chunk_by(|a, b| a.0 == b.0) {
            let group: Vec<(PositionKey, u16, usize)> = in_one.iter().map(|t| t.1).collect();
            self.in_segment(&segments[in_one[0].0].tables, || {
                for group in group.chunk_by(|a, b| a.0 == b.0) {
                    let key = group[0].0;
                    match self.replace_in_busy(key, group, &changed)? {
                        None => {}
                        Some(true) => delta += 1,
                        Some(false) => {
                            self.recount_busy(key)?;
                            again += 1;
                        }
                    }
                }
                Ok(())
            })?;
        }
        Ok((delta, again))
    }

    /// Applies the changed games' deltas to one busy position's summary and buckets and
    /// stores them: `Some(true)`; `Some(false)`, storing nothing, when one of them cannot be
    /// applied exactly; `None` for a quiet position (no `positions` row: it keeps no sums,
    /// and probing that row costs less than finding the key's entry in its range).
    fn replace_in_busy(
        &self,
        key: PositionKey,
        touches: &[(PositionKey, u16, usize)],
        changed: &[Changed<'_>],
    ) -> Result<Option<bool>, StoreError> {
        let row: Option<BusyBlobs> = self
            .conn
            .prepare_cached(&self.q(sql::BUSY_SUMMARY_BUCKETS))?
            .query_row([key.to_rowid()], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((summary, buckets)) = row else {
            return Ok(None);
        };
        let (Some(summary), Some(buckets)) = (summary, buckets) else {
            return Ok(Some(false));
        };
        let at = |e| super::read::at_position(key, e);
        let mut summary = Summary::decode(&summary).map_err(at)?;
        let mut buckets = Buckets::decode(&buckets).map_err(at)?;
        let mut listed = Vec::with_capacity(touches.len());
        for &(_, mv, i) in touches {
            let (id, before, copy) = &changed[i];
            let (old, new) = (before.facts(), record_facts(copy));
            let (old_game, new_game) = (old.game_facts(), new.game_facts());
            if !summary.replace(*id, mv, (&old, &old_game), (&new, &new_game))?
                || !buckets.replace(mv, *id, &old_game, &new_game)
            {
                return Ok(Some(false));
            }
            listed.push(Item::of(*id, mv, &new, &new_game));
        }
        self.replace_in_lists(key, listed)?;
        self.conn
            .prepare_cached(&self.q(sql::UPDATE_BUSY_BLOBS))?
            .execute(rusqlite::params![
                key.to_rowid(),
                summary.encode(),
                buckets.encode()
            ])?;
        Ok(Some(true))
    }

    /// The stored game `id` takes the metadata of a richer copy (its hash, source, header,
    /// facts, richness and start FEN text; its moves and start position are the same), and
    /// the player index follows (the players it took the game from or gave it to are added
    /// to `touched`, a player gone too). Returns
    /// `false`, changing nothing, if another stored game already has the copy's content
    /// hash. The busy positions it went through must then count its new facts
    /// ([`Store::take_copies`]) once the batch's games are in.
    pub(super) fn take_copy(
        &self,
        id: i64,
        r: &GameRecord,
        mark: &Mark,
        source: i64,
        touched: &mut Vec<i64>,
    ) -> Result<bool, StoreError> {
        let old: Option<(Option<String>, Option<String>)> = self
            .conn
            .prepare_cached(sql::GAME_NAMES)?
            .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let Some((old_first, old_second)) = old else {
            return Err(StoreError::Corrupt(format!(
                "game {id} has a copy but is not stored"
            )));
        };
        let t = &r.tags;
        let facts = record_facts(r);
        let changed = self
            .conn
            .prepare_cached(sql::TAKE_COPY)?
            .execute(rusqlite::params![
                id,
                r.hash as i64,
                source,
                r.source.index as i64,
                t.event,
                t.site,
                t.round,
                t.date,
                t.first,
                t.second,
                t.first_rating,
                t.second_rating,
                t.ecco,
                t.opening,
                t.variation,
                t.first_formation,
                t.second_formation,
                t.time_control.map(|c| c.base_secs),
                t.time_control.map(|c| c.increment_secs),
                facts.speed.map(crate::formats::facts::Speed::code),
                t.mode.map(crate::formats::facts::Mode::code),
                t.termination.map(crate::formats::facts::Termination::code),
                i64::from(mark.richness),
                mark.header as i64,
                // The same start, perhaps with other move counters (`0 19` / `0 1`): the
                // richer copy's text, as a copy stored first in its batch would give it.
                r.start_fen,
            ])?;
        if changed == 0 {
            return Ok(false);
        }
        self.conn
            .prepare_cached(sql::INSERT_GAME_FACTS)?
            .execute(rusqlite::params![id, facts.game_facts().encode()])?;
        touched.extend(self.unindex_player(id, 0, old_first.as_deref())?);
        touched.extend(self.unindex_player(id, 1, old_second.as_deref())?);
        touched.extend(self.index_players(&[Players {
            id,
            first: t.first.as_deref(),
            second: t.second.as_deref(),
        }])?);
        Ok(true)
    }

    /// Takes a game off the player index for one side (the inverse of `index_players`);
    /// gives the player it was taken from, and when that player goes with its last game,
    /// the player that named its person too (so that the person's other names are decided
    /// again).
    fn unindex_player(
        &self,
        game: i64,
        side: i64,
        name: Option<&str>,
    ) -> Result<Vec<i64>, StoreError> {
        let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
            return Ok(Vec::new());
        };
        let folded = crate::formats::names::fold(name);
        let player: Option<i64> = self
            .conn
            .prepare_cached(sql::PLAYER_BY_FOLDED)?
            .query_row([&folded], |r| r.get(0))
            .optional()?;
        let Some(player) = player else {
            return Ok(Vec::new());
        };
        let removed = self
            .conn
            .prepare_cached(sql::DELETE_PLAYER_GAME)?
            .execute(rusqlite::params![player, side, game])?;
        if removed == 0 {
            return Ok(Vec::new());
        }
        let mut touched = vec![player];
        self.conn
            .prepare_cached(sql::SUB_PLAYER_NAME)?
            .execute(rusqlite::params![player, name])?;
        self.conn
            .prepare_cached(sql::DROP_EMPTY_PLAYER_NAMES)?
            .execute([player])?;
        let left: i64 = self
            .conn
            .prepare_cached(sql::PLAYER_NAME_ROWS)?
            .query_row([player], |r| r.get(0))?;
        if left == 0 {
            let person: Option<i64> = self
                .conn
                .prepare_cached(sql::PERSON_OF_PLAYER)?
                .query_row([player], |r| r.get(0))
                .optional()?
                .flatten();
            touched.extend(person);
            self.conn
                .prepare_cached(sql::DELETE_PLAYER)?
                .execute([player])?;
        } else {
            self.conn
                .prepare_cached(sql::UPDATE_PLAYER)?
                .execute([player])?;
        }
        Ok(touched)
    }

    /// Counts a busy position's summary and buckets again from all its games (a quiet
    /// position keeps no sums: it is counted from its games when asked), in the caller's
    /// transaction.
    pub(super) fn recount_busy(&self, key: PositionKey) -> Result<(), StoreError> {
        let row = self.busy_row(key)?;
        let (summary, games) = self.summarize(&row.links)?;
        let facts: Vec<(u16, i64, GameFacts)> = row
            .links
            .iter()
            .zip(&games)
            .map(|(l, g)| (l.mv, l.game, g.facts().game_facts()))
            .collect();
        let mut buckets = Buckets::default();
        buckets.add(facts);
        self.write_busy(key, &summary, &row.links, &buckets)?;
        let mut items: Vec<Item> = row
            .links
            .iter()
            .zip(&games)
            .map(|(l, t)| Item::of_through(l, t))
            .collect();
        self.write_lists(key, &mut items)
    }

    /// The schema-6 step: every stored game gets its identity, richness and content hash
    /// (which now holds the result), and of the
    /// copies of a game only the richest stays (the statistics, facts and player index are
    /// rebuilt next from the games left, by [`Store::rebuild_positions`]). Returns how many
    /// copies were removed.
    pub(super) fn merge_stored_copies(&self) -> Result<u64, StoreError> {
        // identity → the kept game (id, richness, hash); the others are removed.
        let mut kept: HashMap<u64, (i64, Rank)> = HashMap::new();
        let mut removed: Vec<i64> = Vec::new();
        {
            let mut set = self.conn.prepare(sql::SET_IDENTITY)?;
            for variant in Variant::ALL {
                for g in self.games(variant) {
                    let g = g?;
                    let t = &g.tags;
                    let hash = content_hash(
                        variant,
                        board_and_turn(&g.start_fen),
                        &g.moves,
                        t.first.as_deref(),
                        t.second.as_deref(),
                        t.date.as_deref(),
                        g.result,
                    );
                    let id = identity_of(variant, Some(&g.start_fen), &g.moves, g.result, hash);
                    let rich = richness(t);
                    let header = header_hash(t);
                    set.execute(rusqlite::params![
                        g.id,
                        id as i64,
                        i64::from(rich),
                        hash as i64,
                        header as i64
                    ])?;
                    let rank = (rich, hash, header);
                    match kept.get_mut(&id) {
                        None => {
                            kept.insert(id, (g.id, rank));
                        }
                        Some(k) if better(rank, k.1) => {
                            removed.push(k.0);
                            *k = (g.id, rank);
                        }
                        Some(_) => removed.push(g.id),
                    }
                }
            }
        }
        let mut delete = self.conn.prepare(sql::DELETE_GAME)?;
        for id in &removed {
            delete.execute([id])?;
        }
        self.conn.execute_batch(sql::IDENTITY_INDEX)?;
        Ok(removed.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn better_prefers_richness_then_the_smaller_hash() {
        assert!(better((5, 9, 9), (4, 1, 1)));
        assert!(better((5, 1, 9), (5, 2, 0)));
        assert!(better((5, 2, 0), (5, 2, 1)));
        assert!(!better((5, 2, 3), (5, 2, 3)));
        assert!(!better((4, 0, 0), (5, 9, 9)));
    }

    /// Every busy position's summary and buckets, by key.
    fn busy_blobs(store: &Store) -> Vec<(i64, Vec<u8>, Vec<u8>)> {
        let mut stmt = store
            .conn
            .prepare("SELECT key, summary, buckets FROM positions ORDER BY key")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// Richer copies arriving after their games (new facts: a date where there was none, a
    /// full date for a year, ratings, an ECCO code only) change the busy positions' sums by
    /// a delta; the result is byte for byte what counting every game again gives.
    #[test]
    fn a_late_richer_copy_changes_the_sums_as_a_recount_would() {
        let zip = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/wukong/Hu_Ronghua_1391_UCI_games.pgn.zip");
        let games: Vec<crate::formats::Game> = crate::formats::read_path(&zip)
            .filter_map(Result::ok)
            .filter(|g| g.moves.len() >= LONG_GAME)
            .take(300)
            .collect();
        assert_eq!(games.len(), 300);
        let (mut poor, mut rich) = (Vec::new(), Vec::new());
        for (i, g) in games.iter().enumerate() {
            let mut r = g.clone();
            r.tags.first = Some(format!("甲{i}"));
            r.tags.second = Some(format!("乙{i}"));
            r.tags.date = Some(format!(
                "19{:02}-{:02}-{:02}",
                90 + i % 3,
                1 + i % 2,
                1 + i % 28
            ));
            r.tags.ecco = Some(format!("A{:02}", i % 7));
            let mut p = g.clone();
            p.tags.first = None;
            p.tags.second = None;
            p.tags.ecco = None;
            match i % 4 {
                // No date nor ratings, another code: the copy moves the game to other
                // buckets and another opening label.
                0 => {
                    r.tags.first_rating = Some(2000 + 10 * (i as u32 % 50));
                    p.tags.ecco = Some("B10".into());
                }
                // The same date and ratings: only the opening label changes.
                1 => p.tags.date = r.tags.date.clone(),
                // A year for the full date: another month, another day.
                2 => p.tags.date = r.tags.date.as_ref().map(|d| d[..4].to_string()),
                // Another day of the same month: the same buckets, other days.
                _ => {
                    p.tags.date = r
                        .tags
                        .date
                        .as_ref()
                        .map(|d| format!("{}-{:02}", &d[..7], 1 + (i * 7) % 28))
                }
            }
            if i % 4 != 0 {
                p.tags.first_rating = r.tags.first_rating;
            }
            rich.push(GameRecord::from_game(&r, 40).unwrap());
            poor.push(GameRecord::from_game(&p, 40).unwrap());
        }
        let mut store = Store::open_in_memory().unwrap();
        for batch in poor.chunks(120) {
            store.write_batch(batch).unwrap();
        }
        let (mut deltas, mut recounts) = (0, 0);
        // The rich copies in later batches of a few (a late copy is rare in a batch), of
        // one kind each, the latest games first (the earliest game of a cell leaving it
        // takes the cell's first game with it: those are counted again).
        let rich: Vec<GameRecord> = (0..4)
            .flat_map(|k| rich.iter().skip(k).step_by(4).rev().cloned())
            .collect();
        for (b, batch) in rich.chunks(4).enumerate() {
            let out = store.write_batch(batch).unwrap();
            assert_eq!(out.merged, batch.len() as u64);
            deltas += out.copy_deltas;
            recounts += out.copy_recounts;
            // After every batch (a later recount would hide a wrong delta).
            let got = busy_blobs(&store);
            assert!(got.len() > 3, "{} busy positions", got.len());
            store.rebuild_busy().unwrap();
            let want = busy_blobs(&store);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.0, w.0);
                assert!(g.1 == w.1, "batch {b}, position {}: summary differs", g.0);
                assert!(g.2 == w.2, "batch {b}, position {}: buckets differ", g.0);
            }
        }
        eprintln!("busy positions: {deltas} by delta, {recounts} counted again");
        assert!(
            deltas > 0 && recounts > 0,
            "{deltas} deltas, {recounts} recounts"
        );
    }

    #[test]
    fn short_games_keep_their_content_hash_as_identity() {
        let m: Move = "h2e2".parse().unwrap();
        let moves = vec![m; LONG_GAME - 1];
        assert_eq!(identity_of(Variant::Xiangqi, None, &moves, None, 77), 77);
        let long = vec![m; LONG_GAME];
        let a = identity_of(Variant::Xiangqi, None, &long, None, 77);
        assert_eq!(a, identity_of(Variant::Xiangqi, None, &long, None, 78));
        assert_ne!(a, identity_of(Variant::Janggi, None, &long, None, 77));
        assert_ne!(
            a,
            identity_of(Variant::Xiangqi, None, &long, Some(Outcome::Draw), 77)
        );
        let fen = Variant::Xiangqi.start_fen();
        assert_eq!(a, identity_of(Variant::Xiangqi, Some(fen), &long, None, 1));
    }
}

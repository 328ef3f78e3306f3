//! The questions about a position asked of every segment (`store::segments`) and their
//! answers added up: the per-move sums and the histories are summed, the opening labels
//! counted together, the best and the latest games taken from the segments' own (each
//! segment answers with its best `top`, so the best `top` of all are among them). With one
//! segment its answer is the answer, untouched. The questions themselves, for one
//! segment, are in `position.rs`.

use crate::{
    rules::Move,
    store::{
        filter::BucketFilter,
        game_facts::GameFacts,
        links::move_code,
        model::{GameThrough, MonthCounts, MoveRow, OpeningRow, PositionKey, PositionStats},
        Store, StoreError,
    },
};

impl Store {
    /// `one` asked of every segment that counts games, oldest first.
    fn in_every_segment<T>(
        &self,
        one: impl Fn() -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        self.segments()?
            .iter()
            .map(|s| self.in_segment(&s.tables, &one))
            .collect()
    }

    /// The moves, opening labels and best `top` games of a position (by key); empty when no
    /// stored game went through it. A busy position is answered from its summary (one row);
    /// a position of at most [`LIST_MAX`](crate::store::LIST_MAX) games is counted from them.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Outcome, Variant};
    /// use qipu::store::{GameRecord, PositionKey, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = ["h2e2 h9g7", "c3c4", "h2e2 b9c7"]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, line)| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = line.split(' ').map(MoveNode::new).collect();
    ///         g.tags.result = Some(Outcome::Draw);
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let start = store.lookup(PositionKey(AnyPosition::new(Variant::Xiangqi).key()), 2)?;
    /// let mut games: Vec<(String, u64)> =
    ///     start.moves.iter().map(|r| (r.mv.unwrap().to_string(), r.counts.games)).collect();
    /// games.sort();
    /// assert_eq!(games, [("c3c4".to_string(), 1), ("h2e2".to_string(), 2)]);
    /// assert_eq!(start.top.len(), 2);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn lookup(&self, key: PositionKey, top: usize) -> Result<PositionStats, StoreError> {
        let answers = self.in_every_segment(|| self.lookup_one(key, top))?;
        Ok(merge_stats(answers, Some(top), top))
    }

    /// [`Store::lookup`] counting only the games that pass `filter` (with an empty filter,
    /// the same answer): the moves, the history and the latest `top` games of those games,
    /// the opening labels of every game through the position (the name is the position's),
    /// and as `top` the candidates for the best games, not ranked and not cut to `top`: a
    /// position of at most [`LIST_MAX`](crate::store::LIST_MAX) games gives every game that
    /// passes; a busier one the first `top` of its kept best games ([`TOP_KEPT`](crate::store::TOP_KEPT)) that pass
    /// when that many do or they are all its games, else the best `top` of its full lists
    /// (`store::lists`, more than 1,000 games) or of its games' facts rows (at most 1,000,
    /// ranked by a bound of their score until the best are sure); the latest games
    /// likewise. Exact under every filter. A busy position is read in its summary, buckets
    /// and, when needed, the parts of its lists or its games' facts rows; only the listed
    /// games' rows are read (and, with names that are not real, the few the bound cannot
    /// place).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn lookup_filtered(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        top: usize,
    ) -> Result<PositionStats, StoreError> {
        if filter.is_empty() {
            return self.lookup(key, top);
        }
        let answers = self.in_every_segment(|| self.lookup_filtered_one(key, filter, top))?;
        // The candidates for the best games stay candidates: every segment's.
        Ok(merge_stats(answers, None, top))
    }

    /// How many games went through a position (by key) that pass `filter`: a quiet position's
    /// links (their facts rows with a filter), a busy one's summary, or with a filter one walk
    /// of its buckets' entry of every game.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_at(&self, key: PositionKey, filter: &BucketFilter) -> Result<u64, StoreError> {
        Ok(self
            .in_every_segment(|| self.count_at(key, filter, None))?
            .into_iter()
            .sum())
    }

    /// [`Store::games_at`] of the position a move leads to, knowing that every one of the
    /// move's `played` games goes through it and that `passing` of them pass `filter`: when
    /// the position holds exactly `played` games (the count kept in its row), they are the
    /// move's, and the answer is `passing` without a walk of its buckets or its games'
    /// facts. One look at the position either way.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Variant};
    /// use qipu::store::{BucketFilter, GameRecord, PositionKey, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = [("h2e2", "2019-05"), ("h2e2", "2021-01")]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (line, date))| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = vec![MoveNode::new(*line)];
    ///         g.tags.date = Some(date.to_string());
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let mut after = AnyPosition::new(Variant::Xiangqi);
    /// after.play("h2e2".parse().unwrap()).unwrap();
    /// let after = PositionKey(after.key());
    /// let since = BucketFilter { since: Some("2020".parse().unwrap()), ..BucketFilter::default() };
    /// // Its 2 games are the move's: the move's count under the filter is the answer.
    /// assert_eq!(store.games_after(after, &since, 2, 1)?, 1);
    /// // Had the move 1 game, the position's other games are counted under the filter.
    /// assert_eq!(store.games_after(after, &since, 1, 0)?, 1);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_after(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        played: u64,
        passing: u64,
    ) -> Result<u64, StoreError> {
        let segments = self.segments()?;
        if let [one] = segments.as_slice() {
            return self.in_segment(&one.tables, || {
                self.count_at(key, filter, Some((played, passing)))
            });
        }
        let all: u64 = self.games_at(key, &BucketFilter::default())?;
        if all == played {
            return Ok(passing);
        }
        if filter.is_empty() {
            return Ok(all);
        }
        self.games_at(key, filter)
    }

    /// Every move played from a position (by key), plus a row with `mv == None` for the
    /// games that ended there, by move code.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn position(&self, key: PositionKey) -> Result<Vec<MoveRow>, StoreError> {
        let answers = self.in_every_segment(|| self.position_one(key))?;
        Ok(merge_moves(answers))
    }

    /// The moves of a position (by key) counting only the games that pass `filter`, plus a
    /// row with `mv == None` for those that ended there, by move code; moves none of whose
    /// games pass are left out. A busy position is answered from its bucket sums (one row,
    /// no game read), a quiet one from the facts of its at most
    /// [`LIST_MAX`](crate::store::LIST_MAX) games. With an empty filter this is [`Store::position`].
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Variant};
    /// use qipu::store::{BucketFilter, GameRecord, PositionKey, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = [("h2e2", "2019-05"), ("c3c4", "2021"), ("h2e2", "2022-01-02")]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (line, date))| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = vec![MoveNode::new(*line)];
    ///         g.tags.date = Some(date.to_string());
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    /// let since_2020 = BucketFilter { since: Some("2020".parse().unwrap()), ..BucketFilter::default() };
    /// let rows = store.moves_filtered(start, &since_2020)?;
    /// let got: Vec<(String, u64)> =
    ///     rows.iter().map(|r| (r.mv.unwrap().to_string(), r.counts.games)).collect();
    /// assert_eq!(got, [("h2e2".to_string(), 1), ("c3c4".to_string(), 1)]);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn moves_filtered(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        let answers = self.in_every_segment(|| self.moves_filtered_one(key, filter))?;
        Ok(merge_moves(answers))
    }

    /// The best `limit` games that played `mv` in a position (`None`: that ended there), best
    /// rated first, then latest.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_playing(
        &self,
        key: PositionKey,
        mv: Option<Move>,
        limit: usize,
    ) -> Result<Vec<GameThrough>, StoreError> {
        let answers = self.in_every_segment(|| self.games_playing_one(key, mv, limit))?;
        Ok(best_of(answers, limit))
    }

    /// Games through a position, best first ([`GameThrough::top_key`]: a known result, real
    /// names, rating, date); at most `limit` of them (`None` = all).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_through(
        &self,
        key: PositionKey,
        limit: Option<usize>,
    ) -> Result<Vec<GameThrough>, StoreError> {
        let answers = self.in_every_segment(|| self.games_through_one(key, limit))?;
        Ok(best_of(answers, limit.unwrap_or(usize::MAX)))
    }
}

/// The answers of several segments as one: `best` ranks the best games and keeps that many
/// (`None`: they are candidates, all kept); the latest `recent` are kept.
fn merge_stats(answers: Vec<PositionStats>, best: Option<usize>, recent: usize) -> PositionStats {
    if answers.len() <= 1 {
        return answers.into_iter().next().unwrap_or_default();
    }
    let mut moves = Vec::with_capacity(answers.len());
    let mut labels: Vec<OpeningRow> = Vec::new();
    let mut top = Vec::new();
    let mut latest = Vec::new();
    let mut history: Vec<MonthCounts> = Vec::new();
    for a in answers {
        moves.push(a.moves);
        labels.extend(a.openings);
        top.push(a.top);
        latest.extend(a.recent);
        history.extend(a.history);
    }
    labels.sort_by(|a, b| a.label.cmp(&b.label));
    let mut openings: Vec<OpeningRow> = Vec::with_capacity(labels.len());
    for l in labels {
        match openings.last_mut() {
            Some(o) if o.label == l.label => o.games += l.games,
            _ => openings.push(l),
        }
    }
    openings.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.label.cmp(&b.label)));
    let months = merge_months(history);
    latest.sort_by_cached_key(|g| std::cmp::Reverse(recent_key(g)));
    latest.truncate(recent);
    PositionStats {
        moves: merge_moves(moves),
        openings,
        top: match best {
            Some(n) => best_of(top, n),
            None => top.concat(),
        },
        recent: latest,
        history: months,
    }
}

/// Month rows of several answers as one: a row a month, in month order, the counts of a
/// month added up.
pub(in crate::store) fn merge_months(mut history: Vec<MonthCounts>) -> Vec<MonthCounts> {
    history.sort_by_key(|h| (h.year, h.month));
    let mut months: Vec<MonthCounts> = Vec::with_capacity(history.len());
    for h in history {
        match months.last_mut() {
            Some(m) if (m.year, m.month) == (h.year, h.month) => {
                m.games += h.games;
                m.first_wins += h.first_wins;
                m.draws += h.draws;
                m.second_wins += h.second_wins;
            }
            _ => months.push(h),
        }
    }
    months
}

/// Move rows of several segments as one list, by move code.
pub(in crate::store) fn merge_moves(answers: Vec<Vec<MoveRow>>) -> Vec<MoveRow> {
    if answers.len() <= 1 {
        return answers.into_iter().next().unwrap_or_default();
    }
    let mut rows: Vec<MoveRow> = answers.concat();
    rows.sort_by_key(|r| move_code(r.mv));
    let mut out: Vec<MoveRow> = Vec::with_capacity(rows.len());
    for r in rows {
        match out.last_mut() {
            Some(o) if o.mv == r.mv => o.merge(&r),
            _ => out.push(r),
        }
    }
    out
}

/// The best `n` of several segments' best games ([`GameThrough::top_key`]).
fn best_of(answers: Vec<Vec<GameThrough>>, n: usize) -> Vec<GameThrough> {
    if answers.len() <= 1 {
        return answers.into_iter().next().unwrap_or_default();
    }
    let mut games = answers.concat();
    games.sort_by_cached_key(GameThrough::top_key);
    games.truncate(n);
    games
}

/// The order of the latest games, greater = later: month code, day, id (as
/// `read::recent_games` and the summary keep them).
fn recent_key(g: &GameThrough) -> (u32, u8, i64) {
    let f = GameFacts::new(
        g.result,
        [g.first_rating, g.second_rating],
        g.date.as_deref(),
        g.speed,
        g.mode,
        g.termination,
    );
    (f.month(), f.day, g.id)
}

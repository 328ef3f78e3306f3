-- qipu database, schema version 18: the position statistics are kept in segments, each
-- counting the games of one range of ids in tables of its own (src/store/segments.rs), so
-- that an import writes the statistics of its own games and never rewrites those of the
-- games stored before it. Segment 1 is the tables `positions`, `position_ranges` and
-- `position_lists`; segment N > 1 the tables `positions_N`, `position_ranges_N` and
-- `position_lists_N`, created by the import that opens it. `first_game` and `last_game`
-- bound the ids it counts (NULL while it counts none), `games` is how many; an import
-- writes into the last segment unless it is `sealed` (once it counts `store::SEGMENT_GAMES`
-- games, 1,000,000).
CREATE TABLE segments (
    id         INTEGER PRIMARY KEY,
    first_game INTEGER,
    last_game  INTEGER,
    games      INTEGER NOT NULL DEFAULT 0,
    sealed     INTEGER NOT NULL DEFAULT 0 CHECK (sealed IN (0, 1))
);

-- Every statistic stored so far is segment 1's; it is sealed when it is full
-- (`store::SEGMENT_GAMES`), so that the next import opens segment 2.
INSERT INTO segments (id, first_game, last_game, games, sealed)
    SELECT 1, min(id), max(id), count(*), count(*) >= 1000000 FROM games;

-- qipu database, schema version 3: quiet positions packed by key range, file paths stored once.
-- Version 2 had a `positions` row for every position (about 26 bytes each, four in five of
-- them for a single game) and repeated the source file's path in every game. The position
-- statistics are rebuilt from the stored games by src/store/migrate.rs in the same
-- transaction.

-- The positions of a key range: each row holds the positions from `start` up to the next
-- row's start, ascending (see src/store/ranges.rs for the blob). A quiet position (at most 32
-- games) keeps its links there; a busy one is marked there and keeps its row in `positions`.
CREATE TABLE position_ranges (
    start    INTEGER PRIMARY KEY,
    entries  BLOB NOT NULL
);

-- `positions` now holds the busy positions only (`summary` is never NULL); rebuilt below.
DELETE FROM positions;

-- Each source file once; games point to it. Paths are not unique here: an import looks
-- them up in memory, and two imports running at once may each add the same path.
CREATE TABLE sources (
    id    INTEGER PRIMARY KEY,
    path  TEXT NOT NULL
);
INSERT INTO sources (path) SELECT source_file FROM games GROUP BY source_file ORDER BY min(id);
CREATE INDEX migrate_sources_path ON sources (path);
ALTER TABLE games ADD COLUMN source INTEGER NOT NULL DEFAULT 0;
UPDATE games SET source = (SELECT id FROM sources WHERE path = games.source_file);
DROP INDEX migrate_sources_path;
ALTER TABLE games DROP COLUMN source_file;

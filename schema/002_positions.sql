-- qipu database, schema version 2: one row per position instead of three tables.
-- Version 1 kept a row per (position, move), a row per (position, game) and a row per
-- (position, opening label): about three rows per position a game went through, which made
-- the writer slow and the file larger than the records it came from. The statistics are
-- rebuilt from the stored games by src/store/migrate.rs in the same transaction.

DROP TABLE moves;
DROP TABLE position_games;
DROP TABLE position_openings;

-- One row per position any stored game went through (within the depth limit).
-- `key`: qipu's 64-bit Zobrist key (variant-salted) as a signed integer, the rowid.
-- `summary`: NULL while at most 32 games went through; then the per-move sums, the opening
--   label counts and the best 100 games (see src/store/position.rs for the encoding).
-- `links`: every game through the position with the move it played there, by game id.
CREATE TABLE positions (
    key      INTEGER PRIMARY KEY,
    summary  BLOB,
    links    BLOB NOT NULL
);

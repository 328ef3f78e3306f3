-- qipu database, schema version 1.
-- Applied by src/store/migrate.rs inside one transaction; PRAGMA user_version records the
-- last applied migration. See schema/README.md for the meaning of every column.

-- One row per distinct game (duplicates share `hash` and are stored once).
CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    hash            INTEGER NOT NULL UNIQUE,   -- content hash (variant, start, moves, players, date)
    variant         INTEGER NOT NULL,          -- 0 xiangqi, 1 janggi
    source_file     TEXT NOT NULL,
    source_index    INTEGER NOT NULL,
    event           TEXT,
    site            TEXT,
    round           TEXT,
    date            TEXT,                      -- YYYY, YYYY-MM or YYYY-MM-DD
    first           TEXT,                      -- Red / Cho
    second          TEXT,                      -- Black / Han
    first_rating    INTEGER,
    second_rating   INTEGER,
    result          INTEGER NOT NULL,          -- 0 unknown, 1 first wins, 2 draw, 3 second wins
    ecco            TEXT,
    opening         TEXT,
    variation       TEXT,
    first_formation TEXT,
    second_formation TEXT,
    start_fen       TEXT,                      -- NULL = the standard start of the variant
    plies           INTEGER NOT NULL,
    moves           BLOB NOT NULL              -- main line, u16 little-endian per move
);

-- Position -> move statistics. `key` is qipu's 64-bit Zobrist key (variant-salted) stored as
-- a signed integer; `mv` the 16-bit move code, or 65535 for "the game ended here".
CREATE TABLE moves (
    key          INTEGER NOT NULL,
    mv           INTEGER NOT NULL,
    games        INTEGER NOT NULL,
    first_wins   INTEGER NOT NULL,
    draws        INTEGER NOT NULL,
    second_wins  INTEGER NOT NULL,
    rating_sum   INTEGER NOT NULL,
    rating_count INTEGER NOT NULL,
    first_date   TEXT,
    last_date    TEXT,
    PRIMARY KEY (key, mv)
) WITHOUT ROWID;

-- Which games went through which position, and the move they played there, ordered for the
-- "top games" list: `rank` ascending = best rated first, then latest.
CREATE TABLE position_games (
    key     INTEGER NOT NULL,
    rank    INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    mv      INTEGER NOT NULL,
    PRIMARY KEY (key, rank, game_id)
) WITHOUT ROWID;

-- Opening labels through each early position (ply < 20): the ECCO code (Xiangqi) or the
-- "first/second" formation pair (Janggi), with the number of games that carry it; label ''
-- counts the games without one (so that every early position has rows).
CREATE TABLE position_openings (
    key    INTEGER NOT NULL,
    label  TEXT NOT NULL,
    games  INTEGER NOT NULL,
    PRIMARY KEY (key, label)
) WITHOUT ROWID;

-- Settings fixed by the first import (e.g. `max_ply`), so that later imports stay consistent.
CREATE TABLE meta (
    name   TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) WITHOUT ROWID;

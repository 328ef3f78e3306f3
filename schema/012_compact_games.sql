-- qipu database, schema version 12: smaller games rows. The content hash loses its UNIQUE
-- index (17.9 MiB at a million games): no query looks a game up by hash, and the unique
-- `identity` already refuses a second row of a hash (one hash is one game, so one
-- identity). SQLite cannot drop a column's UNIQUE constraint, so the table is copied. The
-- Rust step of src/store/migrate.rs then writes every game's moves as legal-move indices
-- (src/store/codec.rs, `pack_line`: about 5.5 bits a ply instead of 16), same transaction.
CREATE TABLE games_12 (
    id               INTEGER PRIMARY KEY,
    hash             INTEGER NOT NULL,
    variant          INTEGER NOT NULL,
    source           INTEGER NOT NULL DEFAULT 0,
    source_index     INTEGER NOT NULL,
    event            TEXT,
    site             TEXT,
    round            TEXT,
    date             TEXT,
    first            TEXT,
    second           TEXT,
    first_rating     INTEGER,
    second_rating    INTEGER,
    result           INTEGER NOT NULL,
    ecco             TEXT,
    opening          TEXT,
    variation        TEXT,
    first_formation  TEXT,
    second_formation TEXT,
    start_fen        TEXT,
    plies            INTEGER NOT NULL,
    moves            BLOB NOT NULL,
    time_base        INTEGER,
    time_increment   INTEGER,
    speed            INTEGER,
    mode             INTEGER,
    termination      INTEGER,
    identity         INTEGER NOT NULL DEFAULT 0,
    richness         INTEGER NOT NULL DEFAULT 0,
    header_hash      INTEGER NOT NULL DEFAULT 0
);
INSERT INTO games_12 (id, hash, variant, source, source_index, event, site, round, date, first,
    second, first_rating, second_rating, result, ecco, opening, variation, first_formation,
    second_formation, start_fen, plies, moves, time_base, time_increment, speed, mode,
    termination, identity, richness, header_hash)
SELECT id, hash, variant, source, source_index, event, site, round, date, first, second,
    first_rating, second_rating, result, ecco, opening, variation, first_formation,
    second_formation, start_fen, plies, moves, time_base, time_increment, speed, mode,
    termination, identity, richness, header_hash
FROM games;
DROP TABLE games;
ALTER TABLE games_12 RENAME TO games;
CREATE UNIQUE INDEX games_identity ON games (identity);

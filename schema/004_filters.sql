-- qipu database, schema version 4: the facts of play as game columns, a small facts row per
-- game, and per busy position its sums per filter bucket, so that a filtered explore reads no
-- game. The position statistics and the facts rows are rebuilt from the stored games by
-- src/store/migrate.rs in the same transaction (games stored before have no clock, speed,
-- mode or termination: those count as unknown).

-- The clock (seconds), the speed category (formats::facts::Speed::code), rated or casual
-- (Mode::code) and how the game ended (Termination::code); NULL when unknown.
ALTER TABLE games ADD COLUMN time_base INTEGER;
ALTER TABLE games ADD COLUMN time_increment INTEGER;
ALTER TABLE games ADD COLUMN speed INTEGER;
ALTER TABLE games ADD COLUMN mode INTEGER;
ALTER TABLE games ADD COLUMN termination INTEGER;

-- What a filtered count needs of a game, a few bytes (see src/store/game_facts.rs).
CREATE TABLE game_facts (
    id     INTEGER PRIMARY KEY,
    facts  BLOB NOT NULL
);

-- A busy position's sums per (move, bucket) (see src/store/buckets.rs).
ALTER TABLE positions ADD COLUMN buckets BLOB;

-- Rebuilt below.
DELETE FROM positions;
DELETE FROM position_ranges;

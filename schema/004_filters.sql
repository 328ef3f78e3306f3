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

-- The player index: players by folded name (formats::names::fold) with the name as written
-- most often and their games; every written form with its games; each player's games by
-- side (0 first, 1 second).
CREATE TABLE players (
    id      INTEGER PRIMARY KEY,
    folded  TEXT NOT NULL UNIQUE,
    name    TEXT NOT NULL,
    games   INTEGER NOT NULL
);
CREATE TABLE player_names (
    player  INTEGER NOT NULL,
    name    TEXT NOT NULL,
    games   INTEGER NOT NULL,
    PRIMARY KEY (player, name)
) WITHOUT ROWID;
CREATE TABLE player_games (
    player  INTEGER NOT NULL,
    side    INTEGER NOT NULL,
    game    INTEGER NOT NULL,
    PRIMARY KEY (player, side, game)
) WITHOUT ROWID;

-- Rebuilt below.
DELETE FROM positions;
DELETE FROM position_ranges;

-- qipu database, schema version 6: one game counted once. Copies of a game with differently
-- written metadata are merged (see schema/README.md, "One game, several copies"): every game
-- gets its identity and the richness of its metadata, the copies of a game are reduced to
-- the richest by the Rust step in src/store/migrate.rs (same transaction), which then
-- creates the unique index on `identity` and rebuilds the statistics, the facts rows and the
-- player index from the games left (the top-games order of this version is counted there
-- too).

ALTER TABLE games ADD COLUMN identity INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN richness INTEGER NOT NULL DEFAULT 0;
-- The last tie-break between equally rich copies (store::copies::header_hash).
ALTER TABLE games ADD COLUMN header_hash INTEGER NOT NULL DEFAULT 0;

-- Rebuilt by the Rust step.
DELETE FROM positions;
DELETE FROM position_ranges;
DELETE FROM game_facts;
DELETE FROM player_games;
DELETE FROM player_names;
DELETE FROM players;

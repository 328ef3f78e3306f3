-- qipu database, schema version 15: the person behind every player name. `players.person` is
-- the id of the player (folded name) that names the person: of all the names that are one
-- person (formats::persons: ranks, place and team prefixes, pinyin; two names that met in a
-- game never are), the one with the most games. Filled by the Rust step of
-- src/store/migrate.rs in the same transaction (no game is read again), and recomputed for
-- the whole table with every import batch and by `qipu players --rebuild`.
ALTER TABLE players ADD COLUMN person INTEGER;
CREATE INDEX players_person ON players (person);

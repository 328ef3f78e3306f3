-- qipu database, schema version 17: the user's decisions on persons, which every
-- recomputation of `players.person` (each import batch, `qipu players --rebuild`) honours.
-- `merge`: `name` is one person with `person` (`qipu players --merge A B`, or a line of a
-- spelling file given to `qipu players --spellings FILE`: `person` is its first column, the
-- person's name). `split`: `name` is a person of its own (`qipu players --split NAME`): no
-- rule and no line of qipu's own data/players.tsv joins it. Names as given, matched after
-- folding. `origin` says where the decision came from (`FILE:LINE`, `--merge`, `--split`),
-- for the error when a later decision contradicts the games (two names that met in a game
-- are never one person).
CREATE TABLE person_rules (
    id     INTEGER PRIMARY KEY,
    kind   TEXT NOT NULL CHECK (kind IN ('merge', 'split')),
    person TEXT NOT NULL,
    name   TEXT NOT NULL,
    origin TEXT NOT NULL,
    UNIQUE (kind, person, name)
);

-- qipu database: engine evaluations beside the game statistics (written by `qipu analyse`).
-- Scores are from the view of the side to move in the position, as UCI engines give them.

-- Each engine configuration once: its `id name` and the options it ran with (`Name=Value, …`).
CREATE TABLE eval_engines (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL,
    options  TEXT NOT NULL,
    UNIQUE (name, options)
);

-- The score of a move in a position: what the engine said searching that move alone.
-- `key`: the position's qipu key (signed 64-bit); `mv`: `Move::to_u16`.
-- Exactly one of `cp` (centipawns) and `mate` (moves to mate; negative: the mover is mated).
-- A row is replaced only by a deeper search.
CREATE TABLE evals (
    key     INTEGER NOT NULL,
    mv      INTEGER NOT NULL,
    cp      INTEGER,
    mate    INTEGER,
    depth   INTEGER NOT NULL,
    engine  INTEGER NOT NULL REFERENCES eval_engines (id),
    PRIMARY KEY (key, mv),
    CHECK ((cp IS NULL) <> (mate IS NULL))
) WITHOUT ROWID;

-- The engine's own choice in a position (searching every move), at the depth of that search.
-- `mv` NULL: the engine found no move (the game is over there).
CREATE TABLE eval_best (
    key     INTEGER PRIMARY KEY,
    mv      INTEGER,
    depth   INTEGER NOT NULL,
    engine  INTEGER NOT NULL REFERENCES eval_engines (id)
);

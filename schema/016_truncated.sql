-- qipu database, schema version 16: games kept up to a bad move. `games.truncated_ply` is the
-- 1-based ply of the first move of the record that could not be read or was illegal: the game
-- is stored (moves, positions, result) up to the move before it, as `qipu import` keeps such a
-- game unless `--strict`. NULL for a whole game, as every game stored before this version is.
ALTER TABLE games ADD COLUMN truncated_ply INTEGER;

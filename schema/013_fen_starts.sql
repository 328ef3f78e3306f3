-- qipu database, schema version 13: an index of the games that start from a FEN, by
-- variant (a partial index: only those games, a few bytes each; none in most collections).
-- With it, whether a variant has any game is two lookups: its standard start in the
-- position index, then this index (`Store::has_games`), instead of a scan of `games`
-- (140 ms at a million games of the other variant).
CREATE INDEX games_fen_starts ON games (variant) WHERE start_fen IS NOT NULL;

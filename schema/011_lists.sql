-- qipu database, schema version 11: the full game lists of every busy position of more than
-- 1,000 games (src/store/lists.rs), so that its best and latest games under any filter are
-- exact without reading its other games: every game through the position by filter cell
-- (month × band × speed × mode), best first, with a directory of the cells. The Rust step of
-- src/store/migrate.rs builds them from the stored games, in the same transaction.
CREATE TABLE position_lists (
    key INTEGER PRIMARY KEY,
    lists BLOB NOT NULL
);

-- qipu database, schema version 8: one ranking of the best games (store::top_score): a
-- known result first, then real names on both sides, then the mean known rating, then the
-- later date. The kept best games of every busy position (in its summary blob) were ordered
-- by rating and date only: the Rust step of src/store/migrate.rs rebuilds every busy
-- position's summary and buckets from its links and the stored games, in the same
-- transaction. No table changes.
SELECT 1;

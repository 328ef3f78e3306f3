"""The reduce of a qipu build on Apache Spark: `qipu emit` facts in, the store's sorted rows out.

    spark-submit spark/build.py FACTS STATS [--partitions N]

FACTS is what `qipu emit IN... --out FACTS` wrote (any number of emits, concatenated):
FACTS/games/*.parquet, one row per game read, and FACTS/positions/*.parquet, one row per
(game, distinct position). STATS gets what `qipu load STATS --db FILE` reads:

  STATS/games/      the kept games, every column of FACTS/games plus `id`, sorted by id
  STATS/positions/  (key, id, mv): every game through every position, sorted by key then id
  STATS/counts/     (key, games, moves): the games and distinct moves of every position, for
                    `qipu stats`-style checks and the scaling notes

and, for every busy position (more than --busy games, the store's LIST_MAX), its statistics
reduced here, each sorted by key and then as named:

  STATS/cells/      (key, mv, bucket): the games of a move in a bucket, their results, rating
                    sums, first and last day, first game, and (mv 65535) endings; mv 65534 is
                    every game through the position
  STATS/moves/      (key, mv): the same sums over all buckets, first and last date as stored,
                    year sums, endings
  STATS/labels/     (key, label): games per opening label
  STATS/top/        (key, rank): the --kept best games (top_score, then the smaller id)
  STATS/recent/     (key, rank): the --kept latest games (month, day, then the greater id)
  STATS/history/    (key, month): games and results per calendar month

The job only groups, counts and sorts; every per-game value (identity, richness, order, the
facts the store keeps) was computed by qipu's own code in the map. The rules, mirrored from
`qipu import`:

* Games with the same `identity` are one game. The copy kept is the one with the greatest
  `richness`, ties by `tie_hash`, `tie_header`, then the earliest in the input order
  (`order_file`, `order_index`).
* Ids are 1, 2, ... in the input order of each group's earliest copy: the order in which
  `qipu import` of the same input stores them.
* A position's games are the kept games through it, each once, with the move it played there.
* A busy position's sums are plain sums, counts, minima and maxima of the kept games' columns
  (result codes 1 first won, 2 draw, 3 second won; a missing rating counts in no sum); the
  first game of a cell is that of its smallest (day, id), of a move that of its smallest
  (date, id).

FACTS and STATS are any Hadoop path: a local folder, hdfs://..., s3a://... (with the
hadoop-aws package on the classpath). Nothing here depends on the master: the same file runs on
local[*] and on a cluster.
"""

import argparse
import sys

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("facts", help="output folder of qipu emit (games/, positions/)")
    p.add_argument("stats", help="output folder for qipu load (games/, positions/, counts/)")
    p.add_argument(
        "--busy",
        type=int,
        default=32,
        help="positions with more games get reduced statistics (the store's LIST_MAX; qipu load refuses another)",
    )
    p.add_argument(
        "--kept",
        type=int,
        default=100,
        help="best and latest games kept per busy position (the store's TOP_KEPT)",
    )
    p.add_argument(
        "--partitions",
        type=int,
        default=0,
        help="shuffle partitions (default: Spark's spark.sql.shuffle.partitions)",
    )
    return p.parse_args(argv)


def kept_games(games):
    """One row per identity: the richest copy (then the earliest), with the earliest copy's
    place in the input as `_of`, `_oi`."""
    by_identity = Window.partitionBy("identity")
    best = by_identity.orderBy(
        F.col("richness").desc(),
        F.col("tie_hash"),
        F.col("tie_header"),
        F.col("order_file"),
        F.col("order_index"),
    )
    earliest = F.min(F.struct("order_file", "order_index")).over(by_identity)
    return (
        games.withColumn("_rank", F.row_number().over(best))
        .withColumn("_first", earliest)
        .where(F.col("_rank") == 1)
        .select("*", F.col("_first.order_file").alias("_of"), F.col("_first.order_index").alias("_oi"))
        .drop("_rank", "_first")
    )


def with_ids(kept, partitions):
    """Dense ids 1, 2, ... in the order of (`_of`, `_oi`), without a single-partition window:
    the games are range-partitioned by that order, numbered within each partition, and each
    partition's numbers are offset by the sizes of the partitions before it."""
    ranged = (
        kept.repartitionByRange(partitions, "_of", "_oi")
        .withColumn("_part", F.spark_partition_id())
        .persist()
    )
    sizes = sorted(
        (r["_part"], r["n"]) for r in ranged.groupBy("_part").agg(F.count("*").alias("n")).collect()
    )
    offsets, total = [], 0
    for part, n in sizes:
        offsets.append((part, total))
        total += n
    spark = kept.sparkSession
    offset = spark.createDataFrame(offsets, "_part int, _offset long")
    local = Window.partitionBy("_part").orderBy("_of", "_oi")
    return (
        ranged.join(F.broadcast(offset), "_part")
        .withColumn("id", F.col("_offset") + F.row_number().over(local))
        .drop("_part", "_offset", "_of", "_oi")
    )


# Move codes of the store: the games that ended at the position, and (in the cells) every
# game through it.
END = 65535
EVERY = 65534

# What a busy position counts of each game, beside its id and move.
FACT_COLUMNS = [
    "result",
    "first_rating",
    "second_rating",
    "date",
    "label",
    "bucket",
    "month",
    "day",
    "year",
    "history_month",
    "top_score",
    "ending",
]


def partial_sums(links):
    """The sums of a position's games per (key, mv, bucket, e), e the ending for mv END (else
    0): the first level of every busy table."""
    r1, r2 = F.col("first_rating"), F.col("second_rating")
    won = lambda code: F.sum(F.when(F.col("result") == code, 1).otherwise(0))
    known = lambda c: F.sum(F.when(c.isNotNull(), 1).otherwise(0))
    return links.withColumn(
        "e", F.when(F.col("mv") == END, F.col("ending")).otherwise(F.lit(0))
    ).groupBy("key", "mv", "bucket", "e").agg(
        F.count("*").alias("games"),
        won(1).alias("first_wins"),
        won(2).alias("draws"),
        won(3).alias("second_wins"),
        F.sum(F.coalesce(r1, F.lit(0)) + F.coalesce(r2, F.lit(0))).alias("rating_sum"),
        (known(r1) + known(r2)).alias("rating_count"),
        F.sum(F.coalesce(r1, F.lit(0))).alias("first_rating_sum"),
        known(r1).alias("first_rating_count"),
        F.min(F.struct("day", "id")).alias("first"),
        F.max("day").alias("last_day"),
        F.min(F.when(F.col("date").isNotNull(), F.struct("date", "id"))).alias("first_dated"),
        F.max("date").alias("last_date"),
        F.sum(F.coalesce(F.col("year"), F.lit(0))).alias("year_sum"),
        known(F.col("year")).alias("dated"),
        F.max("history_month").alias("history_month"),
    )


COUNTS = [
    "games",
    "first_wins",
    "draws",
    "second_wins",
    "rating_sum",
    "rating_count",
    "first_rating_sum",
    "first_rating_count",
]


def summed(*extra):
    """Aggregates that add partial sums up (the counts, then `extra`)."""
    return [F.sum(c).alias(c) for c in COUNTS] + list(extra)


def endings():
    """The (code, n) pairs of the games that ended here, by code (empty for other moves)."""
    return F.array_sort(
        F.collect_list(
            F.when(F.col("mv") == END, F.struct(F.col("e").alias("code"), F.col("games").alias("n")))
        )
    ).alias("endings")


def busy_tables(busy_links, kept):
    """The tables of the busy positions' statistics, each with its sort columns."""
    part = partial_sums(busy_links).persist()
    first_of_cell = [F.min("first").alias("first"), F.max("last_day").alias("last_day")]
    cell_cols = ["key", "mv", "bucket"] + COUNTS + [
        F.col("first.day").alias("first_day"),
        F.col("last_day"),
        F.col("first.id").alias("first_game"),
        "endings",
    ]
    cells = (
        part.groupBy("key", "mv", "bucket")
        .agg(*summed(*first_of_cell, endings()))
        .select(*cell_cols)
        .unionByName(
            part.groupBy("key", "bucket")
            .agg(*summed(*first_of_cell))
            .withColumn("mv", F.lit(EVERY))
            .withColumn("endings", F.array_sort(F.array().cast("array<struct<code:int,n:bigint>>")))
            .select(*cell_cols)
        )
    )
    dated = [
        F.min("first_dated").alias("first_dated"),
        F.max("last_date").alias("last_date"),
        F.sum("year_sum").alias("year_sum"),
        F.sum("dated").alias("dated"),
    ]
    moves = (
        part.groupBy("key", "mv", "e")
        .agg(*summed(*dated))
        .groupBy("key", "mv")
        .agg(*summed(*dated, endings()))
        .select(
            "key",
            "mv",
            *COUNTS,
            F.col("first_dated.date").alias("first_date"),
            F.col("first_dated.id").alias("first_game"),
            "last_date",
            "year_sum",
            "dated",
            "endings",
        )
    )
    history = (
        part.where(F.col("history_month").isNotNull())
        .groupBy("key", F.col("history_month").alias("month"))
        .agg(*[F.sum(c).alias(c) for c in ["games", "first_wins", "draws", "second_wins"]])
    )
    labels = (
        busy_links.where(F.col("label").isNotNull())
        .groupBy("key", "label")
        .agg(F.count("*").alias("games"))
    )
    by_key = Window.partitionBy("key")
    top = (
        busy_links.withColumn(
            "rank", F.row_number().over(by_key.orderBy(F.col("top_score").desc(), F.col("id")))
        )
        .where(F.col("rank") <= kept)
        .select("key", "rank", F.col("top_score").alias("score"), "id", "mv", "bucket")
    )
    recent = (
        busy_links.withColumn(
            "rank",
            F.row_number().over(
                by_key.orderBy(F.col("month").desc(), F.col("day").desc(), F.col("id").desc())
            ),
        )
        .where(F.col("rank") <= kept)
        .select("key", "rank", "id", "mv", "bucket", "day")
    )
    return [
        ("cells", cells, ["key", "mv", "bucket"]),
        ("moves", moves, ["key", "mv"]),
        ("labels", labels, ["key", "label"]),
        ("top", top, ["key", "rank"]),
        ("recent", recent, ["key", "rank"]),
        ("history", history, ["key", "month"]),
    ]


def main(argv):
    args = parse_args(argv)
    spark = SparkSession.builder.appName("qipu build").getOrCreate()
    partitions = args.partitions
    if partitions <= 0:
        # Spark's default (200) is for a cluster; on local[N] a few tasks per core.
        master = spark.sparkContext.master
        partitions = (
            4 * spark.sparkContext.defaultParallelism
            if master.startswith("local")
            else int(spark.conf.get("spark.sql.shuffle.partitions"))
        )
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    if spark.sparkContext.master.startswith("local"):
        # Read emit's big part files in row-group-sized splits, so that every core reads.
        spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 << 20))
    out = args.stats.rstrip("/")
    games = spark.read.parquet(args.facts.rstrip("/") + "/games")
    positions = spark.read.parquet(args.facts.rstrip("/") + "/positions")

    kept = with_ids(kept_games(games), partitions).persist()
    ids = kept.select("identity", "id")
    kept.orderBy("id").write.mode("overwrite").parquet(out + "/games")

    # Every copy of a game lists the same positions (its identity fixes its moves): one row
    # per (position, kept game).
    # One shuffle by key ranges: the dedupe, the sort, the per-position counts and the busy
    # positions' join all work within those ranges (a range partitioning by key satisfies a
    # grouping by (key, id) and by key), and the part files come out in key order.
    links = (
        positions.join(ids, "identity")
        .select("key", "id", F.col("mv").cast("int").alias("mv"))
        .repartitionByRange(partitions, "key")
        .dropDuplicates(["key", "id"])
        .sortWithinPartitions("key", "id")
        .persist()
    )
    links.write.mode("overwrite").parquet(out + "/positions")
    counts = links.groupBy("key").agg(
        F.count("*").alias("games"), F.countDistinct("mv").alias("moves")
    ).persist()
    counts.sortWithinPartitions("key").write.mode("overwrite").parquet(out + "/counts")

    busy_keys = counts.where(F.col("games") > args.busy).select("key")
    busy_links = (
        links.join(busy_keys, "key")
        .join(kept.select("id", *FACT_COLUMNS), "id")
        .persist()
    )
    for name, table, order in busy_tables(busy_links, args.kept):
        table.orderBy(*order).write.mode("overwrite").parquet(out + "/" + name)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The reduce of a qipu build on Apache Spark: `qipu emit` facts in, the store's sorted rows out.

    spark-submit spark/build.py FACTS STATS [--partitions N]

FACTS is what `qipu emit IN... --out FACTS` wrote (any number of emits, concatenated):
FACTS/games/*.parquet, one row per game read, and FACTS/positions/*.parquet, one row per
(game, distinct position). STATS gets what `qipu load STATS --db FILE` reads:

  STATS/games/      the kept games, every column of FACTS/games plus `id`, sorted by id
  STATS/positions/  (key, id, mv): every game through every position, sorted by key then id
  STATS/counts/     (key, games, moves): the games and distinct moves of every position, for
                    `qipu stats`-style checks and the scaling notes

The job only groups, counts and sorts; every per-game value (identity, richness, order, the
facts the store keeps) was computed by qipu's own code in the map. The rules, mirrored from
`qipu import`:

* Games with the same `identity` are one game. The copy kept is the one with the greatest
  `richness`, ties by `tie_hash`, `tie_header`, then the earliest in the input order
  (`order_file`, `order_index`).
* Ids are 1, 2, ... in the input order of each group's earliest copy: the order in which
  `qipu import` of the same input stores them.
* A position's games are the kept games through it, each once, with the move it played there.

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
    games = spark.read.parquet(args.facts.rstrip("/") + "/games")
    positions = spark.read.parquet(args.facts.rstrip("/") + "/positions")

    kept = with_ids(kept_games(games), partitions).persist()
    ids = kept.select("identity", "id")
    kept.orderBy("id").write.mode("overwrite").parquet(args.stats.rstrip("/") + "/games")

    # Every copy of a game lists the same positions (its identity fixes its moves): one row
    # per (position, kept game).
    links = (
        positions.join(ids, "identity")
        .select("key", "id", F.col("mv").cast("int").alias("mv"))
        .dropDuplicates(["key", "id"])
        .persist()
    )
    links.orderBy("key", "id").write.mode("overwrite").parquet(
        args.stats.rstrip("/") + "/positions"
    )
    counts = links.groupBy("key").agg(
        F.count("*").alias("games"), F.countDistinct("mv").alias("moves")
    )
    counts.orderBy("key").write.mode("overwrite").parquet(args.stats.rstrip("/") + "/counts")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

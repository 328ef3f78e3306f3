"""The reduce of a qipu build on Apache Spark: `qipu emit` facts in, the store's sorted rows out.

    spark-submit spark/build.py FACTS STATS [--partitions N] [--timings FILE]

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

With --timings FILE the job writes, per named step (its Spark jobs are labelled with the
step's name), the wall seconds, the JVM's CPU seconds (user + sys of the whole driver process:
tasks, GC, JIT and planning; on a local master that is every executor too) and, from Spark's
event log, the tasks' CPU seconds, run seconds, GC seconds and shuffle bytes (the executor
metrics of every stage of the step's jobs, on any master). The steps follow the actions of the
plan; to give the busy positions' join and partial sums a step of their own, their (already
persisted) frames are counted when timings are asked: their computation moves from the first
table's step into its own, and the count adds one scan of the cache.

FACTS and STATS are any Hadoop path: a local folder, hdfs://..., s3a://... (with the
hadoop-aws package on the classpath). Nothing here depends on the master: the same file runs on
local[*] and on a cluster.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

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
    p.add_argument(
        "--timings",
        default="",
        help="write each step's wall time and CPU time (JSON) to this local file, and a table to stderr",
    )
    return p.parse_args(argv)


class Steps:
    """The job's named steps: each step's Spark jobs carry its name (their description), its
    wall time and the JVM's CPU time around it are taken here, and its executor metrics come
    from the event log after the job (`report`). Without a timings file only the names are
    set."""

    def __init__(self, spark, log_dir):
        self.sc = spark.sparkContext
        self.log_dir = log_dir
        self.done = []
        self.name = None

    def __call__(self, name):
        self.name = name
        return self

    def __enter__(self):
        self.sc.setJobDescription(self.name)
        self.started = (time.monotonic(), jvm_cpu(), time.process_time())
        return self

    def __exit__(self, kind, value, trace):
        wall, jvm, py = self.started
        jvm_now = jvm_cpu()
        self.done.append(
            {
                "step": self.name,
                "wall_s": time.monotonic() - wall,
                "jvm_cpu_s": None if jvm is None or jvm_now is None else jvm_now - jvm,
                "python_cpu_s": time.process_time() - py,
            }
        )
        self.sc.setJobDescription(None)
        return False

    def report(self, path, total_wall):
        """Writes the steps (with the event log's executor metrics) to `path` as JSON and a
        table to stderr. Call after `spark.stop()` (the log is complete then)."""
        metrics = event_log_metrics(self.log_dir)
        steps = []
        for s in self.done:
            steps.append({**s, **metrics.pop(s["step"], empty_metrics())})
        for name, m in sorted(metrics.items()):
            # Jobs outside a step (none expected): shown, not lost.
            steps.append({"step": name or "(no step)", "wall_s": None, "jvm_cpu_s": None, "python_cpu_s": None, **m})
        doc = {"total_wall_s": total_wall, "jvm_cpu_s": jvm_cpu(), "steps": steps}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        print_table(doc, sys.stderr)


# Executor metrics of a stage, by the event log's accumulable names.
METRICS = {
    "tasks": None,
    "task_cpu_s": ("internal.metrics.executorCpuTime", "internal.metrics.executorDeserializeCpuTime"),
    "task_run_s": ("internal.metrics.executorRunTime",),
    "gc_s": ("internal.metrics.jvmGCTime",),
    "shuffle_write_bytes": ("internal.metrics.shuffle.write.bytesWritten",),
    "shuffle_read_bytes": (
        "internal.metrics.shuffle.read.localBytesRead",
        "internal.metrics.shuffle.read.remoteBytesRead",
    ),
    "rows_read": ("internal.metrics.input.recordsRead", "internal.metrics.shuffle.read.recordsRead"),
}
# Units of the accumulables: CPU times in ns, run and GC times in ms.
SCALE = {"task_cpu_s": 1e-9, "task_run_s": 1e-3, "gc_s": 1e-3}


def empty_metrics():
    return {k: 0 for k in METRICS} | {"stages": 0}


def event_log_metrics(log_dir):
    """Per job description: the summed executor metrics of the stages its jobs ran (a stage
    counts for the step that submitted it; a skipped stage ran in an earlier step)."""
    out = {}
    logs = [os.path.join(log_dir, f) for f in sorted(os.listdir(log_dir))]
    for path in logs:
        with open(path) as f:
            described = {}
            for line in f:
                e = json.loads(line)
                kind = e.get("Event")
                if kind == "SparkListenerStageSubmitted":
                    props = e.get("Properties") or {}
                    described[e["Stage Info"]["Stage ID"]] = props.get("spark.job.description")
                elif kind == "SparkListenerStageCompleted":
                    info = e["Stage Info"]
                    name = described.get(info["Stage ID"])
                    m = out.setdefault(name, empty_metrics())
                    m["stages"] += 1
                    m["tasks"] += info.get("Number of Tasks", 0)
                    acc = {a.get("Name"): a.get("Value") for a in info.get("Accumulables", [])}
                    for k, names in METRICS.items():
                        if names:
                            v = sum(int(acc.get(n) or 0) for n in names)
                            m[k] += v * SCALE.get(k, 1)
    return out


def jvm_cpu():
    """User + sys CPU seconds of the JVM that runs this driver (this process's parent under
    spark-submit), or None where /proc does not tell."""
    try:
        parent = os.getppid()
        with open(f"/proc/{parent}/comm") as f:
            if f.read().strip() != "java":
                return None
        with open(f"/proc/{parent}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def print_table(doc, out):
    cols = [
        ("step", "step", "{}"),
        ("wall_s", "wall s", "{:.1f}"),
        ("jvm_cpu_s", "JVM CPU s", "{:.1f}"),
        ("task_cpu_s", "task CPU s", "{:.1f}"),
        ("gc_s", "GC s", "{:.1f}"),
        ("tasks", "tasks", "{}"),
        ("shuffle_write_bytes", "shuffle MB", "{:.0f}"),
        ("rows_read", "rows read", "{}"),
    ]
    def cell(s, key, fmt):
        v = s.get(key)
        if v is None:
            return "-"
        if key == "shuffle_write_bytes":
            v = v / 1e6
        return fmt.format(v)
    print("| " + " | ".join(c[1] for c in cols) + " |", file=out)
    print("|" + "---|" * len(cols), file=out)
    for s in doc["steps"]:
        print("| " + " | ".join(cell(s, k, f) for k, _, f in cols) + " |", file=out)
    total = lambda k: sum(s.get(k) or 0 for s in doc["steps"])
    jvm = doc["jvm_cpu_s"]
    print(
        f"| all steps | {total('wall_s'):.1f} | {total('jvm_cpu_s'):.1f} | {total('task_cpu_s'):.1f} | "
        f"{total('gc_s'):.1f} | {total('tasks'):.0f} | {total('shuffle_write_bytes') / 1e6:.0f} | "
        f"{total('rows_read'):.0f} |",
        file=out,
    )
    print(
        f"job wall {doc['total_wall_s']:.1f} s; JVM CPU {'-' if jvm is None else f'{jvm:.1f}'} s in all "
        "(JVM start, planning and the steps)",
        file=out,
    )


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
    """Dense ids 1, 2, ... in the order of (`_of`, `_oi`), without a single-partition window
    and without a shuffle past the one that orders them: the games are range-partitioned by
    that order and sorted within each partition, each row's rank within its partition is
    taken from `monotonically_increasing_id` (the partition's index in its upper bits, the
    row's in the lower 33), and each partition's ranks are offset by the sizes of the
    partitions before it. The result keeps that partitioning and order: partition i holds
    the ids after those of partition i - 1, in id order (its part file is the i-th)."""
    ranged = (
        kept.repartitionByRange(partitions, "_of", "_oi")
        .sortWithinPartitions("_of", "_oi")
        .withColumn("_part", F.spark_partition_id())
        .withColumn("_row", F.monotonically_increasing_id())
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
    rank = F.col("_row") - F.shiftleft(F.col("_part").cast("long"), 33)
    return (
        ranged.join(F.broadcast(offset), "_part")
        .withColumn("id", F.col("_offset") + rank + 1)
        .drop("_part", "_offset", "_of", "_oi", "_row")
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


def busy_tables(busy_links, kept, step=None):
    """The tables of the busy positions' statistics, each with its sort columns. With `step`
    (timings asked) the partial sums are computed in a step of their own."""
    part = partial_sums(busy_links).persist()
    if step is not None:
        with step("busy: partial sums per (key, mv, bucket, ending)"):
            part.count()
    first_of_cell = [F.min("first").alias("first"), F.max("last_day").alias("last_day")]
    cell_cols = ["key", "mv", "bucket"] + COUNTS + [
        F.col("first.day").alias("first_day"),
        F.col("last_day"),
        F.col("first.id").alias("first_game"),
        "endings",
    ]
    no_endings = F.array_sort(F.array().cast("array<struct<code:int,n:bigint>>"))
    # A move other than END has one partial row per (key, mv, bucket) (its `e` is 0): it is
    # its cell as it stands, with no endings, and only END's rows (one per ending) are
    # summed, so that the aggregation that collects endings (an object hash aggregate that
    # falls back to sorting past 128 keys) sees only the few rows of games that ended here.
    cells = (
        part.where(F.col("mv") != END)
        .select(
            "key",
            "mv",
            "bucket",
            *COUNTS,
            F.col("first.day").alias("first_day"),
            "last_day",
            F.col("first.id").alias("first_game"),
            no_endings.alias("endings"),
        )
        .unionByName(
            part.where(F.col("mv") == END)
            .groupBy("key", "mv", "bucket")
            .agg(*summed(*first_of_cell, endings()))
            .select(*cell_cols)
        )
        .unionByName(
            part.groupBy("key", "bucket")
            .agg(*summed(*first_of_cell))
            .withColumn("mv", F.lit(EVERY))
            .withColumn("endings", no_endings)
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
    started = time.monotonic()
    builder = SparkSession.builder.appName("qipu build")
    log_dir = None
    if args.timings:
        log_dir = tempfile.mkdtemp(prefix="qipu-build-events-")
        builder = (
            builder.config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", "file://" + log_dir)
            .config("spark.eventLog.compress", "false")
            .config("spark.eventLog.rolling.enabled", "false")
        )
    spark = builder.getOrCreate()
    step = Steps(spark, log_dir)
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

    with step("dedupe games (read, keep one copy, range by input order)"):
        kept = with_ids(kept_games(games), partitions).persist()
    ids = kept.select("identity", "id")
    with step("number and write games/"):
        # In id order already (see with_ids): a sort within each partition, no shuffle.
        kept.sortWithinPartitions("id").write.mode("overwrite").parquet(out + "/games")

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
    with step("join positions to ids, sort by key, write positions/"):
        links.write.mode("overwrite").parquet(out + "/positions")
    counts = links.groupBy("key").agg(
        F.count("*").alias("games"), F.countDistinct("mv").alias("moves")
    ).persist()
    with step("count games per position, write counts/"):
        counts.sortWithinPartitions("key").write.mode("overwrite").parquet(out + "/counts")

    busy_keys = counts.where(F.col("games") > args.busy).select("key")
    # The busy links with their games' facts: the busy keys are few (a key a busy position)
    # and broadcast, so that the links are not shuffled to meet them; ranged by key once: every table below groups
    # or ranks within a key and is sorted by key first, which that partitioning satisfies
    # (no further shuffle, and each table's sort is one within its partitions).
    busy_links = (
        links.join(F.broadcast(busy_keys), "key")
        .join(kept.select("id", *FACT_COLUMNS), "id")
        .repartitionByRange(partitions, "key")
        .persist()
    )
    if args.timings:
        with step("busy: join busy links to game facts"):
            busy_links.count()
    for name, table, order in busy_tables(busy_links, args.kept, step if args.timings else None):
        with step("busy: write " + name + "/"):
            table.orderBy(*order).write.mode("overwrite").parquet(out + "/" + name)
    spark.stop()
    if args.timings:
        step.report(args.timings, time.monotonic() - started)
        shutil.rmtree(log_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

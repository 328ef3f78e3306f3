#!/usr/bin/env bash
# Spark build benchmark (issue 16): the synthetic corpus of scripts/bench-scale.sh (N games,
# default 1,000,000; `bash scripts/bench-spark.sh 200000` for a quicker run; SEED=… as there)
# built two ways in the same run:
#
#   qipu import corpus.pgn --db import.db
#   qipu emit corpus.pgn --out facts/ → spark-submit --master local[2] spark/build.py facts/ stats/
#                                     → qipu load stats/ --db load.db
#
# Prints games/s of emit and import, the job's and the load's wall and CPU time (user + sys),
# peak RSS of each step (/usr/bin/time -v), the job's per-step breakdown (spark/build.py
# --timings: wall, JVM CPU, tasks' CPU, GC, shuffle per named step), the sizes of facts/, stats/ and both databases, and whether `qipu stats`
# (less the file size), the start position's `explore --json` and every busy position's blobs
# agree. Work files go to
# target/bench-spark (several GB at 1M games); delete them after. MASTER=… overrides local[2];
# NO_BUILD=1 uses the qipu already built.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
SEED=${SEED:-1}
MASTER=${MASTER:-local[2]}
dir=target/bench-spark
mkdir -p "$dir"
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
pgn=target/bench-scale/synthetic-$N-$SEED.pgn
mkdir -p target/bench-scale
if [ ! -s "$pgn" ]; then
  cargo bench --no-run --quiet --bench scale 2>/dev/null
  SCALE=$(ls -t target/release/deps/scale-* | grep -v '\.d$' | head -1)
  "$SCALE" pgn "$N" "$SEED" "$pgn"
fi
qipu=target/release/qipu
echo "corpus: $N games, $(stat -L -c %s "$pgn") bytes of PGN ($pgn), master $MASTER"

# Runs a step under /usr/bin/time; prints "NAME: wall s, CPU s (user + sys), peak RSS MiB".
timed() {
  local name=$1
  shift
  /usr/bin/time -v "$@" > "$dir/$name.out" 2> "$dir/$name.time"
  python3 - "$name" "$dir/$name.time" <<'PY'
import re, sys
t = open(sys.argv[2]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", t)
secs = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", t).group(1)) for k in ["User", "System"])
load = open("/proc/loadavg").read().split()[:3]
print(f"{sys.argv[1]}: {secs:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss/1024:.0f} MiB (load average after: {' '.join(load)})")
open(sys.argv[2] + ".secs", "w").write(f"{secs} {cpu}")
PY
}
size() { du -sb "$1" | cut -f1; }

rm -f "$dir"/import.db* "$dir"/load.db*
rm -rf "$dir/facts" "$dir/stats"
timed import "$qipu" import "$pgn" --db "$dir/import.db"
timed emit "$qipu" emit "$pgn" --out "$dir/facts"
timed job spark-submit --master "$MASTER" --conf spark.ui.enabled=false \
  --driver-memory "${DRIVER_MEMORY:-4g}" spark/build.py "$dir/facts" "$dir/stats" \
  --timings "$dir/timings.json"
echo "job per step (spark/build.py --timings; CPU = user + sys):"
grep '^|\|^job wall' "$dir/job.out"
timed load "$qipu" load "$dir/stats" --db "$dir/load.db"
python3 - "$N" "$dir" <<'PY'
import sys
n, d = int(sys.argv[1]), sys.argv[2]
steps = ["import", "emit", "job", "load"]
secs, cpu = {}, {}
for s in steps:
    secs[s], cpu[s] = map(float, open(f"{d}/{s}.time.secs").read().split())
for s, name in zip(steps, ["qipu import", "qipu emit", "spark job", "qipu load"]):
    print(f"{name + ':':12} {secs[s]:.1f} s wall, {cpu[s]:.1f} s CPU ({n / cpu[s]:.0f} games per CPU second)")
spark = sum(cpu[s] for s in steps[1:])
print(f"emit + job + load: {spark:.1f} s CPU = {spark / cpu['import']:.2f} x the import's CPU")
PY
echo "sizes: facts $(size "$dir/facts") B, stats $(size "$dir/stats") B, import.db $(size "$dir/import.db") B, load.db $(size "$dir/load.db") B"
cat "$dir/load.out"
same=yes
cmp -s <("$qipu" stats --db "$dir/import.db" --json | grep -v size_bytes) \
  <("$qipu" stats --db "$dir/load.db" --json | grep -v size_bytes) || same=no
cmp -s <("$qipu" explore --db "$dir/import.db" --json --since 2015 --speed blitz) \
  <("$qipu" explore --db "$dir/load.db" --json --since 2015 --speed blitz) || same=no
echo "stats and explore at the start (--since 2015 --speed blitz) identical: $same"
python3 - "$dir/import.db" "$dir/load.db" <<'PY'
import hashlib, sqlite3, sys
def digest(path):
    h, n = hashlib.sha256(), 0
    for row in sqlite3.connect(path).execute(
        "SELECT key, summary, links, buckets FROM positions ORDER BY key"
    ):
        for v in row:
            h.update(repr(v).encode())
        n += 1
    return n, h.hexdigest()
a, b = digest(sys.argv[1]), digest(sys.argv[2])
print(f"busy positions' blobs (summary, links, buckets) of {a[0]} positions identical: {'yes' if a == b else 'no'}")
PY

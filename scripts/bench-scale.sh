#!/usr/bin/env bash
# Scale benchmark (issue 12 item 6): a seeded synthetic corpus of N games (default 1,000,000;
# `bash scripts/bench-scale.sh 200000` for a quicker run; SEED=… to change the corpus), made by
# qipu's own rules (benches/scale.rs: real openings from data/ continued by random legal moves,
# dates 1990–2026, 50k players with ratings, clocks, rated/casual).
#
# Prints: the PGN's size; `qipu import` of it (games/s, peak RSS from /usr/bin/time -v,
# database bytes / PGN bytes); the same games loaded with their speed and mode (the PGN reader
# of this build does not read TimeControl/mode yet), its size ratio; and p50/p99 of
# `Store::moves_filtered` unfiltered and under each filter at the start, at ply 2 and ply 10
# (following the most played move), then of whole `explorer::explore` answers (every figure
# on), then one `qipu explore` process per query (wall and peak RSS). No ../shared needed. Work files go to target/bench-scale
# (several GB at 1M games); delete them after.
#
# Then `qipu serve` on the loaded database with wrk (scripts/bench-serve.sh, 16 connections,
# the answer cache off, ${SERVE_SECS:-10} s each): /api/explore over the opening tree
# unfiltered and with filters (SERVE=0 skips it; needs wrk).
#
# `--steps K` (issue 31): an import that grows one database instead. K steps of N new games
# each (step k imports games (k-1)·N..k·N of the seed, so the K steps hold the first K·N games
# of a one-shot run), each a `qipu import --timings` into the same file; per step one table
# row: the games in the database after it (counted in the file), wall and CPU seconds
# (user+sys, from /usr/bin/time -v: CPU is what holds on a loaded machine), games/s of wall
# and of CPU, the file's bytes, its unused bytes (SQLite's dbstat: free space inside pages,
# plus the free pages; read with python3's sqlite3), the peak RSS, and the worst p50 of the
# library's filtered counts (the `query` table above, ${REPS:-50} runs each, wall and CPU).
# and the seconds of the compaction it ran after its last batch (`store::compact`: at the
# step that seals a fourth segment of 1M games). Then per step the bytes the import's
# batches wrote by blob kind (`--timings`). Nothing
# else runs in this mode. `bash scripts/bench-scale.sh --steps 5 200000`.
set -euo pipefail
cd "$(dirname "$0")/.."
# `--memory MB` is passed to every `qipu import` (its memory budget; else its default).
STEPS=0
MEMORY=
# `--seal`: every step's import seals its segment (`qipu import --seal`), so that four steps
# of fewer than 1M games make four segments and the fourth compacts them.
SEAL=
while [ "${1:-}" = --steps ] || [ "${1:-}" = --memory ] || [ "${1:-}" = --seal ]; do
  case $1 in
    --steps) STEPS=${2:?--steps needs a number}; shift ;;
    --memory) MEMORY=${2:?--memory needs a number of MB}; shift ;;
    --seal) SEAL=1 ;;
  esac
  shift
done
N=${1:-1000000}
SEED=${SEED:-1}
dir=target/bench-scale
mkdir -p "$dir"
cargo build --release --quiet
cargo bench --no-run --quiet --bench scale 2>/dev/null
SCALE=$(ls -t target/release/deps/scale-* | grep -v '\.d$' | head -1)
pgn=$dir/synthetic-$N-$SEED.pgn

if [ "$STEPS" -gt 0 ]; then
  db=$dir/steps-$N-$SEED.db
  rm -f "$db" "$db"-wal "$db"-shm
  echo "incremental import: $STEPS steps of $N games (seed $SEED) into $db"
  for k in $(seq 1 "$STEPS"); do
    from=$(( (k - 1) * N ))
    step_pgn=$dir/synthetic-$N-$SEED-from$from.pgn
    [ "$from" = 0 ] && step_pgn=$pgn
    if [ ! -s "$step_pgn" ]; then "$SCALE" pgn "$N" "$SEED" "$step_pgn" "$from" >/dev/null; fi
    /usr/bin/time -v -o "$dir/step$k.time" target/release/qipu import "$step_pgn" --db "$db" \
      ${MEMORY:+--memory "$MEMORY"} ${SEAL:+--seal} --json --timings > "$dir/step$k.json" 2> "$dir/step$k.timings"
    "$SCALE" query "$db" "${REPS:-50}" moves > "$dir/step$k.query"
    # The file as the import left it (checkpointed): its games, size and unused bytes.
    python3 - "$db" > "$dir/step$k.dbstat" <<'PY'
import json, os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
one = lambda q: c.execute(q).fetchone()
# Every segment's busy positions (`positions`, `positions_2`, …: store::segments).
pos = one("SELECT sum(pgsize), sum(unused) FROM dbstat WHERE name = 'positions' "
          "OR name GLOB 'positions_[0-9]*'")
print(json.dumps({
    "games": one("SELECT count(*) FROM games")[0],
    "segments": one("SELECT count(*) FROM segments WHERE games > 0")[0],
    "bytes": os.path.getsize(sys.argv[1]),
    "unused_in_pages": one("SELECT sum(unused) FROM dbstat")[0] or 0,
    "free_pages_bytes": one("PRAGMA freelist_count")[0] * one("PRAGMA page_size")[0],
    "positions_bytes": pos[0] or 0,
    "positions_unused": pos[1] or 0,
}))
PY
  done
  python3 - "$dir" "$db" "$STEPS" "$N" <<'PY'
import json, re, sys
d, db, steps, per_step = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def time_v(path):
    t = open(path).read()
    num = lambda name: float(re.search(re.escape(name) + r": ([\d.:]+)", t).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", t).group(1)
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return secs, num("User time (seconds)") + num("System time (seconds)"), num("Maximum resident set size (kbytes)")

def worst_p50(path):
    # rows: "ply N <filter...> games p50 p99 cpu50 cpu99"
    rows = [l.split() for l in open(path) if l.startswith("ply ")]
    return max(float(r[-4]) for r in rows), max(float(r[-2]) for r in rows)

def batches(path):
    keys = ["ranges", "summary", "links", "buckets", "lists"]
    total = dict.fromkeys(keys + ["busy_rows"], 0)
    n = 0
    for l in open(path):
        m = re.search(r"wrote bytes: ranges (\d+), busy rows (\d+) \(summary (\d+), links (\d+), buckets (\d+)\), lists (\d+)", l)
        if m:
            n += 1
            v = list(map(int, m.groups()))
            for k, x in zip(["ranges", "busy_rows", "summary", "links", "buckets", "lists"], v):
                total[k] += x
    return n, total

print(f"{'step':>4} {'games':>9} {'wall s':>8} {'CPU s':>8} {'CPU/1st':>7} {'games/s':>8} {'g/CPU s':>8} "
      f"{'db bytes':>13} {'unused':>12} {'unused%':>7} {'RSS MiB':>8} {'p50 ms':>7} {'cpu p50':>7} {'segments':>8} {'compact s':>9}")
first_cpu = None
rewritten = []
for k in range(1, steps + 1):
    r = json.load(open(f"{d}/step{k}.json"))
    wall, cpu, rss = time_v(f"{d}/step{k}.time")
    first_cpu = first_cpu or cpu
    p50, cpu50 = worst_p50(f"{d}/step{k}.query")
    st = json.load(open(f"{d}/step{k}.dbstat"))
    games, size, free = st["games"], st["bytes"], st["free_pages_bytes"]
    unused = st["unused_in_pages"] + free
    pos_pages, pos_unused = st["positions_bytes"], st["positions_unused"]
    if games != k * per_step or r["imported"] != per_step:
        print(f"  step {k}: {r['imported']} imported, {r.get('duplicates')} duplicates, "
              f"{r.get('merged_copies')} copies merged, {games} in the file: the steps' games are not all new")
    print(f"{k:>4} {games:>9} {wall:>8.1f} {cpu:>8.1f} {cpu / first_cpu:>7.2f} {r['imported'] / wall:>8.0f} "
          f"{r['imported'] / cpu:>8.0f} {size:>13} {unused:>12} {100 * unused / size:>6.1f}% {rss / 1024:>8.0f} "
          f"{p50:>7.3f} {cpu50:>7.3f} {st['segments']:>8} {(r.get('compaction') or {}).get('secs', 0):>9.1f}")
    rewritten.append((k, r["imported"], batches(f"{d}/step{k}.timings"), pos_pages or 0, pos_unused or 0, free))
print("bytes the batches wrote per step (MB; per imported game in bytes), from `qipu import --timings`:")
print(f"{'step':>4} {'batches':>7} {'ranges':>9} {'busy rows':>9} {'summary':>9} {'links':>9} {'buckets':>9} {'lists':>9} {'B/game':>8} {'positions MB':>12} {'its unused':>10} {'free MB':>8}")
for k, imported, (n, t), pos_pages, pos_unused, free in rewritten:
    mb = lambda x: x / 1e6
    per = sum(t[x] for x in ["ranges", "summary", "links", "buckets", "lists"]) / max(imported, 1)
    print(f"{k:>4} {n:>7} {mb(t['ranges']):>9.1f} {t['busy_rows']:>9} {mb(t['summary']):>9.1f} {mb(t['links']):>9.1f} "
          f"{mb(t['buckets']):>9.1f} {mb(t['lists']):>9.1f} {per:>8.0f} {mb(pos_pages):>12.1f} {mb(pos_unused):>10.1f} {mb(free):>8.1f}")
PY
  exit 0
fi

if [ ! -s "$pgn" ]; then "$SCALE" pgn "$N" "$SEED" "$pgn"; fi
pgn_bytes=$(stat -L -c %s "$pgn")
echo "corpus: $N games, $pgn_bytes bytes of PGN ($pgn)"

db=$dir/import-$N.db
rm -f "$db" "$db"-wal "$db"-shm
/usr/bin/time -v target/release/qipu import "$pgn" --db "$db" ${MEMORY:+--memory "$MEMORY"} --json > "$dir/import.json" 2> "$dir/import.time"
python3 - "$dir/import.json" "$dir/import.time" "$pgn_bytes" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[2]).read()).group(1))
pgn = int(sys.argv[3])
print(f"qipu import: {r['imported']} games in {r['seconds']:.1f} s = {r['games_per_second']:.0f} games/s, "
      f"peak RSS {rss/1024:.0f} MiB, db {r['db_bytes']} bytes = {r['db_bytes']/pgn:.3f} x PGN")
PY

# Where the imported file's bytes go, per table and index (SQLite's dbstat; unused = free
# space inside the table's pages).
echo "bytes per table/index of the imported database (MiB: pages, payload, unused):"
sqlite3 "$db" "SELECT printf('  %-28s %8.1f %8.1f %8.1f', name, sum(pgsize)/1048576.0, sum(payload)/1048576.0, sum(unused)/1048576.0) FROM dbstat GROUP BY name ORDER BY sum(pgsize) DESC LIMIT 10;" 2>/dev/null || true

db2=$dir/load-$N.db
rm -f "$db2" "$db2"-wal "$db2"-shm
/usr/bin/time -v "$SCALE" load "$N" "$SEED" "$db2" 2> "$dir/load.time"
python3 - "$dir/load.time" "$db2" "$pgn_bytes" <<'PY'
import os, re, sys
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[1]).read()).group(1))
size = os.path.getsize(sys.argv[2]); pgn = int(sys.argv[3])
print(f"load with speed and mode: peak RSS {rss/1024:.0f} MiB, db {size} bytes = {size/pgn:.3f} x PGN")
PY
sqlite3 "$db2" "SELECT 'positions rows', count(*), sum(length(summary)), sum(length(links)), sum(length(buckets)) FROM positions; SELECT 'range rows', count(*), sum(length(entries)) FROM position_ranges; SELECT 'game_facts', count(*), sum(length(facts)) FROM game_facts;" 2>/dev/null | tr '|' ' ' || true

echo "library calls on the loaded database (Store::moves_filtered, ${REPS:-200} runs each):"
"$SCALE" query "$db2" "${REPS:-200}"

# One `qipu explore --json` process per query (a fresh process: its own page cache; the file
# is in the OS cache after the runs above): wall time and peak RSS from /usr/bin/time, at the
# start, ply 2 and ply 10 of the most played line (followed through `qipu explore --json`).
echo "qipu explore processes (one process each, the median of 3: wall ms, peak RSS MiB and user+sys CPU ms from /usr/bin/time, 10 ms resolution):"
python3 - "$db2" <<'PY'
import json, subprocess, sys
db = sys.argv[1]
def run(moves, extra):
    args = ["target/release/qipu", "explore", "--db", db, "--json"] + extra
    if moves:
        args += ["--moves"] + moves
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M %U %S"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"qipu explore failed: {r.stderr.strip()}")
    wall, rss, user, system = r.stderr.strip().splitlines()[-1].split()[1:5]
    return (json.loads(r.stdout), float(wall) * 1000, int(rss) / 1024,
            (float(user) + float(system)) * 1000)
line, at = [], {}
for ply in range(11):
    if ply in (0, 2, 10):
        at[ply] = list(line)
    a = run(line, ["--top-games", "0"])[0]
    if not a["moves"]:
        break
    line.append(a["moves"][0]["move"])
filters = [("unfiltered", []), ("since 2020", ["--since", "2020"]),
           ("min-rating 2400", ["--min-rating", "2400"]), ("speed blitz", ["--speed", "blitz"]),
           ("mode rated", ["--mode", "rated"]),
           ("all four", ["--since", "2010", "--min-rating", "1800", "--speed", "rapid,classical",
                         "--mode", "rated"])]
print(f"{'position':<8} {'filter':<18} {'games':>9} {'wall ms':>9} {'RSS MiB':>8} {'CPU ms':>7}")
for ply, moves in at.items():
    for name, extra in filters:
        runs = [run(moves, extra) for _ in range(3)]
        a, wall, rss, cpu = sorted(runs, key=lambda r: r[1])[1]
        print(f"ply {ply:<4} {name:<18} {a['games']:>9} {wall:>9.1f} {rss:>8.1f} {cpu:>7.0f}")
PY

if [ "${SERVE:-1}" != 0 ] && command -v wrk >/dev/null; then
  for f in "" "since=2020-01" "min_rating=2000" "since=2015&max_rating=2200&speed=blitz,rapid" "mode=rated"; do
    echo "qipu serve /api/explore, cache off, filter: ${f:-none}"
    args=("$db2" --no-cache --duration "${SERVE_SECS:-10}s")
    [ -n "$f" ] && args+=(--filter "$f")
    QIPU_BIN=target/release/qipu scripts/bench-serve.sh "${args[@]}" 2>/dev/null \
      | grep -E '^(requests/s|p50|p99:|non-2xx)' | paste -sd' ' || true
  done
fi

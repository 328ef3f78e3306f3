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
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
SEED=${SEED:-1}
dir=target/bench-scale
mkdir -p "$dir"
cargo build --release --quiet
cargo bench --no-run --quiet --bench scale 2>/dev/null
SCALE=$(ls -t target/release/deps/scale-* | grep -v '\.d$' | head -1)
pgn=$dir/synthetic-$N-$SEED.pgn
if [ ! -s "$pgn" ]; then "$SCALE" pgn "$N" "$SEED" "$pgn"; fi
pgn_bytes=$(stat -L -c %s "$pgn")
echo "corpus: $N games, $pgn_bytes bytes of PGN ($pgn)"

db=$dir/import-$N.db
rm -f "$db" "$db"-wal "$db"-shm
/usr/bin/time -v target/release/qipu import "$pgn" --db "$db" --json > "$dir/import.json" 2> "$dir/import.time"
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

#!/usr/bin/env bash
# `qipu analyse` throughput: positions/s at depth 10 with 2 engine processes on the bundled
# sample database (data/: 2,050 Xiangqi games), and the harness's share of the time next to
# the engine's own search time (the `time` the engine reports for each search).
#
#   harness (workers)  1 - engine time / time the workers spent per position: the protocol
#                      around each search (`ucinewgame` clearing, `position`, parsing) — the
#                      target is < 5%
#   harness (wall)     1 - engine time / (processes × wall time of the run): also counts
#                      choosing the positions, writing them and idle workers at the end
#
# Needs Fairy-Stockfish (apt-get install fairy-stockfish) or $QIPU_ENGINE. Numbers depend on
# the machine's load: run it when idle. MIN_GAMES and MAX_PLY choose the positions.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE=${QIPU_ENGINE:-/usr/games/fairy-stockfish}
if [ ! -x "$ENGINE" ]; then echo "no engine at $ENGINE (apt-get install fairy-stockfish): nothing to measure"; exit 0; fi
MIN_GAMES=${MIN_GAMES:-100}
MAX_PLY=${MAX_PLY:-8}
DEPTH=${DEPTH:-10}
JOBS=${JOBS:-2}
cargo build --release --quiet
QIPU=target/release/qipu
out=target/bench-analyse
mkdir -p "$out"
db=$out/sample.db
rm -f "$db" "$db"-wal "$db"-shm
"$QIPU" import data/ --db "$db" --json > /dev/null
/usr/bin/time -f "%M" -o "$out/rss" \
  "$QIPU" analyse --db "$db" --engine "$ENGINE" --depth "$DEPTH" --jobs "$JOBS" \
  --min-games "$MIN_GAMES" --max-ply "$MAX_PLY" --json > "$out/run.json"
python3 - "$out/run.json" "$out/rss" "$JOBS" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rss_kib = int(open(sys.argv[2]).read().split()[-1])
jobs = int(sys.argv[3])
wall = r["work_ms"] / 1000
eng = r["engine_ms"] / 1000
print(f"{r['engine']}, depth {r['limit'].get('depth')}, {jobs} processes, {r['options'] or 'default options'}")
print(f"{r['positions']} positions ({r['searches']} searches, {r['evals_written']} scores) in {wall:.1f} s: "
      f"{r['positions_per_sec']:.2f} positions/s, {r['searches'] / max(wall, 1e-9):.1f} searches/s")
print(f"engine time {eng:.1f} s; workers {r['worker_ms'] / 1000:.1f} s: harness (workers) {r['harness_overhead'] * 100:.1f}%;"
      f" harness (wall) {(1 - eng / (jobs * wall)) * 100:.1f}%")
print(f"qipu peak RSS {rss_kib / 1024:.0f} MiB (each engine process: its Hash, 16 MiB by default, and its code)")
PY

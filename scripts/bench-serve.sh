#!/usr/bin/env bash
# Load benchmark of `qipu serve`: requests/s and latency percentiles (p50/p90/p99) of
# /api/explore on a database, measured with wrk (Debian: apt-get install -y wrk).
#
#   scripts/bench-serve.sh [DB] [--endpoint explore|position] [--duration 20s]
#                          [--connections 16] [--threads 4] [--depth 4] [--no-cache]
#
# DB defaults to target/bench/corpus.db; if that file does not exist it is built first with
# `qipu import ../shared/data` (the whole shared corpus). The URLs are the positions of the
# opening tree: from the start, every move played at least --min-games times, to --depth
# plies (both variants), visited round-robin so that the cache of a single position does not
# flatter the numbers; --no-cache measures every answer computed from SQLite. Target on
# 2 cores: >= 5,000 requests/s with p99 < 10 ms.
set -euo pipefail
cd "$(dirname "$0")/.."

db=target/bench/corpus.db
endpoint=explore
duration=20s
connections=16
workers=4
depth=4
min_games=20
cache_mb=64
while [ $# -gt 0 ]; do
  case "$1" in
    --endpoint) endpoint=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --threads) workers=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --min-games) min_games=$2; shift 2 ;;
    --no-cache) cache_mb=0; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) db=$1; shift ;;
  esac
done

command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
cargo build --release --quiet
qipu=target/release/qipu

if [ "$endpoint" = explore ] && [ ! -f "$db" ]; then
  shared=${QIPU_SHARED:-../shared}
  mkdir -p "$(dirname "$db")"
  echo "building $db from $shared/data (whole corpus) ..." >&2
  "$qipu" import "$shared/data" --db "$db" >&2 || [ $? -eq 1 ] # 1 = some games rejected
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
server_args=(serve --addr "127.0.0.1:$port" --threads "$workers" --cache-mb "$cache_mb")
[ "$endpoint" = explore ] && server_args+=(--db "$db")
"$qipu" "${server_args[@]}" 2>target/bench-serve.log &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/api/status" >/dev/null 2>&1 && break
  sleep 0.1
done

paths=$(mktemp)
trap 'kill "$server" 2>/dev/null || true; rm -f "$paths"' EXIT
python3 - "$port" "$endpoint" "$depth" "$min_games" >"$paths" <<'PY'
import json, sys, urllib.parse, urllib.request
port, endpoint, depth, min_games = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
base = f"http://127.0.0.1:{port}"
seen, out = set(), []
def path(variant, moves):
    q = {"variant": variant}
    if moves:
        q["moves"] = ",".join(moves)
    return f"/api/{endpoint}?" + urllib.parse.urlencode(q)
def walk(variant, moves):
    p = path(variant, moves)
    if p in seen or len(out) >= 2000:
        return
    seen.add(p)
    with urllib.request.urlopen(base + p) as r:
        v = json.load(r)
    out.append(p)
    if len(moves) >= depth:
        return
    if endpoint == "explore":
        nxt = [m["move"] for m in v["moves"] if m["games"] >= min_games]
    else:
        nxt = v["legal"][:4]
    for m in nxt:
        walk(variant, moves + [m])
for variant in ("xiangqi", "janggi"):
    walk(variant, [])
print("\n".join(out))
PY
count=$(wc -l <"$paths")
echo "$count distinct positions ($endpoint), $connections connections, $workers server threads, cache ${cache_mb} MiB, $duration" >&2

lua=$(mktemp --suffix=.lua)
trap 'kill "$server" 2>/dev/null || true; rm -f "$paths" "$lua"' EXIT
cat >"$lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("QIPU_PATHS")) do paths[#paths + 1] = line end
local i = math.random(#paths)
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
local errors = 0
response = function(status)
  if status ~= 200 then errors = errors + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("non-2xx or socket errors: %d\n",
    summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
  io.write(string.format("requests/s: %.0f\n", summary.requests / (summary.duration / 1e6)))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("p%s: %.2f ms\n", p, latency:percentile(p) / 1000))
  end
end
LUA
QIPU_PATHS=$paths wrk -t2 -c"$connections" -d"$duration" --latency -s "$lua" "http://127.0.0.1:$port" \
  | tee target/bench-serve.txt | grep -E '^(requests/s|p50|p90|p99|p99.9|non-2xx)'

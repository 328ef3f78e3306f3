#!/usr/bin/env bash
# Load benchmark of `qipu serve`: requests/s and latency percentiles (p50/p90/p99) of
# /api/explore on a database, measured with wrk (Debian: apt-get install -y wrk).
#
#   scripts/bench-serve.sh [DB] [--endpoint explore|position] [--duration 20s]
#                          [--connections 16] [--threads 4] [--depth 4] [--no-cache]
#                          [--with-import] [--slow-clients N] [--all] [--filter QUERY] [--loads]
#
# DB defaults to target/bench/corpus.db; if that file does not exist it is built first with
# `qipu import ../shared/data` (the whole shared corpus). The URLs are the positions of the
# opening tree: from the start, every move played at least --min-games times, to --depth
# plies (both variants), visited round-robin so that the cache of a single position does not
# flatter the numbers; --no-cache measures every answer computed from SQLite.
# --with-import serves a copy of the corpus without ../shared/data/xiangqi/ccpd and imports
# ccpd into it while wrk runs (the import's games are new, so it really writes).
# --slow-clients N holds N slowloris connections open during the run (each sends one header
# byte every 2 s and reconnects when the server closes it) and prints how long the server let
# them live. --all runs cache on, cache off, with an import, and 64 slow clients in turn.
# --loads runs the three hostile loads of scripts/bench-serve-loads.sh (connection churn,
# held connections, a burst) on DB instead, with the server's RSS and threads before and
# after each; --all ends with them.
# --filter QUERY appends explorer filters to every /api/explore URL, e.g.
# --filter 'since=2020&min_rating=2000' (the positions are still walked unfiltered).
# Every connection goes to 127.0.0.1; every run is bounded by --duration. Besides wrk's
# requests/s and percentiles it prints the server's CPU time (user+sys) per request answered,
# the figure that holds on a loaded machine.
# Target on 2 cores: >= 5,000 requests/s with p99 < 10 ms.
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
with_import=0
slow=0
all=0
filter=
loads=0
args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --endpoint) endpoint=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --threads) workers=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --min-games) min_games=$2; shift 2 ;;
    --no-cache) cache_mb=0; shift ;;
    --with-import) with_import=1; shift ;;
    --slow-clients) slow=$2; shift 2 ;;
    --all) all=1; shift ;;
    --filter) filter=$2; shift 2 ;;
    --loads) loads=1; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) db=$1; shift ;;
  esac
done

if [ "$all" = 1 ]; then
  rest=()
  for a in "${args[@]}"; do [ "$a" = --all ] || rest+=("$a"); done
  for mode in "" "--no-cache" "--with-import" "--slow-clients 64"; do
    echo "== ${mode:-cache on}"
    # shellcheck disable=SC2086
    "$0" "${rest[@]}" $mode
  done
  echo "== hostile loads"
  "$0" "${rest[@]}" --loads
  exit 0
fi

command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
if [ -z "${QIPU_BIN:-}" ]; then
  cargo build --release --quiet
fi
qipu=${QIPU_BIN:-target/release/qipu}
shared=${QIPU_SHARED:-../shared}

if [ "$endpoint" = explore ] && [ ! -f "$db" ]; then
  mkdir -p "$(dirname "$db")"
  echo "building $db from $shared/data (whole corpus) ..." >&2
  "$qipu" import "$shared/data" --db "$db" >&2 || [ $? -eq 1 ] # 1 = some games rejected
fi

if [ "$loads" = 1 ]; then
  exec scripts/bench-serve-loads.sh "$db" --threads "$workers" --cache-mb "$cache_mb"
fi

tmp=$(mktemp -d)
server=
importer=
slowpid=
cleanup() {
  for p in $server $importer $slowpid; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$with_import" = 1 ]; then
  base=target/bench/corpus-without-ccpd.db
  if [ ! -f "$base" ]; then
    echo "building $base ..." >&2
    parts=("$shared"/data/janggi)
    for d in "$shared"/data/xiangqi/*; do [ "$(basename "$d")" = ccpd ] || parts+=("$d"); done
    "$qipu" import "${parts[@]}" --db "$base" >&2 || [ $? -eq 1 ]
  fi
  cp "$base" "$tmp/served.db"
  db=$tmp/served.db
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
server_args=(serve --addr "127.0.0.1:$port" --threads "$workers" --cache-mb "$cache_mb")
[ "$endpoint" = explore ] && server_args+=(--db "$db")
"$qipu" "${server_args[@]}" 2>target/bench-serve.log &
server=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/api/status" >/dev/null 2>&1 && break
  sleep 0.1
done

paths=$tmp/paths
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
if [ -n "$filter" ]; then
  awk -v f="$filter" '{print $0 "&" f}' "$paths" >"$paths.f" && mv "$paths.f" "$paths"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$(head -1 "$paths")")
  [ "$code" = 200 ] || { echo "--filter '$filter': the server answers $code" >&2; exit 2; }
fi
# Under real-time scheduling (`chrt -r`), the kernel's RT throttling stops the real-time tasks
# of a CPU for the rest of each sched_rt_period_us once they used sched_rt_runtime_us of it
# (by default 50 ms of every second): a run that keeps both CPUs busy gets those stalls in its
# p99 whatever the server costs. Say so beside the figures.
rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null || echo -1)
if [ "$rt_runtime" != -1 ] && chrt -p $$ 2>/dev/null | grep -qE 'SCHED_(RR|FIFO)'; then
  echo "note: real-time scheduling with RT throttling on (sched_rt_runtime_us=$rt_runtime of $(cat /proc/sys/kernel/sched_rt_period_us)): a saturated run's p99 includes stalls of ~$(( ($(cat /proc/sys/kernel/sched_rt_period_us) - rt_runtime) / 1000 )) ms a second" >&2
fi
count=$(wc -l <"$paths")
echo "$count distinct positions ($endpoint), $connections connections, $workers server threads, cache ${cache_mb} MiB, $duration, import: $with_import, slow clients: $slow, filter: ${filter:-none}" >&2

secs=${duration%s}
if [ "$slow" -gt 0 ]; then
  python3 - "$port" "$slow" "$((secs + 1))" >"$tmp/slow.txt" <<'PY' &
import socket, sys, time
port, n, run_for = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
end = time.monotonic() + run_for
conns, opened, closed, lifetimes, refused = {}, 0, 0, [], 0
def connect():
    global opened
    s = socket.create_connection(("127.0.0.1", port), timeout=1)
    s.setblocking(False)
    s.send(b"G")
    opened += 1
    return s
while len(conns) < n:
    conns[connect()] = time.monotonic()
while time.monotonic() < end:
    for s, born in list(conns.items()):
        try:
            data = s.recv(4096)
            gone = True  # an answer (408/503) or end of stream: the server closed it
        except BlockingIOError:
            try:
                s.send(b"E")
                gone = False
            except OSError:
                gone = True
        except OSError:
            gone = True
        if gone:
            closed += 1
            lifetimes.append(time.monotonic() - born)
            s.close()
            del conns[s]
            conns[connect()] = time.monotonic()
    time.sleep(2)
held = [time.monotonic() - b for b in conns.values()]
print(f"slow connections: {opened} opened, {closed} closed by the server, "
      f"longest lived {max(lifetimes + held):.1f} s, {len(held)} open at the end")
PY
  slowpid=$!
  sleep 1
fi
if [ "$with_import" = 1 ]; then
  ( start=$(date +%s.%N)
    "$qipu" import "$shared/data/xiangqi/ccpd" --db "$db" >"$tmp/import.txt" 2>&1 || true
    echo "import beside the server: $(head -1 "$tmp/import.txt") (wall $(python3 -c "import time; print(round(time.time() - $start, 1))") s)" >>"$tmp/import.txt"
  ) &
  importer=$!
fi

cat >"$tmp/bench.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("QIPU_PATHS")) do paths[#paths + 1] = line end
local i = math.random(#paths)
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
done = function(summary, latency, requests)
  io.write(string.format("non-2xx or socket errors: %d\n",
    summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
  io.write(string.format("requests: %d\n", summary.requests))
  io.write(string.format("requests/s: %.0f\n", summary.requests / (summary.duration / 1e6)))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("p%s: %.2f ms\n", p, latency:percentile(p) / 1000))
  end
end
LUA
# The server's CPU time (user+sys, from /proc/PID/stat, in clock ticks) around the wrk run:
# divided by the requests answered it is the cost of a request, which the machine's load
# does not change (wall requests/s and latencies do).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat" 2>/dev/null || echo 0; }
cpu_before=$(cpu_ticks)
QIPU_PATHS=$paths wrk -t2 -c"$connections" -d"$duration" --latency -s "$tmp/bench.lua" "http://127.0.0.1:$port" \
  >target/bench-serve.txt
cpu_after=$(cpu_ticks)
grep -E '^(requests/s|p50|p90|p99|p99.9|non-2xx)' target/bench-serve.txt
answered=$(awk '/^requests: / {print $2}' target/bench-serve.txt)
python3 - "$cpu_before" "$cpu_after" "${answered:-0}" "$(getconf CLK_TCK)" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import sys
before, after, n, hz = (int(a) for a in sys.argv[1:5])
cpu = (after - before) / hz
per = f"{cpu / n * 1e6:.0f} us/request" if n else "? (no request answered)"
print(f"server CPU: {per} (user+sys {cpu:.2f} s for {n} requests; load average {sys.argv[5]})")
PY
if [ -n "$importer" ]; then wait "$importer" || true; tail -1 "$tmp/import.txt"; importer=; fi
if [ -n "$slowpid" ]; then wait "$slowpid" || true; cat "$tmp/slow.txt"; slowpid=; fi
echo "server RSS: $(awk '/VmHWM/ {print $2, $3}' /proc/$server/status 2>/dev/null || echo '?') peak," \
  "now anon $(awk '/RssAnon/ {print $2, $3}' /proc/$server/status 2>/dev/null || echo '?')," \
  "file (mapped database pages) $(awk '/RssFile/ {print $2, $3}' /proc/$server/status 2>/dev/null || echo '?')"

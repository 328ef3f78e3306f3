#!/usr/bin/env bash
# The three loads of issue #33 against `qipu serve`, with the server's RSS and thread count
# before and after each (from /proc/PID/status):
#
#   churn   --rounds N (default 10) rounds of: 1,000 connections opened and closed, then 32
#           concurrent clients x 40 /api/explore requests (keep-alive, cache off)
#   hold    one client holding N idle connections (--holds 256,2000,10000, the default), reopening
#           each one the server closes, while a normal client sends 200 requests, each on a new
#           connection over 15 s (past the idle timeout): how many are answered 200, p50/p99
#   burst   300 connections at once, each sending one request; threads before, at the peak
#           (sampled every 10 ms) and 2 s after
#
#   scripts/bench-serve-loads.sh [DB] [--rounds 10] [--threads 4] [--cache-mb 0] [--holds 256,2000,10000]
#
# DB defaults to target/bench/sample.db, imported from the bundled sample (data/, about 1 MB)
# when missing. Every connection goes to 127.0.0.1. Targets on 2 cores: RSS <= 300 MB + cache
# after every round, threads back to the pools' sizes after each load, 100% of the normal
# requests answered with p99 < 50 ms while 2,000 connections are held.
set -euo pipefail
cd "$(dirname "$0")/.."

db=target/bench/sample.db
rounds=10
workers=4
cache_mb=0
holds=256,2000,10000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --threads) workers=$2; shift 2 ;;
    --cache-mb) cache_mb=$2; shift 2 ;;
    --holds) holds=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) db=$1; shift ;;
  esac
done
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
if [ -z "${QIPU_BIN:-}" ]; then
  cargo build --release --quiet
fi
qipu=${QIPU_BIN:-target/release/qipu}
if [ ! -f "$db" ]; then
  mkdir -p "$(dirname "$db")"
  echo "building $db from data/ ..." >&2
  "$qipu" import data --db "$db" >&2 || [ $? -eq 1 ]
fi
# 2,000 held connections plus the others, on both ends.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$qipu" serve --db "$db" --addr "127.0.0.1:$port" --threads "$workers" --cache-mb "$cache_mb" \
  2>target/bench-serve-loads.log &
server=$!
trap 'kill $server 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
  sleep 0.1
done
echo "qipu serve --threads $workers --cache-mb $cache_mb on $db ($(du -h "$db" | cut -f1))"

python3 - "$port" "$server" "$rounds" "$holds" <<'PY'
import http.client, json, selectors, socket, statistics, sys, threading, time, urllib.parse

port, pid, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
holds = [int(h) for h in sys.argv[4].split(",")]

def status(field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1

def facts():
    # VmRSS counts the database pages SQLite maps (RssFile: the OS page cache, shared and
    # given back under pressure) beside the server's own memory (RssAnon: what the bound holds).
    return (f"RSS {status('VmRSS') / 1024:.0f} MB (anon {status('RssAnon') / 1024:.0f}, "
            f"file {status('RssFile') / 1024:.0f}), threads {status('Threads')}")

def get(conn, path):
    conn.request("GET", path, headers={"Host": "127.0.0.1"})
    r = conn.getresponse()
    r.read()
    return r.status

# The positions: the start and every move played there, then their replies (both variants).
paths = []
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
for variant in ("xiangqi", "janggi"):
    c.request("GET", f"/api/explore?variant={variant}", headers={"Host": "127.0.0.1"})
    first = json.loads(c.getresponse().read())
    paths.append(f"/api/explore?variant={variant}")
    for m in first["moves"][:8]:
        q = urllib.parse.urlencode({"variant": variant, "moves": m["move"]})
        paths.append(f"/api/explore?{q}")
        c.request("GET", f"/api/explore?{q}", headers={"Host": "127.0.0.1"})
        for r in json.loads(c.getresponse().read())["moves"][:4]:
            q2 = urllib.parse.urlencode({"variant": variant, "moves": m["move"] + "," + r["move"]})
            paths.append(f"/api/explore?{q2}")
c.close()
print(f"{len(paths)} positions")

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))] if xs else float("nan")

# --- churn
print(f"\n== churn: {rounds} rounds of 1,000 connections opened and closed, then 32 clients x 40 requests")
print(f"before: {facts()}")
for rnd in range(1, rounds + 1):
    socks = []
    for _ in range(1000):
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    for s in socks:
        s.close()
    ok = [0] * 32
    lat = []
    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for i in range(40):
            t = time.perf_counter()
            try:
                if get(conn, paths[(k * 40 + i) % len(paths)]) == 200:
                    ok[k] += 1
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            lat.append((time.perf_counter() - t) * 1000)
        conn.close()
    ts = [threading.Thread(target=client, args=(k,)) for k in range(32)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(f"round {rnd:2}: {sum(ok)}/1280 answered 200, p50 {pct(lat, 50):.1f} ms, p99 {pct(lat, 99):.1f} ms; {facts()}")
time.sleep(2)
print(f"2 s after: {facts()}")

# --- hold
for hold in holds:
    print(f"\n== hold: one client holds {hold} idle connections (reopening each one closed); 200 normal requests")
    print(f"before: {facts()}")
    held, stop, reopened = [], threading.Event(), [0]
    for _ in range(hold):
        held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    sel = selectors.DefaultSelector()
    for s in held:
        sel.register(s, selectors.EVENT_READ)
    def holder():
        while not stop.is_set():
            for key, _ in sel.select(0.2):
                s = key.fileobj
                # Readable on an idle connection: the server closed it (or said why first).
                try:
                    s.recv(4096)
                except OSError:
                    pass
                if s in held:
                    sel.unregister(s)
                    held.remove(s)
                    s.close()
                    try:
                        n = socket.create_connection(("127.0.0.1", port), timeout=10)
                        held.append(n)
                        sel.register(n, selectors.EVENT_READ)
                        reopened[0] += 1
                    except OSError:
                        pass
    th = threading.Thread(target=holder)
    th.start()
    time.sleep(1)
    print(f"holding: {facts()}")
    lat, ok, codes = [], 0, {}
    for i in range(200):
        time.sleep(0.075)  # 200 requests over 15 s: past the server's idle timeout of the held ones
        t = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            code = get(conn, paths[i % len(paths)])
            conn.close()
        except (OSError, http.client.HTTPException) as e:
            code = type(e).__name__
        lat.append((time.perf_counter() - t) * 1000)
        codes[code] = codes.get(code, 0) + 1
        ok += code == 200
    print(f"normal requests: {ok}/200 answered 200 ({codes}), p50 {pct(lat, 50):.1f} ms, p99 {pct(lat, 99):.1f} ms, max {max(lat):.1f} ms")
    print(f"held connections reopened after the server closed them: {reopened[0]}; {facts()}")
    stop.set(); th.join()
    for s in held: s.close()
    sel.close()
    time.sleep(2)
    print(f"2 s after: {facts()}")

# --- burst
print("\n== burst: 300 connections at once, one request each")
print(f"before: {facts()}")
peak, sampling = [status("Threads")], threading.Event()
def sample():
    while not sampling.is_set():
        peak.append(status("Threads"))
        time.sleep(0.01)
st = threading.Thread(target=sample); st.start()
socks = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(300)]
for i, s in enumerate(socks):
    s.sendall(f"GET {paths[i % len(paths)]} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
answered = 0
for s in socks:
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    answered += data.startswith(b"HTTP/1.1 200")
    s.close()
sampling.set(); st.join()
print(f"{answered}/300 answered 200; threads at the peak {max(peak)}")
time.sleep(2)
print(f"2 s after: {facts()}")
PY

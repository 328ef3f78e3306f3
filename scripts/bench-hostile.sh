#!/usr/bin/env bash
# Hostile inputs (issue "Hardening"): wall time and peak memory of `qipu import` on
#   gib-bracket-N   a .gib whose one line is N characters of `[` (quadratic before)
#   deep-pgn        a PGN with 30,000 nested `(` variations (stack overflow before)
#   long-line-pgn   a 100 MB one-line PGN
#   zip-bomb        a zip of 8 members of 256 MiB each (a few MB compressed)
#   dev-zero        /dev/zero named as input
# Each run is cut at $LIMIT seconds (default 60). Prints: input, seconds, peak RSS, exit code.
set -uo pipefail
cd "$(dirname "$0")/.."
LIMIT=${LIMIT:-60}
cargo build --release --quiet
QIPU=$PWD/target/release/qipu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys, zipfile, os
d = sys.argv[1]
head = '[대회명 "x"]\n[초차림 "마상상마"]\n[한차림 "마상상마"]\n'.encode("cp949")
for n in (80_000, 160_000, 1_000_000):
    open(f"{d}/gib-bracket-{n}.gib", "wb").write(head + b"[" * n + b"\n1. 71\xc1\xb972\n")
open(f"{d}/deep-pgn.pgn", "w").write('[Event "x"]\n1. h2e2 ' + "(h9g7 " * 30000 + ")" * 30000 + " *\n")
with open(f"{d}/long-line-pgn.pgn", "w") as f:
    f.write('[Event "x"]\n')
    f.write("1. h2e2 h9g7 " * (100_000_000 // 13))
    f.write("*\n")
with zipfile.ZipFile(f"{d}/zip-bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    block = b"1. h2e2 h9g7 " * (1 << 16)
    for i in range(8):
        with z.open(f"m{i}.pgn", "w", force_zip64=True) as w:
            w.write(b'[Event "x"]\n')
            for _ in range((256 << 20) // len(block)):
                w.write(block)
PY
printf '%-22s %10s %10s %5s  %s\n' input seconds peak_MiB exit size
run() {
  local name=$1 path=$2
  rm -f "$tmp/db"*
  local t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$tmp/rss" timeout "$LIMIT" "$QIPU" import "$path" --db "$tmp/db" --json > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  local t1=$(date +%s.%N)
  local rss=$(tail -1 "$tmp/rss" | tr -dc 0-9)
  printf '%-22s %10.2f %10.0f %5s  %s\n' "$name" "$(echo "$t1 - $t0" | bc)" "$(echo "${rss:-0} / 1024" | bc)" "$rc" "$(du -h "$path" 2>/dev/null | cut -f1)"
  grep -o '"reason":"[^"]*"' "$tmp/out" | sort | uniq -c | head -3
}
for n in 80000 160000 1000000; do run "gib-bracket-$n" "$tmp/gib-bracket-$n.gib"; done
run deep-pgn "$tmp/deep-pgn.pgn"
run long-line-pgn "$tmp/long-line-pgn.pgn"
run zip-bomb "$tmp/zip-bomb.zip"
run dev-zero /dev/zero

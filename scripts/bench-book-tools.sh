#!/usr/bin/env bash
# `qipu book convert` and `merge` on a synthetic 1,000,000-entry qipu book (examples/book_synth.rs:
# every legal move of every position breadth first from the start, mirror images folded, every
# record reached from the start). Times each step once with /usr/bin/time -v and prints wall
# seconds, CPU seconds, entries per second and peak RSS. Target (#32): each under 5 s.
# usage: scripts/bench-book-tools.sh [entries]   (QIPU_BIN=path measures another build)
set -euo pipefail
cd "$(dirname "$0")/.."
entries=${1:-1000000}
dir=target/bench-book-tools
mkdir -p "$dir"
if [ -z "${QIPU_BIN:-}" ]; then
  cargo build --release --quiet --bin qipu --example book_synth
fi
bin=${QIPU_BIN:-target/release/qipu}
book=$dir/synth-$entries.qbk
[ -s "$book" ] || target/release/examples/book_synth "$book" "$entries"

# step NAME ARGS...: runs qipu ARGS under /usr/bin/time -v, prints one line of figures
step() {
  local name=$1; shift
  local log=$dir/time-$name.log
  /usr/bin/time -v "$bin" "$@" > /dev/null 2> "$log" || { cat "$log"; exit 1; }
  awk -v name="$name" -v n="$entries" -F': ' '
    /Elapsed \(wall clock\)/ { k = split($2, t, ":"); wall = (k == 3 ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2]) }
    /User time/ { user = $2 } /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 }
    END { printf "%-22s %8.2f %8.2f %14.0f %10.0f %s\n", name, wall, user + sys, n / wall, rss / 1024, (wall < 5 ? "ok" : "SLOW (target 5 s)") }' "$log"
}

printf '%-22s %8s %8s %14s %10s\n' step wall-s cpu-s entries/s "peak MiB"
step convert-qipu-eleeye book convert "$book" --format eleeye --out "$dir/out.dat"
step convert-eleeye-qipu book convert "$dir/out.dat" --format qipu --out "$dir/back.qbk"
step convert-qipu-obk book convert "$book" --format obk --out "$dir/out.obk"
step merge-qipu-self book merge "$book" "$book" --format qipu --out "$dir/merged.qbk"
step merge-qipu-eleeye book merge "$book" "$dir/out.dat" --format eleeye --out "$dir/merged.dat"

#!/usr/bin/env bash
# Single-thread perft throughput of qipu: Xiangqi and Janggi start positions to depth 5, with
# and without bulk counting at the leaves. Prints the median of N runs (default 3) in M nodes
# per CPU second (user + system time of the perft process, so that a loaded machine slows the
# figure less than wall time would), and the wall-clock figure beside it.
# usage: scripts/bench-perft.sh [runs]    (QIPU_BIN=path measures another build of qipu)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
if [ -z "${QIPU_BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${QIPU_BIN:-target/release/qipu}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %-8s %6s %14s %12s %12s\n' variant leaves depth nodes "M nodes/cpu-s" "M nodes/s"
for variant in xiangqi janggi; do
  for mode in bulk no-bulk; do
    flag=""; [ "$mode" = no-bulk ] && flag="--no-bulk"
    results=$(for _ in $(seq "$runs"); do
      TIMEFORMAT='%R %U %S'
      { time nodes=$($bin perft --variant "$variant" --depth 5 $flag | tail -1) ; } 2> "${TMPDIR:-/tmp}/perft-time.$$"
      read -r real user sys < "${TMPDIR:-/tmp}/perft-time.$$"
      echo "$nodes $real $user $sys" | awk '{printf "%.2f %.2f\n", $1 / ($3 + $4) / 1e6, $1 / $2 / 1e6}'
    done)
    rm -f "${TMPDIR:-/tmp}/perft-time.$$"
    cpu=$(echo "$results" | awk '{print $1}' | median)
    wall=$(echo "$results" | awk '{print $2}' | median)
    nodes=$($bin perft --variant "$variant" --depth 5 | tail -1)
    printf '%-8s %-8s %6s %14s %12s %12s\n' "$variant" "$mode" 5 "$nodes" "$cpu" "$wall"
  done
done

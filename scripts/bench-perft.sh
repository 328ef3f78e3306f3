#!/usr/bin/env bash
# Single-thread perft throughput of qipu: Xiangqi and Janggi start positions to depth 5, with
# and without bulk counting at the leaves. Prints the median of N runs (default 3) in M nodes/s.
# usage: scripts/bench-perft.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release --quiet
bin=target/release/qipu

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %-8s %6s %14s %12s\n' variant leaves depth nodes "M nodes/s"
for variant in xiangqi janggi; do
  for mode in bulk no-bulk; do
    flag=""; [ "$mode" = no-bulk ] && flag="--no-bulk"
    nodes=0
    rates=$(for _ in $(seq "$runs"); do
      start=$(date +%s.%N)
      nodes=$($bin perft --variant "$variant" --depth 5 $flag | tail -1)
      end=$(date +%s.%N)
      echo "$nodes $start $end" | awk '{printf "%.2f\n", $1 / ($3 - $2) / 1e6}'
    done | median)
    nodes=$($bin perft --variant "$variant" --depth 5 | tail -1)
    printf '%-8s %-8s %6s %14s %12s\n' "$variant" "$mode" 5 "$nodes" "$rates"
  done
done

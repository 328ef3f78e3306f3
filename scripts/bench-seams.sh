#!/usr/bin/env bash
# Before/after of the seams of issue #17 (typed query, private board, errors with sources):
# perft, ICCS resolution, import and explore must not get slower. On a loaded machine wall
# time is noise, so the main figures are instruction counts (valgrind --tool=callgrind,
# deterministic up to thread scheduling), then bench-perft.sh's CPU-time medians.
#
#   scripts/bench-seams.sh BEFORE_DIR [AFTER_DIR]
#
# BEFORE_DIR is a checkout of the "before" commit outside this tree, e.g.
#   git worktree add --detach /work/wt/before e4cded2
# (copying this checkout's target/ into it first saves most of the build). AFTER_DIR is this
# checkout by default. Each tree is built with `cargo build --release --bins --example
# resolve_iccs`; examples/resolve_iccs.rs is copied into BEFORE_DIR when it lacks it (it uses
# only API older than the seams). Measured, for each build:
#   perft      `qipu perft --depth 4` from both start positions: instructions per node
#   iccs       every legal move of the Xiangqi fixture positions rendered in ICCS and read
#              back (examples/resolve_iccs.rs): instructions per move resolved, from the
#              difference of a 20-round and a 0-round run (setup cancels out)
#   import     a fixed slice of IMPORT_GAMES (default 5000) games of an ICCS PGN into a fresh
#              database: instructions per game (all threads)
#   explore    `qipu explore --json` of the sample database (data/, imported by that build)
#              at the start, after h2e2 and after h2e2 h9g7: instructions per process (open,
#              query, print), averaged over the three
# The attribution of the differences per function (import +66% and explore +75..101% at
# fca2760 against e4cded2; what each feature costs, what session 7 cut) is in
# docs/instruction-growth.md. Needs valgrind. The import slice comes from ../shared's ccpd games (converted to ICCS by the
# after build, as bench-perft's sibling bench-import.sh does), or from data/ without ../shared.
# BENCH_PERFT=0 skips the CPU-time medians of bench-perft.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
before=${1:?usage: scripts/bench-seams.sh BEFORE_DIR [AFTER_DIR]}
after=${2:-$here}
before=$(cd "$before" && pwd)
after=$(cd "$after" && pwd)
SHARED=${QIPU_SHARED:-../shared}
GAMES=${IMPORT_GAMES:-5000}
command -v valgrind >/dev/null || { echo "valgrind is needed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tree in "$before" "$after"; do
  if [ ! -f "$tree/examples/resolve_iccs.rs" ]; then
    mkdir -p "$tree/examples"
    cp "$here/examples/resolve_iccs.rs" "$tree/examples/"
  fi
  (cd "$tree" && cargo build --release --quiet --bins --example resolve_iccs)
done

# Instructions (callgrind's Ir total) of one command.
ir() {
  local out="$tmp/cg.out"
  rm -f "$out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" > "$tmp/cg.stdout" 2> "$tmp/cg.stderr" || {
    cat "$tmp/cg.stderr" >&2
    return 1
  }
  awk '/^(summary|totals):/ {print $2; exit}' "$out"
}

# The import slice: the first $GAMES games of an ICCS PGN (a game starts at its first tag line
# after movetext).
slice="$tmp/slice.pgn"
source_pgn="$here/target/bench/ccpd-iccs.pgn"
if [ ! -s "$source_pgn" ] && [ -d "$SHARED/data/xiangqi/ccpd/Dataset/對局" ]; then
  mkdir -p "$here/target/bench"
  "$after/target/release/qipu" convert "$SHARED/data/xiangqi/ccpd/Dataset/對局" --notation iccs \
    --out "$source_pgn" 2>/dev/null || true
fi
if [ ! -s "$source_pgn" ]; then
  source_pgn="$tmp/sample-iccs.pgn"
  "$after/target/release/qipu" convert "$here/data" --notation iccs --out "$source_pgn" 2>/dev/null || true
fi
awk -v n="$GAMES" '
  /^\[/ { if (!in_tags) { games++; in_tags = 1 } }
  !/^\[/ && NF { in_tags = 0 }
  games > n { exit }
  { print }' "$source_pgn" > "$slice"

printf '%-8s %-34s %16s %16s %8s\n' bench measure before after change
row() { # name what before after
  awk -v n="$1" -v w="$2" -v b="$3" -v a="$4" 'BEGIN {
    printf "%-8s %-34s %16.1f %16.1f %+7.1f%%\n", n, w, b, a, (a - b) / b * 100 }'
}

declare -A per
for tree in "$before" "$after"; do
  bin="$tree/target/release/qipu"
  ex="$tree/target/release/examples/resolve_iccs"
  for v in xiangqi janggi; do
    nodes=$("$bin" perft --variant "$v" --depth 4 | tail -1)
    total=$(ir "$bin" perft --variant "$v" --depth 4)
    per[$tree,perft-$v]=$(awk -v t="$total" -v n="$nodes" 'BEGIN {print t / n}')
  done
  moves20=$("$ex" 20)
  i20=$(ir "$ex" 20)
  i0=$(ir "$ex" 0)
  per[$tree,iccs]=$(awk -v a="$i20" -v b="$i0" -v m="$moves20" 'BEGIN {print (a - b) / m}')
  db="$tmp/import.db"
  rm -f "$db" "$db"-wal "$db"-shm
  total=$(ir "$bin" import "$slice" --db "$db" --json)
  read_games=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["games_read"])' "$tmp/cg.stdout")
  per[$tree,import]=$(awk -v t="$total" -v n="$read_games" 'BEGIN {print t / n}')
  per[$tree,import-games]=$read_games
  sample="$tmp/sample.db"
  rm -f "$sample" "$sample"-wal "$sample"-shm
  "$bin" import "$here/data" --db "$sample" --json > /dev/null || true
  e3=0
  for moves in "" "h2e2" "h2e2 h9g7"; do
    # shellcheck disable=SC2086
    e=$(ir "$bin" explore --db "$sample" --json ${moves:+--moves $moves})
    e3=$((e3 + e))
  done
  per[$tree,explore]=$(awk -v a="$e3" 'BEGIN {print a / 3}')
done

echo "before: $(git -C "$before" log --oneline -1 | cut -c1-60)"
echo "after:  $(git -C "$after" log --oneline -1 | cut -c1-60)$(git -C "$after" diff --quiet HEAD || echo ' (+ uncommitted changes)')"
row perft "Ir per node, xiangqi depth 4" "${per[$before,perft-xiangqi]}" "${per[$after,perft-xiangqi]}"
row perft "Ir per node, janggi depth 4" "${per[$before,perft-janggi]}" "${per[$after,perft-janggi]}"
row iccs "Ir per ICCS move resolved" "${per[$before,iccs]}" "${per[$after,iccs]}"
row import "Ir per game, $GAMES-game slice" "${per[$before,import]}" "${per[$after,import]}"
echo "         (games read: before ${per[$before,import-games]}, after ${per[$after,import-games]})"
row explore "Ir per explore process" "${per[$before,explore]}" "${per[$after,explore]}"
echo "Per function, what the growth since e4cded2 pays for and what was cut: docs/instruction-growth.md"

if [ "${BENCH_PERFT:-1}" != 0 ]; then
  for tree in "$before" "$after"; do
    echo "bench-perft.sh with $(basename "$tree") (CPU-time medians of 3):"
    QIPU_BIN="$tree/target/release/qipu" bash "$here/scripts/bench-perft.sh" 3
  done
fi

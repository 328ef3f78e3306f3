#!/usr/bin/env bash
# Import throughput (games/s) for ICCS-coordinate PGN (wukong's Hu Ronghua zip, MIT) and for
# Big5 Chinese PGN (ccpd master games, CC BY 4.0), then explorer lookups/s on the ccpd database.
# Needs ../shared (or $QIPU_SHARED). Numbers depend on the machine's load: run it when idle.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${QIPU_SHARED:-../shared}
if [ ! -d "$SHARED/data" ]; then echo "no $SHARED/data: nothing to measure"; exit 0; fi
cargo build --release --quiet
QIPU=target/release/qipu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rate() { # label db paths...
  local label=$1 db=$2; shift 2
  rm -f "$db" "$db"-wal "$db"-shm
  "$QIPU" import "$@" --db "$db" --json > "$tmp/out.json" || true
  python3 - "$label" "$tmp/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
print(f"{sys.argv[1]:<28} {r['games_read']:>7} games  {r['seconds']:7.2f} s  {r['games_per_second']:9.0f} games/s"
      f"  peak {r['peak_rss_bytes']/2**20:6.0f} MiB  db {r['db_bytes']/2**20:7.1f} MiB  rejected {r['rejected']}")
PY
}

ZIP="$SHARED/data/xiangqi/wukong/xqdb/xqdb/Hu_Ronghua_1391_UCI_games.pgn.zip"
# The zip is small (1,391 games): import it 3 times into fresh databases, report each run.
for i in 1 2 3; do rate "ICCS PGN (zip) run $i" "$tmp/iccs.db" "$ZIP"; done
rate "Big5 Chinese PGN (ccpd)" "$tmp/ccpd.db" "$SHARED/data/xiangqi/ccpd/Dataset/對局"
# Explorer lookups on the ccpd database (unfiltered explore of positions from stored games).
QIPU_BENCH_DB="$tmp/ccpd.db" cargo bench --quiet --bench store 2>/dev/null | grep explorer

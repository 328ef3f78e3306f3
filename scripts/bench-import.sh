#!/usr/bin/env bash
# Import throughput (games/s, median of 3 runs into fresh databases) for ICCS-coordinate PGN
# and for Big5 Chinese PGN, then explorer lookups/s.
#
#   ICCS PGN (zip)   wukong's Hu Ronghua file: one zip, 1,391 games (MIT)
#   ICCS PGN (file)  the ccpd games rewritten by `qipu convert --notation iccs` into one
#                    23 MB PGN under target/bench (26,174 games)
#   Big5 Chinese     the ccpd master games as published: 26,175 files of one game each
#                    (CC BY 4.0)
#   whole corpus     everything in ../shared/data (one run), then lookups on that database
#
# Needs ../shared (or $QIPU_SHARED). QIPU_BIN=path measures another build of qipu (the
# lookups are always those of this checkout's `cargo bench --bench store`). Numbers depend
# on the machine's load: run it when idle.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${QIPU_SHARED:-../shared}
if [ ! -d "$SHARED/data" ]; then echo "no $SHARED/data: nothing to measure"; exit 0; fi
if [ -z "${QIPU_BIN:-}" ]; then
  cargo build --release --quiet
fi
QIPU=${QIPU_BIN:-target/release/qipu}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# label runs db paths... : imports `runs` times into a fresh database, prints the median run.
rate() {
  local label=$1 runs=$2 db=$3; shift 3
  for i in $(seq "$runs"); do
    rm -f "$db" "$db"-wal "$db"-shm
    "$QIPU" import "$@" --db "$db" --json > "$tmp/out.$i.json" || true
  done
  python3 - "$label" "$tmp" "$runs" <<'PY'
import json, statistics, sys
label, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rs = [json.load(open(f"{tmp}/out.{i}.json")) for i in range(1, runs + 1)]
r = sorted(rs, key=lambda r: r["games_per_second"])[len(rs) // 2]
all_rates = " ".join(f"{x['games_per_second']:.0f}" for x in rs)
print(f"{label:<22} {r['games_read']:>6} games  {r['seconds']:6.2f} s  {r['games_per_second']:7.0f} games/s"
      f"  (runs: {all_rates})  peak {r['peak_rss_bytes']/2**20:4.0f} MiB  db {r['db_bytes']/2**20:6.1f} MiB"
      f"  rejected {r['rejected']}")
PY
}

ZIP="$SHARED/data/xiangqi/wukong/xqdb/xqdb/Hu_Ronghua_1391_UCI_games.pgn.zip"
CCPD="$SHARED/data/xiangqi/ccpd/Dataset/對局"
ICCS=target/bench/ccpd-iccs.pgn
mkdir -p target/bench
if [ ! -s "$ICCS" ]; then
  "$QIPU" convert "$CCPD" --notation iccs --out "$ICCS" 2>/dev/null || true
fi
du_mib() { du -sb "$@" | awk '{s+=$1} END {printf "%.1f MiB", s/1048576}'; }
echo "raw input: zip member 0.9 MiB, ICCS file $(du_mib "$ICCS"), ccpd $(du_mib "$CCPD"), all $(du_mib "$SHARED/data")"
rate "ICCS PGN (zip)" "$RUNS" "$tmp/zip.db" "$ZIP"
rate "ICCS PGN (file)" "$RUNS" "$tmp/iccs.db" "$ICCS"
rate "Big5 Chinese (ccpd)" "$RUNS" "$tmp/ccpd.db" "$CCPD"
rate "whole corpus" 1 "$tmp/all.db" "$SHARED/data"
# Explorer lookups: unfiltered explore of positions 0-20 plies into stored games.
for db in ccpd all; do
  echo -n "lookups on the $db database: "
  QIPU_BENCH_DB="$tmp/$db.db" cargo bench --quiet --bench store 2>/dev/null | grep explorer
done

#!/usr/bin/env bash
# qipu's main job on the bundled sample (data/): import → explore the start position → write an
# opening book and read it back. Everything it writes goes to target/sample/.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo build --release   (the first build compiles qipu and its dependencies: about 5-8 minutes on 2 cores; cargo shows its progress)"
cargo build --release
echo
qipu=target/release/qipu
out=target/sample
mkdir -p "$out"
rm -f "$out/sample.db" "$out/sample.db-wal" "$out/sample.db-shm"

echo "== qipu import data/ --db $out/sample.db"
$qipu import data/ --db "$out/sample.db"

echo
echo "== qipu explore --db $out/sample.db   (the start position)"
$qipu explore --db "$out/sample.db" --limit 8 --top-games 3

echo
echo "== qipu book --db $out/sample.db --format eleeye --out $out/BOOK.DAT"
$qipu book --db "$out/sample.db" --format eleeye --out "$out/BOOK.DAT"
$qipu book --db "$out/sample.db" --format obk --out "$out/sample.obk"
$qipu book --db "$out/sample.db" --format qipu --out "$out/sample.qbk"

echo
echo "== qipu probe --book $out/BOOK.DAT --moves h2e2   (what the book answers to the central cannon)"
$qipu probe --book "$out/BOOK.DAT" --moves h2e2

echo
echo "Next: qipu explore --db $out/sample.db --moves 炮二平五 马８进７   |   qipu serve --db $out/sample.db"

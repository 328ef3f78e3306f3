#!/usr/bin/env bash
# Proves that src/rules lifts into a crate of its own unchanged: copies it, as it is, into a
# scratch crate under target/rules-crate that has no dependencies and holds nothing else, then
# builds it and runs its unit and doc tests there. The scratch crate is a library named `qipu`
# holding only `pub mod rules`, so that the doc examples' `qipu::rules::…` paths stay valid.
# usage: scripts/check-rules-crate.sh   (exit non-zero if src/rules needs anything outside it)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/rules-crate
edition=$(sed -n 's/^edition *= *"\([0-9]*\)".*/\1/p' Cargo.toml | head -1)
rm -rf "$dir/src"
mkdir -p "$dir/src"
cp -r src/rules "$dir/src/rules"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "qipu"
version = "0.0.0"
edition = "$edition"
publish = false

[dependencies]

[workspace]
TOML
printf '%s\n' '//! The rules of qipu alone: a scratch crate made by scripts/check-rules-crate.sh.' \
  'pub mod rules;' > "$dir/src/lib.rs"
log="$dir/test.log"
if ! (cd "$dir" && CARGO_TARGET_DIR=target cargo test --release --offline) > "$log" 2>&1; then
  tail -40 "$log"
  echo "rules crate: src/rules does not build or pass its tests alone (above; $log)"
  exit 1
fi
grep -E '^test result' "$log"
echo "rules crate: src/rules builds and passes its unit and doc tests alone ($dir)"

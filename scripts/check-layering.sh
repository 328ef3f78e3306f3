#!/usr/bin/env bash
# The layer order of src/ as a table of forbidden imports, checked on the source text (the
# production part of each file: a unit-test module, from `#[cfg(test)]` on, may use anything).
#
#   rules     imports nothing of the crate (no `crate::` anywhere, tests and docs included:
#             it must lift into a crate of its own), and no I/O, SQL, threads or CLI crates
#   notation  rules only (no formats and up), and no I/O, SQL, threads or CLI crates
#   formats   not store, pipeline, explorer, book, web, cli
#   store     not pipeline, explorer, book, web, cli
#   book      not store, pipeline, explorer, web, cli
#   explorer  not pipeline, web, cli
#   web       not pipeline, cli
#   engine    rules, notation and the value types of formats (it speaks the UCI protocol)
#   analysis  not pipeline, explorer, book, web, cli
#   bulk      not explorer, book, web, cli (the Spark build's map and load, beside pipeline)
#   and no module outside src/rules reads the board's representation (`.sq`, `.occ`, `.kings`).
#
# Every `crate::NAME` path counts, including the names inside `use crate::{a::X, b}`.
# usage: scripts/check-layering.sh   (exit 1 and one line per violation if the order is broken)
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A forbidden=(
  [rules]="ANY"
  [notation]="formats store pipeline explorer book web cli"
  [formats]="store pipeline explorer book web cli"
  [store]="pipeline explorer book web cli"
  [book]="store pipeline explorer web cli"
  [explorer]="pipeline web cli"
  [web]="pipeline cli"
  [engine]="store pipeline explorer book web cli analysis"
  [analysis]="pipeline explorer book web cli"
  [bulk]="explorer book web cli"
)
io_crates='rusqlite|rayon|clap|std::fs|std::net|tiny_http|indicatif'

# Prints "file:line: module" for every crate module a file's production code names.
crate_paths() {
  perl -0777 -ne '
    my $text = $_;
    $text =~ s/#\[cfg\(test\)\].*//s;            # production code only
    $text =~ s{//[^\n]*}{}g;                      # comments (incl. doc comments)
    while ($text =~ /crate::(\{|\w+)/g) {
      my ($what, $at) = ($1, $-[0]);
      my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
      if ($what ne "{") { print "$ARGV:$line: $what\n"; next; }
      # a group: the names at brace depth 1
      my ($depth, $i, $name, $start) = (1, pos($text), "", 1);
      while ($depth > 0 && $i < length $text) {
        my $c = substr($text, $i++, 1);
        if ($c eq "{") { $depth++; }
        elsif ($c eq "}") { $depth--; }
        elsif ($depth == 1 && $c eq ",") { $start = 1; next; }
        if ($depth == 1 && $start && $c =~ /\w/) { $name .= $c; next; }
        if ($name ne "") { print "$ARGV:$line: $name\n"; $name = ""; }
        $start = 0 if $c !~ /\s/;
      }
    }
  ' "$@"
}

status=0
for layer in "${!forbidden[@]}"; do
  files=$(find "src/$layer" -name '*.rs' | sort)
  [ -n "$files" ] || continue
  # shellcheck disable=SC2086
  while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    module=${hit##*: }
    if [ "${forbidden[$layer]}" = ANY ] || [[ " ${forbidden[$layer]} " == *" $module "* ]]; then
      echo "layering: src/$layer may not use crate::$module: $hit"
      status=1
    fi
  done < <(crate_paths $files)
done

for layer in rules notation; do
  if find "src/$layer" -name '*.rs' -exec awk '/#\[cfg\(test\)\]/ {exit} {print FILENAME ":" FNR ": " $0}' {} \; \
      | grep -E "$io_crates"; then
    echo "layering: src/$layer may not use I/O, SQL, thread or CLI crates (above)"
    status=1
  fi
done

# rules/ must lift into a crate of its own unchanged: not even a doc link or a test names crate::
if grep -rnE 'crate::' src/rules; then
  echo "layering: src/rules names crate:: (above); use super:: paths"
  status=1
fi

if find src -name '*.rs' -not -path 'src/rules/*' -exec grep -nHE '\.(sq|occ|kings)\b' {} + ; then
  echo "layering: the board's representation is read outside src/rules (above)"
  status=1
fi

if [ "$status" = 0 ]; then echo "layering: ok"; fi
exit "$status"

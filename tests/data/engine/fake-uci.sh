#!/bin/sh
# A fake UCI engine for the failure cases a real engine does not produce (tests/analyse.rs).
# It knows no rules: it answers every `go` with the move it was asked to search
# (`searchmoves M`), else the a-file chariot's step forward (a1a2 for the first player,
# a10a9 for the second), at depth 1 with score 0.
# QIPU_FAKE_MODE=hang|crash|garbage makes it misbehave at `go` in every position whose
# `position` command contains QIPU_FAKE_ON: hang = sleep (in this very process, so that
# killing it ends the sleep), crash = exit, garbage = a bestmove that is no move.
# QIPU_FAKE_PLAY=shuttle (tests/book_extend.rs) makes the a-file chariots shuttle instead:
# each side's a-chariot steps forward from its corner and back to it (a1a2 / a2a1 for the
# first player, a10a9 / a9a10 for the second), as the FEN's back ranks say.
# QIPU_FAKE_LOG=FILE appends the `position` line of every search answered to FILE.
mode="${QIPU_FAKE_MODE:-ok}"
on="${QIPU_FAKE_ON:-}"
pos=""
while IFS= read -r line; do
  case "$line" in
    uci)
      echo "id name Fake UCI"
      echo "option name UCI_Variant type combo default xiangqi var xiangqi var janggi"
      echo "option name Hash type spin default 1 min 1 max 16"
      echo "option name Threads type spin default 1 min 1 max 1"
      echo "uciok" ;;
    isready) echo "readyok" ;;
    position*) pos="$line" ;;
    go*)
      case "$line" in
        *searchmoves*) mv="${line##* }" ;;
        *)
          case "$pos" in
            *" b - "*) mv="a10a9" ;;
            *) mv="a1a2" ;;
          esac
          if [ "${QIPU_FAKE_PLAY:-}" = shuttle ]; then
            set -- $pos
            board="$3"
            case "$pos" in
              *" b - "*) case "${board%%/*}" in r*) mv="a10a9" ;; *) mv="a9a10" ;; esac ;;
              *) case "${board##*/}" in R*) mv="a1a2" ;; *) mv="a2a1" ;; esac ;;
            esac
          fi ;;
      esac
      hit=no
      if [ -n "$on" ]; then
        case "$pos" in *"$on"*) hit=yes ;; esac
      fi
      if [ "$hit" = yes ]; then
        case "$mode" in
          hang) exec sleep 600 ;;
          crash) exit 3 ;;
          garbage) echo "info depth 1 score cp 7 pv $mv"; echo "bestmove zz99"; continue ;;
        esac
      fi
      if [ -n "${QIPU_FAKE_LOG:-}" ]; then echo "$pos" >> "$QIPU_FAKE_LOG"; fi
      echo "info depth 1 seldepth 1 score cp 0 nodes 1 time 0 pv $mv"
      echo "bestmove $mv" ;;
    quit) exit 0 ;;
  esac
done

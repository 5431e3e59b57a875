#!/usr/bin/env bash
# A board silent longer than the search bridges never loses the rest of the
# game (issue 28): silences of 8, 10, 15 and 30 plies cut into the sample
# feeds at several places (tests/tools/cut-gaps), each replayed and checked
# by tests/tools/check-gaps against the uncut feed's game: every ply before
# the silence as it was, then either the silence bridged with every ply
# right (or inside a stretch marked ambiguous), or one gap ply where the
# board stood next, [%missing N FEN] in the PGN, the gap named on stderr,
# and every later ply as played. Plus the arbiter's cases of issue 28.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
CHECK="$SRC/tests/tools/check-gaps"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run FEED CUT...: every cut into a copy of its own, FEED replayed once; the
# verdicts go to $tmp/verdicts.FEED.N (feeds are checked two at a time).
runs=0
run() {
  local feed=$1; shift
  runs=$((runs + 1))
  "$CHECK" --each "$BIN" "$FEEDS/$feed.feed" "$@" >"$tmp/verdicts.$feed.$runs" 2>&1 &
  [ $((runs % 2)) -eq 0 ] && wait
}

# the three the arbiter found: 30 of 56, 40 of 71, 30 of 63 plies before
run p01 DGT23164:30:10
run p05 "$(awk '$3=="pos"{print $2; exit}' "$FEEDS/p05.feed"):40:8"
run p06 "$(awk '$3=="pos"{print $2; exit}' "$FEEDS/p06.feed"):30:9"
# every one-board sample, silences at several places
n=3
while IFS=$'\t' read -r feed _ board games plies _; do
  case "$feed" in '#'*|'') continue ;; esac
  [ "$games" = 1 ] || continue
  cuts=()
  for spec in 12:8 31:8 20:10 37:10 25:15 14:30; do
    at=${spec%:*} len=${spec#*:}
    [ $((at + len + 2)) -lt "$plies" ] || continue
    cuts+=("$board:$at:$len")
  done
  [ ${#cuts[@]} -gt 0 ] && { n=$((n + ${#cuts[@]})); run "$feed" "${cuts[@]}"; }
done < "$FEEDS/index.tsv"
wait
oks=$(cat "$tmp"/verdicts.* | grep -c '^ok ')
if [ "$oks" -ne "$n" ] || grep -qv '^ok ' "$tmp"/verdicts.*; then
  grep -hv '^ok ' "$tmp"/verdicts.* | sed 's/^/FAIL /'
  echo "FAIL: $oks of $n silences passed"; fail=1
fi
# the feeds' clocks add 30 s a move: the presses count most gaps exactly
exact=$(cat "$tmp"/verdicts.* | grep -c '(exactly ')
gaps=$(cat "$tmp"/verdicts.* | grep -c ': gap of ')
echo "$exact of $gaps gaps counted exactly by the clock"

# The words of the report: board, game, ply, and how many: p01's clock
# (90+30) counts the 10 plies of this silence exactly.
python3 "$SRC/tests/tools/cut-gaps" "$BIN" "$FEEDS/p01.feed" "$tmp/p01.feed" DGT23164:30:10
"$BIN" replay "$tmp/p01.feed" >"$tmp/p01.pgn" 2>"$tmp/p01.err" || { echo "FAIL: replay p01 cut"; fail=1; }
grep -qE '^chessrelay replay: board DGT23164 game 1: gap after ply 30: 10 plies not seen$' "$tmp/p01.err" \
  || { echo "FAIL: the gap is not named: $(cat "$tmp/p01.err")"; fail=1; }
tr '\n' ' ' <"$tmp/p01.pgn" | grep -qE 'gap: 10 plies not seen \[%missing 10 [^]]+ w - - 0 21\]' \
  || { echo "FAIL: the PGN does not mark the gap"; cat "$tmp/p01.pgn"; fail=1; }
# read back by chessrelay's own reader, the gap and the moves after it kept
"$BIN" notation "$tmp/p01.pgn" >"$tmp/back.pgn" || { echo "FAIL: the gap PGN does not read back"; fail=1; }
cmp -s <("$BIN" notation "$tmp/back.pgn") "$tmp/back.pgn" || { echo "FAIL: gap PGN round trip not stable"; fail=1; }
grep -q '%missing' "$tmp/back.pgn" || { echo "FAIL: gap lost on reading back"; fail=1; }

echo "$n silences checked"
[ $fail = 0 ] && echo "replay gaps ok"
exit $fail

#!/usr/bin/env bash
# Occupancy snapshots through the inference (cr/occupancy.h): every sample
# feed with its pieces replaced by '?' (what an occupancy-only or
# uncalibrated board reports) must replay to its .expected games, except
# the feeds below, whose games an occupancy board cannot show:
#   p05, p16: an under-promotion (the new piece is named a queen);
#   p18, pm01: a capture whose victim left the board in the same motion as
#   the capturer came, by a piece that had other captures (never guessed).
# For those the test checks they still give every move before that one.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
CHECK="$SRC/tests/tools/check-feeds"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A KNOWN=([p05]="ply 57: want exf8=N" [p16]="ply 56: want axb1=N" [p18]="ply 37: want Qxd5+"
                  [pm01]="ply 40: want Bxg5")
mkdir -p "$tmp/ok" "$tmp/known"
for f in "$FEEDS"/*.feed; do
  n=$(basename "$f" .feed)
  dir=ok; [ -n "${KNOWN[$n]:-}" ] && dir=known
  # pos lines: every piece letter becomes '?'
  awk '$3 == "pos" { gsub(/[pnbrqkPNBRQK]/, "?", $4) } { print }' "$f" > "$tmp/$dir/$n.feed"
  grep -q ' pos .*?' "$tmp/$dir/$n.feed" || { echo "FAIL $n: no occupancy lines made"; exit 1; }
  cp "$FEEDS/$n.expected" "$tmp/$dir/"
done
fail=0
res=$(CMD="$BIN replay {feed}" JOBS=2 VERBOSE=1 "$CHECK" "$tmp/ok")
last=$(printf '%s\n' "$res" | tail -n 1)
echo "occupancy: $last"
case "$last" in *" 0 failed") ;; *) printf '%s\n' "$res" | grep -E '^FAIL' | head -20; fail=1 ;; esac
res=$(CMD="$BIN replay {feed}" JOBS=2 VERBOSE=1 "$CHECK" "$tmp/known")
for n in "${!KNOWN[@]}"; do
  if printf '%s\n' "$res" | grep -q "FAIL $n: .*${KNOWN[$n]}"; then
    echo "occupancy: $n stops where expected (${KNOWN[$n]})"
  else
    echo "FAIL $n: expected to stop at '${KNOWN[$n]}'"; printf '%s\n' "$res" | grep "$n" | head -3; fail=1
  fi
done
[ $fail -eq 0 ] && echo "occupancy feeds: ok"
exit $fail

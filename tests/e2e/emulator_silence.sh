#!/usr/bin/env bash
# End to end with a board that goes quiet: `chessrelay emulate` plays each
# sample feed (and each feed of tests/data/feeds-gaps) at --speed 1000 on a
# pty WITHOUT --link, so that the feed's disconnect..connect stretches mute
# the board while moves go on; `chessrelay record --serial` records it, and
# `chessrelay replay` of the recording must give the games of the .expected
# file. A mute outlasts the link's silent threshold (3 s) but not its lost
# one (6 s): the recording must hold disconnect/connect lines for it, and the
# inference must take up the game after it, however many plies ahead. Where
# the board saw the moves made during a mute, its own log replays them.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR.
#   E2E_FEEDS="p03 g13-24-8" limits the feeds, E2E_SPEED the speed (1000),
#   E2E_PART=samples|gaps|all the feeds (samples: tests/data/feeds; gaps:
#   feeds-gaps and the muted ones, ctest's e2e_emulator_silence_gaps),
#   E2E_KEEP=1 keeps the files.
# Timing: gaps between events are cut to 800 feed ms (the settle time is
# 300), a mute lasts 4 s of real time (the link's thresholds are real time:
# 4000 x SPEED feed ms). Emulator and recorder share the feed clock
# (--clock, docs/boards.md), so load does not change what is recorded; at
# speed 1000 every step is due at once and the run goes in lockstep, each
# step as soon as the recorder handled the last: waiting more than
# computing, four feeds play side by side.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
CHECK="$SRC/tests/tools/check-feeds"
SPEED="${E2E_SPEED:-1000}"
# A mute lasts 4 s of real time, whatever the speed.
MUTE_FEED_MS=$((4000 * SPEED))
tmp=$(mktemp -d)
. "$(dirname "$0")/common.bash"
if [ -n "${E2E_KEEP:-}" ]; then
  echo "files in $tmp"; trap reap_children EXIT
else
  trap 'reap_children; rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp/out"
bad() { echo "FAIL $1: $2"; touch "$tmp/FAILED.$1"; }

# play name feed expected [board]
play() {
  local name=$1 feed=$2 expected=$3 board=${4:-}
  local w="$tmp/$name" extra=()
  mkdir -p "$w"
  [ -n "$board" ] && extra+=(--board "$board")
  # the board's own timeline: short gaps, long mutes
  awk -v want="$board" -v mute="$MUTE_FEED_MS" '
    /^#/ || NF < 3 { next }
    want != "" && $2 != want { next }
    { gap = n ? $1 - last : 0; last = $1; n++
      if (gap > 800) gap = 800
      if ($3 == "connect" && muted) gap = mute
      if ($3 == "disconnect") muted = 1
      if ($3 == "connect") muted = 0
      t += gap; $1 = t; print }' "$feed" > "$w/in.feed"
  "$BIN" emulate "$w/in.feed" --pty --speed "$SPEED" --clock "$w/clock" "${extra[@]}" \
    >"$w/emu.out" 2>"$w/emu.err" &
  local emu=$!
  for _ in $(seq 100); do [ -s "$w/emu.out" ] && break; sleep 0.05; done
  local dev
  dev=$(head -n 1 "$w/emu.out")
  if [ ! -e "$dev" ]; then
    bad "$name" "emulate did not print its device"; cat "$w/emu.err"; kill "$emu" 2>/dev/null; return
  fi
  "$BIN" record --serial "$dev" --out "$w/rec.feed" --clock "$w/clock" --quiet --duration 300000 \
    2>"$w/rec.err" &
  local rec=$!
  emulation_done "$name" "$emu" "$rec" "$w/emu.err" "$w/rec.err"
  # The lockstep given up: what was recorded then depends on the load.
  grep -q 'playing on without it' "$w/emu.err" && bad "$name" "$(grep -h 'without it' "$w/emu.err")"
  # every mute of the feed is a disconnect..connect in the recording
  local mutes recorded
  mutes=$(grep -c ' disconnect$' "$w/in.feed")
  recorded=$(grep -c ' disconnect$' "$w/rec.feed")
  # (the recorder also sees the board go away at the end)
  [ "$recorded" -ge "$mutes" ] || bad "$name" "$mutes mutes, $recorded disconnects recorded"
  cp "$w/rec.feed" "$tmp/out/$name.feed"
  if [ -n "$board" ]; then
    grep "^$board	" "$expected" | cut -f2 > "$tmp/out/$name.expected"
  else
    cp "$expected" "$tmp/out/$name.expected"
  fi
}

want() { [ -z "${E2E_FEEDS:-}" ] || [[ " $E2E_FEEDS " == *" $1 "* ]]; }

# Two ctest tests, side by side: the samples (this script) and the feeds
# of feeds-gaps with the muted ones (emulator_silence_gaps.sh sets E2E_PART).
PART="${E2E_PART:-samples}"
case "$PART" in
  samples) globs=("$SRC"/tests/data/feeds/p[0-9]*.feed) ;;
  gaps) globs=("$SRC"/tests/data/feeds-gaps/*.feed) ;;
  all) globs=("$SRC"/tests/data/feeds/p[0-9]*.feed "$SRC"/tests/data/feeds-gaps/*.feed) ;;
  *) echo "FAIL: E2E_PART: samples, gaps or all"; exit 1 ;;
esac
list=()
for f in "${globs[@]}"; do
  name=$(basename "$f" .feed)
  want "$name" && list+=("$f")
done
# Muted windows over moves the board saw (cut-gaps --keep): the board's own
# log (EE_MOVES) read after the reconnection replays them, so those plies
# are observed: the games come out exact and no more plies are marked
# reconstructed than in the sample itself.
muted=()
for spec in "p01 DGT23164:20:6 DGT23164:40:8" "p07 B675:24:7" "p10 Board_156:30:5 Board_156:60:8"; do
  set -- $spec
  [ "$PART" = samples ] && break
  want "m$1" || continue
  src="$SRC/tests/data/feeds/$1.feed"
  mkdir -p "$tmp/muted"
  shift
  "$SRC/tests/tools/cut-gaps" --keep "$BIN" "$src" "$tmp/muted/m$(basename "$src" .feed).feed" "$@" ||
    bad "m$(basename "$src" .feed)" "cut-gaps failed"
  cp "${src%.feed}.expected" "$tmp/muted/m$(basename "$src" .feed).expected"
  muted+=("$tmp/muted/m$(basename "$src" .feed).feed")
done
list+=("${muted[@]}")

# one board of the eight-board sample
pm="$SRC/tests/data/feeds/pm01"
pmboard=$(head -n 1 "$pm.expected" | cut -f1)

if [ ${#list[@]} -eq 0 ] && { [ "$PART" = gaps ] || ! want pm01; }; then
  echo "FAIL: E2E_FEEDS=${E2E_FEEDS:-} leaves no feed of part $PART to play"; exit 1
fi
running=0
for f in "${list[@]}"; do
  play "$(basename "$f" .feed)" "$f" "${f%.feed}.expected" &
  running=$((running + 1))
  if [ $running -ge 4 ]; then wait -n; running=$((running - 1)); fi
done
[ "$PART" != gaps ] && want pm01 && play pm01 "$pm.feed" "$pm.expected" "$pmboard" &
wait

fail=0
for f in "$tmp"/FAILED.*; do [ -e "$f" ] && fail=1; done
res=$(CMD="$BIN replay {feed}" JOBS=2 VERBOSE=1 "$CHECK" "$tmp/out")
last=$(printf '%s\n' "$res" | tail -n 1)
echo "silence: $last"
case "$last" in
  *" 0 failed") ;;
  *) printf '%s\n' "$res" | grep -E '^FAIL' | head -20; fail=1
     # what emulator and recorder said about the feeds that failed
     for n in $(printf '%s\n' "$res" | sed -n 's/^FAIL \([^:]*\):.*/\1/p' | sort -u); do
       echo "--- $n: emulate"; tail -n 5 "$tmp/$n/emu.err" 2>/dev/null
       echo "--- $n: record"; tail -n 10 "$tmp/$n/rec.err" 2>/dev/null
     done ;;
esac
for f in "${muted[@]}"; do
  name=$(basename "$f" .feed)
  [ -s "$tmp/out/$name.feed" ] || continue
  grep -q ' raw 8f' "$tmp/out/$name.feed" || { echo "FAIL $name: the board's log was not read"; fail=1; }
  "$BIN" replay "$tmp/out/$name.feed" > "$tmp/$name.got.pgn"
  "$BIN" replay "$SRC/tests/data/feeds/${name#m}.feed" > "$tmp/$name.sample.pgn"
  out=$("$SRC/tests/tools/check-marks" "$tmp/$name.got.pgn" --like "$tmp/$name.sample.pgn") ||
    { echo "FAIL $name: the muted plies were guessed, not replayed: $out"; fail=1; }
done
[ $fail -eq 0 ] && echo "emulator silence e2e: ok"
exit $fail

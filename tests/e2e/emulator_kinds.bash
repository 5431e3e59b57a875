# Sourced by tests/e2e/emulator_millennium.sh, emulator_millennium_faults.sh,
# emulator_certabo.sh, emulator_certabo_faults.sh and emulator_certabo_rounds.sh
# (not a test itself: ctest runs *.sh; one test per part, so that ctest runs
# the parts side by side). End to end through the other kinds of board
# (docs/boards.md): `chessrelay
# emulate --kind millennium|certabo` plays every sample feed on a pty,
# `chessrelay record --serial` records it with the kind found by probing
# (no --kind given), and `chessrelay replay` of the recording must give the
# games of the .expected file; a few feeds also with faults injected (stray
# bytes, dropped bytes -> frames dropped and resynchronised, unplug/replug).
# Certabo boards are read with the table of RFIDs their emulator writes
# (--calibration-out) into the recorder's state folder (certabo/ID.cal);
# also with the table `chessrelay calibrate` learns, without any table, and
# as occupancy-only boards (--occupancy), whose '?' squares replay names.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR.
#   E2E_FEEDS="p03 p13" chooses the feeds (default: the set below; all:
#   every sample feed), E2E_SPEED changes the speed of the clean runs (1000),
#   E2E_FAULT_SPEED that of the runs with faults (Certabo 1000, Millennium 10),
#   E2E_KEEP=1 keeps the files.
# Timing as in emulator_record.sh: long waits cut to 1 s, the emulator's
# feed clock shared with the recorder (--clock), so that a loaded machine
# slows the round trip down without changing the recording (a late Certabo
# line or read once recorded a castling as Rf1); a Certabo line every 200
# feed ms. A clean run records the same at any speed: at 1000 every step is
# due at once, and the run goes in lockstep, each step as soon as the
# recorder has handled the last (a Certabo feed's 1300 to 3000 lines take
# a few seconds on a quiet machine, more when the scheduler is slow to wake
# the two: such runs wait more than they compute, so four go side by side).
# The runs with faults: a Certabo board's host reads around spoilt lines by
# its vote, and waits out an unplug with the timeline held, so they play in
# lockstep at 1000 too; a Millennium board's at 10, since its host finds its
# way back from a spoilt frame in real time (a poll), and at 1000 a position
# went by meanwhile (a board that lost a byte recorded g5 as b5).
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
CHECK="$SRC/tests/tools/check-feeds"
SPEED="${E2E_SPEED:-1000}"
FAULT_SPEED="${E2E_FAULT_SPEED:-}"   # default per kind: run_one
# A Certabo line every 200 feed ms (20 ms of real time at speed 10), at any speed.
LINE_MS=200
tmp=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
if [ -n "${E2E_KEEP:-}" ]; then
  echo "files in $tmp"; trap reap_children EXIT
else
  trap 'reap_children; rm -rf "$tmp"' EXIT
fi
fail=0
bad() { echo "FAIL $1: $2"; touch "$tmp/FAILED.$1"; }

[ -e "$CHECK" ] || { echo "FAIL: $CHECK is missing"; exit 1; }

# run_one kind name feed faults seed [board]: records into $tmp/<kind>/out
run_one() {
  local kind=$1 name=$2 feed=$3 faults=$4 seed=$5 board=${6:-}
  local w="$tmp/$kind"
  mkdir -p "$w/out" "$w/state/certabo"
  local dev="$w/$name.dev" extra=() speed=$SPEED fault_speed=1000
  [ "$kind" = millennium ] && fault_speed=10
  [ -n "$faults" ] && extra+=(--faults "$faults" --seed "$seed") && speed=${FAULT_SPEED:-$fault_speed}
  [ -n "$board" ] && extra+=(--board "$board")
  # The board's id is its device's name: the table goes where the recorder looks.
  [ "$kind" = certabo ] && [ -z "${NO_CAL_OUT:-}" ] &&
    extra+=(--calibration-out "$w/state/certabo/$name.dev.cal")
  [ -n "${OCCUPANCY:-}" ] && extra+=(--occupancy)
  [ -n "${SEVEN_BIT:-}" ] && extra+=(--seven-bit)
  "$BIN" emulate "$FEEDS/$feed.feed" --pty --kind "$kind" --link "$dev" --speed "$speed" \
    --max-gap 1000 --clock "$w/$name.clock" --line-ms "$LINE_MS" "${extra[@]}" \
    >"$w/$name.emu" 2>"$w/$name.emu.err" &
  local emu=$!
  for _ in $(seq 100); do [ -s "$w/$name.emu" ] && break; sleep 0.05; done
  if [ "$(head -n 1 "$w/$name.emu")" != "$dev" ]; then
    bad "$name" "emulate did not print its device path"; cat "$w/$name.emu.err"
    kill "$emu" 2>/dev/null; return
  fi
  "$BIN" record --serial "$dev" --out "$w/$name.feed" --clock "$w/$name.clock" --state "$w/state" \
    --duration 300000 2>"$w/$name.rec.err" &
  local rec=$!
  emulation_done "$name" "$emu" "$rec" "$w/$name.emu.err" "$w/$name.rec.err"
  # The lockstep given up: what was recorded then depends on the load.
  grep -q 'playing on without it' "$w/$name.emu.err" && bad "$name" "$(grep -h 'without it' "$w/$name.emu.err")"
  grep -q "active ($kind)" "$w/$name.rec.err" || bad "$name" "the recorder did not find a $kind board"
  grep -q ' raw ' "$w/$name.feed" && bad "$name" "raw lines are DGT bytes only"
  grep -q ' pos ' "$w/$name.feed" || bad "$name" "no pos lines recorded"
  cp "$w/$name.feed" "$w/out/$name.feed"
  if [ -n "$board" ]; then
    grep "^$board	" "$FEEDS/$feed.expected" | cut -f2 > "$w/out/$name.expected"
  else
    cp "$FEEDS/$feed.expected" "$w/out/$name.expected"
  fi
}

check_kind() {
  local kind=$1 status=0 res last
  res=$(CMD="$BIN replay {feed}" JOBS=2 VERBOSE=1 "$CHECK" "$tmp/$kind/out")
  last=$(printf '%s\n' "$res" | tail -n 1)
  echo "$kind: $last"
  case "$last" in
    *" 0 failed") ;;
    *) printf '%s\n' "$res" | grep -E '^FAIL' | head -20; status=1 ;;
  esac
  for f in "$tmp"/FAILED.*; do
    [ -e "$f" ] && { echo "failed: $(basename "$f" | sed 's/^FAILED\.//')"; rm -f "$f"; status=1; }
  done
  return $status
}

# Clean runs by default: one feed of each kind of noise the codecs must carry
# (promotions, two games with a reset, a board turned round, missed
# snapshots and an unplug); the fault runs and Certabo's rounds below always
# run. E2E_FEEDS=all plays every sample feed clean; a list of feeds limits
# every run to those.
CLEAN_DEFAULT="p05 p10 p13 p18"
want() { [ -z "${E2E_FEEDS:-}" ] || [ "$E2E_FEEDS" = all ] || [[ " $E2E_FEEDS " == *" $1 "* ]]; }
want_clean() {
  case "${E2E_FEEDS:-}" in
    "") [[ " $CLEAN_DEFAULT " == *" $1 "* ]] ;;
    *) want "$1" ;;
  esac
}

# Without a table (uncalibrated) and on an occupancy-only board the
# recording holds '?' squares, which replay names from the start position
# and the legal moves (cr/occupancy.h); p13 stands turned round. Not every
# feed can pass this way: the board's vote over 20 ms lines (200 ms of feed
# time at speed 10) swallows a victim lifted for less than that, and a
# capture by a piece that had several is then never guessed (p03 stops at
# ply 34 Nxd3, p06 at ply 25 dxc6; docs/inference.md).
occupancy_round() {
  local n
  for n in p02 p13; do
    want "$n" && { NO_CAL_OUT=1 run_one certabo "uncalibrated_$n" "$n" "" 0 &&
      { grep -q ' pos .*?' "$tmp/certabo/uncalibrated_$n.feed" || bad "uncalibrated_$n" "no '?' squares recorded"; }; } &
  done
  for n in p01 p09; do
    want "$n" && { OCCUPANCY=1 NO_CAL_OUT=1 run_one certabo "occupancy_$n" "$n" "" 0 &&
      { grep -q ' pos .*?' "$tmp/certabo/occupancy_$n.feed" || bad "occupancy_$n" "no '?' squares recorded"; }; } &
  done
  wait
}

# `chessrelay calibrate` learns the table from the emulated board showing the
# start position with spare queens on d3 and d6; p03 recorded with that
# table (not the emulator's own) must give its games.
calibrate_round() {
  local w="$tmp/certabo" st="$tmp/calstate"
  mkdir -p "$w/state/certabo"
  printf '0 cal pos rnbqkbnr/pppppppp/3q4/8/8/3Q4/PPPPPPPP/RNBQKBNR\n60000 cal pos rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\n' > "$tmp/cal.feed"
  "$BIN" emulate "$tmp/cal.feed" --pty --kind certabo --link "$tmp/cal.dev" >"$tmp/cal.emu" 2>/dev/null &
  local emu=$!
  for _ in $(seq 100); do [ -s "$tmp/cal.emu" ] && break; sleep 0.05; done
  local out rc
  out=$("$BIN" calibrate --serial "$tmp/cal.dev" --state "$st" --timeout 20000 2>"$tmp/cal.err"); rc=$?
  kill "$emu" 2>/dev/null; wait "$emu" 2>/dev/null
  if [ $rc -ne 0 ] || [ "$out" != "$st/certabo/cal.dev.cal	34 pieces" ]; then
    echo "FAIL calibrate: exit $rc, output '$out'"; cat "$tmp/cal.err"; return 1
  fi
  [ "$(grep -c -v '^#' "$st/certabo/cal.dev.cal")" = 34 ] || { echo "FAIL calibrate: not 34 entries"; return 1; }
  "$BIN" calibrate --serial /nonexistent/ttyUSB9 --state "$st" >/dev/null 2>&1 &&
    { echo "FAIL calibrate: a missing device must fail"; return 1; }
  cp "$st/certabo/cal.dev.cal" "$w/state/certabo/learned_p03.dev.cal"
  NO_CAL_OUT=1 run_one certabo learned_p03 p03 "" 0
  echo "calibrate: ok"
}

# run_kind KIND PART: one ctest test each (emulator_KIND.sh, _faults.sh,
# _rounds.sh), so that ctest runs the parts side by side.
#   clean: `boards --serial` finds the kind; the clean runs (and Millennium's
#     7-bit board);
#   faults: the runs with faults (and a 7-bit Millennium board losing bytes);
#   rounds: Certabo's calibration, uncalibrated and occupancy-only rounds.
run_kind() {
  local kind=$1 part=$2
  case "$part" in
    clean) clean_part "$kind" ;;
    faults) faults_part "$kind" ;;
    rounds) # side by side (lockstep runs), failures as FAILED.* markers
            [ "$kind" = certabo ] && want p03 && { calibrate_round || bad calibrate "see above"; } &
            [ "$kind" = certabo ] && occupancy_round
            wait ;;
    *) echo "FAIL: run_kind: no part '$part'"; return 1 ;;
  esac
  if [ -d "$tmp/$kind/out" ]; then
    check_kind "$kind" || fail=1
  else
    echo "FAIL $kind $part: no feed was recorded"; fail=1
  fi
  [ $fail -eq 0 ] && echo "emulator $kind $part e2e: ok"
  return $fail
}

clean_part() {
  local kind=$1 out rc bemu
  # `boards --serial` finds the kind by probing and names the board by its device.
  "$BIN" emulate "$FEEDS/p03.feed" --pty --kind "$kind" --link "$tmp/boards.dev" >"$tmp/boards.emu" 2>/dev/null &
  bemu=$!
  for _ in $(seq 100); do [ -s "$tmp/boards.emu" ] && break; sleep 0.05; done
  out=$("$BIN" boards --serial "$tmp/boards.dev" --timeout 8000 2>&1); rc=$?
  kill "$bemu" 2>/dev/null; wait "$bemu" 2>/dev/null
  case "$out" in
    "serial:$tmp/boards.dev	boards.dev	$kind") echo "boards ($kind): ok" ;;
    *) echo "FAIL boards --serial ($kind): exit $rc, output '$out'"; fail=1 ;;
  esac

  # The clean runs (every sample feed with E2E_FEEDS=all), four at a time:
  # in lockstep with their recorders they wait on each other more than they
  # use a core.
  local running=0 f
  for f in $(cd "$FEEDS" && ls ./*.feed | sed 's|^\./||; s|\.feed$||'); do
    want_clean "$f" || continue
    if [ "$f" = pm01 ]; then run_one "$kind" "clean_$f" "$f" "" 0 7 & else run_one "$kind" "clean_$f" "$f" "" 0 & fi
    running=$((running + 1))
    if [ $running -ge 4 ]; then wait -n; running=$((running - 1)); fi
  done
  wait
  # A Millennium board that sends plain 7-bit ASCII (no parity bit), as
  # Bluetooth bridges and several firmwares do: found by probing and read.
  [ "$kind" = millennium ] && want p05 && SEVEN_BIT=1 run_one "$kind" seven_bit_p05 p05 "" 0
}

faults_part() {
  local kind=$1
  want p08 && run_one "$kind" garbage_p08 p08 garbage 1 &
  want p16 && run_one "$kind" drop_p16 p16 drop 2 &
  wait
  want p01 && run_one "$kind" disconnect_p01 p01 disconnect 3 &
  want p13 && run_one "$kind" faults_p13 p13 garbage,drop,disconnect 4 &
  wait
  [ "$kind" = millennium ] && want p16 && SEVEN_BIT=1 run_one "$kind" seven_bit_drop_p16 p16 drop 5
}

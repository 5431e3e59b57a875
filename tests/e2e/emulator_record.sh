#!/usr/bin/env bash
# End to end through the board drivers: `chessrelay emulate` plays a sample
# feed as a DGT board on a pty, `chessrelay record --serial` records it into
# a new feed (raw + decoded lines), and `chessrelay replay` of that recording
# must give the games of the .expected file; also with faults injected
# (stray bytes, dropped bytes -> resync + re-dump, unplug/replug of the pty),
# and with the decoded lines removed (replay decodes the raw lines alone).
# The runs with faults are a ctest test of their own (emulator_record_faults.sh).
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR.
#   E2E_FEEDS="p03 p13" limits the feeds, E2E_SPEED changes the speed of
#   the clean runs (1000), E2E_FAULT_SPEED that of the runs with faults (10),
#   E2E_PART=clean|faults|all the runs (clean), E2E_KEEP=1 keeps the files.
# Timing: a recorder stamping bytes when it reads them would turn a
# scheduling delay of d ms into d x SPEED ms of feed time, against the
# inference's 300 ms settle time. Emulator and recorder share the emulator's
# feed clock instead (--clock, docs/boards.md): the recorder stamps with the
# feed time each step was sent at, and the emulator takes no step before the
# recorder has handled what was sent, so load slows the run down but does not
# change the recording. Long waits are cut to 1 s (--max-gap) to keep the
# run short. A clean run records the same at any speed, so it plays at 1000,
# where every step is due at once: lockstep, each step as soon as the
# recorder has handled the last. The runs with faults play at 10: the host
# finds its way back from a resync or an unplug partly in real time (a dump
# asked for after 150 ms without the rest of a message, a reopen); at 1000,
# on a machine loaded to 50 runnable tasks, pm01 board 7 recorded a
# castling as Rc1.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
CHECK="$SRC/tests/tools/check-feeds"
SPEED="${E2E_SPEED:-1000}"
FAULT_SPEED="${E2E_FAULT_SPEED:-10}"
tmp=$(mktemp -d)
# E2E_KEEP=1 keeps the recordings and logs for a look.
. "$(dirname "$0")/common.bash"
if [ -n "${E2E_KEEP:-}" ]; then
  echo "files in $tmp"; trap reap_children EXIT
else
  trap 'reap_children; rm -rf "$tmp"' EXIT
fi
fail=0
# run_one runs in background subshells: failures are marker files.
bad() { echo "FAIL $1: $2"; touch "$tmp/FAILED.$1"; }

for need in "$FEEDS/p03.feed" "$CHECK"; do
  [ -e "$need" ] || { echo "FAIL: $need is missing"; exit 1; }
done

# round name feed faults seed [board]: records into $tmp/<round>/{out,rawonly}
run_one() {
  local round=$1 name=$2 feed=$3 faults=$4 seed=$5 board=${6:-}
  local speed=$SPEED
  [ -n "$faults" ] && speed=$FAULT_SPEED
  local w="$tmp/$round"
  mkdir -p "$w/out" "$w/rawonly"
  local dev="$w/$name.dev" extra=()
  [ -n "$faults" ] && extra+=(--faults "$faults" --seed "$seed")
  [ -n "$board" ] && extra+=(--board "$board")
  "$BIN" emulate "$FEEDS/$feed.feed" --pty --link "$dev" --speed "$speed" --max-gap 1000 \
    --clock "$w/$name.clock" "${extra[@]}" >"$w/$name.emu" 2>"$w/$name.emu.err" &
  local emu=$!
  for _ in $(seq 100); do [ -s "$w/$name.emu" ] && break; sleep 0.05; done
  if [ "$(head -n 1 "$w/$name.emu")" != "$dev" ]; then
    bad "$name" "emulate did not print its device path"; cat "$w/$name.emu.err"
    kill "$emu" 2>/dev/null; return
  fi
  # --duration: never outlive the test, whatever happens to this script.
  "$BIN" record --serial "$dev" --out "$w/$name.feed" --clock "$w/$name.clock" --quiet \
    --duration 300000 2>"$w/$name.rec.err" &
  local rec=$!
  emulation_done "$name" "$emu" "$rec" "$w/$name.emu.err" "$w/$name.rec.err"
  # The lockstep given up: what was recorded then depends on the load.
  grep -q 'playing on without it' "$w/$name.emu.err" && bad "$name" "$(grep -h 'without it' "$w/$name.emu.err")"
  grep -q ' raw ' "$w/$name.feed" || bad "$name" "no raw lines recorded"
  cp "$w/$name.feed" "$w/out/$name.feed"
  # The same recording with only its raw (and link) lines: replay decodes them.
  grep -v -E '^[0-9]+ [^ ]+ (pos|clock) ' "$w/$name.feed" > "$w/rawonly/$name.feed"
  if [ -n "$board" ]; then
    grep "^$board	" "$FEEDS/$feed.expected" | cut -f2 > "$w/out/$name.expected"
  else
    cp "$FEEDS/$feed.expected" "$w/out/$name.expected"
  fi
  cp "$w/out/$name.expected" "$w/rawonly/$name.expected"
}

# Replays the recordings of a round; the names of failed ones go to $tmp/<round>.failed.
check_round() {
  local round=$1 status=0
  : > "$tmp/$round.failed"
  for dir in out rawonly; do
    local res last
    res=$(CMD="$BIN replay {feed}" JOBS=2 VERBOSE=1 FAILLIST="$tmp/$round.$dir.failed" "$CHECK" "$tmp/$round/$dir")
    last=$(printf '%s\n' "$res" | tail -n 1)
    echo "$round/$dir: $last"
    case "$last" in
      *" 0 failed") ;;
      *) printf '%s\n' "$res" | grep -E '^FAIL' | head -20; status=1
         cat "$tmp/$round.$dir.failed" >> "$tmp/$round.failed" ;;
    esac
  done
  for f in "$tmp"/FAILED.*; do
    [ -e "$f" ] && { basename "$f" | sed 's/^FAILED\.//' >> "$tmp/$round.failed"; rm -f "$f"; status=1; }
  done
  return $status
}

want() { [ -z "${E2E_FEEDS:-}" ] || [[ " $E2E_FEEDS " == *" $1 "* ]]; }

clean_part() {
  # `boards`: no option = USB (none on a test machine: "no boards found", exit 0);
  # --serial names the emulated board by its serial number and version.
  local out rc bemu
  out=$("$BIN" boards 2>/dev/null); rc=$?
  if [ $rc -ne 0 ] || [ -z "$out" ]; then echo "FAIL boards: exit $rc, output '$out'"; fail=1; fi
  "$BIN" emulate "$FEEDS/p03.feed" --pty --link "$tmp/boards.dev" >"$tmp/boards.emu" 2>/dev/null &
  bemu=$!
  for _ in $(seq 100); do [ -s "$tmp/boards.emu" ] && break; sleep 0.05; done
  out=$("$BIN" boards --serial "$tmp/boards.dev" 2>&1); rc=$?
  kill "$bemu" 2>/dev/null; wait "$bemu" 2>/dev/null
  case "$out" in
    "serial:$tmp/boards.dev	Board_109	version 1.07") echo "boards: ok" ;;
    *) echo "FAIL boards --serial: exit $rc, output '$out'"; fail=1 ;;
  esac
  "$BIN" boards --serial /nonexistent/ttyUSB9 >/dev/null 2>&1 && { echo "FAIL boards: a missing device must fail"; fail=1; }

  # Two at a time (the machine may have two cores).
  want p03 && run_one first clean_p03 p03 "" 0 &
  want p13 && run_one first clean_p13_rotated p13 "" 0 &
  wait
}

faults_part() {
  want p08 && run_one first garbage_p08 p08 garbage 1 &
  want p16 && run_one first drop_p16 p16 drop 2 &
  wait
  want p01 && run_one first disconnect_p01 p01 disconnect 3 &
  want pm01 && run_one first faults_pm01_b7 pm01 garbage,drop,disconnect 4 7 &
  wait
}

# The clean runs (with `boards`) are ctest's e2e_emulator_record, the runs
# with faults e2e_emulator_record_faults (emulator_record_faults.sh sets
# E2E_PART=faults), so that ctest runs them side by side; E2E_PART=all: both.
case "${E2E_PART:-clean}" in
  clean) clean_part ;;
  faults) faults_part ;;
  all) clean_part; faults_part ;;
  *) echo "FAIL: E2E_PART: clean, faults or all"; exit 1 ;;
esac

if [ ! -d "$tmp/first/out" ]; then
  echo "no feed was recorded"; exit 1
fi
check_round first || fail=1
[ $fail -eq 0 ] && echo "emulator e2e: ok"
exit $fail

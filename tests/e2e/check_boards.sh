#!/usr/bin/env bash
# End to end: boards checked before the round (`chessrelay check-boards`,
# issue 29). tests/data/feeds-check holds two boards' set-up: a rook slid
# over every square of the empty board, then the start position and the
# clock at 1:30:00 (ready.feed); the same with the e5 sensor dead and the
# g1 knight on f3 (dead-e5.feed).
# 1. check-boards on the feeds: "Ready 1/2", CB2 named with e5 and the knight.
# 2. The same through the drivers: each feed played by `chessrelay emulate`
#    as a DGT board on a pty and recorded by `chessrelay record`; the
#    recordings checked give the same verdicts (the boards named by serial).
# 3. --config: the tournament file's boards are expected (one never heard
#    from is not ready) and its time control is the clocks' one.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
DATA="$SRC/tests/data/feeds-check"
tmp=$(mktemp -d)
. "$(dirname "$0")/common.bash"
trap 'reap_children; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $1: $2"; fail=1; }

# expect NAME OUTPUT: the verdicts of a run on a ready board and a board
# with a dead e5 and a misplaced knight, whatever the boards are called.
expect() {
  local name=$1 out=$2
  grep -qx 'Ready 1/2' <<<"$out" || bad "$name" "no 'Ready 1/2' in: $out"
  local line
  line=$(grep -v '^Ready' <<<"$out")
  [ "$(wc -l <<<"$line")" -eq 1 ] || bad "$name" "one board should be listed: $out"
  grep -q 'white knight on f3, not g1' <<<"$line" || bad "$name" "the misplaced knight is not named: $line"
  grep -q 'sensor never saw a piece (dead?): e5$' <<<"$line" || bad "$name" "the dead e5 is not named: $line"
}

# 1. The set-up feeds themselves.
out=$("$BIN" check-boards "$DATA/ready.feed" "$DATA/dead-e5.feed" --control 5400+30 --sensors)
rc=$?
[ $rc -eq 1 ] || bad feeds "exit $rc, not 1 (a board not ready)"
expect feeds "$out"
grep -q '^CB2 ' <<<"$out" || bad feeds "CB2 not the board listed: $out"
"$BIN" check-boards "$DATA/ready.feed" --control 5400+30 --sensors >/dev/null \
  || bad ready "the ready board alone is not ready"
json=$("$BIN" check-boards "$DATA/dead-e5.feed" --control 5400+30 --sensors --json)
python3 - "$json" <<'EOF' || bad json "$json"
import json, sys
d = json.loads(sys.argv[1])
b = d["list"][0]
assert d["ready"] == 0 and d["boards"] == 1, d
assert b["board"] == "CB2" and not b["ready"] and b["problems"] == ["setup", "sensors"], b
EOF
# The clocks are checked against the control: 1:30:00 is not 25 minutes.
out=$("$BIN" check-boards "$DATA/ready.feed" --control 1500+10)
grep -q 'clock shows 1:30:00 / 1:30:00, not 0:25:00' <<<"$out" || bad control "$out"

# 2. Through the DGT emulator and the recorder.
n=0
for feed in ready dead-e5; do
  n=$((n + 1))
  dev="$tmp/$feed.dev"
  "$BIN" emulate "$DATA/$feed.feed" --pty --link "$dev" --speed 20 --max-gap 1000 \
    --serial-number "2000$n" --clock "$tmp/$feed.clock" >"$tmp/$feed.emu" 2>"$tmp/$feed.emu.err" &
  emu=$!
  for _ in $(seq 200); do [ -s "$tmp/$feed.emu" ] && break; sleep 0.05; done
  [ "$(head -n 1 "$tmp/$feed.emu")" = "$dev" ] || { bad "$feed" "emulate did not start"; cat "$tmp/$feed.emu.err"; continue; }
  "$BIN" record --serial "$dev" --out "$tmp/$feed.rec" --clock "$tmp/$feed.clock" --quiet \
    --duration 300000 2>"$tmp/$feed.rec.err" &
  rec=$!
  # The recording stops once the clock is seen (the check is made then, the
  # boards still plugged in): the emulator's end would read as an unplug.
  for _ in $(seq 1200); do
    grep -q ' clock 1:30:00 1:30:00 -$' "$tmp/$feed.rec" 2>/dev/null && break
    kill -0 "$emu" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT "$rec"; wait "$rec" || bad "$feed" "record exited $?"
  kill "$emu" 2>/dev/null; wait "$emu" 2>/dev/null
  grep -q ' clock 1:30:00 1:30:00 -$' "$tmp/$feed.rec" || { bad "$feed" "no clock recorded"; cat "$tmp/$feed.emu.err" "$tmp/$feed.rec.err"; }
done
out=$("$BIN" check-boards "$tmp/ready.rec" "$tmp/dead-e5.rec" --control 5400+30 --sensors)
expect emulated "$out"

# 3. The tournament file names the boards and the control.
cat >"$tmp/t.json" <<EOF
{"event": "Check", "time_control": "5400+30",
 "boards": [{"board": "CB1", "table": 1}, {"board": "CB2", "table": 2}, {"board": "CB3", "table": 3}]}
EOF
out=$("$BIN" check-boards "$DATA/ready.feed" "$DATA/dead-e5.feed" --config "$tmp/t.json" --sensors)
grep -qx 'Ready 1/3' <<<"$out" || bad config "no 'Ready 1/3': $out"
grep -q '^CB3 .*never heard from' <<<"$out" || bad config "CB3 not named as never heard from: $out"

[ $fail -eq 0 ] && echo PASS
exit $fail

#!/bin/bash
# The agent reads every kind of board (issue 19): a Certabo board emulated on
# a pty, found by probing (no --kind) with its table from the agent's state
# folder, forwards a short game to a relay whose journal replays to it (and
# `serve --serial` reads one the same way, its table from the relay's state); a
# Millennium board read with --kind millennium becomes active too; a bad
# --kind is a usage error. The agent stamps events in real time (no
# --time-scale as `record` has), so the game is played at its own speed.
# $1: the chessrelay binary. Env: CR_SOURCE_DIR, E2E_KEEP=1 keeps the files.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
tmp=$(mktemp -d)
. "$(dirname "$0")/common.bash"
if [ -n "${E2E_KEEP:-}" ]; then echo "files in $tmp"; trap reap_children EXIT; else trap 'reap_children; rm -rf "$tmp"' EXIT; fi
fail=0
TOKEN=kinds-secret

"$BIN" agent --to ws://127.0.0.1:1/agent --token x --kind chessnut --serial /dev/null 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: --kind chessnut must be a usage error"; fail=1; }

"$BIN" serve --agent-token "$TOKEN" --listen 127.0.0.1:0 --port-file "$tmp/port" \
  --state "$tmp/relay" >"$tmp/relay.log" 2>&1 &
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: the relay did not come up"; cat "$tmp/relay.log"; exit 1; }
URL="ws://127.0.0.1:$(cat "$tmp/port")/agent"
cat >"$tmp/game.feed" <<'FEED'
0 T connect
0 T pos rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR
1500 T pos rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR
1800 T pos rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR
3000 T pos rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR
3300 T pos rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR
4500 T pos rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKB1R
4800 T pos rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R
6500 T pos rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R
FEED
echo "e4 e5 Nf3" >"$tmp/game.expected"

# emulate_then_agent NAME KIND FEED [agent options]: plays FEED on a NAME.dev
# pty and runs an agent on it until the emulator is done.
emulate_then_agent() {
  local name=$1 kind=$2 feed=$3; shift 3
  mkdir -p "$tmp/$name/certabo"
  "$BIN" emulate "$feed" --pty --kind "$kind" --link "$tmp/$name.dev" \
    --calibration-out "$tmp/$name/certabo/$name.dev.cal" >"$tmp/$name.emu" 2>&1 &
  local emu=$!
  for _ in $(seq 100); do [ -s "$tmp/$name.emu" ] && break; sleep 0.05; done
  "$BIN" agent --to "$URL" --token "$TOKEN" --id "$name" --serial "$tmp/$name.dev" \
    --state "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1 &
  local agent=$!
  wait "$emu" || { echo "FAIL: $name: emulate failed"; cat "$tmp/$name.emu"; touch "$tmp/FAILED"; }
  sleep 1 # the last events reach the relay
  kill "$agent"; wait "$agent" 2>/dev/null
  grep -q "board $name.dev active $kind" "$tmp/$name.log" ||
    { echo "FAIL: $name: no $kind board active"; tail "$tmp/$name.log"; touch "$tmp/FAILED"; }
}

# serve reads a Certabo board itself (--serial, found by probing) with the
# board's table from its own state folder (certabo/ID.cal, through the board
# interface's per-board parameters): its journal's positions name every
# piece (no '?': the table was found) and replay to the game.
served_board() {
  mkdir -p "$tmp/served/certabo"
  "$BIN" emulate "$tmp/game.feed" --pty --kind certabo --link "$tmp/served.dev" \
    --calibration-out "$tmp/served/certabo/served.dev.cal" >"$tmp/served.emu" 2>&1 &
  local emu=$!
  for _ in $(seq 100); do [ -s "$tmp/served.emu" ] && break; sleep 0.05; done
  "$BIN" serve --serial "$tmp/served.dev" --state "$tmp/served" --listen 127.0.0.1:0 >"$tmp/served.log" 2>&1 &
  local served=$!
  wait "$emu" || { echo "FAIL: served: emulate failed"; cat "$tmp/served.emu"; touch "$tmp/FAILED"; }
  sleep 1 # the last events reach the journal
  kill "$served"; wait "$served" 2>/dev/null
}

# The three boards play side by side (each its own device, agent or relay).
# (Not a bare `wait`: the relay runs in the background too.)
emulate_then_agent venue certabo "$tmp/game.feed" &
p1=$!
emulate_then_agent venue-m millennium "$tmp/game.feed" --kind millennium &
p2=$!
served_board &
wait $p1 $p2 $!
[ -e "$tmp/FAILED" ] && fail=1
mkdir -p "$tmp/check-served"
grep -h "served.dev" "$tmp"/served/journal-*.feed > "$tmp/check-served/served.feed"
cp "$tmp/game.expected" "$tmp/check-served/served.expected"
if ! grep -q ' pos ' "$tmp/check-served/served.feed"; then
  echo "FAIL: serve: no pos lines from the Certabo board"; tail "$tmp/served.log"; fail=1
elif grep ' pos ' "$tmp/check-served/served.feed" | grep -q '?'; then
  echo "FAIL: serve: the Certabo board's table was not used (occupancy only)"; fail=1
fi
res=$(CMD="$BIN replay {feed}" "$SRC/tests/tools/check-feeds" "$tmp/check-served" | tail -n 1)
echo "serve certabo: $res"
case "$res" in *" 0 failed") ;; *) fail=1 ;; esac

# The relay's journal holds the Certabo board's events: replayed, the game.
mkdir -p "$tmp/check"
grep -h "	\?venue.dev\| venue.dev " "$tmp"/relay/journal-*.feed > "$tmp/check/venue.feed"
cp "$tmp/game.expected" "$tmp/check/venue.expected"
grep -q ' pos ' "$tmp/check/venue.feed" || { echo "FAIL: no pos lines from the Certabo board"; fail=1; }
res=$(CMD="$BIN replay {feed}" "$SRC/tests/tools/check-feeds" "$tmp/check" | tail -n 1)
echo "agent certabo: $res"
case "$res" in *" 0 failed") ;; *) fail=1 ;; esac
[ $fail -eq 0 ] && echo "agent kinds e2e: ok"
exit $fail

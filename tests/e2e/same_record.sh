#!/usr/bin/env bash
# The same feed gives the same record, byte for byte, however it reaches the
# relay (issue 14): the PGN of `replay FEED` (offline) equals the served
# relay's /live.pgn after `replay FEED --serve` at --speed 1000 and 100 (and
# 1 for a short feed), and after the feed came through a venue agent
# (`chessrelay agent --feed`) into `serve --agent-token`. p10 ends in mate
# (the press after it still times the last ply), pm01 has several boards
# and games. Clocks (%clk),
# %emt, results included: p05 and stopped end with a stopped clock (no flag
# may fall), fivefold is drawn by the relay, quickplay is a sudden-death
# finish. The served PGN lists the games without moves as well (a board set
# up); replay prints games with moves only, so those are left out of the
# comparison. Runs the relays side by side (about a minute).
# $1: the chessrelay binary. Env: CR_SOURCE_DIR.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
ARB="$SRC/tests/data/feeds-arbiter"
TOKEN="same-record-agent-token"
tmp=$(mktemp -d)
. "$(dirname "$0")/common.bash"
cleanup() {
  reap_children
  rm -rf "$tmp"
}
trap cleanup EXIT
fail=0

# The feed's span in seconds at a speed, plus time for the last moves to
# settle and the relay to come up.
span() { # FEED SPEED
  grep -v '^[[:space:]]*\(#\|$\)' "$1" |
    awk -v s="$2" 'NR==1{a=$1} {t=$1} END{printf "%.2f", (t-a)/1000/s + 2.5}'
}
port_of() { # PORT_FILE -> the port, once written
  for _ in $(seq 1 100); do
    [ -s "$1" ] && { cat "$1"; return 0; }
    sleep 0.05
  done
  return 1
}
fetch() { # PORT OUT
  python3 - "$1" "$2" <<'PY'
import sys, urllib.request
with urllib.request.urlopen("http://127.0.0.1:%s/live.pgn" % sys.argv[1], timeout=10) as r:
    open(sys.argv[2], "wb").write(r.read())
PY
}

# replay FEED --serve at SPEED: /live.pgn once the feed has played.
served() { # NAME FEED SPEED
  local d="$tmp/served-$1-$3" pid port
  mkdir -p "$d"
  "$BIN" replay "$2" --serve --listen 127.0.0.1:0 --port-file "$d/port" --speed "$3" \
    --quiet >"$d/log" 2>&1 &
  pid=$!
  port=$(port_of "$d/port") || { echo "FAIL: $1 at $3x: no port"; kill "$pid"; return 1; }
  sleep "$(span "$2" "$3")"
  fetch "$port" "$d/live.pgn" || echo "FAIL: $1 at $3x: no /live.pgn"
  kill "$pid"
  wait "$pid" 2>/dev/null
}

# The feed through an agent into serve --agent-token.
agent_fed() { # NAME FEED SPEED
  local d="$tmp/agent-$1-$3" relay agent port
  mkdir -p "$d"
  "$BIN" serve --agent-token "$TOKEN" --listen 127.0.0.1:0 --port-file "$d/port" \
    --speed "$3" --quiet >"$d/relay.log" 2>&1 &
  relay=$!
  port=$(port_of "$d/port") || { echo "FAIL: agent $1: no port"; kill "$relay"; return 1; }
  "$BIN" agent --to "ws://127.0.0.1:$port/agent" --token "$TOKEN" --id "venue-$1" \
    --feed "$2" --speed "$3" --state "$d/agent" --exit-at-end >"$d/agent.log" 2>&1 &
  agent=$!
  sleep "$(span "$2" "$3")"
  for _ in $(seq 1 100); do
    kill -0 "$agent" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$agent" 2>/dev/null && { echo "FAIL: agent $1 did not finish"; kill "$agent"; }
  wait "$agent" 2>/dev/null
  sleep 1 # the last press settles on the relay's ticks
  fetch "$port" "$d/live.pgn" || echo "FAIL: agent $1: no /live.pgn"
  kill "$relay"
  wait "$relay" 2>/dev/null
}

# Games with moves only (replay prints no others).
with_moves() { # PGN -> stdout
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for block in re.split(r'(?<=\n)(?=\[Event )', text):  # every byte kept
    body = re.sub(r'^\[\w+ "(?:[^"\\]|\\.)*"\]$', '', block, flags=re.M).split()
    if [t for t in body if t not in ("*", "1-0", "0-1", "1/2-1/2")]:
        sys.stdout.write(block)
PY
}

compare() { # NAME FEED RUN_DIR WHAT
  local want="$tmp/offline-$1.pgn"
  if [ ! -s "$3/live.pgn" ]; then
    echo "FAIL: $1 ($4): nothing served"; fail=1; return
  fi
  with_moves "$3/live.pgn" >"$3/games.pgn"
  if cmp -s "$want" "$3/games.pgn"; then
    echo "ok: $1 ($4): the same PGN as offline ($(grep -c '^\[Event ' "$want") game(s), $(wc -c <"$want") bytes)"
  else
    echo "FAIL: $1 ($4): the PGN differs from the offline replay"
    diff "$want" "$3/games.pgn" | head -20
    fail=1
  fi
}

declare -A FEED=([p05]="$FEEDS/p05.feed" [p01]="$FEEDS/p01.feed" [p17]="$FEEDS/p17.feed"
                 [p10]="$FEEDS/p10.feed" [pm01]="$FEEDS/pm01.feed"
                 [stopped]="$ARB/stopped.feed" [fivefold]="$ARB/fivefold.feed"
                 [quickplay]="$ARB/quickplay.feed")
for n in "${!FEED[@]}"; do
  "$BIN" replay "${FEED[$n]}" >"$tmp/offline-$n.pgn" 2>/dev/null ||
    { echo "FAIL: replay $n"; fail=1; }
  grep -q '^\[Event ' "$tmp/offline-$n.pgn" || { echo "FAIL: replay $n: no game"; fail=1; }
done
# No flag without evidence: a clock stopped at the end leaves the game open.
for n in p05 stopped; do
  grep -q '^\[Result "\*"\]' "$tmp/offline-$n.pgn" || { echo "FAIL: $n: a result without evidence"; fail=1; }
done

# Side by side: the short feed at 1x, the others at 1000x and 100x, agents at 1000x.
runs=()
served quickplay "${FEED[quickplay]}" 1 & runs+=($!)
for n in p05 p01 p17 p10 pm01 stopped fivefold; do
  served "$n" "${FEED[$n]}" 1000 & runs+=($!)
done
for n in stopped fivefold quickplay; do
  served "$n" "${FEED[$n]}" 100 & runs+=($!)
done
for n in p05 p17 stopped; do
  agent_fed "$n" "${FEED[$n]}" 1000 & runs+=($!)
done
wait "${runs[@]}"

compare quickplay "${FEED[quickplay]}" "$tmp/served-quickplay-1" "served at 1x"
for n in p05 p01 p17 p10 pm01 stopped fivefold; do
  compare "$n" "${FEED[$n]}" "$tmp/served-$n-1000" "served at 1000x"
done
for n in stopped fivefold quickplay; do
  compare "$n" "${FEED[$n]}" "$tmp/served-$n-100" "served at 100x"
done
for n in p05 p17 stopped; do
  compare "$n" "${FEED[$n]}" "$tmp/agent-$n-1000" "agent-fed at 1000x"
done
[ $fail -eq 0 ] && echo "same_record: ok"
exit $fail

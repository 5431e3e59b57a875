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
# comparison.
# The clock feeds (tests/data/feeds-clocks, index.tsv: result, clock control):
# 90+30, 15+10, sudden death (White's clock shows 0:00: 0-1 on that
# evidence), Bronstein and US delay, a clock stopped with Black at 0:21 and
# a minute of nothing after it, a link cut for 13 s while Black's clock runs
# (0:12) and stopped meanwhile. Each is served at 1x, 100x and 1000x and fed
# through an agent at 100x (agentcut also at 1x, the agent itself stopped
# for 12 s while Black's clock runs): the same PGN as offline, the result of
# index.tsv everywhere, the control the arbiter view detects (clock_mode,
# bonus_ms) right, and a "flag" incident only where the clock showed 0:00.
# Eight feeds served together at 1000x give the games of offline replay of
# them, board by board, with no game more: a board set up again after its
# game ended gets no empty game (p09, p12 end so).
# Runs the relays side by side (about two minutes: the 1x runs).
# $1: the chessrelay binary. Env: CR_SOURCE_DIR.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
ARB="$SRC/tests/data/feeds-arbiter"
CLOCKS="$SRC/tests/data/feeds-clocks"
TOKEN="same-record-agent-token"
ARB_TOKEN="same-record-arbiter-token"
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
fetch() { # PORT OUT: /live.pgn, and the arbiter view beside it (OUT.arbiter.json)
  python3 - "$1" "$2" "$ARB_TOKEN" <<'PY'
import sys, urllib.request
base = "http://127.0.0.1:%s" % sys.argv[1]
with urllib.request.urlopen(base + "/live.pgn", timeout=10) as r:
    open(sys.argv[2], "wb").write(r.read())
req = urllib.request.Request(base + "/arbiter/incidents.json",
                             headers={"Authorization": "Bearer " + sys.argv[3]})
with urllib.request.urlopen(req, timeout=10) as r:
    open(sys.argv[2] + ".arbiter.json", "wb").write(r.read())
PY
}

# fetch, once the relay has caught up: /live.pgn unchanged over 1.5 s (at
# most 90 s). The feed's span has passed before this is called; a slow relay
# (the sanitizers, a loaded machine) may still be working through it.
fetch_settled() { # PORT OUT
  local prev="" now i
  for i in $(seq 1 60); do
    fetch "$1" "$2" || return 1
    now=$(cksum <"$2")
    [ "$now" = "$prev" ] && return 0
    prev=$now
    sleep 1.5
  done
  return 0
}

# replay FEED --serve at SPEED: /live.pgn once the feed has played.
served() { # NAME FEED SPEED
  local d="$tmp/served-$1-$3" pid port
  mkdir -p "$d"
  "$BIN" replay "$2" --serve --listen 127.0.0.1:0 --port-file "$d/port" --speed "$3" \
    --arbiter-token "$ARB_TOKEN" --quiet >"$d/log" 2>&1 &
  pid=$!
  port=$(port_of "$d/port") || { echo "FAIL: $1 at $3x: no port"; kill "$pid"; return 1; }
  sleep "$(span "$2" "$3")"
  fetch_settled "$port" "$d/live.pgn" || echo "FAIL: $1 at $3x: no /live.pgn"
  kill "$pid"
  wait "$pid" 2>/dev/null
}

# The feed through an agent into serve --agent-token. CUT_AT: with it, the
# agent is stopped (SIGSTOP) that many seconds after it started, for 12 s.
agent_fed() { # NAME FEED SPEED [CUT_AT]
  local d="$tmp/agent-$1-$3" relay agent port
  mkdir -p "$d"
  "$BIN" serve --agent-token "$TOKEN" --arbiter-token "$ARB_TOKEN" --listen 127.0.0.1:0 \
    --port-file "$d/port" --speed "$3" --quiet >"$d/relay.log" 2>&1 &
  relay=$!
  port=$(port_of "$d/port") || { echo "FAIL: agent $1: no port"; kill "$relay"; return 1; }
  "$BIN" agent --to "ws://127.0.0.1:$port/agent" --token "$TOKEN" --id "venue-$1" \
    --feed "$2" --speed "$3" --state "$d/agent" --exit-at-end >"$d/agent.log" 2>&1 &
  agent=$!
  if [ -n "${4:-}" ]; then
    sleep "$4"
    kill -STOP "$agent"
    sleep 12
    kill -CONT "$agent"
  fi
  sleep "$(span "$2" "$3")"
  for _ in $(seq 1 100); do
    kill -0 "$agent" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$agent" 2>/dev/null && { echo "FAIL: agent $1 did not finish"; kill "$agent"; }
  wait "$agent" 2>/dev/null
  sleep 1 # the last press settles on the relay's ticks
  fetch_settled "$port" "$d/live.pgn" || echo "FAIL: agent $1: no /live.pgn"
  kill "$relay"
  wait "$relay" 2>/dev/null
}

# Eight feeds in one relay (replay FEED... --serve at SPEED): /live.pgn once
# the longest has played.
served_many() { # NAME SPEED FEED...
  local name="$1" x="$2" d="$tmp/served-$1-$2" pid port longest=0 f s
  shift 2
  mkdir -p "$d"
  for f in "$@"; do
    s=$(span "$f" "$x")
    longest=$(awk -v a="$longest" -v b="$s" 'BEGIN{print (b > a) ? b : a}')
  done
  "$BIN" replay "$@" --serve --listen 127.0.0.1:0 --port-file "$d/port" --speed "$x" \
    --arbiter-token "$ARB_TOKEN" --quiet >"$d/log" 2>&1 &
  pid=$!
  port=$(port_of "$d/port") || { echo "FAIL: $name at ${x}x: no port"; kill "$pid"; return 1; }
  sleep "$longest"
  fetch_settled "$port" "$d/live.pgn" || echo "FAIL: $name at ${x}x: no /live.pgn"
  kill "$pid"
  wait "$pid" 2>/dev/null
}

# Every game, grouped by its board (in the order each board played them):
# offline replay plays the feeds one after the other, the served relay
# merges them in time order and numbers the games so. Nothing is left out:
# a game without moves that offline has not (an empty game opened when a
# board was set up again after its game) is a difference.
by_board() { # PGN -> stdout
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
boards = {}
for block in re.split(r'(?<=\n)(?=\[Event )', text):
    if block.strip():
        m = re.search(r'^\[Board "((?:[^"\\]|\\.)*)"\]$', block, re.M)
        boards.setdefault(m.group(1) if m else "", []).append(block.strip() + "\n\n")
sys.stdout.write("".join("".join(boards[k]) for k in sorted(boards)))
PY
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

# Clock feeds: the result of index.tsv offline too.
declare -A CRESULT CMODE CBONUS CBOARD
while IFS=$'\t' read -r name _ board _ _ result mode bonus; do
  [ "$name" = feed ] && continue
  CBOARD[$name]=$board CRESULT[$name]=$result CMODE[$name]=$mode CBONUS[$name]=$bonus
  FEED[$name]="$CLOCKS/$name.feed"
  "$BIN" replay "${FEED[$name]}" >"$tmp/offline-$name.pgn" 2>/dev/null ||
    { echo "FAIL: replay $name"; fail=1; }
  grep -qxF "[Result \"$result\"]" "$tmp/offline-$name.pgn" ||
    { echo "FAIL: $name offline: not $result: $(grep '^\[Result' "$tmp/offline-$name.pgn")"; fail=1; }
done <"$CLOCKS/index.tsv"
CLOCK_FEEDS=$(cut -f1 "$CLOCKS/index.tsv" | tail -n +2)

# A clock feed's arbiter view: the result, the detected control, and a flag
# incident only with the clock's 0:00 (the only flag of these feeds is
# White's in sudden).
arbiter_ok() { # NAME RUN_DIR WHAT
  local n="$1"
  python3 - "$2/live.pgn.arbiter.json" "${CBOARD[$n]}" "${CRESULT[$n]}" "${CMODE[$n]}" \
    "${CBONUS[$n]}" "$n" "$3" <<'PY' || fail=1
import json, sys
path, board, result, mode, bonus, name, what = sys.argv[1:]
try:
    data = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit(print("FAIL: %s (%s): no arbiter view: %s" % (name, what, e)) or 1)
games = [g for g in data["games"] if g["board"] == board and g["plies"] > 0]
flags = [i for i in data["incidents"] if i["board"] == board and i["kind"] == "flag"]
bad = []
if len(games) != 1:
    bad.append("games %s" % games)
else:
    g = games[0]
    if g["result"] != result:
        bad.append("result %s, want %s" % (g["result"], result))
    if (g["clock_mode"], g["bonus_ms"]) != (mode, int(bonus)):
        bad.append("clock control %s %d, want %s %s" % (g["clock_mode"], g["bonus_ms"], mode, bonus))
want_flags = ["w"] if name == "sudden" else []
if [i["color"] for i in flags] != want_flags:
    bad.append("flag incidents %s, want %s" % ([i["text"] for i in flags], want_flags))
if bad:
    sys.exit(print("FAIL: %s (%s): %s" % (name, what, "; ".join(bad))) or 1)
print("ok: %s (%s): %s, %s %s, flags %s" % (name, what, result, mode, bonus, want_flags))
PY
}

# Side by side: the short feed at 1x, the others at 1000x and 100x, agents at
# 1000x; the clock feeds at 1x, 100x, 1000x and through agents.
runs=()
for n in $CLOCK_FEEDS; do
  for x in 1 100 1000; do
    served "$n" "${FEED[$n]}" "$x" & runs+=($!)
  done
  agent_fed "$n" "${FEED[$n]}" 100 & runs+=($!)
done
# The agent stopped 7.5 s in: Black's clock runs with 0:12 (and keeps running
# at the agent's last word) while the relay hears nothing for 12 s.
agent_fed agentcut "${FEED[agentcut]}" 1 7.5 & runs+=($!)
served quickplay "${FEED[quickplay]}" 1 & runs+=($!)
for n in p05 p01 p17 p10 pm01 stopped fivefold; do
  served "$n" "${FEED[$n]}" 1000 & runs+=($!)
done
for n in stopped fivefold quickplay; do
  served "$n" "${FEED[$n]}" 100 & runs+=($!)
done
# Eight boards at once: two end with the board set up again (p09, p12), two
# play a second game (p10, p15).
EIGHT=()
for n in p09 p10 p11 p12 p13 p14 p15 p16; do EIGHT+=("$FEEDS/$n.feed"); done
"$BIN" replay "${EIGHT[@]}" >"$tmp/offline-eight.pgn" 2>/dev/null || { echo "FAIL: replay eight"; fail=1; }
served_many eight 1000 "${EIGHT[@]}" & runs+=($!)
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
by_board "$tmp/offline-eight.pgn" >"$tmp/offline-eight.boards"
if [ ! -s "$tmp/served-eight-1000/live.pgn" ]; then
  echo "FAIL: eight feeds: nothing served"; fail=1
elif by_board "$tmp/served-eight-1000/live.pgn" | cmp -s "$tmp/offline-eight.boards" -; then
  echo "ok: eight feeds (served at 1000x): the same games as offline, none more ($(grep -c '^\[Event ' "$tmp/offline-eight.pgn") games)"
else
  echo "FAIL: eight feeds (served at 1000x): the games differ from the offline replay"
  by_board "$tmp/served-eight-1000/live.pgn" | diff "$tmp/offline-eight.boards" - | head -20
  fail=1
fi
for n in p05 p17 stopped; do
  compare "$n" "${FEED[$n]}" "$tmp/agent-$n-1000" "agent-fed at 1000x"
done
for n in $CLOCK_FEEDS; do
  for x in 1 100 1000; do
    compare "$n" "${FEED[$n]}" "$tmp/served-$n-$x" "served at ${x}x"
    arbiter_ok "$n" "$tmp/served-$n-$x" "served at ${x}x"
  done
  compare "$n" "${FEED[$n]}" "$tmp/agent-$n-100" "agent-fed at 100x"
  arbiter_ok "$n" "$tmp/agent-$n-100" "agent-fed at 100x"
done
compare agentcut "${FEED[agentcut]}" "$tmp/agent-agentcut-1" "agent stopped 12 s, 1x"
arbiter_ok agentcut "$tmp/agent-agentcut-1" "agent stopped 12 s, 1x"
[ $fail -eq 0 ] && echo "same_record: ok"
exit $fail

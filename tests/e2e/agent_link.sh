#!/usr/bin/env bash
# Venue agent -> relay link, end to end: a relay (serve --agent-token) and two
# agents (--feed, several feeds each) on 127.0.0.1. While the feeds play,
# the links are cut at random points: the relay is killed (-9) and
# restarted, an agent is killed (-9) and restarted, all at once. At the end:
#   - every agent event is in the relay's journal exactly once (per agent,
#     numbers 1..N, no gap, no repeat), N = the events of its feeds;
#   - every game on the relay (GET /live.pgn) equals the .expected one;
#   - a wrong token is refused.
# Then, briefly: wss:// with a tournament file's agent token, and a relay
# without a journal.
# $1: the chessrelay binary. Env: CR_SOURCE_DIR, CR_AGENT_SPEED (default
# 500), CR_AGENT_SEED (random cut points; printed for reproduction).
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
SPEED="${CR_AGENT_SPEED:-500}"
SEED="${CR_AGENT_SEED:-$(( $(date +%s) % 100000 ))}"
RANDOM=$SEED
TOKEN="agent-$SEED-secret"
NAMES_A="p03 p14 p16"
NAMES_B="p17 p01"
NAMES="$NAMES_A $NAMES_B"
tmp=$(mktemp -d)
RELAY=""
AGENT_A=""
AGENT_B=""
. "$(dirname "$0")/common.bash"
cleanup() { # SIGTERM: they stop at once (no job noise from bash)
  [ -n "$AGENT_A" ] && kill "$AGENT_A" 2>/dev/null
  [ -n "$AGENT_B" ] && kill "$AGENT_B" 2>/dev/null
  [ -n "$RELAY" ] && kill "$RELAY" 2>/dev/null
  reap_children
  rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
echo "agent_link: seed $SEED, speed $SPEED"

# Python helpers: a port the relay keeps across its restarts, HTTP GET, the comparison.
unallocated_port() {
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import relay_ws; print(relay_ws.unallocated_port())' \
    "$(dirname "$0")"
}
http_get() { # URL -> stdout; non-zero on error (https: self-signed accepted)
  python3 - "$1" <<'PY'
import ssl, sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5,
                                context=ssl._create_unverified_context()) as r:
        sys.stdout.write(r.read().decode())
except Exception as e:
    sys.stderr.write(str(e) + "\n"); sys.exit(1)
PY
}
cat >"$tmp/compare.py" <<'PY'
import json, re, sys
# compare.py PGN AGENTS_JSON AGENT_IDS(comma) FEEDS_DIR NAME...
pgn, agents, ids, feeds, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
games = []
for block in re.split(r'\n(?=\[Event )', open(pgn).read()):
    tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]', block, re.M))
    body = re.sub(r'^\[\w+ "(?:[^"\\]|\\.)*"\]$', '', block, flags=re.M)  # tags only: a wrapped comment line may start with [%emt
    body = re.sub(r'\{[^}]*\}', ' ', body)
    moves = [t for t in body.split() if not re.match(r'^(\d+\.+|\*|1-0|0-1|1/2-1/2)$', t)]
    if tags:
        games.append((tags, moves))
ok = True
for n in names:
    first = next(l for l in open(f"{feeds}/{n}.feed") if l.strip() and not l.lstrip().startswith("#"))
    board = first.split()[1]
    want = [l.split() for l in open(f"{feeds}/{n}.expected") if l.strip()]
    have = [m for t, m in games if t.get("Board") == board and m]
    if have != want:
        ok = False
        print(f"FAIL: {n} (board {board}): {len(have)} game(s), expected {len(want)}")
        for h, w in zip(have, want):
            i = next((k for k in range(min(len(h), len(w))) if h[k] != w[k]), min(len(h), len(w)))
            print(f"  first difference at ply {i}: got {h[i:i+3]}, expected {w[i:i+3]}")
a = json.load(open(agents))["agents"]
if sorted(x["agent"] for x in a) != sorted(ids.split(",")) or \
        any(x["acked"] != x["last"] or not x["left"] for x in a):
    ok = False
    print("FAIL: /agents.json:", json.dumps(a)[:400])
elif sum(len(x["boards"]) for x in a) != len(names):
    ok = False
    print("FAIL: /agents.json lists", sum(len(x["boards"]) for x in a), "boards")
print("  games: " + ("all equal to the expected ones" if ok else "DIFFERENT"))
sys.exit(0 if ok else 1)
PY
PORT=$(unallocated_port)
URL="ws://127.0.0.1:$PORT/agent"
feed_args() { for n in "$@"; do printf -- '--feed\n%s\n' "$FEEDS/$n.feed"; done; }
mapfile -t FEED_ARGS_A < <(feed_args $NAMES_A)
mapfile -t FEED_ARGS_B < <(feed_args $NAMES_B)

start_relay() {
  "$BIN" serve --agent-token "$TOKEN" --listen "127.0.0.1:$PORT" --state "$tmp/relay" \
    --speed "$SPEED" >>"$tmp/relay.log" 2>&1 &
  RELAY=$!
  for _ in $(seq 1 100); do
    http_get "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "FAIL: the relay did not come up"; tail -20 "$tmp/relay.log"; exit 1
}
start_agent_a() {
  "$BIN" agent --to "$URL" --token "$TOKEN" --id venue-a "${FEED_ARGS_A[@]}" --speed "$SPEED" \
    --state "$tmp/agent-a" --exit-at-end >>"$tmp/agent-a.log" 2>&1 &
  AGENT_A=$!
}
start_agent_b() {
  "$BIN" agent --to "$URL" --token "$TOKEN" --id venue-b "${FEED_ARGS_B[@]}" --speed "$SPEED" \
    --state "$tmp/agent-b" --exit-at-end >>"$tmp/agent-b.log" 2>&1 &
  AGENT_B=$!
}
pause() { # random 0.05 .. 0.05 + $1 s
  sleep "$(awk -v r=$RANDOM -v m="$1" 'BEGIN{printf "%.2f", 0.05 + m * r / 32768}')"
}

start_relay
start_agent_a
start_agent_b
# Cuts at random points while the feeds play (they last ~10 s at 500x).
for cut in relay agent-a all relay agent-b; do
  pause 1.8
  case $cut in
    relay) kill -9 "$RELAY" 2>/dev/null; wait "$RELAY" 2>/dev/null; pause 0.5; start_relay ;;
    agent-a) kill -9 "$AGENT_A" 2>/dev/null; wait "$AGENT_A" 2>/dev/null; pause 0.5; start_agent_a ;;
    agent-b) kill -9 "$AGENT_B" 2>/dev/null; wait "$AGENT_B" 2>/dev/null; pause 0.5; start_agent_b ;;
    all) kill -9 "$AGENT_A" "$AGENT_B" "$RELAY" 2>/dev/null
         wait "$AGENT_A" "$AGENT_B" "$RELAY" 2>/dev/null; pause 0.5
         start_relay; start_agent_a; start_agent_b ;;
  esac
  echo "  cut: $cut"
done
# The last agent runs leave once the relay has acknowledged everything.
for who in A B; do
  var=AGENT_$who
  pid=${!var}
  for _ in $(seq 1 400); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: agent $who did not finish"; fail=1
    kill -9 "$pid"
  fi
  wait "$pid"
  rc=$?
  printf -v "$var" '%s' ""
  [ $rc -eq 0 ] || { echo "FAIL: agent $who exited $rc"; fail=1; }
done
sleep 1 # the last moves settle on the relay's ticks

# Nothing lost, nothing doubled: the journal holds agent numbers 1..N once.
check_numbers() { # agent feeds...
  local id=$1; shift
  local files=() n
  for n in "$@"; do files+=("$FEEDS/$n.feed"); done
  local want got count dups last
  want=$(cat "${files[@]}" | grep -cv '^[[:space:]]*\(#\|$\)')
  got=$(grep -h "^# agent $id " "$tmp"/relay/journal-*.feed | awk '{print $4}' | sort -n)
  count=$(printf '%s\n' "$got" | grep -c .)
  dups=$(printf '%s\n' "$got" | uniq -d | head -3 | tr '\n' ' ')
  last=$(printf '%s\n' "$got" | tail -1)
  echo "  $id: $want events in its feeds, $count journaled, last number $last"
  [ -z "$dups" ] || { echo "FAIL: $id: events journaled twice: $dups"; fail=1; }
  [ "$count" = "$want" ] && [ "$last" = "$want" ] || { echo "FAIL: $id: expected events 1..$want"; fail=1; }
}
check_numbers venue-a $NAMES_A
check_numbers venue-b $NAMES_B
echo "  relay runs: $(ls "$tmp"/relay/journal-*.feed | wc -l), agent runs: $(cat "$tmp"/agent-*.log | grep -c 'forwarding to')"

# The games.
http_get "http://127.0.0.1:$PORT/live.pgn" >"$tmp/live.pgn" || { echo "FAIL: no /live.pgn"; fail=1; }
http_get "http://127.0.0.1:$PORT/agents.json" >"$tmp/agents.json" || { echo "FAIL: no /agents.json"; fail=1; }
python3 "$tmp/compare.py" "$tmp/live.pgn" "$tmp/agents.json" venue-a,venue-b "$FEEDS" $NAMES || fail=1

# A wrong token is refused, and the agent says so and stops.
if "$BIN" agent --to "$URL" --token wrong --id intruder --feed "$FEEDS/p03.feed" \
     --state "$tmp/intruder" --exit-at-end >"$tmp/intruder.log" 2>&1; then
  echo "FAIL: an agent with a wrong token must fail"; fail=1
fi
grep -q 'wrong token' "$tmp/intruder.log" || { echo "FAIL: no 'wrong token' message"; cat "$tmp/intruder.log"; fail=1; }
grep -q 'wrong token refused' "$tmp/relay.log" || { echo "FAIL: the relay did not log the refusal"; fail=1; }

# wss:// with the tournament file's agent token (and the state folder next
# to it), then a relay without any journal; one short feed each.
short_run() { # label serve-args... -- agent-args...
  local label=$1; shift
  local sargs=() aargs=()
  while [ "$1" != "--" ]; do sargs+=("$1"); shift; done
  shift
  aargs=("$@")
  kill -9 "$RELAY" 2>/dev/null; wait "$RELAY" 2>/dev/null
  "$BIN" serve "${sargs[@]}" --listen "127.0.0.1:$PORT" --speed 2000 >>"$tmp/$label.log" 2>&1 &
  RELAY=$!
  local up=0 scheme=http
  case " ${aargs[*]} " in *" wss://"*) scheme=https ;; esac
  for _ in $(seq 1 100); do
    http_get "$scheme://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && { up=1; break; }
    sleep 0.05
  done
  [ $up -eq 1 ] || { echo "FAIL: $label: the relay did not come up"; tail "$tmp/$label.log"; fail=1; return; }
  if ! timeout 60 "$BIN" agent "${aargs[@]}" --feed "$FEEDS/p03.feed" --speed 2000 --exit-at-end \
       >>"$tmp/$label.log" 2>&1; then
    echo "FAIL: $label: the agent failed"; tail "$tmp/$label.log"; fail=1; return
  fi
  sleep 0.5
  http_get "$scheme://127.0.0.1:$PORT/live.pgn" >"$tmp/$label.pgn"
  http_get "$scheme://127.0.0.1:$PORT/agents.json" >"$tmp/$label.json"
  local out rc
  out=$(python3 "$tmp/compare.py" "$tmp/$label.pgn" "$tmp/$label.json" hall "$FEEDS" p03)
  rc=$?
  printf '%s\n' "$out" | sed "s/^ */  $label: /"
  [ $rc -eq 0 ] || { fail=1; tail "$tmp/$label.log"; }
}
if command -v openssl >/dev/null 2>&1; then
  mkdir -p "$tmp/tls"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/tls/key.pem" -out "$tmp/tls/cert.pem" \
    -days 1 -subj /CN=localhost >/dev/null 2>&1
  printf '{"event":"TLS","tls":{"cert":"cert.pem","key":"key.pem"},"tokens":[{"name":"hall","role":"agent","token":"%s"}]}\n' \
    "$TOKEN-tls" >"$tmp/tls/t.json"
  short_run tls --config "$tmp/tls/t.json" -- --to "wss://127.0.0.1:$PORT/agent" --insecure \
    --token "$TOKEN-tls" --id hall --state "$tmp/tls/agent"
  [ -n "$(ls "$tmp"/tls/state/journal-*.feed 2>/dev/null)" ] || { echo "FAIL: tls: no journal next to the tournament file"; fail=1; }
else
  echo "  (openssl not found: wss:// not tested)"
fi
short_run nojournal --agent-token "$TOKEN-nj" -- --to "$URL" --token "$TOKEN-nj" --id hall \
  --state "$tmp/nj/agent"

if [ $fail -ne 0 ]; then
  echo "--- relay log (tail)"; tail -25 "$tmp/relay.log"
  echo "--- agent logs (tail)"; tail -n 15 "$tmp/agent-a.log" "$tmp/agent-b.log"
else
  echo "agent link e2e: ok"
fi
exit $fail

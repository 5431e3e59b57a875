#!/usr/bin/env bash
# End to end: live boards into the relay. Two `chessrelay emulate --pty`
# boards (p03, p13 of the sample feeds) are read by `chessrelay serve
# --serial ... --serial ...`; once the emulators are done, /live.pgn must
# hold the .expected games of each board (compared by check-feeds, boards
# told apart by the Board tag), /games.json and /metrics must show the
# boards and their links, the journal must hold what `record` writes (raw,
# pos, clock, connect, disconnect) and replaying it must give the same
# games; a restart on the journal must serve the same PGN.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR,
#   E2E_SPEED (default 10), E2E_KEEP=1 keeps the files.
# Timing: the relay stamps bytes when it reads them, on a feed clock running
# at SPEED, so a scheduling delay of d ms becomes d x SPEED ms of feed time;
# at speed 10 the 300 ms settle time absorbs delays up to about 20 ms (see
# emulator_record.sh). Long waits are cut to 1 s (--max-gap).
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
CHECK="$SRC/tests/tools/check-feeds"
SPEED="${E2E_SPEED:-10}"
for need in "$FEEDS/p03.feed" "$FEEDS/p13.feed" "$CHECK"; do
  [ -e "$need" ] || { echo "FAIL: $need is missing"; exit 1; }
done
tmp=$(mktemp -d)
pids=()
. "$(dirname "$0")/common.bash"
cleanup() {
  reap_children
  if [ -n "${E2E_KEEP:-}" ]; then echo "files in $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

board_of() { awk '/^[0-9]/ { print $2; exit }' "$1"; }

# run SPEED DIR: the emulators and the relay at SPEED; files in DIR. 0 = ok.
run() {
  local speed=$1 w=$2
  mkdir -p "$w/cmp"
  pids=()
  local emus=() args=()
  for f in p03 p13; do
    "$BIN" emulate "$FEEDS/$f.feed" --pty --link "$w/$f.dev" --speed "$speed" --max-gap 1000 \
      >"$w/$f.emu" 2>"$w/$f.emu.err" &
    emus+=($!)
    pids+=($!)
  done
  # p03's board from the tournament file ("devices", with its players and
  # table), p13's from the command line.
  cat >"$w/t.json" <<EOF
{"event": "Boards Open", "devices": ["$w/p03.dev"],
 "boards": [{"board": "$(board_of "$FEEDS/p03.feed")", "table": 7, "round": "3",
             "white": "Alpha, Ann", "black": "Beta, Bob"}]}
EOF
  args=(--config "$w/t.json" --serial "$w/p13.dev")
  for f in p03 p13; do
    for _ in $(seq 100); do [ -s "$w/$f.emu" ] && break; sleep 0.05; done
  done
  # The feed clock runs at the emulators' speed: the inference sees the
  # feeds' own timing.
  "$BIN" serve "${args[@]}" --listen 127.0.0.1:0 --port-file "$w/port" --state "$w/state" \
    --speed "$speed" >"$w/serve.out" 2>"$w/serve.err" &
  local relay=$!
  pids+=($relay)
  for _ in $(seq 100); do [ -s "$w/port" ] && break; sleep 0.05; done
  local port
  port=$(cat "$w/port" 2>/dev/null)
  if [ -z "$port" ]; then echo "FAIL: the relay wrote no port"; cat "$w/serve.err"; return 1; fi
  local waited=0
  for e in "${emus[@]}"; do
    while kill -0 "$e" 2>/dev/null; do
      sleep 0.2; waited=$((waited + 1))
      [ $waited -gt 300 ] && { echo "FAIL: emulator still running after 60 s"; return 1; }
    done
    wait "$e" || { echo "FAIL: emulate exited $?"; return 1; }
  done
  sleep 0.5 # the last bytes, then the hang-up
  local base="http://127.0.0.1:$port"
  # /metrics (the loop's figures are a second old at most): each link lost
  # (the hang-up) at least once and down now.
  local ok=0
  for _ in $(seq 30); do
    curl -sf "$base/metrics" >"$w/metrics" || { echo "FAIL: GET /metrics"; return 1; }
    ok=1
    for f in p03 p13; do
      local labels="{board=\"$(board_of "$FEEDS/$f.feed")\",device=\"serial:$w/$f.dev\"}"
      awk -v d="chessrelay_board_disconnects_total$labels" -v u="chessrelay_board_link_up$labels" \
        '$1 == d && $2 >= 1 { n++ } $1 == u && $2 == 0 { n++ } END { exit n != 2 }' "$w/metrics" || ok=0
    done
    [ $ok -eq 1 ] && break
    sleep 0.2
  done
  [ $ok -eq 1 ] || { echo "FAIL: /metrics: the links' health"; grep '^chessrelay_board' "$w/metrics"; return 1; }
  curl -sf "$base/live.pgn" >"$w/live.pgn" || { echo "FAIL: GET /live.pgn"; return 1; }
  curl -sf "$base/games.json" >"$w/games.json" || { echo "FAIL: GET /games.json"; return 1; }
  curl -sf "$base/boards.json" >"$w/boards.json" || { echo "FAIL: GET /boards.json"; return 1; }
  kill -TERM "$relay"
  wait "$relay" || { echo "FAIL: serve exited $? on SIGTERM"; cat "$w/serve.err"; return 1; }
  pids=()
  local status=0
  # Per board: its games from /live.pgn (by the Board tag) against .expected.
  for f in p03 p13; do
    cp "$FEEDS/$f.expected" "$w/cmp/$f.expected"
    cp "$FEEDS/$f.feed" "$w/cmp/$f.feed"
    BOARD=$(board_of "$FEEDS/$f.feed") python3 - "$w/live.pgn" >"$w/cmp/$f.feed.pgn" <<'PY'
import os, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
for game in re.split(r'\n(?=\[Event )', text):
    if '[Board "%s"]' % os.environ["BOARD"] in game:
        print(game.strip() + "\n")
PY
  done
  local res
  res=$(CMD='cat {feed}.pgn' JOBS=2 VERBOSE=1 "$CHECK" "$w/cmp")
  echo "live.pgn: $(printf '%s\n' "$res" | tail -n 1)"
  case "$(printf '%s\n' "$res" | tail -n 1)" in
    *" 0 failed") ;;
    *) printf '%s\n' "$res" | grep -A3 -E '^FAIL' | head -20; status=1 ;;
  esac
  # The journal: what `record` writes, and it replays to the same games.
  local j
  j=$(ls "$w/state"/journal-*.feed 2>/dev/null | head -n 1)
  if [ -z "$j" ]; then echo "FAIL: no journal"; return 1; fi
  for b in $(board_of "$FEEDS/p03.feed") $(board_of "$FEEDS/p13.feed"); do
    for kind in connect raw pos clock disconnect; do
      grep -q -E "^[0-9]+ $b $kind( |\$)" "$j" || { echo "FAIL: journal: no $kind line of $b"; status=1; }
    done
  done
  mkdir -p "$w/journal"
  for f in p03 p13; do
    grep -v '^#' "$j" | awk -v b="$(board_of "$FEEDS/$f.feed")" '$2 == b' >"$w/journal/$f.feed"
    cp "$FEEDS/$f.expected" "$w/journal/$f.expected"
  done
  res=$(CMD="$BIN replay {feed}" JOBS=2 VERBOSE=1 "$CHECK" "$w/journal")
  echo "journal replay: $(printf '%s\n' "$res" | tail -n 1)"
  case "$(printf '%s\n' "$res" | tail -n 1)" in
    *" 0 failed") ;;
    *) printf '%s\n' "$res" | grep -A3 -E '^FAIL' | head -20; status=1 ;;
  esac
  # /games.json: both boards, offline now (the emulators hung up); p03's
  # board named by the tournament file.
  python3 - "$w/games.json" "$(board_of "$FEEDS/p03.feed")" "$(board_of "$FEEDS/p13.feed")" <<'PY' || status=1
import json, sys
games = json.load(open(sys.argv[1]))
for b in sys.argv[2:]:
    mine = [g for g in games if g["board"] == b]
    if not mine:
        sys.exit("FAIL: games.json: no game of board %s" % b)
    if mine[-1]["online"]:
        sys.exit("FAIL: games.json: board %s still online after its hang-up" % b)
g = [g for g in games if g["board"] == sys.argv[2]][0]
if (g.get("table"), g["round"], g["white"], g["black"]) != (7, "3", "Alpha, Ann", "Beta, Bob"):
    sys.exit("FAIL: games.json: board %s not mapped by the tournament file: %r" % (sys.argv[2], g))
PY
  # /boards.json: the links' health; p13's board stands the wrong way round.
  python3 - "$w/boards.json" "$w" "$(board_of "$FEEDS/p03.feed")" "$(board_of "$FEEDS/p13.feed")" <<'PY' || status=1
import json, sys
links = {l["device"]: l for l in json.load(open(sys.argv[1]))}
for f, board, rotated in (("p03", sys.argv[3], False), ("p13", sys.argv[4], True)):
    l = links.get("serial:%s/%s.dev" % (sys.argv[2], f))
    if (not l or l["board"] != board or l["state"] != "lost" or l["disconnects"] < 1
            or l["rotated"] != rotated or not l["snapshots_per_min"] > 0):
        sys.exit("FAIL: boards.json: %s: %r" % (f, l))
PY
  # A restart on the journal serves the same PGN.
  # (the same command line: the boards are gone, their links keep retrying)
  "$BIN" serve "${args[@]}" --listen 127.0.0.1:0 --port-file "$w/port2" --state "$w/state" \
    --speed "$speed" >"$w/serve2.out" 2>"$w/serve2.err" &
  relay=$!
  pids=($relay)
  for _ in $(seq 100); do
    [ -s "$w/port2" ] && curl -sf "http://127.0.0.1:$(cat "$w/port2")/healthz" >/dev/null && break
    sleep 0.05
  done
  curl -sf "http://127.0.0.1:$(cat "$w/port2")/live.pgn" >"$w/live2.pgn" || { echo "FAIL: restart: GET /live.pgn"; status=1; }
  kill -TERM "$relay"; wait "$relay"; pids=()
  cmp -s "$w/live.pgn" "$w/live2.pgn" || { echo "FAIL: restart: /live.pgn differs"; diff "$w/live.pgn" "$w/live2.pgn" | head; status=1; }
  return $status
}

run "$SPEED" "$tmp/a" || exit 1
echo "relay boards e2e: ok"

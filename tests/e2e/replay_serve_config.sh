#!/usr/bin/env bash
# `replay FEED --serve --config FILE` uses the tournament file (limits,
# engine, tokens...), as `serve` does; a bad file is an error at start.
# (It was once parsed and then ignored, so a bench's raised connection caps
# never applied.)
#   $1 = path of the chessrelay binary
set -u
BIN="${1:?usage: replay_serve_config.sh /path/to/chessrelay}"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
. "$(dirname "$0")/common.bash"
tmp=$(mktemp -d)
trap 'reap_children; rm -rf "$tmp"' EXIT
fail=0
feed="$SRC/tests/data/feeds/p01.feed"

printf '{"event": "Config Open", "limits": {"per_address": 2}, "nonsense": 1}\n' >"$tmp/bad.json"
timeout 10 "$BIN" replay "$feed" --serve --config "$tmp/bad.json" --listen 127.0.0.1:0 \
  --port-file "$tmp/port0" >/dev/null 2>"$tmp/bad.err"
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q nonsense "$tmp/bad.err"; then
  echo "FAIL: a bad tournament file must stop replay --serve with its field named (exit $rc)"
  cat "$tmp/bad.err"; fail=1
fi

printf '{"limits": {"per_address": 2}}\n' >"$tmp/t.json"
"$BIN" replay "$feed" --serve --speed 1000 --config "$tmp/t.json" --listen 127.0.0.1:0 \
  --port-file "$tmp/port" --quiet 2>"$tmp/relay.err" &
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port" 2>/dev/null)
if [ -z "$port" ]; then
  echo "FAIL: the relay did not start"; cat "$tmp/relay.err"; exit 1
fi
# per_address 2: with two connections held open, a third is answered 503
exec 3<>"/dev/tcp/127.0.0.1/$port" 4<>"/dev/tcp/127.0.0.1/$port"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/games.json")
exec 3>&- 4>&-
[ "$code" = 503 ] || { echo "FAIL: the third connection from one address got $code, not 503"; fail=1; }
[ $fail -eq 0 ] && echo "replay --serve --config: ok"
exit $fail

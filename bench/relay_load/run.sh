#!/usr/bin/env bash
# The relay under load, next to a bare lws broadcast server, same run, same
# machine: N viewers each, latency from an event's ts to its arrival at every
# viewer (p50/p99/max), messages/s, and server memory per idle viewer.
#
#   bench/relay_load/run.sh BUILD_DIR [N...]      (default N: 1000 5000 10000)
#
# The relay replays the 8-board sample feed pm01 at SPEED (default 100x);
# the bare server sends as many events a second, of the same size.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [N...]}
shift
counts=("${@:-1000 5000 10000}")
[ $# -gt 0 ] && counts=("$@") || counts=(1000 5000 10000)
here=$(cd "$(dirname "$0")" && pwd)
shared=${CR_SHARED_DIR:-$here/../../../shared}
feed=$shared/feeds/pm01.feed
speed=${SPEED:-100}
seconds=${SECONDS_MEASURED:-10}
ulimit -n "$(ulimit -Hn)"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

wait_port() {
  for _ in $(seq 200); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.05; done
  echo "server did not start" >&2; exit 1
}

# run NAME N RESUME CMD...: starts the server, N viewers, prints one result line
run() {
  local name=$1 n=$2 resume=$3; shift 3
  rm -f "$tmp/port"
  "$@" --port-file "$tmp/port" 2>"$tmp/$name.log" &
  local pid=$!
  local port; port=$(wait_port "$tmp/port")
  sleep 0.5
  local rss0; rss0=$(rss_kib $pid)
  "$build/bench/relay_load/relay_load_client" --port "$port" --viewers "$n" --seconds "$seconds" \
      --resume "$resume" >"$tmp/client.out" 2>"$tmp/client.err" &
  local cpid=$!
  # memory once every viewer is connected and has its snapshots
  for _ in $(seq 1800); do grep -q measuring "$tmp/client.err" 2>/dev/null && break; sleep 0.1; done
  local rss1; rss1=$(rss_kib $pid)
  local ev0=0 ev1=0
  if [ "$name" = relay ]; then
    ev0=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^chessrelay_events_total/ {print $2}')
  fi
  wait $cpid
  if [ "$name" = relay ]; then
    ev1=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^chessrelay_events_total/ {print $2}')
    echo $(( (ev1 - ev0) )) >"$tmp/events"
    echo "#   relay events during the run: $(( ev1 - ev0 ))" >&2
  fi
  kill $pid; wait $pid 2>/dev/null || true
  local per; per=$(awk -v a="$rss0" -v b="$rss1" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / n}')
  printf "%-6s N=%-6s %s kib_per_viewer=%s (%s)\n" "$name" "$n" "$(cat "$tmp/client.out")" "$per" \
      "$(tr '\n' ' ' <"$tmp/client.err")"
}

echo "# relay_load: speed ${speed}x, ${seconds} s measured per run, $(nproc) cores"
for n in "${counts[@]}"; do
  # steady state: viewers resume from the head (no snapshots), like the bare server's
  run relay "$n" 1 "$build/chessrelay" replay "$feed" --serve --speed "$speed" --quiet --listen 127.0.0.1:0
  rate=$(awk -v e="$(cat "$tmp/events")" -v s="$seconds" 'BEGIN {r = int(e / (s + 1) + 0.5); print (r < 1 ? 1 : r)}')
  run bare "$n" 0 "$build/bench/relay_load/relay_load_bare" --port 0 --rate "$rate" --size 200
  # the join: each viewer gets the snapshots of the eight games first
  [ -n "${JOIN:-}" ] && run join "$n" 0 "$build/chessrelay" replay "$feed" --serve --speed "$speed" --quiet \
      --listen 127.0.0.1:0
done

#!/usr/bin/env bash
# NATS scale-out latency: end-to-end time from a board event entering the
# venue relay (the event's `ts`) to its arrival at a viewer, p50/p99/max.
#
#   bench/nats_bench.sh BUILD_DIR [N]        (N viewers per relay, default 500)
#
# Two runs, same feed and speed, same machine:
#   single  the venue relay alone (`replay pm01.feed --serve`), N viewers on it;
#   nats    the venue publishing to a local JetStream server
#           (`--publish`), two edges (`chessrelay edge`), N viewers on the
#           venue and on each edge at once: venue -> viewer next to
#           venue -> nats-server -> edge -> viewer, under the same load.
# Viewers: bench/relay_load's client (relay_load_client). Everything shares
# the machine (2 cores here), so compare the two lines of one run only.
# Environment: SPEED (default 100), SECONDS_MEASURED (default 10).
set -euo pipefail
build=${1:?usage: nats_bench.sh BUILD_DIR [N]}
n=${2:-500}
here=$(cd "$(dirname "$0")" && pwd)
feed=$here/../tests/data/feeds/pm01.feed
speed=${SPEED:-100}
seconds=${SECONDS_MEASURED:-10}
bin=$build/chessrelay
client=$build/bench/relay_load/relay_load_client
[ -x "$client" ] || { echo "build $client first (cmake --build $build --target relay_load_client)" >&2; exit 1; }
command -v nats-server >/dev/null || { echo "nats-server not installed" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_file() {
  for _ in $(seq 400); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.05; done
  echo "$1: not written (see $tmp)" >&2; exit 1
}

wait_ready() {
  for _ in $(seq 400); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz")" = 200 ] && return
    sleep 0.05
  done
  echo "port $1 not ready" >&2; exit 1
}

# viewers NAME PORT...: N viewers on each port at once; prints one line per port
viewers() {
  local name=$1; shift
  local cps=() i=0
  for port in "$@"; do
    "$client" --port "$port" --viewers "$n" --seconds "$seconds" >"$tmp/$name.$i.out" 2>"$tmp/$name.$i.err" &
    cps+=($!)
    i=$((i + 1))
  done
  for p in "${cps[@]}"; do wait "$p"; done
  i=0
  for port in "$@"; do
    local what=venue
    [ $i -gt 0 ] && what="edge $i"
    printf "%-7s %-7s %s\n" "$name" "$what" "$(cat "$tmp/$name.$i.out")"
    i=$((i + 1))
  done
}

echo "# nats_bench: pm01 (8 boards) at ${speed}x, ${n} viewers per relay, ${seconds} s measured, $(nproc) cores"

# 1. the venue relay alone
"$bin" replay "$feed" --serve --speed "$speed" --quiet --listen 127.0.0.1:0 --port-file "$tmp/single.port" \
  2>"$tmp/single.log" &
pids+=($!)
port=$(wait_file "$tmp/single.port")
wait_ready "$port"
viewers single "$port"
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true

# 2. venue -> NATS JetStream -> two edges
np=$(free_port)
nats-server -js -a 127.0.0.1 -p "$np" -sd "$tmp/js" >"$tmp/nats.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$np") 2>/dev/null && break; sleep 0.05; done
"$bin" replay "$feed" --serve --speed "$speed" --quiet --listen 127.0.0.1:0 --port-file "$tmp/venue.port" \
  --publish "nats://127.0.0.1:$np" 2>"$tmp/venue.log" &
pids+=($!)
vport=$(wait_file "$tmp/venue.port")
wait_ready "$vport"
eports=()
for e in 1 2; do
  "$bin" edge --from "nats://127.0.0.1:$np" --quiet --listen 127.0.0.1:0 --port-file "$tmp/edge$e.port" \
    2>"$tmp/edge$e.log" &
  pids+=($!)
  p=$(wait_file "$tmp/edge$e.port")
  wait_ready "$p"
  eports+=("$p")
done
viewers nats "$vport" "${eports[@]}"

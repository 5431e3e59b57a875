#!/usr/bin/env bash
# The relay's viewer latency with and without engine evaluations: the same
# steady feed of B live boards (relay_load_feed), N viewers on round 1
# (relay_load_client, no join snapshots), once with a tournament file
# without "engine" and once with PROCS Stockfish processes (niced by the
# relay), alternating REPEAT times. Prints each run's client line, the
# medians, the ratio of the latencies (engines / none) and the positions
# the engines analysed per second (from /metrics).
#
#   bench/relay_load/engine.sh BUILD_DIR [N]        (default N: 1000)
#
# Environment: BOARDS (default 50), RATE (relay events/s, default 10: a
# move and its clock, so 5 moves/s over the boards), PROCS (default 8),
# MOVETIME_MS (default 500), SECONDS_MEASURED (default 20), REPEAT
# (default 3), KEEP=DIR. Needs Debian's stockfish (scripts/setup).
set -euo pipefail
build=${1:?usage: engine.sh BUILD_DIR [N]}
n=${2:-1000}
boards=${BOARDS:-50}
rate=${RATE:-10}
procs=${PROCS:-8}
movetime=${MOVETIME_MS:-500}
seconds=${SECONDS_MEASURED:-20}
repeat=${REPEAT:-3}
bin=$build/bench/relay_load
command -v stockfish >/dev/null || [ -x /usr/games/stockfish ] || {
  echo "engine.sh: stockfish missing (scripts/setup installs it)" >&2; exit 1; }
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

"$bin/relay_load_feed" --rate "$rate" --boards "$boards" --seconds 3600 >"$tmp/load.feed"
cat >"$tmp/none.json" <<EOF
{"event": "engine bench", "feeds": ["$tmp/load.feed"],
 "limits": {"connections": 200000, "per_address": 200000}}
EOF
cat >"$tmp/engine.json" <<EOF
{"event": "engine bench", "feeds": ["$tmp/load.feed"],
 "limits": {"connections": 200000, "per_address": 200000},
 "engine": {"path": "stockfish", "processes": $procs, "threads": 1, "hash_mb": 16,
            "movetime_ms": $movetime}}
EOF

metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v k="$2" '$1 == k {print $2}'; }

# one NAME: the relay with $tmp/NAME.json, N viewers; appends a result line
one() {
  local name=$1
  rm -rf "$tmp/state" "$tmp/port"
  "$build/chessrelay" serve --config "$tmp/$name.json" --state "$tmp/state" --quiet \
      --listen 127.0.0.1:0 --port-file "$tmp/port" 2>"$tmp/$name.log" &
  local pid=$!
  for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
  local port; port=$(cat "$tmp/port")
  sleep 3 # the feed's first moves (and the engines' handshakes)
  local a0; a0=$(metric "$port" chessrelay_engine_positions_analysed_total)
  local c0; c0=$(metric "$port" chessrelay_engine_positions_cached_total)
  local t0; t0=$(date +%s.%N)
  "$bin/relay_load_client" --port "$port" --viewers "$n" --seconds "$seconds" --server-pid "$pid" \
      --resume 1 >"$tmp/client.out" 2>"$tmp/client.err"
  local a1; a1=$(metric "$port" chessrelay_engine_positions_analysed_total)
  local c1; c1=$(metric "$port" chessrelay_engine_positions_cached_total)
  local t1; t1=$(date +%s.%N)
  local q; q=$(metric "$port" chessrelay_engine_queued)
  local pps; pps=$(awk -v a="${a0:-0}" -v b="${a1:-0}" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.1f", (b - a) / (t1 - t0)}')
  local cps; cps=$(awk -v a="${c0:-0}" -v b="${c1:-0}" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.1f", (b - a) / (t1 - t0)}')
  kill "$pid"; wait "$pid" 2>/dev/null || true
  printf "%-6s N=%-5s %s positions_per_s=%s cached_per_s=%s queued_at_end=%s\n" "$name" "$n" \
      "$(cat "$tmp/client.out")" "$pps" "$cps" "${q:-0}" | tee -a "$tmp/results"
}

echo "# engine bench: $boards boards, $rate events/s, $n viewers, $procs x stockfish" \
     "(movetime $movetime ms, niced), ${seconds} s measured, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$repeat"); do
  one none
  one engine
done
awk '
  function median(s,    n, i, j, t, a) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[$1, kv[1]] = v[$1, kv[1]] " " kv[2] } }
  END {
    split("p50_ms p99_ms max_ms msgs_per_s positions_per_s cached_per_s", keys, " ")
    for (s = 1; s <= 2; s++) {
      name = s == 1 ? "none" : "engine"
      line = "median " name
      for (k = 1; k <= 6; k++) { m[name, keys[k]] = median(v[name, keys[k]]); line = line " " keys[k] "=" m[name, keys[k]] }
      print line
    }
    printf "ratio engine/none: p50 %.2f p99 %.2f msgs/s %.2f; positions analysed per second %.1f (and %.1f from the cache)\n",
      m["engine", "p50_ms"] / m["none", "p50_ms"], m["engine", "p99_ms"] / m["none", "p99_ms"],
      m["engine", "msgs_per_s"] / m["none", "msgs_per_s"], m["engine", "positions_per_s"], m["engine", "cached_per_s"]
  }' "$tmp/results"

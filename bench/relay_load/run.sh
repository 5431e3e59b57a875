#!/usr/bin/env bash
# The relay under load, next to a bare lws broadcast server, same run, same
# machine, same client: N viewers each, latency from an event's ts to its
# arrival at every viewer (p50/p99/max), messages/s delivered, the server's
# CPU time per delivered message, and server memory per idle viewer.
#
#   bench/relay_load/run.sh BUILD_DIR [N...]      (default N: 1000 5000 10000)
#
# The relay replays a steady generated feed (relay_load_feed: RATE events a
# second, round 1); one viewer records the relay's event stream ("ts length"
# per event) and the bare server then sends that stream: the same events at
# the same moments, of the same sizes, once one message per WRITEABLE (bare)
# and once batched as the relay does (bare8). Same client, same lws options.
#
# Environment: RATE (events/s, default 5), SECONDS_MEASURED (default 10),
# REPEAT (relay/bare pairs per N, default 1), JOIN=1 (also the relay with the
# join snapshots), KEEP=DIR (keep the feed, schedules and logs there).
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [N...]}
shift
[ $# -gt 0 ] && counts=("$@") || counts=(1000 5000 10000)
rate=${RATE:-5}
seconds=${SECONDS_MEASURED:-10}
repeat=${REPEAT:-1}
bin=$build/bench/relay_load
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
field() { tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k {print $2}'; }

wait_port() {
  for _ in $(seq 200); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.05; done
  echo "server did not start" >&2; exit 1
}

# run NAME N CLIENT_ARGS -- SERVER_CMD...: starts the server, N viewers; prints one result line
run() {
  local name=$1 n=$2 cargs=()
  shift 2
  while [ "$1" != -- ]; do cargs+=("$1"); shift; done
  shift
  rm -f "$tmp/port"
  "$@" --port-file "$tmp/port" 2>"$tmp/$name.log" &
  local pid=$!
  local port; port=$(wait_port "$tmp/port")
  sleep 0.5
  local rss0; rss0=$(rss_kib $pid)
  "$bin/relay_load_client" --port "$port" --viewers "$n" --seconds "$seconds" --server-pid "$pid" \
      "${cargs[@]}" >"$tmp/client.out" 2>"$tmp/client.err" &
  local cpid=$!
  # memory once every viewer is connected and subscribed
  for _ in $(seq 1800); do grep -q measuring "$tmp/client.err" 2>/dev/null && break; sleep 0.1; done
  local rss1; rss1=$(rss_kib $pid)
  wait $cpid
  kill $pid; wait $pid 2>/dev/null || true
  local out="$tmp/client.out"
  local per; per=$(awk -v a="$rss0" -v b="$rss1" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / n}')
  local cpu; cpu=$(awk -v c="$(field "$out" server_cpu_ms)" -v m="$(field "$out" messages)" \
      'BEGIN {printf "%.2f", (m > 0 ? c * 1000 / m : 0)}')
  local lws; lws=$(awk -v c="$(field "$out" lws_cpu_ms)" -v m="$(field "$out" messages)" \
      'BEGIN {printf "%.2f", (c >= 0 && m > 0 ? c * 1000 / m : -1)}')
  printf "%-5s N=%-6s %s kib_per_viewer=%s us_cpu_per_msg=%s us_lws_cpu_per_msg=%s\n" "$name" "$n" \
      "$(cat "$out")" "$per" "$cpu" "$lws"
}

# ratios OTHER: the relay's figures over OTHER's, from $tmp/pair (this N's lines);
# the relay's CPU per message is also given for its WebSocket thread alone.
ratios() {
  awk -v o="$1" '
    { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[$1, kv[1]] = kv[2] }; n = $2 }
    function r(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
    END {
      printf "ratio %s relay/%s: p50 %s p99 %s max %s msgs/s %s cpu/msg %s (lws thread %s)\n", n, o,
        r(v["relay", "p50_ms"], v[o, "p50_ms"]), r(v["relay", "p99_ms"], v[o, "p99_ms"]),
        r(v["relay", "max_ms"], v[o, "max_ms"]), r(v["relay", "msgs_per_s"], v[o, "msgs_per_s"]),
        r(v["relay", "us_cpu_per_msg"], v[o, "us_cpu_per_msg"]),
        r(v["relay", "us_lws_cpu_per_msg"], v[o, "us_cpu_per_msg"])
    }' "$tmp/pair"
}

"$bin/relay_load_feed" --rate "$rate" --seconds 3600 >"$tmp/load.feed"
# Every viewer comes from 127.0.0.1: the per-address cap (256 by default,
# docs/protocol.md "Limits") must not be what is measured.
printf '{"limits": {"connections": 200000, "per_address": 200000}}\n' >"$tmp/limits.json"
echo "# relay_load: $rate events/s, ${seconds} s measured per run, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${counts[@]}"; do
  for _ in $(seq "$repeat"); do
    # steady state: viewers resume from the head (no snapshots), like the bare server's
    run relay "$n" --resume 1 --record "$tmp/schedule.$n" -- \
        "$build/chessrelay" replay "$tmp/load.feed" --serve --config "$tmp/limits.json" --quiet \
        --listen 127.0.0.1:0 >"$tmp/pair"
    # the same stream: one message per WRITEABLE (the lws ring example), and
    # batched as the relay's viewer_writeable does (up to 8 per send)
    run bare "$n" --resume 0 -- "$bin/relay_load_bare" --port 0 --schedule "$tmp/schedule.$n" >>"$tmp/pair"
    run bare8 "$n" --resume 0 -- "$bin/relay_load_bare" --port 0 --schedule "$tmp/schedule.$n" \
        --batch 8 >>"$tmp/pair"
    cat "$tmp/pair" | tee -a "$tmp/results"
    ratios bare
    ratios bare8
  done
  # the join: each viewer gets the snapshots of the round's games first
  if [ -n "${JOIN:-}" ]; then
    run join "$n" --resume 0 -- "$build/chessrelay" replay "$tmp/load.feed" --serve \
        --config "$tmp/limits.json" --quiet \
        --listen 127.0.0.1:0
  fi
done

# With REPEAT > 1: the median of each figure per N and server, and the
# relay's medians over the bare servers'.
if [ "$repeat" -gt 1 ]; then
  echo "# medians of $repeat runs"
  awk '
    function median(key,    n, i, j, t, a) {
      n = split(vals[key], a, " ")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    {
      if (!($2 in seen)) { seen[$2] = 1; ns[++nn] = $2 }
      for (i = 3; i <= NF; i++) { split($i, kv, "="); vals[$1 SUBSEP $2 SUBSEP kv[1]] = vals[$1 SUBSEP $2 SUBSEP kv[1]] " " kv[2] }
    }
    END {
      split("p50_ms p99_ms max_ms msgs_per_s us_cpu_per_msg us_lws_cpu_per_msg kib_per_viewer", keys, " ")
      for (k = 1; k <= nn; k++) {
        n = ns[k]
        split("relay bare bare8", names, " ")
        for (s = 1; s <= 3; s++) {
          line = sprintf("%-5s %-8s", names[s], n)
          for (i = 1; i <= 7; i++) { m[names[s], keys[i]] = median(names[s] SUBSEP n SUBSEP keys[i]); line = line sprintf(" %s=%s", keys[i], m[names[s], keys[i]]) }
          print line
        }
        for (s = 2; s <= 3; s++) {
          o = names[s]
          printf "ratio %s relay/%s (medians): p50 %.2f p99 %.2f max %.2f msgs/s %.2f cpu/msg %.2f (lws thread %.2f)\n", n, o,
            m["relay", "p50_ms"] / m[o, "p50_ms"], m["relay", "p99_ms"] / m[o, "p99_ms"],
            m["relay", "max_ms"] / m[o, "max_ms"], m["relay", "msgs_per_s"] / m[o, "msgs_per_s"],
            m["relay", "us_cpu_per_msg"] / m[o, "us_cpu_per_msg"], m["relay", "us_lws_cpu_per_msg"] / m[o, "us_cpu_per_msg"]
        }
      }
    }' "$tmp/results"
fi

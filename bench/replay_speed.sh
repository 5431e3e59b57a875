#!/usr/bin/env bash
# Whole-process replay speed: `chessrelay replay` over a large corpus, feed
# parsing, inference and PGN writing included, in snapshots per second.
#
#   bench/replay_speed.sh BUILD_DIR [TIMES] [RUNS]
#
# The corpus is every feed of tests/data/feeds given TIMES times (default 30)
# on one command line, as docs/inference.md measures it. The time is the task
# clock (CPU time of the process, user + system) averaged over RUNS runs
# (default 8) by `perf stat`, or by bash's `time` where perf is missing: on a
# shared machine CPU time is steadier than wall time. The snapshot count
# comes from `replay --stats`. Prints one line:
#   snapshots=N seconds=S snapshots/s=R
# Environment: FEEDS (default tests/data/feeds) to time another folder.
set -euo pipefail
build=${1:?usage: replay_speed.sh BUILD_DIR [TIMES] [RUNS]}
times=${2:-30}
runs=${3:-8}
here=$(cd "$(dirname "$0")" && pwd)
feeds=${FEEDS:-$here/../tests/data/feeds}
bin=$build/chessrelay
[ -x "$bin" ] || { echo "build $bin first (cmake --build $build --target chessrelay)" >&2; exit 1; }

corpus=()
for ((i = 0; i < times; i++)); do
    corpus+=("$feeds"/*.feed)
done

stats=$("$bin" replay --stats "${corpus[@]}" 2>&1 >/dev/null | grep '^replay stats:')
snapshots=$(sed -n 's/.* snapshots=\([0-9]*\).*/\1/p' <<<"$stats")

if command -v perf >/dev/null && perf stat -x, -e task-clock true >/dev/null 2>&1; then
    # -x,: "msec,,task-clock,..." on stderr; the mean over the runs.
    ms=$(perf stat -x, -e task-clock -r "$runs" "$bin" replay "${corpus[@]}" 2>&1 >/dev/null |
         awk -F, '$3 ~ /^task-clock/ { print $1 }')
else
    TIMEFORMAT='%U %S'
    total=0
    for ((r = 0; r < runs; r++)); do
        t=$({ time "$bin" replay "${corpus[@]}" >/dev/null; } 2>&1)
        total=$(awk -v a="$total" -v t="$t" 'BEGIN { split(t, x, " "); print a + x[1] + x[2] }')
    done
    ms=$(awk -v s="$total" -v n="$runs" 'BEGIN { print s * 1000 / n }')
fi
awk -v n="$snapshots" -v ms="$ms" \
    'BEGIN { printf "snapshots=%d seconds=%.4f snapshots/s=%.0f\n", n, ms / 1000, n / (ms / 1000) }'

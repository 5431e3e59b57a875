#!/usr/bin/env bash
# Whole-process replay speed: `chessrelay replay` over a large corpus, feed
# parsing, inference and PGN writing included, in snapshots per second.
#
#   bench/replay_speed.sh BUILD_DIR [TIMES] [RUNS]
#
# The corpus is every feed of tests/data/feeds given TIMES times (default 30)
# on one command line, as docs/inference.md measures it. The time is the task
# clock (CPU time of the process, user + system) of each of RUNS runs
# (default 8), by `perf stat`, or by bash's `time` where perf is missing: on
# a shared machine CPU time is steadier than wall time. The snapshot count
# comes from `replay --stats`. Prints one line, the mean and the fastest run:
#   snapshots=N seconds=S snapshots/s=R (mean of 8 runs; fastest S2 s: R2/s)
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

# One timing per run: the mean, and the fastest run, which on a shared
# machine is the one least disturbed by others.
times_ms=()
if command -v perf >/dev/null && perf stat -x, -e task-clock true >/dev/null 2>&1; then
    for ((r = 0; r < runs; r++)); do
        # -x,: "msec,,task-clock,..." on stderr
        times_ms+=("$(perf stat -x, -e task-clock "$bin" replay "${corpus[@]}" 2>&1 >/dev/null |
                      awk -F, '$3 ~ /^task-clock/ { print $1 }')")
    done
else
    TIMEFORMAT='%U %S'
    for ((r = 0; r < runs; r++)); do
        t=$({ time "$bin" replay "${corpus[@]}" >/dev/null; } 2>&1)
        times_ms+=("$(awk -v t="$t" 'BEGIN { split(t, x, " "); print (x[1] + x[2]) * 1000 }')")
    done
fi
printf '%s\n' "${times_ms[@]}" | awk -v n="$snapshots" '
    { s += $1; if (NR == 1 || $1 < m) m = $1 }
    END {
        mean = s / NR
        printf "snapshots=%d seconds=%.4f snapshots/s=%.0f (mean of %d runs; fastest %.4f s: %.0f/s)\n",
               n, mean / 1000, n / (mean / 1000), NR, m / 1000, n / (m / 1000)
    }'

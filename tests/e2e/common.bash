# Sourced by the end-to-end scripts (not a test: ctest runs tests/e2e/*.sh).
# reap_children kills every process this script started, children of
# subshells included, so that a failed run leaves nothing behind; call it
# from the EXIT trap.
descendants() {
  local kid
  for kid in $(pgrep -P "$1" 2>/dev/null); do
    descendants "$kid"
    echo "$kid"
  done
}

reap_children() {
  local pids
  pids=$(descendants $$)
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null
  local p tries=0
  for p in $pids; do   # up to 2 s for them all to stop, then no more asking
    while kill -0 "$p" 2>/dev/null && [ $tries -lt 40 ]; do sleep 0.05; tries=$((tries + 1)); done
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null
  wait 2>/dev/null
  return 0
}

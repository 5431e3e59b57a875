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

# emulation_done NAME EMU_PID REC_PID EMU_ERR REC_ERR: waits for `chessrelay
# emulate` to end (240 s at most), stops the `chessrelay record` beside it,
# and reports what went wrong through the caller's `bad NAME TEXT`.
emulation_done() {
  local name=$1 emu=$2 rec=$3 emu_err=$4 rec_err=$5 waited=0
  while kill -0 "$emu" 2>/dev/null; do
    sleep 0.2; waited=$((waited + 1))
    if [ $waited -gt 1200 ]; then bad "$name" "emulator still running after 240 s"; kill "$emu"; break; fi
  done
  wait "$emu"; local erc=$?
  kill -INT "$rec"; wait "$rec"; local rrc=$?
  [ $erc -eq 0 ] || { bad "$name" "emulate exited $erc"; cat "$emu_err"; }
  [ $rrc -eq 0 ] || { bad "$name" "record exited $rrc"; cat "$rec_err"; }
}

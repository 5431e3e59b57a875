#!/usr/bin/env bash
# Certabo boards, clean runs: see emulator_kinds.bash.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR, E2E_FEEDS, E2E_SPEED, E2E_KEEP.
. "$(dirname "$0")/emulator_kinds.bash"
run_kind certabo clean
exit $?

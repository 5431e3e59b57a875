#!/usr/bin/env bash
# Millennium ChessLink boards, runs with faults: see emulator_kinds.bash.
#   $1 = path of the chessrelay binary; env CR_SOURCE_DIR, E2E_FEEDS, E2E_FAULT_SPEED, E2E_KEEP.
. "$(dirname "$0")/emulator_kinds.bash"
run_kind millennium faults
exit $?

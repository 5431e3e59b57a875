#!/usr/bin/env bash
# emulator_record.sh's runs with faults (garbage, drop, disconnect, all
# three on one board of pm01), a ctest test of their own.
#   $1 = path of the chessrelay binary; env as emulator_record.sh's.
E2E_PART=faults exec bash "$(dirname "$0")/emulator_record.sh" "$@"

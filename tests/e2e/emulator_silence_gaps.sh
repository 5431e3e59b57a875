#!/usr/bin/env bash
# emulator_silence.sh's feeds of tests/data/feeds-gaps and the feeds with
# muted stretches over moves the board saw, a ctest test of their own.
#   $1 = path of the chessrelay binary; env as emulator_silence.sh's.
E2E_PART=gaps exec bash "$(dirname "$0")/emulator_silence.sh" "$@"

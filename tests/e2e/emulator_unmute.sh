#!/usr/bin/env bash
# A muted emulated board waits for a slow host to take it up again (see
# emulator_unmute.py). Run by ctest as: bash emulator_unmute.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/emulator_unmute.py" "${1:?usage: emulator_unmute.sh /path/to/chessrelay}"

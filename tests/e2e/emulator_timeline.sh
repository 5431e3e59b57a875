#!/usr/bin/env bash
# The emulator's timeline against a slow host and a slow machine (see
# emulator_timeline.py). Run by ctest as: bash emulator_timeline.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/emulator_timeline.py" "${1:?usage: emulator_timeline.sh /path/to/chessrelay}"

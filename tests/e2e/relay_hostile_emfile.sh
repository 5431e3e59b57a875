#!/usr/bin/env bash
# Hostile input: accept() failing with EMFILE under ulimit -n 64 (relay_hostile.py emfile).
# Run by ctest as: bash relay_hostile_emfile.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_emfile.sh /path/to/chessrelay}" emfile

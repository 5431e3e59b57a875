#!/usr/bin/env bash
# Hostile input: a flood of idle sockets, wrong tokens, --listen (relay_hostile.py flood).
# Run by ctest as: bash relay_hostile_flood.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_flood.sh /path/to/chessrelay}" flood

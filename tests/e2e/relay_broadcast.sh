#!/usr/bin/env bash
# The relay end to end through real sockets (see relay_e2e.py: broadcast).
# Run by ctest as: bash relay_broadcast.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_e2e.py" "${1:?usage: relay_broadcast.sh /path/to/chessrelay}" broadcast

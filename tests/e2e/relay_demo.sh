#!/usr/bin/env bash
# The relay end to end through real sockets (see relay_e2e.py: demo).
# Run by ctest as: bash relay_demo.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_e2e.py" "${1:?usage: relay_demo.sh /path/to/chessrelay}" demo

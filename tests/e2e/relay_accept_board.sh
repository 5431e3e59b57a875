#!/usr/bin/env bash
# The arbiter accepts the board's position (see relay_accept_board.py).
# Run by ctest as: bash relay_accept_board.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_accept_board.py" "${1:?usage: relay_accept_board.sh /path/to/chessrelay}"

#!/usr/bin/env bash
# Board numbers survive kill -9 restarts (see board_numbers.py).
# Run by ctest as: bash board_numbers.sh /path/to/chessrelay
set -eu
exec python3 "$(dirname "$0")/board_numbers.py" "${1:?usage: board_numbers.sh /path/to/chessrelay}"

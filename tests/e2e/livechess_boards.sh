#!/usr/bin/env bash
# The DGT LiveChess API over a live board: an emulated DGT board on a pty
# read by `serve --serial` (see livechess_boards.py).
# Run by ctest as: bash livechess_boards.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/livechess_boards.py" "${1:?usage: livechess_boards.sh /path/to/chessrelay}"

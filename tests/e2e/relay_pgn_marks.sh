#!/usr/bin/env bash
# The words of uncertainty in served, exported and bare PGN (see relay_pgn_marks.py).
# Run by ctest as: bash relay_pgn_marks.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_pgn_marks.py" "${1:?usage: relay_pgn_marks.sh /path/to/chessrelay}"

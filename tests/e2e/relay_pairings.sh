#!/usr/bin/env bash
# The relay with a TRF pairings file: games before the boards, boards in their
# tables' games, re-import, a bad file, kill -9 and restart (see
# relay_pairings.py). Run by ctest as: bash relay_pairings.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_pairings.py" "${1:?usage: relay_pairings.sh /path/to/chessrelay}"

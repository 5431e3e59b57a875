#!/usr/bin/env bash
# Engine evaluations with real Stockfish (see relay_engine.py).
# Run by ctest as: bash relay_engine.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_engine.py" "${1:?usage: relay_engine.sh /path/to/chessrelay}"

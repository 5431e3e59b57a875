#!/usr/bin/env bash
# The DGT LiveChess local API (docs/protocol.md, "DGT LiveChess local API"):
# a client written from that section follows a replayed board through its
# game (see livechess_api.py).
# Run by ctest as: bash livechess_api.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/livechess_api.py" "${1:?usage: livechess_api.sh /path/to/chessrelay}"

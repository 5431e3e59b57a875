#!/usr/bin/env bash
# The relay pushes round PGNs to a lichess-style receiver and keeps the export
# folder (see relay_push.py). Run by ctest as: bash relay_push.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_push.py" "${1:?usage: relay_push.sh /path/to/chessrelay}"

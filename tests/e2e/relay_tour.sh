#!/usr/bin/env bash
# Tournament feeds through the served relay (see relay_tour.py).
# Run by ctest as: bash relay_tour.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_tour.py" "${1:?usage: relay_tour.sh /path/to/chessrelay}"

#!/usr/bin/env bash
# Hostile input: incidents.log and the agent's journal sealed, a changed byte found (relay_hostile.py sealed).
# Run by ctest as: bash relay_hostile_sealed.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_sealed.sh /path/to/chessrelay}" sealed

#!/usr/bin/env bash
# Hostile input: agent ids, boards, sequence numbers (relay_hostile.py agents).
# Run by ctest as: bash relay_hostile_agents.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_agents.sh /path/to/chessrelay}" agents

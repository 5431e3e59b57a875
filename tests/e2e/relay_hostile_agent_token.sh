#!/usr/bin/env bash
# Hostile input: --agent-token scoped on the command line (relay_hostile.py agent_token).
# Run by ctest as: bash relay_hostile_agent_token.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_agent_token.sh /path/to/chessrelay}" agent_token

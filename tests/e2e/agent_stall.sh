#!/usr/bin/env bash
# An agent silent for 11 s between a move and its clock press: the same PGN
# as offline (see agent_stall.py).
# Run by ctest as: bash agent_stall.sh /path/to/chessrelay
set -eu
exec python3 "$(dirname "$0")/agent_stall.py" "${1:?usage: agent_stall.sh /path/to/chessrelay}"

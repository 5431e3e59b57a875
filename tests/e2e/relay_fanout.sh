#!/usr/bin/env bash
# The relay end to end through real sockets (see relay_e2e.py: fanout): many
# viewers of eight boards, some leaving; since across games; unsubscribe.
# Run by ctest as: bash relay_fanout.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_e2e.py" "${1:?usage: relay_fanout.sh /path/to/chessrelay}" fanout

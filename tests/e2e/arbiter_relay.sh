#!/usr/bin/env bash
# Arbiter monitoring end to end through real sockets (see arbiter_relay.py).
# Run by ctest as: bash arbiter_relay.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/arbiter_relay.py" "${1:?usage: arbiter_relay.sh /path/to/chessrelay}"

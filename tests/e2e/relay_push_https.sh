#!/usr/bin/env bash
# The broadcast push over HTTPS with the host's certificate checked (see
# relay_push_https.py). Run by ctest as: bash relay_push_https.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_push_https.py" "${1:?usage: relay_push_https.sh /path/to/chessrelay}"

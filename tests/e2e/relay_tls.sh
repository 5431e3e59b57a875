#!/usr/bin/env bash
# The relay end to end through real sockets (see relay_e2e.py: tls): a
# certificate made with openssl at test time, wss:// and https, plain refused.
# Run by ctest as: bash relay_tls.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_e2e.py" "${1:?usage: relay_tls.sh /path/to/chessrelay}" tls

#!/usr/bin/env bash
# Threefold and 50-move claims across kill -9 restarts (see arbiter_claims.py).
# Run by ctest as: bash arbiter_claims.sh /path/to/chessrelay
set -eu
exec python3 "$(dirname "$0")/arbiter_claims.py" "${1:?usage: arbiter_claims.sh /path/to/chessrelay}"

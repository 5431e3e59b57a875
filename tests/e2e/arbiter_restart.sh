#!/usr/bin/env bash
# A restart changes nothing anyone can see, for every kind of arbiter action
# (see arbiter_restart.py). Run by ctest as: bash arbiter_restart.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/arbiter_restart.py" "${1:?usage: arbiter_restart.sh /path/to/chessrelay}"

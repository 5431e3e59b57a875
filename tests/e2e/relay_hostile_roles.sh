#!/usr/bin/env bash
# Hostile input: the roles table and header limits (relay_hostile.py roles).
# Run by ctest as: bash relay_hostile_roles.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_roles.sh /path/to/chessrelay}" roles

#!/usr/bin/env bash
# Hostile input: a full disk under the journal (relay_hostile.py disk).
# Run by ctest as: bash relay_hostile_disk.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_disk.sh /path/to/chessrelay}" disk

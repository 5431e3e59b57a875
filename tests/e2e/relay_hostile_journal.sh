#!/usr/bin/env bash
# Hostile input: journal seals, verify (relay_hostile.py journal).
# Run by ctest as: bash relay_hostile_journal.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_journal.sh /path/to/chessrelay}" journal

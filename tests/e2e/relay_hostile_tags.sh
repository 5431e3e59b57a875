#!/usr/bin/env bash
# Hostile input: tag names and the journal's command lines (relay_hostile.py tags).
# Run by ctest as: bash relay_hostile_tags.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/relay_hostile.py" "${1:?usage: relay_hostile_tags.sh /path/to/chessrelay}" tags

#!/usr/bin/env bash
# The web root's files as the relay serves them: precompressed copies by
# Accept-Encoding, caching, ETag and 304 (see web_assets.py).
# Run by ctest as: bash web_assets.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/web_assets.py" "${1:?usage: web_assets.sh /path/to/chessrelay}"

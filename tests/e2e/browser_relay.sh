#!/usr/bin/env bash
# The web viewer and the arbiter dashboard against the real relay
# (`chessrelay replay FEED --serve`), checked in Debian's chromium.
# Run by ctest as: bash browser_relay.sh /path/to/chessrelay
set -euo pipefail
bin=${1:?usage: browser_relay.sh /path/to/chessrelay}
src=${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec bash "$src/tests/browser/run.sh" relay "$bin"

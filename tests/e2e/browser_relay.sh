#!/usr/bin/env bash
# The web viewer against the real relay: `chessrelay replay FEED --serve` at
# 20x (or, lacking it, `chessrelay demo` on the same feed), checked in Debian's
# chromium. Prints "skipped: relay has no --serve" and passes only when the
# binary can serve neither way.
# Run by ctest as: bash browser_relay.sh /path/to/chessrelay
set -euo pipefail
bin=${1:?usage: browser_relay.sh /path/to/chessrelay}
src=${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec bash "$src/tests/browser/run.sh" relay "$bin"

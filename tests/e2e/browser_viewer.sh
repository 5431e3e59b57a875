#!/usr/bin/env bash
# The web viewer: unit tests of its logic and browser tests (Debian's
# chromium) against the scripted fake relay in tests/browser/.
# Run by ctest as: bash browser_viewer.sh /path/to/chessrelay
set -euo pipefail
src=${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec bash "$src/tests/browser/run.sh" all

#!/usr/bin/env bash
# The viewer's issue-30 defects (embed fit, names, spare boards, eval bar,
# phone tabs, Russian names) and axe-core on every page, both languages and
# themes, in Debian's chromium against the fake relay (tests/browser/).
# Run by ctest as: bash browser_defects.sh /path/to/chessrelay
set -euo pipefail
src=${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec bash "$src/tests/browser/run.sh" defects

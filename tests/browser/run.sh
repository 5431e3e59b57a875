#!/usr/bin/env bash
# Unit and browser tests of the web viewer.
#   tests/browser/run.sh [all|unit|fake|relay|defects] [path/to/chessrelay]
# all (default): unit tests + browser tests against the fake relay, plus the
# real-relay browser test when a relay binary is given. defects: issue 30's
# defects and the axe-core sweep of every page (its own ctest entry: the
# sweep of 9 pages x 2 languages x 2 themes takes minutes). Builds web/dist and
# installs the test packages (npm ci) when needed. Uses Debian's chromium
# (/usr/bin/chromium, or $CR_CHROMIUM), never a downloaded browser.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
what=${1:-all}
relay_bin=${2:-${CR_RELAY_BIN:-}}
export CR_SOURCE_DIR=${CR_SOURCE_DIR:-$repo}
export CR_ARTIFACTS_DIR=${CR_ARTIFACTS_DIR:-$repo/artifacts/browser}

case "$what" in
  all|unit|fake|relay|defects) ;;
  *) echo "usage: $0 [all|unit|fake|relay|defects] [chessrelay binary]" >&2; exit 2 ;;
esac

# One setup at a time: ctest may start several of these scripts together.
exec 9>"${TMPDIR:-/tmp}/chessrelay-browser-setup.lock"
flock 9
if [ ! -d "$here/node_modules/playwright-core" ] || [ ! -d "$here/node_modules/ws" ] || [ ! -d "$here/node_modules/chess.js" ] || [ ! -d "$here/node_modules/axe-core" ]; then
  (cd "$here" && npm ci --no-audit --no-fund)
fi
if [ "$what" != unit ]; then
  chromium_bin=${CR_CHROMIUM:-/usr/bin/chromium}
  if [ ! -x "$chromium_bin" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "browser: installing Debian's chromium" >&2
      apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
    fi
    if [ ! -x "$chromium_bin" ]; then
      echo "browser: $chromium_bin missing (apt-get install chromium)" >&2
      exit 1
    fi
  fi
  # Rebuild web/dist only when a source is newer than the build.
  dist="$repo/web/dist/build.txt"
  if [ ! -f "$dist" ] || [ -n "$(find "$repo/web/src" "$repo/web/build.mjs" "$repo/web/package.json" -newer "$dist" 2>/dev/null | head -1)" ]; then
    "$repo/web/build.sh"
  fi
fi
flock -u 9

files=()
case "$what" in
  unit) files=("$here"/unit/*.test.mjs) ;;
  fake) files=("$here"/browser/fake.test.mjs "$here"/browser/usability.test.mjs "$here"/browser/viewer.test.mjs "$here"/browser/arbiter.test.mjs "$here"/browser/arbiter-board.test.mjs "$here"/browser/arbiter-accept.test.mjs "$here"/browser/arbiter-floor.test.mjs "$here"/browser/eval.test.mjs "$here"/browser/features.test.mjs) ;;
  defects) files=("$here"/browser/view-defects.test.mjs "$here"/browser/a11y.test.mjs) ;;
  relay)
    [ -n "$relay_bin" ] || { echo "browser: 'relay' needs the chessrelay binary" >&2; exit 1; }
    files=("$here"/browser/relay.test.mjs "$here"/browser/relay-tls.test.mjs "$here"/browser/arbiter-relay.test.mjs "$here"/browser/engine-relay.test.mjs "$here"/browser/pairings-relay.test.mjs "$here"/browser/media-relay.test.mjs) ;;
  all)
    files=("$here"/unit/*.test.mjs "$here"/browser/fake.test.mjs "$here"/browser/usability.test.mjs "$here"/browser/viewer.test.mjs "$here"/browser/arbiter.test.mjs "$here"/browser/arbiter-board.test.mjs "$here"/browser/arbiter-accept.test.mjs "$here"/browser/arbiter-floor.test.mjs "$here"/browser/eval.test.mjs "$here"/browser/features.test.mjs "$here"/browser/view-defects.test.mjs "$here"/browser/a11y.test.mjs)
    [ -n "$relay_bin" ] && files+=("$here"/browser/relay.test.mjs "$here"/browser/relay-tls.test.mjs "$here"/browser/arbiter-relay.test.mjs "$here"/browser/engine-relay.test.mjs "$here"/browser/pairings-relay.test.mjs "$here"/browser/media-relay.test.mjs)
    ;;
esac
if [ -n "$relay_bin" ]; then
  [ -x "$relay_bin" ] || { echo "browser: relay binary $relay_bin not found" >&2; exit 1; }
  relay_bin=$(realpath "$relay_bin")
fi
export CR_RELAY_BIN=$relay_bin

out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
(cd "$here" && node --test --test-reporter=tap --test-concurrency=1 "${files[@]}") 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
set -e
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$out" | tail -1)
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$out" | tail -1)
skip=$(sed -n 's/^# skipped \([0-9]*\)$/\1/p' "$out" | tail -1)
echo "browser: ${pass:-0} passed, ${fail:-0} failed, ${skip:-0} skipped"
# A test that did not run is a failure: nothing here may pass by skipping.
if [ "$rc" -eq 0 ] && [ "${pass:-0}" -eq 0 ]; then
  echo "browser: no test ran" >&2
  exit 1
fi
if [ "${skip:-0}" -ne 0 ]; then
  echo "browser: ${skip} test(s) skipped" >&2
  exit 1
fi
exit "$rc"

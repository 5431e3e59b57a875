#!/usr/bin/env bash
# The relay behind a real nginx (Debian's), configured with the block of
# docs/deploy.md ("Behind a reverse proxy"): see relay_proxy.py. nginx runs
# in the foreground with its own prefix, config, pid and logs in a temp dir
# and is killed on exit, however the test ends.
# Run by ctest as: bash relay_proxy.sh /path/to/chessrelay
set -euo pipefail
. "$(dirname "$0")/common.bash"
bin=${1:?usage: relay_proxy.sh /path/to/chessrelay}
command -v nginx >/dev/null || { echo "FAIL: nginx is not installed (scripts/setup installs it)"; exit 1; }
tmp=$(mktemp -d /tmp/cr_e2e_proxy_XXXXXX)
cleanup() {
  local rc=$?
  if [ -s "$tmp/nginx.pid" ]; then kill -TERM "$(cat "$tmp/nginx.pid")" 2>/dev/null || true; fi
  reap_children || true   # kill fails for a child already gone: not the test's result
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
python3 "$(dirname "$0")/relay_proxy.py" "$bin" "$tmp"

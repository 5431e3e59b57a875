# Sourced by run.sh and engine.sh (not run by itself): the descriptor limit
# raised, the work folder ($tmp: KEEP or a new one) and its cleanup on exit
# (the script's background jobs killed, the folder removed unless KEEP).
ulimit -n "$(ulimit -Hn)"
tmp=${KEEP:-$(mktemp -d)}
mkdir -p "$tmp"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

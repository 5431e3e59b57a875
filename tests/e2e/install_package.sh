#!/usr/bin/env bash
# The Debian package of this build (cpack -G DEB, as scripts/package makes
# it), unpacked into an empty root: it holds the binary, the web app, the demo
# feed, the udev rules, the systemd unit and the docs; its Depends are filled;
# the unit starts a binary that is in the package; and that binary, with the
# source and build trees hidden (a private mount namespace with empty
# folders over them), serves the packaged viewer and plays the demo.
# Run by ctest as: bash install_package.sh /path/to/build/chessrelay
set -u
BIN=$(realpath "${1:?usage: install_package.sh /path/to/chessrelay}")
BUILD=$(dirname "$BIN")
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
. "$(dirname "$0")/common.bash"
tmp=$(mktemp -d)
trap 'reap_children; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
[ -n "$prefix" ] && [ -n "$version" ] || fail "no prefix or version in $BUILD/CMakeCache.txt"
(cd "$tmp" && cpack -G DEB -B "$tmp/pkg" --config "$BUILD/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log"; fail "cpack"; }
deb=$(ls "$tmp"/pkg/chessrelay_"$version"_*.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || { ls "$tmp/pkg"; fail "no chessrelay_${version}_*.deb"; }
deps=$(dpkg-deb -f "$deb" Depends)
for lib in libwebsockets libevent libjansson libusb libnats; do
  case "$deps" in *"$lib"*) ;; *) fail "Depends lacks $lib: $deps" ;; esac
done

root="$tmp/root"
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x"
p="$root$prefix"
web="$p/share/chessrelay/web"
[ -s "$web/assets.json" ] || fail "the package has no $prefix/share/chessrelay/web/assets.json"
js=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["app.js"])' "$web/assets.json") ||
  fail "assets.json names no app.js"
for f in "$js" "$js.gz" "$js.br" /index.html.br; do
  [ -s "$web$f" ] || fail "the package has no $prefix/share/chessrelay/web$f"
done
for f in bin/chessrelay share/chessrelay/web/index.html \
         share/chessrelay/demo.feed lib/udev/rules.d/99-dgt.rules \
         lib/systemd/system/chessrelay.service share/doc/chessrelay/README.md \
         share/doc/chessrelay/examples/tournament.json; do
  [ -s "$p/$f" ] || fail "the package has no $prefix/$f"
done
unit="$p/lib/systemd/system/chessrelay.service"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
case "$exec_start" in
  "$prefix/bin/chessrelay serve --config /etc/chessrelay/tournament.json --state /var/lib/chessrelay") ;;
  *) fail "unit ExecStart: $exec_start" ;;
esac
grep -q '^DynamicUser=yes' "$unit" && grep -q '^Restart=on-failure' "$unit" ||
  fail "unit: its own user and restart on failure"
out=$("$p/bin/chessrelay" --version) || fail "--version"
[ "$out" = "chessrelay $version" ] || fail "--version says '$out', the project is $version"
# A release binary names no source path (a sanitizer build keeps its own
# source locations for its reports; it is never packaged).
if ! grep -q '^CR_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  strings "$p/bin/chessrelay" | grep -qF "$SRC" && fail "the binary names the source tree $SRC"
fi

# The packaged binary alone: source and build trees hidden.
hide="mount -t tmpfs none '$SRC'"
case "$BUILD/" in "$SRC"/*) ;; *) hide="$hide && mount -t tmpfs none '$BUILD'" ;; esac
ns=(unshare --mount --propagation private)
[ "$(id -u)" -eq 0 ] || ns=(unshare --user --map-root-user --mount --propagation private)
env -u CR_WEB_ROOT -u CR_DEMO_FEED "${ns[@]}" sh -c "$hide && test ! -e '$SRC/web' &&
  exec '$p/bin/chessrelay' demo --listen 127.0.0.1:0 --port-file '$tmp/port'" \
  >"$tmp/demo.log" 2>&1 &
demo=$!
for _ in $(seq 200); do
  [ -s "$tmp/port" ] && break
  kill -0 "$demo" 2>/dev/null || { cat "$tmp/demo.log"; fail "the packaged demo exited"; }
  sleep 0.05
done
[ -s "$tmp/port" ] || fail "the packaged demo wrote no port"
base="http://127.0.0.1:$(cat "$tmp/port")"
curl -sf "$base/" >"$tmp/index.html" || fail "GET /"
cmp -s "$tmp/index.html" "$p/share/chessrelay/web/index.html" || fail "GET / is not the packaged index.html"
curl -sf "$base$js" | cmp -s - "$web$js" || fail "GET $js is not the packaged one"
# The package keeps the precompressed copies fresh (not older than their
# files), so the packaged relay sends them.
curl -sf -H 'Accept-Encoding: br' -D "$tmp/js.hdr" -o "$tmp/js.br" "$base$js" || fail "GET $js (br)"
grep -qi '^content-encoding: br' "$tmp/js.hdr" && cmp -s "$tmp/js.br" "$web$js.br" ||
  fail "GET $js with br accepted is not the packaged .br copy: $(cat "$tmp/js.hdr")"
moved=0
for _ in $(seq 100); do
  curl -sf "$base/live.pgn" | grep -q '1\. ' && { moved=1; break; }
  sleep 0.05
done
[ $moved -eq 1 ] || fail "the packaged demo played no move in 5 s"
kill -TERM "$demo"
wait "$demo" || fail "the packaged demo exited $? on SIGTERM"
echo "install/package: ok ($(basename "$deb"), $(du -k "$deb" | cut -f1) KiB)"

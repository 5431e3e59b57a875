#!/usr/bin/env bash
# Replays every sample feed of tests/data/feeds and compares the games with
# the .expected files (through tests/tools/check-feeds), then checks that replay
# reports bad lines with file:line, skips them with --keep-going, and never
# crashes on garbage.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
CHECK="$SRC/tests/tools/check-feeds"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the samples, the hard cases other generators found, silent gaps of 5-8
# plies cut into samples, and tournaments of 8+ boards (resets, rotated
# boards, board ids reused from round to round); feeds-order: timers that
# fall due between two snapshots fire in their order; feeds-wire: raw
# recordings whose bytes the decoders must read right
for dir in "$FEEDS" "$SRC/tests/data/feeds-hard" "$SRC/tests/data/feeds-arbiter" "$SRC/tests/data/feeds-gaps" "$SRC/tests/data/feeds-ambiguous" "$SRC/tests/data/feeds-tour" "$SRC/tests/data/feeds-order" \
  "$SRC/tests/data/feeds-multi" "$SRC/tests/data/feeds-wire"; do
  out=$(CMD="$BIN replay {feed}" JOBS=2 "$CHECK" "$dir")
  last=$(printf '%s\n' "$out" | tail -n 1)
  echo "$(basename "$dir"): $last"
  case "$last" in
    *" passed, 0 failed") ;;
    *) printf '%s\n' "$out"; fail=1 ;;
  esac
done

# Results on evidence only, automatic draws as the served relay ends games:
# a fivefold repetition is drawn, a clock stopped at the end leaves the game
# open (issue 14).
ARB="$SRC/tests/data/feeds-arbiter"
"$BIN" replay "$ARB/fivefold.feed" >"$tmp/ff.pgn" || { echo "FAIL: replay fivefold"; fail=1; }
grep -q '^\[Result "1/2-1/2"\]' "$tmp/ff.pgn" || { echo "FAIL: fivefold not drawn"; cat "$tmp/ff.pgn"; fail=1; }
"$BIN" replay "$ARB/stopped.feed" >"$tmp/st.pgn" || { echo "FAIL: replay stopped"; fail=1; }
grep -q '^\[Result "\*"\]' "$tmp/st.pgn" || { echo "FAIL: stopped clock gave a result"; cat "$tmp/st.pgn"; fail=1; }

# Deterministic: the same feed gives the same PGN, byte for byte.
for feed in "$FEEDS"/*.feed "$ARB"/*.feed; do
  "$BIN" replay "$feed" >"$tmp/a.pgn" 2>/dev/null
  "$BIN" replay "$feed" >"$tmp/b.pgn" 2>/dev/null
  cmp -s "$tmp/a.pgn" "$tmp/b.pgn" || { echo "FAIL: $(basename "$feed"): two replays differ"; fail=1; }
done

# The PGN marks exactly the plies the board did not show.
for marks in "$SRC"/tests/data/feeds-gaps/*.marks; do
  feed="${marks%.marks}.feed"
  "$BIN" replay "$feed" > "$tmp/marks.pgn" || { echo "FAIL: replay $feed"; fail=1; continue; }
  out=$("$SRC/tests/tools/check-marks" "$tmp/marks.pgn" "$marks") || { echo "FAIL $(basename "$feed"): $out"; fail=1; }
done

# A bad line is an error naming file and line.
printf '0 b1 pos 8/8/8/8/8/8/8/8\n10 b1 bogus\n20 b1 pos rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\n' > "$tmp/bad.feed"
if "$BIN" replay "$tmp/bad.feed" >/dev/null 2>"$tmp/err"; then
  echo "FAIL: a bad line must be an error"; fail=1
fi
grep -q 'bad.feed:2' "$tmp/err" || { echo "FAIL: error does not name file:line"; cat "$tmp/err"; fail=1; }
# --keep-going skips it with a warning and plays on.
cat > "$tmp/kg.feed" <<'FEED'
0 b1 pos rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR
100 b1 what is this
200 b1 pos rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR
300 b1 pos rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR
250 b1 clock 1:30:00 1:30:00 b
1300 b1 pos rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR
1500 b1 pos rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR
FEED
if ! "$BIN" replay --keep-going "$tmp/kg.feed" >"$tmp/kg.pgn" 2>"$tmp/kg.err"; then
  echo "FAIL: --keep-going must not fail"; fail=1
fi
grep -q 'kg.feed:2' "$tmp/kg.err" || { echo "FAIL: no warning for line 2"; fail=1; }
grep -q 'kg.feed:5' "$tmp/kg.err" || { echo "FAIL: no warning for the timestamp of line 5"; fail=1; }
grep -q '1. e4 e5' "$tmp/kg.pgn" || { echo "FAIL: keep-going lost the moves"; cat "$tmp/kg.pgn"; fail=1; }
grep -q '\[Board "b1"\]' "$tmp/kg.pgn" || { echo "FAIL: no Board tag"; fail=1; }
# RAW lines go through the DGT codec of drivers/: board dumps as the board sent them.
python3 - "$tmp/raw.feed" <<'PY'
import sys
codes = {'P': 1, 'R': 2, 'N': 3, 'B': 4, 'K': 5, 'Q': 6, 'p': 7, 'r': 8, 'n': 9, 'b': 10, 'k': 11, 'q': 12}
def dump(placement):
    sq = []
    for rank in placement.split('/'):          # rank 8 first = DGT index 0 (a8)
        for c in rank:
            sq += [0] * int(c) if c.isdigit() else [codes[c]]
    return '8600' + '43' + ''.join('%02x' % v for v in sq)
lines = ['0 r1 raw ' + dump('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR'),
         '2000 r1 raw ' + dump('rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR'),
         '2500 r1 raw ' + dump('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR'),
         '6000 r1 raw ' + dump('rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR'),
         '6500 r1 raw ' + dump('rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR')]
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
"$BIN" replay "$tmp/raw.feed" >"$tmp/raw.pgn" 2>"$tmp/raw.err" || { echo "FAIL: replay of raw lines"; cat "$tmp/raw.err"; fail=1; }
grep -q '1. e4 e5' "$tmp/raw.pgn" || { echo "FAIL: raw lines not decoded into moves"; cat "$tmp/raw.pgn"; fail=1; }
# Garbage never crashes.
head -c 20000 /dev/urandom | tr -c 'a-z0-9 /\n' ' ' > "$tmp/garbage.feed"
"$BIN" replay --keep-going "$tmp/garbage.feed" >/dev/null 2>&1
rc=$?
[ $rc -le 1 ] || { echo "FAIL: replay on garbage exited $rc"; fail=1; }
[ $fail -eq 0 ] && echo "replay e2e: ok"
exit $fail

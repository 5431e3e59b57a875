#!/bin/bash
# chessrelay notation: the Appendix C sample game in its printed forms, output
# styles and languages read back, errors with file:line:column and exit status.
set -u
bin="$1"
src="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
data="$src/tests/data/notation"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flat() { tr '\n' ' ' | tr -s ' '; }

short=$("$bin" notation "$data/appendix_c_short.txt" | flat) || fail "short form"
grep -q '8\. Qe3+ Be7 9\. Nbd2 O-O 10\. O-O-O Re8 11\. Kb1 {\[%draw offer\]} \*' <<<"$short" || fail "short: $short"
long=$("$bin" notation "$data/appendix_c_long.txt" | flat) || fail "long form"
grep -q '8\. Qd3 Be7' <<<"$long" || fail "long form 8th move: $long"
[ "$("$bin" notation "$data/appendix_c_short_x.txt" | flat)" = "$short" ] || fail "short_x differs"
[ "$("$bin" notation "$data/appendix_e_ru_seed.txt" | flat)" = "$short" ] || fail "ru seed differs"

# every style and language is read back to the same game
for style in san fide long uci figurine; do
  for lang in en ru de fr es it nl; do
    "$bin" notation --style $style --lang $lang "$data/appendix_c_short.txt" >"$tmp/out.pgn" || fail "$style $lang"
    [ "$("$bin" notation "$tmp/out.pgn" | flat)" = "$short" ] || fail "$style $lang does not read back"
    [ $style = uci ] && break
  done
done
fide=$("$bin" notation --style fide --lang ru "$data/appendix_c_short.txt" | flat)
grep -q '6\. exd6 e\.p\. Кxd6' <<<"$fide" || fail "fide ru e.p.: $fide"
grep -q '11\. Крb1 (=) \*' <<<"$fide" || fail "fide ru draw offer: $fide"
# from stdin, language forced
echo '1. e4 e5 2. Sf3 Sc6 3. Lb5 *' | "$bin" notation --from-lang de - | flat | grep -q '2\. Nf3 Nc6 3\. Bb5 \*' \
    || fail "stdin --from-lang de"

# annotations kept: glyphs become NAGs $1..$6, $N stay (issue 28)
out=$(printf '1. e4! e5!? 2. Nf3?! Nc6 $14 3. Bb5!! a6?? *\n' | "$bin" notation - | flat)
grep -q '1\. e4 \$1 e5 \$5 2\. Nf3 \$6 Nc6 \$14 3\. Bb5 \$3 a6 \$4 \*' <<<"$out" || fail "annotations: $out"
err=$(printf '1. e4 !!! e5 *\n' | "$bin" notation - 2>&1 >/dev/null); st=$?
[ $st = 1 ] || fail "unknown annotation: exit $st"
grep -q "^notation: -:1:7: unknown annotation '!!!'" <<<"$err" || fail "unknown annotation message: $err"

# errors: file:line:column, move number, side, text and reason; exit 1
printf '1. e4 e5 2. Nf3 Nf6 3. d4 exd4 4. e5 Ne4 5. Qxd4 d5 6. exd6 Nxd6 7. Bg5 Nc6 8. Qd4e2 *\n' >"$tmp/bad.txt"
err=$("$bin" notation "$tmp/bad.txt" 2>&1 >/dev/null); st=$?
[ $st = 1 ] || fail "bad move: exit $st"
grep -q "^notation: $tmp/bad.txt:1:80: move 8 (white): Qd4e2: the queen on d4 cannot reach e2; legal queen moves from d4 are Qd4-" <<<"$err" \
    || fail "bad move message: $err"
"$bin" notation --style nope "$data/appendix_c_short.txt" >/dev/null 2>&1; [ $? = 2 ] || fail "bad style: exit 2"
"$bin" notation --lang xx "$data/appendix_c_short.txt" >/dev/null 2>&1; [ $? = 2 ] || fail "bad lang: exit 2"
"$bin" notation "$tmp/missing.pgn" >/dev/null 2>&1; [ $? = 1 ] || fail "missing file: exit 1"
echo "notation e2e ok"

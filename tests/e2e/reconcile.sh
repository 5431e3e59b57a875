#!/usr/bin/env bash
# `chessrelay reconcile` (issue 28): p01 with the board silent for 10 plies
# after ply 30 (tests/tools/cut-gaps) gives a record with a gap; the
# scoresheet is the game as played, written in Russian FIDE notation
# (`notation --lang ru --style fide`) with three slips: a move left out, a
# move written twice, a move no piece can make. reconcile must list exactly
# those three with the board's version, fill the gap with its 10 plies, and
# write (--pgn) the game as played; a sheet equal to the record has no
# difference (exit 0), and bad input is named (exit 2).
#   $1 = the chessrelay binary; env CR_SOURCE_DIR.
set -u
BIN="$1"
SRC="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
FEEDS="$SRC/tests/data/feeds"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

python3 "$SRC/tests/tools/cut-gaps" "$BIN" "$FEEDS/p01.feed" "$tmp/cut.feed" DGT23164:30:10 || bad "cut-gaps"
"$BIN" replay "$tmp/cut.feed" >"$tmp/record.pgn" 2>/dev/null || bad "replay of the cut feed"
"$BIN" replay "$FEEDS/p01.feed" >"$tmp/truth.pgn" 2>/dev/null || bad "replay of p01"
grep -q '%missing' "$tmp/record.pgn" || bad "the record has no gap"
"$BIN" notation --lang ru --style fide "$tmp/truth.pgn" >"$tmp/truth_ru.pgn" || bad "notation --lang ru"

# The moves of a PGN's movetext, comments and numbers left out.
moves() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
body = "\n".join(l for l in text.splitlines() if not re.match(r'\[\w+ "', l))
body = re.sub(r"\{[^}]*\}", " ", body)
print("\n".join(t for t in body.split()
                if not re.fullmatch(r"\d+\.+|1-0|0-1|1/2-1/2|\*|e\.p\.", t)))
PY
}
moves "$tmp/truth_ru.pgn" >"$tmp/truth.moves"
plies=$(grep -c . "$tmp/truth.moves")
[ "$plies" -eq 56 ] || bad "p01 has $plies plies, not 56"
# The sheet: ply 8 (4... Bf5) left out, ply 45 (23. c3) written twice,
# ply 50 (25... Rd8) unreadable; a
# line a move pair, as a player writes them.
awk 'NR == 8 { next } NR == 45 { print; print; next } NR == 50 { print "Фz9"; next } { print }' \
  "$tmp/truth.moves" | paste -d' ' - - >"$tmp/sheet.txt"

out=$("$BIN" reconcile "$tmp/record.pgn" "$tmp/sheet.txt" --pgn "$tmp/reconciled.pgn"); rc=$?
echo "$out"
[ $rc -eq 1 ] || bad "exit $rc with differences, want 1"
echo "$out" | grep -qE '^4\.\.\. sheet lacks: board Bf5, not on the scoresheet' || bad "the move left out (4... Bf5) is not named"
echo "$out" | grep -qE '^23\.\.\. sheet extra: scoresheet "c3", never on the board' || bad "the move written twice (23. c3) is not named"
echo "$out" | grep -qE '^25\.\.\. unreadable: board [^,]+, scoresheet "Фz9" \(no legal move there\); board.s clock [0-9]:[0-9]{2}:[0-9]{2}; before it ' \
  || bad "the unreadable move is not named with the board's move and clock"
echo "$out" | grep -qE '^16\. gap filled from the scoresheet, 10 plies: ' || bad "the gap is not filled with 10 plies"
echo "$out" | tail -n 1 | grep -qE '^[0-9]+ plies of the board compared: 3 differences, 1 gap filled \(10 plies\)$' \
  || bad "summary: $(echo "$out" | tail -n 1)"
# the reconciled game is the game played, move for move
"$BIN" notation --lang ru --style fide "$tmp/reconciled.pgn" >"$tmp/reconciled_ru.pgn" || bad "the reconciled PGN does not read back"
moves "$tmp/reconciled_ru.pgn" >"$tmp/reconciled.moves"
cmp -s "$tmp/truth.moves" "$tmp/reconciled.moves" || { bad "the reconciled game is not the game played"; diff "$tmp/truth.moves" "$tmp/reconciled.moves" | head; }

# the sheet of the record itself (its gap aside): nothing to say
"$BIN" reconcile "$tmp/truth.pgn" "$tmp/truth_ru.pgn" >"$tmp/same.out"; rc=$?
[ $rc -eq 0 ] || bad "a sheet equal to the record: exit $rc: $(cat "$tmp/same.out")"
grep -q ': 0 differences, 0 gaps filled' "$tmp/same.out" || bad "a sheet equal to the record: $(cat "$tmp/same.out")"
# bad input is named
"$BIN" reconcile "$tmp/record.pgn" /nonexistent/sheet.txt >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q '/nonexistent/sheet.txt' "$tmp/err" || bad "a missing sheet: exit $rc: $(cat "$tmp/err")"
"$BIN" reconcile "$tmp/record.pgn" "$tmp/sheet.txt" --game 7 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'no game 7' "$tmp/err" || bad "--game 7 of one game: exit $rc: $(cat "$tmp/err")"
printf '{no moves here} 1-0\n' >"$tmp/empty.txt"
"$BIN" reconcile "$tmp/record.pgn" "$tmp/empty.txt" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'the scoresheet has no move' "$tmp/err" || bad "a sheet without moves: exit $rc: $(cat "$tmp/err")"
# from stdin, by board
"$BIN" reconcile "$tmp/record.pgn" - --board DGT23164 <"$tmp/sheet.txt" | tail -n 1 | grep -q ': 3 differences' ||
  bad "the sheet from stdin, --board DGT23164"

[ $fail -eq 0 ] && echo "reconcile ok"
exit $fail

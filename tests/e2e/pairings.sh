#!/bin/bash
# chessrelay pairings: a Swiss-Manager style TRF printed per round and table,
# --pgn written and read back, errors with file:line:column and exit status.
set -u
bin="$1"
src="${CR_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
data="$src/tests/data/pairings"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$bin" pairings "$data/oslo-open-r5.trf" --round 5) || fail "round 5: exit $?"
grep -q '^Oslo Chess Festival 2026 - Open A (Oslo, 2026/11/25): 11 players, 5 rounds, from TRF' <<<"$out" \
    || fail "heading: $out"
grep -Eq '^ +1  GM Lindqvist, Erik +2618  WGM Nováková, Jana +2402  \*$' <<<"$out" || fail "table 1: $out"
grep -Eq '^ +2  Nilsen, Petter +-  GM Ødegård, Øystein +2587  \*$' <<<"$out" || fail "table 2: $out"
grep -q '^  bye: Olsen, Kristian (2105): pairing-allocated bye$' <<<"$out" || fail "bye: $out"
[ "$(grep -c '^Round ' <<<"$out")" = 1 ] || fail "--round 5 printed other rounds"
all=$("$bin" pairings "$data/oslo-open-r5.trf") || fail "all rounds"
[ "$(grep -c '^Round ' <<<"$all")" = 5 ] || fail "all rounds: $(grep '^Round' <<<"$all")"
grep -q '+--$' <<<"$all" || fail "forfeit result missing"

# --pgn: tags-only PGN that reads back to the same pairings
"$bin" pairings "$data/oslo-open-r5.trf" --round 5 --pgn "$tmp/r5.pgn" >/dev/null || fail "--pgn"
grep -q '^\[Board "1"\]$' "$tmp/r5.pgn" || fail "no Board tag"
[ "$(grep -c '^\[Event ' "$tmp/r5.pgn")" = 5 ] || fail "5 games expected in r5.pgn"
back=$("$bin" pairings "$tmp/r5.pgn" --format pgn --round 5) || fail "read back"
diff <(grep -E '^ +[0-9]+  ' <<<"$out") <(grep -E '^ +[0-9]+  ' <<<"$back") >/dev/null || fail "PGN does not read back"
"$bin" pairings "$data/oslo-open-r5.trf" --round 1 --pgn - | grep -q '^\[Result "1-0"\]$' || fail "--pgn -"

# --boards: the tournament file's "boards" entries, round after round
"$bin" pairings "$data/oslo-open-r5.trf" --boards >"$tmp/boards.json" || fail "--boards"
python3 - "$tmp/boards.json" <<'PY' || fail "--boards JSON: $(head -c 400 "$tmp/boards.json")"
import json, sys
b = json.load(open(sys.argv[1], encoding="utf-8"))["boards"]
assert len(b) == 25, len(b)
assert [e["round"] for e in b[:6]] == ["1"] * 5 + ["2"], b[:6]
e = b[20]
assert e == {"table": 1, "round": "5", "white": "Lindqvist, Erik", "white_elo": 2618,
             "white_title": "GM", "white_fed": "SWE", "black": "Nováková, Jana",
             "black_elo": 2402, "black_title": "WGM", "black_fed": "CZE"}, e
assert "white_elo" not in b[21], b[21]  # Nilsen has no rating
PY

# errors: file:line:column and exit 1; usage errors exit 2
sed 's/^\(001    3 m IM Kowalski, Marek                   \)2491/\124x1/' "$data/oslo-open-r5.trf" >"$tmp/bad.trf"
err=$("$bin" pairings "$tmp/bad.trf" 2>&1 >/dev/null); st=$?
[ $st = 1 ] || fail "bad TRF: exit $st"
grep -q "^$tmp/bad.trf:16:49: rating \"24x1\" is not a number$" <<<"$err" || fail "bad TRF message: $err"
printf '[Event "x"]\n[White "A"\n' >"$tmp/bad.pgn"
err=$("$bin" pairings "$tmp/bad.pgn" 2>&1 >/dev/null); st=$?
[ $st = 1 ] || fail "bad PGN: exit $st"
grep -q "^$tmp/bad.pgn:2:[0-9]*: " <<<"$err" || fail "bad PGN message: $err"
err=$("$bin" pairings "$data/oslo-open-r5.trf" --round 9 2>&1 >/dev/null); st=$?
[ $st = 1 ] || fail "round 9: exit $st"
grep -q 'no pairings for round 9' <<<"$err" || fail "round 9 message: $err"
"$bin" pairings "$tmp/missing.trf" 2>/dev/null; [ $? = 1 ] || fail "missing file"
"$bin" pairings "$data/oslo-open-r5.trf" --format xml 2>/dev/null; [ $? = 2 ] || fail "--format xml"
"$bin" pairings 2>/dev/null; [ $? = 2 ] || fail "no FILE"
echo ok

#!/bin/bash
# chessrelay perft: counts, --divide format, and errors on bad input.
set -u
bin="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$("$bin" perft startpos 3)" = 8902 ] || fail "startpos 3"
[ "$("$bin" perft 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 3)" = 97862 ] \
    || fail "kiwipete 3"
[ "$("$bin" perft 'bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9' 3)" = 12189 ] \
    || fail "chess960 3"

out="$("$bin" perft --divide startpos 2)" || fail "divide exit status"
[ "$(grep -c '^[a-h][1-8][a-h][1-8][nbrq]\?: [0-9]*$' <<<"$out")" = 20 ] || fail "divide: 20 move lines"
grep -qx 'e2e4: 20' <<<"$out" || fail "divide: e2e4: 20"
[ "$(tail -n 1 <<<"$out")" = 400 ] || fail "divide: total"

# Castling written e1g1 in standard chess, king-takes-rook in Chess960.
grep -qx 'e1g1: 1' <<<"$("$bin" perft --divide 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' 1)" \
    || fail "standard castling text"
grep -qx 'g1h1: 1' <<<"$("$bin" perft --divide '4k3/8/8/8/8/8/8/R5KR w HA - 0 1' 1)" \
    || fail "chess960 castling text"

err="$("$bin" perft '4k3/8/8/8/8/8/8/4K3 w - e3 0 1' 1 2>&1)" && fail "bad FEN accepted"
grep -q 'impossible en-passant square e3' <<<"$err" || fail "FEN error text: $err"
"$bin" perft startpos x >/dev/null 2>&1; [ $? = 2 ] || fail "bad depth: exit 2"
"$bin" perft >/dev/null 2>&1; [ $? = 2 ] || fail "no args: exit 2"
echo "perft e2e ok"

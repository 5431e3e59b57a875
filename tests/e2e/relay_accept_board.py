"""The arbiter's "accept the board's position" end to end through real
sockets (issue 15), run by ctest's e2e_relay_accept_board:
`chessrelay replay FEED --serve --arbiter-token T --state DIR` plays
l04-30-14.feed (a board silent for 14 plies) with one more black pawn, on
h7, from the reconnection on: no game reaches that board (a pawn gone
back), so the inference does not go on by itself with a gap (issue 28) and
the game is marked for the arbiter (status attention with the squares in
question) and stays at ply 30. A viewer cannot accept the board;
the arbiter's {"op":"accept-board","game":1} makes the game go on from the
board's position: ply 30 is the missing stretch (SAN "--", flags illegal
and missing), then the rest of the game as played (p04's plies 45 on); the
PGN says [%missing FEN] and invents no move. After a restart (rebuilt from
the journal) the game is the same, byte for byte."""
import atexit
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, final_state, recv_until, wait_settled, wait_until  # noqa: E402

BIN = sys.argv[1]
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
FEED = os.path.join(SRC, "tests/data/feeds-lost/l04-30-14.feed")
ORIG = FEED
EXPECTED = os.path.join(SRC, "tests/data/feeds/p04.expected")
TOKEN = "accept-board-e2e-token"
BOARD_FEN = "2r5/ppr2ppp/4kn1p/4N3/3R3P/4P3/P1PR1PP1/2K5 w - -"  # after p04's ply 44, a pawn on h7
for f in (FEED, EXPECTED):
    if not os.path.isfile(f):
        fail("missing " + f)
played = open(EXPECTED).read().split()
want = played[:30] + ["--"] + played[44:]

state = tempfile.mkdtemp(prefix="cr_accept_")
atexit.register(shutil.rmtree, state, True)


def with_pawn(placement):
    """The placement with a black pawn on h7 (rank 7 is the second field)."""
    ranks = placement.split("/")
    row = "".join("." * int(ch) if ch.isdigit() else ch for ch in ranks[1])
    check(row[7] == ".", "h7 is not empty in %s" % placement)
    row = row[:7] + "p"
    out, run = "", 0
    for ch in row:
        if ch == ".":
            run += 1
            continue
        out += (str(run) if run else "") + ch
        run = 0
    ranks[1] = out + (str(run) if run else "")
    return "/".join(ranks)


lines, after = [], False
for line in open(FEED):
    f = line.split()
    if len(f) >= 3 and f[2] == "connect" and int(f[0]) > 0:
        after = True
    if after and len(f) >= 4 and f[2] == "pos":
        line = "%s %s pos %s\n" % (f[0], f[1], with_pawn(f[3]))
    lines.append(line)
check(after, "no reconnection in " + FEED)
FEED = os.path.join(state, "l04-30-14-h7.feed")
with open(FEED, "w") as out_feed:
    out_feed.writelines(lines)
state = os.path.join(state, "state")
args = ["replay", FEED, "--serve", "--arbiter-token", TOKEN, "--speed", "500", "--state", state, "--quiet"]


relay = Relay(BIN, args)
arb = relay.ws()
arb.send({"op": "hello", "token": TOKEN})
check(recv_until(arb, lambda m: m.get("type") == "welcome", "welcome", 10).get("trusted"), "arbiter not trusted")
arb.send({"op": "subscribe", "round": "1"})
st = recv_until(arb, lambda m: m.get("type") == "status" and m.get("attention"), "the game marked for the arbiter", 60)
check(st["game"] == 1, "attention on game %s" % st["game"])
sq = st.get("squares")
check(isinstance(sq, list) and sq and all(len(s) == 2 and s[0] in "abcdefgh" and s[1] in "12345678" for s in sq),
      "status: the squares in question: %s" % sq)

# a viewer may not
viewer = relay.ws()
viewer.send({"op": "accept-board", "game": 1})
err = recv_until(viewer, lambda m: m.get("type") == "error", "a viewer's accept-board refused", 10)
check("arbiter" in err.get("error", ""), "viewer's error: %s" % err)
viewer.close()
arb.send({"op": "accept-board", "game": 1, "side": "x"})
err = recv_until(arb, lambda m: m.get("type") == "error", "a bad side refused", 10)
check(err.get("field") == "side" or "side" in err.get("error", ""), "bad side: %s" % err)

arb.send({"op": "accept-board", "game": 1})
mv = recv_until(arb, lambda m: m.get("type") == "move" and m.get("game") == 1 and m.get("ply") == 30,
                "the missing stretch as ply 30", 10)
check(mv["san"] == "--" and "missing" in mv["flags"] and "illegal" in mv["flags"], "ply 30: %s" % mv)
check(mv["fen"].startswith(BOARD_FEN), "ply 30 ends on the board's position: %s" % mv["fen"])
recv_until(arb, lambda m: m.get("type") == "status" and m.get("game") == 1 and not m.get("attention"),
           "the attention cleared", 10)
recv_until(arb, lambda m: m.get("type") == "move" and m.get("game") == 1 and m.get("ply") == 36,
           "later moves", 30)
arb.close()


def complete(r):
    st_, _, text = r.http("/game/1.pgn")
    if st_ != 200:
        return None
    g = final_state(r).summary().get(1)
    return text if g and len(g[0]) == len(want) else None


pgn = wait_settled(lambda: complete(relay), "the game to its end (%d plies)" % len(want), 60)
moves = final_state(relay).summary()[1][0]
check(moves == want, "moves after the accepted board:\n got %s\nwant %s" % (moves, want))
check(("[%%missing %s" % BOARD_FEN) in pgn.replace("\n", " "), "PGN: no [%%missing FEN]:\n%s" % pgn)
check(pgn.count("--") == 0, "PGN: an invented move '--':\n%s" % pgn)
relay.stop()

relay = Relay(BIN, args)
again = wait_settled(lambda: complete(relay), "the game after the restart", 30)
check(again == pgn, "after the restart:\n%s\nbefore:\n%s" % (again, pgn))
relay.stop()

# The board as it was (no pawn on h7): a position the game can reach, so the
# served relay goes on by itself after the board stood (issue 28): ply 30
# is the gap, counted, and every later move is there.
relay = Relay(BIN, ["replay", ORIG, "--serve", "--speed", "500", "--state", state + "-plain", "--quiet"])
atexit.register(shutil.rmtree, state + "-plain", True)
pgn = wait_until(lambda: complete(relay), "the game gone on by itself (%d plies)" % len(want), 60)
moves = final_state(relay).summary()[1][0]
check(moves == want, "moves after the gap:\n got %s\nwant %s" % (moves, want))
flat = " ".join(pgn.split())
# the clock (90+30) counts the 14 plies cut out exactly
check("gap: 14 plies not seen [%missing 14 " in flat, "PGN: the gap is not marked:\n%s" % pgn)
relay.stop()
print("PASS")

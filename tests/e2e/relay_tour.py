"""The tournament feeds of tests/data/feeds-tour (10 and 9 boards, two
rounds, board ids reused, boards turned round before a round or between two
games, games of 80 to 180 plies) through the served relay, run by
ctest's e2e_relay_tour: `replay FEED --serve --speed 1000`, then /live.pgn holds one
game per game played on each board, with every move as the .expected file
says (games without moves, a board set up, are left out)."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, fail, san_tokens, wait_until  # noqa: E402

BIN = sys.argv[1]
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
FEEDS = sorted(glob.glob(os.path.join(SRC, "tests/data/feeds-tour/*.feed")))
if len(FEEDS) < 2:
    fail("tests/data/feeds-tour: feeds missing")


def expected(feed):
    want = {}
    for line in open(feed[:-5] + ".expected"):
        if line.strip():
            board, moves = line.rstrip("\n").split("\t")
            want.setdefault(board, []).append(moves.split())
    return want


def served_games(relay):
    """board -> the move lists of its games with moves, in game order."""
    st, _, text = relay.http("/live.pgn")
    if st != 200:
        return None
    got = {}
    for game in re.split(r"\n\n(?=\[)", text.strip()):
        m = re.search(r'^\[Board "([^"]*)"\]', game, re.M)
        body = game.split("\n\n", 1)[1] if "\n\n" in game else ""
        moves = san_tokens(body)
        if m and moves:
            got.setdefault(m.group(1), []).append(moves)
    return got


for feed in FEEDS:
    want = expected(feed)
    relay = Relay(BIN, ["replay", feed, "--serve", "--speed", "1000", "--quiet"])
    last = {}

    def done():
        last["got"] = served_games(relay)
        return last["got"] == want
    try:
        wait_until(done, "%s: the games as played" % os.path.basename(feed), 90)
    except SystemExit:
        got = last.get("got") or {}
        for board in sorted(set(want) | set(got)):
            w, g = want.get(board, []), got.get(board, [])
            if w != g:
                print("%s: board %s: %d game(s) served, %d played" % (os.path.basename(feed), board, len(g), len(w)))
                for k in range(max(len(w), len(g))):
                    a = w[k] if k < len(w) else []
                    b = g[k] if k < len(g) else []
                    i = next((i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]), None)
                    if i is not None:
                        print("  game %d ply %d: want %s, got %s" % (k + 1, i, a[i] if i < len(a) else "<end>",
                                                                    b[i] if i < len(b) else "<end>"))
        raise
    relay.stop()
    print("ok: %s: %d boards, %d games" % (os.path.basename(feed), len(want), sum(len(v) for v in want.values())))
print("PASS")

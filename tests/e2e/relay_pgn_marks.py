"""The words of uncertainty in the relay's PGN (issue 15), through the real
binary (run by ctest's e2e_relay_pgn_marks):
  - an ambiguous silent gap (tests/data/feeds-ambiguous/a04-14-4.feed: four plies
    cut, several orders fit) gives `{reconstructed, ambiguous: also ...}`
    in `chessrelay replay`, and the served /game/N.pgn, /live.pgn and the
    export folder give the same text byte for byte (the other sequences
    that fit reach the store);
  - with `"pgn": {"marks": false}` in the tournament file the same feed is
    served and exported bare: the same moves, no word of uncertainty."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, moves_of_pgn, wait_settled  # noqa: E402

BIN = sys.argv[1]
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
FEED = os.path.join(SRC, "tests/data/feeds-ambiguous/a04-14-4.feed")
if not os.path.isfile(FEED):
    fail("missing " + FEED)

offline = subprocess.run([BIN, "replay", FEED], capture_output=True, text=True, check=True).stdout
check("{reconstructed, ambiguous: also " in offline,
      "replay: no 'ambiguous: also' comment:\n" + offline[:1500])
check(offline.count("reconstructed") == 4, "replay: expected 4 reconstructed plies")


def read(path):
    with open(path) as f:
        return f.read()


def served(marks):
    """Runs the feed through `serve --config` (marks None: no "pgn" key);
    returns /game/1.pgn, /live.pgn and the export folder's two files once
    the game is complete."""
    d = tempfile.mkdtemp(prefix="cr_marks_")
    pgn = "" if marks is None else ', "pgn": {"marks": %s}' % ("true" if marks else "false")
    with open(os.path.join(d, "t.json"), "w") as f:
        f.write('{"event": "Let\'s Play!", "feeds": ["%s"], "state_dir": "state", '
                '"export_dir": "export"%s}' % (FEED, pgn))
    relay = Relay(BIN, ["serve", "--config", os.path.join(d, "t.json"), "--speed", "1000", "--quiet"])
    want = len(moves_of_pgn(offline)[0])

    def complete():
        st, _, text = relay.http("/game/1.pgn")
        return text if st == 200 and len(moves_of_pgn(text)[0]) == want else None
    game = wait_settled(complete, "game 1 complete (%d plies)" % want, 60)
    live = relay.http("/live.pgn")[2]
    exp = os.path.join(d, "export", "round-1")

    def exported():
        path = os.path.join(exp, "game-1.pgn")
        if not os.path.isfile(path):
            return None
        text = read(path)
        return text if len(moves_of_pgn(text)[0]) == want else None
    out = (game, live, wait_settled(exported, "the export folder's game-1.pgn", 20),
           read(os.path.join(exp, "games.pgn")))
    relay.stop()
    return out


for marks in (None, True):
    for name, text in zip(("/game/1.pgn", "/live.pgn", "game-1.pgn", "games.pgn"), served(marks)):
        if text != offline:
            fail("marks %s: %s differs from `replay`:\n--- replay\n%s\n--- %s\n%s"
                 % (marks, name, offline, name, text))

for name, text in zip(("/game/1.pgn", "/live.pgn", "game-1.pgn", "games.pgn"), served(False)):
    check(moves_of_pgn(text) == moves_of_pgn(offline), "bare %s: other moves" % name)
    for word in ("reconstructed", "ambiguous", "also"):
        check(word not in text, "bare %s: '%s' written:\n%s" % (name, word, text))
print("PASS")

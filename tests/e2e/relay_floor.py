"""What the board and the clock reveal (issue 29), through the real binary
(run by ctest's e2e_relay_floor): `chessrelay serve --config` with a
tournament file playing a feed of tests/data/feeds-floor. With both
switches of `"incidents"` on, press.feed gives exactly one
press-without-move (White's, after 1... e5) and no other incident,
unpressed.feed exactly one move-without-press (White's, after 2. Nf3);
without the switch, none; press-clean.feed with every switch, no incident
at all; time-added.feed exactly one time-added (White's clock set 10
minutes up after 2... Nc6), none without its switch.
The incidents never reach the public side (/live.pgn, /game/1.pgn)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, moves_of_pgn, wait_settled  # noqa: E402

BIN = sys.argv[1]
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
TOKEN = "floor-e2e-token"
AUTH = {"Authorization": "Bearer " + TOKEN}


def incidents(feed, switch, kinds=("press-without-move", "move-without-press", "time-added")):
    """The game's incidents once its five plies are in and the list is settled."""
    path = os.path.join(SRC, "tests/data/feeds-floor", feed)
    if not os.path.isfile(path):
        fail("missing " + path)
    d = tempfile.mkdtemp(prefix="cr_floor_")
    on = "true" if switch else "false"
    inc = "" if switch is None else ', "incidents": {%s}' % ", ".join('"%s": %s' % (k, on) for k in kinds)
    with open(os.path.join(d, "t.json"), "w") as f:
        f.write('{"event": "Floor", "feeds": ["%s"], "state_dir": "state", '
                '"tokens": [{"name": "chief", "role": "arbiter", "token": "%s"}]%s}' % (path, TOKEN, inc))
    relay = Relay(BIN, ["serve", "--config", os.path.join(d, "t.json"), "--speed", "50", "--quiet"])
    try:
        def done():
            st, _, text = relay.http("/game/1.pgn")
            return text if st == 200 and len(moves_of_pgn(text)[0]) == 5 else None
        pgn = wait_settled(done, "%s: five plies" % feed, 60)

        def listed():
            st, _, body = relay.http("/arbiter/incidents.json", AUTH)
            return body if st == 200 else None
        body = wait_settled(listed, "%s: incidents.json" % feed, 20, quiet=2.0)
        for word in ("press", "without a move", "did not", "time added", "went from"):
            check(word not in pgn and word not in relay.http("/live.pgn")[2], "%s: '%s' public" % (feed, word))
        return [i for i in json.loads(body)["incidents"] if i["game"] == 1]
    finally:
        relay.stop()


got = incidents("press.feed", True)
check([(i["kind"], i["color"], i["ply"]) for i in got] == [("press-without-move", "w", 2)],
      "press.feed, switched on: %s" % json.dumps(got))
check(got[0]["text"] == "White pressed the clock without a move (after 1... e5)", got[0]["text"])
check(got[0]["urgency"] == "warning", got[0]["urgency"])
for switch in (None, False):
    got = incidents("press.feed", switch)
    check(not [i for i in got if i["kind"] == "press-without-move"], "press.feed, switch %s: %s" % (switch, json.dumps(got)))
got = incidents("unpressed.feed", True)
check([(i["kind"], i["color"], i["ply"]) for i in got] == [("move-without-press", "w", 3)],
      "unpressed.feed, switched on: %s" % json.dumps(got))
check(got[0]["text"] == "White did not press the clock after 2. Nf3", got[0]["text"])
check(not incidents("unpressed.feed", None), "unpressed.feed without the switch")
got = incidents("press-clean.feed", True)
check(got == [], "press-clean.feed: %s" % json.dumps(got))
got = incidents("time-added.feed", True, ("time-added",))
check([(i["kind"], i["color"]) for i in got] == [("time-added", "w")],
      "time-added.feed, switched on: %s" % json.dumps(got))
check(got[0]["text"] == "White's clock went from 1:28:30 to 1:38:13 after 2... Nc6: time added or the "
      "clock reset, not by the time control", got[0]["text"])
check(not incidents("time-added.feed", None), "time-added.feed without the switch")
print("PASS")

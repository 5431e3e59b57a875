"""A round costs what the overview shows (issue 26), end to end (run by
ctest's e2e_round_summary): `replay FEED --serve` with a round of BOARDS
boards, every one with its players (names, ratings, titles, federations,
teams) and three plies played, then board 1 playing on, a move every 1.5 s.

- `subscribe` round 1 with `"summary":true`: the first message is the
  round's list (one brief entry a board, players and position in it), and
  what a viewer receives before its first live message is under 350 bytes a
  board (long names), under half of what the same round costs in full at 3
  plies a game (`subscribe` without `summary`: a snapshot a game, as old
  clients get it);
- then a `summary` of board 1's game at each of its events (no `move`);
- opening that game (`subscribe` by `game`) gives its snapshot with every
  move, then its `move` events, each with the ply the client holds;
  unsubscribing it brings back its summaries;
- resuming with `since` (the last seq seen) sends no list, only summaries
  newer than it."""
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import WS, Relay, check, fail  # noqa: E402

BOARDS = 120
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
OPENING = ["e2e4", "e7e5", "g1f3"]
LATER = ["b8c6", "f1c4", "f8c5", "d2d3", "d7d6", "b1c3", "g8f6", "c1e3", "c8e6", "d1d2", "d8d7",
         "e1c1", "e8c8", "h2h3", "h7h6", "g2g4", "g7g5", "a2a3", "a7a6", "b2b4"]


class CountingWS(WS):
    """Counts the bytes read from the socket (frames included)."""

    def __init__(self, port):
        self.got = 0
        super().__init__(port)
        self.got = len(self.buf)

    def _need(self, n, deadline):
        before = len(self.buf)
        super()._need(n, deadline)
        self.got += len(self.buf) - before

    def consumed(self):
        return self.got - len(self.buf)


def play(placement, uci):
    """The placement after a quiet move (castling moves its rook too)."""
    rows = []
    for r in placement.split("/"):
        row = []
        for c in r:
            row.extend(["."] * int(c) if c.isdigit() else [c])
        rows.append(row)

    def sq(s):
        return 8 - int(s[1]), ord(s[0]) - ord("a")

    def move(a, b):
        (r1, c1), (r2, c2) = sq(a), sq(b)
        rows[r2][c2], rows[r1][c1] = rows[r1][c1], "."
    move(uci[:2], uci[2:])
    castles = {"e1c1": ("a1", "d1"), "e8c8": ("a8", "d8"), "e1g1": ("h1", "f1"), "e8g8": ("h8", "f8")}
    if uci in castles and rows[sq(uci[2:])[0]][sq(uci[2:])[1]] in "Kk":
        move(*castles[uci])
    out = []
    for row in rows:
        s, n = "", 0
        for c in row:
            if c == ".":
                n += 1
            else:
                s += (str(n) if n else "") + c
                n = 0
        out.append(s + (str(n) if n else ""))
    return "/".join(out)


def write_feed(path):
    lines = []
    teams = [("Uzbekistan", "UZB"), ("India", "IND"), ("United States of America", "USA"),
             ("Bosnia and Herzegovina", "BIH")]
    for b in range(1, BOARDS + 1):
        name = "T%d" % b
        lines.append("0 %s connect" % name)
        for side, k in (("White", 0), ("Black", 1)):
            team, fed = teams[(b + k) % len(teams)]
            for tag, v in ((side, "Abdusattorov-Rameshbabu, Nodirbek %d%s" % (b, side[0])),
                           (side + "Elo", str(2500 + b)), (side + "Title", "GM"),
                           (side + "Fed", fed), (side + "Team", team)):
                lines.append("0 %s meta %s %s" % (name, tag, v))
        lines.append("0 %s meta Round 1" % name)
        lines.append("10 %s pos %s" % (name, START))
    pos = START
    for k, uci in enumerate(OPENING):
        pos = play(pos, uci)
        for b in range(1, BOARDS + 1):
            lines.append("%d T%d pos %s" % (300 + 300 * k, b, pos))
    for k, uci in enumerate(LATER):
        pos = play(pos, uci)
        lines.append("%d T1 pos %s" % (6000 + 1500 * k, pos))
    lines.sort(key=lambda s: int(s.split(" ")[0]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def until(ws, pred, what, limit=30.0):
    deadline = time.time() + limit
    while time.time() < deadline:
        m = ws.recv(timeout=max(0.1, deadline - time.time()))
        if pred(m):
            return m
    fail("no %s in %.0f s" % (what, limit))


def live(m):
    return m.get("type") in ("summary", "move", "clock", "status", "result", "correction", "tag", "game")


def cost(r, summary):
    """Bytes and messages before the first live message, and the messages."""
    ws = CountingWS(r.port)
    op = {"op": "subscribe", "round": "1"}
    if summary:
        op["summary"] = True
    ws.send(op)
    msgs = []
    while True:
        m = ws.recv(timeout=30)
        if live(m):
            ws.close()
            return ws.consumed() - len(json.dumps(m, separators=(",", ":"))), msgs
        msgs.append(m)


def main(binary):
    tmp = tempfile.mkdtemp(prefix="cr_round_summary_")
    try:
        feed = os.path.join(tmp, "round.feed")
        write_feed(feed)
        r = Relay(binary, ["replay", feed, "--serve", "--speed", "1", "--quiet"])
        deadline = time.time() + 30
        while True:
            games = json.loads(r.http("/games.json")[2])
            if len(games) == BOARDS and all(g["plies"] >= 3 for g in games):
                break
            if time.time() > deadline:
                fail("the round's %d boards with 3 plies: %s" % (BOARDS, games[:2]))
            time.sleep(0.2)

        full, full_msgs = cost(r, False)
        check(len(full_msgs) == BOARDS and all(m["type"] == "snapshot" for m in full_msgs),
              "full: a snapshot a game (%d messages)" % len(full_msgs))
        brief, brief_msgs = cost(r, True)
        print("a viewer joining %d boards: %d bytes by summaries, %d in full" % (BOARDS, brief, full))
        check(len(brief_msgs) == 1 and brief_msgs[0]["type"] == "games", "summary: one list first")
        lst = brief_msgs[0]
        check(lst["round"] == "1" and isinstance(lst["seq"], int), "the list has round and seq")
        check(len(lst["games"]) == BOARDS, "the list has every board: %d" % len(lst["games"]))
        g0 = [g for g in lst["games"] if g["board"] == "T7"][0]
        check(g0["w"][0] == "Abdusattorov-Rameshbabu, Nodirbek 7W" and g0["w"][1] == 2507 and
              g0["w"][2] == "GM" and g0["w"][3] in ("UZB", "IND", "USA", "BIH"), "players in brief: %s" % g0)
        check(g0["plies"] == 3 and g0["fen"].startswith(play(play(play(START, "e2e4"), "e7e5"), "g1f3")),
              "the position in brief: %s" % g0)
        # Long names and teams here (36 and 24 letters): 800 boards of an
        # Olympiad cost under 300 KB (bench/round_join.py, docs/scale.md).
        check(brief < 350 * BOARDS, "under 350 bytes a board: %d" % brief)
        check(brief * 2 < full, "under half the round in full at 3 plies a game: %d vs %d" % (brief, full))

        ws = r.ws()
        ws.send({"op": "subscribe", "round": "1", "summary": True})
        first = ws.recv()
        check(first["type"] == "games", "the list first")
        id1 = [g for g in first["games"] if g["board"] == "T1"][0]["id"]
        s1 = until(ws, live, "live message")
        check(s1["type"] == "summary" and s1["game"]["id"] == id1 and s1["seq"] > first["seq"],
              "board 1's change as a summary: %s" % s1)
        check(s1["game"]["plies"] >= 4 and s1["game"]["last"] and s1["game"]["uci"], "its move in it")

        # Opening the game: every move, then its events.
        ws.send({"op": "subscribe", "game": id1})
        snap = until(ws, lambda m: m.get("type") == "snapshot", "snapshot")
        held = [m["san"] for m in snap["game"]["moves"]]
        check(len(held) >= s1["game"]["plies"] and held[:3] == ["e4", "e5", "Nf3"],
              "the snapshot has the game's moves: %s" % held)
        mv = until(ws, lambda m: m.get("type") in ("move", "summary") and
                   (m.get("game") == id1 or (isinstance(m.get("game"), dict) and m["game"]["id"] == id1)),
                   "board 1's next event")
        check(mv["type"] == "move" and mv["ply"] == len(held), "a move with the ply held: %s" % mv)
        ws.send({"op": "unsubscribe", "game": id1})
        again = until(ws, lambda m: m.get("type") in ("move", "summary"), "board 1 after closing it", 10)
        if again["type"] == "move":  # sent before the unsubscribe was read
            again = until(ws, lambda m: m.get("type") in ("move", "summary"), "board 1's summary", 10)
        check(again["type"] == "summary", "closed: summaries again (%s)" % again["type"])
        ws.close()

        # Resuming: summaries newer than `since`, no list.
        ws = r.ws()
        ws.send({"op": "subscribe", "round": "1", "summary": True, "since": again["seq"]})
        m = ws.recv(timeout=10)
        check(m["type"] == "summary" and m["seq"] > again["seq"], "resumed without a list: %s" % m["type"])
        ws.close()

        ws = r.ws()
        ws.send({"op": "subscribe", "round": "1", "summary": "yes"})
        m = ws.recv()
        check(m["type"] == "error" and m["where"] == "subscribe", "a summary that is no boolean: %s" % m)
        ws.close()
        r.stop()
        print("OK")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])

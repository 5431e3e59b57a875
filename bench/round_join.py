#!/usr/bin/env python3
"""round_join: what a viewer joining a big round costs (issue 26).

    bench/round_join.py BUILD_DIR [--boards 800] [--viewers 200] [--warm 40]

Makes a round of BOARDS boards (relay_load_feed: random legal games, round
1; players with Olympiad-like names, titles, ratings, federations and teams
given as `meta` tags), its first WARM plies a board played 50 times faster
than real time so that every game is under way, then at real-time pace (a
move every 30 s a board: 800 boards make about 27 moves, 53 events a
second). Serves it with `chessrelay replay FEED --serve` and, once every
board has its WARM plies, measures for both ways of following a round:

- full: `{"op":"subscribe","round":"1"}` (every game in full: a snapshot
  each, as before issue 26 and for old clients), and
- summary: `{"op":"subscribe","round":"1","summary":true}` (the round's
  list of summaries, then a summary per change; docs/protocol.md),

1. one viewer: bytes on the wire (frames included) and messages it
   receives before its first live message (an event or a summary), and the
   time to it;
2. VIEWERS viewers subscribing at once (one connection each, from
   127.0.0.1: the per-address cap is 256): time until every one has had its
   first live message (caught up), the bytes they received, and the
   relay's resnapshots (slow viewers sent their round again) meanwhile.

Prints a table. Everything runs on 127.0.0.1 and is stopped at the end."""
import argparse
import json
import os
import random
import re
import selectors
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from relay_ws import WS  # noqa: E402  (the e2e tests' WebSocket client)

FIRST = ["Nodirbek", "Gukesh", "Arjun", "Fabiano", "Hikaru", "Alireza", "Wesley", "Ian", "Anish",
         "Praggnanandhaa", "Vincent", "Richard", "Jan-Krzysztof", "Levon", "Shakhriyar", "Wei"]
LAST = ["Abdusattorov", "Dommaraju", "Erigaisi", "Caruana", "Nakamura", "Firouzja", "So",
        "Nepomniachtchi", "Giri", "Rameshbabu", "Keymer", "Rapport", "Duda", "Aronian",
        "Mamedyarov", "Yi"]
TEAMS = [("Uzbekistan", "UZB"), ("India", "IND"), ("United States of America", "USA"),
         ("China", "CHN"), ("Netherlands", "NED"), ("Germany", "GER"), ("Poland", "POL"),
         ("Armenia", "ARM"), ("Azerbaijan", "AZE"), ("France", "FRA"), ("Norway", "NOR"),
         ("Hungary", "HUN"), ("Serbia", "SRB"), ("Spain", "ESP"), ("Ukraine", "UKR"),
         ("Bosnia and Herzegovina", "BIH")]
LIVE_PREFIXES = (b'{"type":"summary"', b'{"type":"move"', b'{"type":"clock"', b'{"type":"status"',
                 b'{"type":"result"', b'{"type":"correction"', b'{"type":"tag"', b'{"type":"game"')


def make_feed(build, boards, warm, seconds, out):
    """relay_load_feed's round with players and a fast start."""
    period_ms = 30000
    rate = 2.0 * boards * 1000 / period_ms
    tool = os.path.join(build, "bench", "relay_load", "relay_load_feed")
    text = subprocess.run([tool, "--rate", "%.3f" % rate, "--boards", str(boards), "--seconds",
                           str(warm * period_ms // 1000 + seconds), "--seed", "26"],
                          check=True, capture_output=True, text=True).stdout
    rng = random.Random(26)
    warm_end = 2000 + warm * period_ms  # feed ms: board moves start at 2 s
    fast = 50
    lines = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        t, board, rest = line.split(" ", 2)
        t = int(t)
        # the warm-up 50 times faster, then real time
        t = t // fast if t < warm_end else warm_end // fast + (t - warm_end)
        if rest.startswith("meta White ") or rest.startswith("meta Black "):
            side = rest.split(" ")[1]
            n = int(board[4:])  # LOADn
            team, fed = TEAMS[(n - 1) // 4 % len(TEAMS)] if side == "White" else \
                TEAMS[((n - 1) // 4 + 7) % len(TEAMS)]
            name = "%s, %s" % (rng.choice(LAST), rng.choice(FIRST))
            for k, v in ((side, name), (side + "Elo", str(rng.randint(2300, 2800))),
                         (side + "Title", rng.choice(["GM", "IM", "FM", "GM"])),
                         (side + "Fed", fed), (side + "Team", team)):
                lines.append("%d %s meta %s %s" % (t, board, k, v))
            continue
        lines.append("%d %s %s" % (t, board, rest))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return warm_end // fast


class Conn(WS):
    """The e2e tests' WebSocket client, counting bytes and frames and parsing
    only what it must."""

    def __init__(self, port):
        super().__init__(port, timeout=30)
        self.bytes = len(self.buf)  # what came with the handshake's answer
        self.msgs = 0
        self.live_at = None
        self.first_type = None

    def feed(self, data, now):
        """Counts what came; notes the first live message."""
        self.bytes += len(data)
        self.buf += data
        while len(self.buf) >= 2:
            n, off = self.buf[1] & 0x7F, 2
            if n == 126:
                if len(self.buf) < 4:
                    return
                n, off = struct.unpack("!H", self.buf[2:4])[0], 4
            elif n == 127:
                if len(self.buf) < 10:
                    return
                n, off = struct.unpack("!Q", self.buf[2:10])[0], 10
            if len(self.buf) < off + n:
                return
            payload = self.buf[off:off + 24]
            self.buf = self.buf[off + n:]
            self.msgs += 1
            if self.live_at is None and payload.startswith(LIVE_PREFIXES):
                self.live_at = now
                self.live_bytes = self.bytes - len(self.buf)
                self.live_msgs = self.msgs - 1

    def close(self):
        self.sock.close()


def http(port, path):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as r:
        return r.read().decode()


def resnapshots(port):
    m = re.search(r"^chessrelay_resnapshots_total (\d+)", http(port, "/metrics"), re.M)
    return int(m.group(1)) if m else 0


def join(port, n, summary, limit=120.0):
    """n viewers subscribe at once; returns (seconds until all live, each
    viewer's bytes and messages before its first live message, resnapshots)."""
    conns = [Conn(port) for _ in range(n)]
    sel = selectors.DefaultSelector()
    for c in conns:
        c.sock.setblocking(False)
        sel.register(c.sock, selectors.EVENT_READ, c)
    before = resnapshots(port)
    op = {"op": "subscribe", "round": "1"}
    if summary:
        op["summary"] = True
    t0 = time.monotonic()
    for c in conns:
        c.sock.setblocking(True)
        c.send(op)
        c.sock.setblocking(False)
    waiting = n
    while waiting and time.monotonic() - t0 < limit:
        for key, _ in sel.select(1.0):
            c = key.data
            try:
                data = c.sock.recv(1 << 20)
            except BlockingIOError:
                continue
            if not data:
                sel.unregister(c.sock)
                continue
            was = c.live_at
            c.feed(data, time.monotonic())
            if was is None and c.live_at is not None:
                waiting -= 1
    took = max((c.live_at or float("inf")) - t0 for c in conns)
    rs = resnapshots(port) - before
    out = [(getattr(c, "live_bytes", c.bytes), getattr(c, "live_msgs", c.msgs), c.live_at) for c in conns]
    sel.close()
    for c in conns:
        c.close()
    return took, out, rs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--boards", type=int, default=800)
    ap.add_argument("--viewers", type=int, default=200)
    ap.add_argument("--warm", type=int, default=40, help="plies a board before the measures")
    args = ap.parse_args()
    binary = os.path.join(args.build, "chessrelay")
    tmp = tempfile.mkdtemp(prefix="round_join_")
    feed = os.path.join(tmp, "round.feed")
    warm_s = make_feed(args.build, args.boards, args.warm, 600, feed) / 1000.0
    port_file = os.path.join(tmp, "port")
    log = open(os.path.join(tmp, "relay.log"), "wb")
    relay = subprocess.Popen([binary, "replay", feed, "--serve", "--speed", "1", "--quiet",
                              "--listen", "127.0.0.1:0", "--port-file", port_file],
                             stdout=log, stderr=log)
    try:
        deadline = time.time() + 30
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.time() > deadline or relay.poll() is not None:
                sys.exit("relay did not start (log %s)" % log.name)
            time.sleep(0.05)
        port = int(open(port_file).read().strip())
        # every board has its warm-up plies
        deadline = time.time() + warm_s + 120
        while True:
            games = json.loads(http(port, "/games.json"))
            done = sum(1 for g in games if g.get("plies", 0) >= args.warm - 2)
            if len(games) >= args.boards and done >= args.boards * 0.95:
                break
            if time.time() > deadline:
                sys.exit("the round did not warm up: %d of %d boards" % (done, args.boards))
            time.sleep(1)
        time.sleep(3)
        print("round: %d boards, %d games, median %d plies; /games.json %d bytes; relay pid %d"
              % (args.boards, len(games), sorted(g.get("plies", 0) for g in games)[len(games) // 2],
                 len(json.dumps(games)), relay.pid))
        print("| subscription | viewers | KB before first live msg (one viewer) | msgs | "
              "ms to first live | all caught up s | MB sent to all | resnapshots |")
        print("|---|---|---|---|---|---|---|---|")
        for summary in (False, True):
            took1, one, _ = join(port, 1, summary)
            time.sleep(2)
            took, many, rs = join(port, args.viewers, summary)
            total = sum(b for b, _, _ in many)
            print("| %s | %d | %.1f | %d | %.0f | %s | %.1f | %d |"
                  % ("summary" if summary else "full", args.viewers, one[0][0] / 1024.0, one[0][1],
                     took1 * 1000, "%.2f" % took if took != float("inf") else "not in 120 s",
                     total / 1e6, rs))
            time.sleep(3)
    finally:
        relay.send_signal(signal.SIGTERM)
        try:
            relay.wait(10)
        except subprocess.TimeoutExpired:
            relay.kill()
            relay.wait()
        log.close()


if __name__ == "__main__":
    main()

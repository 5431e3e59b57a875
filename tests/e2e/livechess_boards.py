"""The DGT LiveChess API over a live board (docs/protocol.md, "DGT LiveChess
local API"): `chessrelay emulate p01.feed --pty` plays a DGT board, `serve
--serial PTY --livechess 127.0.0.1:PORT` reads it. `eboards` lists it by
its serial number with the device as its source, ACTIVE; a subscription
gets what the board shows as it changes (decoded from the board's own
bytes): placements of 8 ranks, among them the feed's start position and
then five positions of its game."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import WS, Relay, check, popen, sample_feed, unallocated_port, wait_until  # noqa: E402

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
RANK = re.compile(r"^[pnbrqkPNBRQK1-8]+$")


def call(ws, obj):
    ws.send(obj)
    while True:
        m = ws.recv(timeout=10)
        if m.get("response") != "feed":
            return m


def main():
    binary = sys.argv[1]
    feed = sample_feed("p01.feed")
    placements = [l.split()[3] for l in open(feed) if len(l.split()) > 3 and l.split()[2] == "pos"]
    emu = popen([binary, "emulate", feed, "--pty", "--speed", "10", "--max-gap", "1000"],
                stdout=subprocess.PIPE, text=True)
    dev = emu.stdout.readline().strip()
    check(dev.startswith("/dev/"), "emulate names its pty: %r" % dev)
    port = unallocated_port()
    relay = Relay(binary, ["serve", "--serial", dev, "--livechess", "127.0.0.1:%d" % port])
    ws = WS(port, path="/api/v1.0")

    def live_board():
        m = call(ws, {"id": 1, "call": "eboards"})
        return [b for b in m["param"] if b["source"] and dev in b["source"] and b["state"] == "ACTIVE"]
    board = wait_until(live_board, "the emulated board in eboards, ACTIVE, from %s" % dev, 30)[0]
    check(re.match(r"^[A-Za-z0-9._-]+$", board["serialnr"]) is not None, "serialnr %r" % board)
    print("  listed: %r" % board)
    m = call(ws, {"id": 2, "call": "subscribe",
                  "param": {"feed": "eboardevent", "id": 5, "param": {"serialnr": board["serialnr"]}}})
    check(m["response"] == "call" and m["param"] is None, "subscribed: %r" % m)
    seen, known = [], []
    end = time.time() + 60
    def after_start():
        return len(known) - known.index(START) - 1 if START in known else -1
    # The board is set up first (p01's first positions), then the game.
    while time.time() < end and after_start() < 5:
        try:
            f = ws.recv(timeout=5)
        except TimeoutError:
            continue
        check(f["response"] == "feed" and f["id"] == 5, "feed message %r" % f)
        b = f["param"]["board"]
        check(b is None or (len(b.split("/")) == 8 and all(RANK.match(r) for r in b.split("/"))),
              "a placement: %r" % b)
        seen.append(b)
        if b in placements and b not in known:
            known.append(b)
    check(after_start() >= 5, "the start position, then 5 positions of the game, followed "
          "(%d messages): %r" % (len(seen), known))
    ws.close()
    relay.stop()
    emu.kill()
    emu.wait()
    print("OK: %d feed messages of the live board, %d of the feed's positions" % (len(seen), len(known)))


main()

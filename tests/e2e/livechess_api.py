"""The DGT LiveChess local API end to end, with a client written from
docs/protocol.md ("DGT LiveChess local API") only:

- `replay p01.feed --serve --speed 50 --livechess 127.0.0.1:PORT`; the log
  names the address, and the relay listens on 127.0.0.1 only (its HTTP port
  and PORT); without --livechess it has no second listener;
- `eboards` lists the feed's board, ACTIVE, from p01.feed;
- a subscription follows the board through the game: every feed message's
  `board` is a placement of the feed's `pos` lines, in the feed's order,
  the last one is the feed's last position, and the last clock is the
  feed's last clock line;
- a second client's `unsubscribe` stops its messages while the first one's
  go on;
- an unknown call, bad JSON and a subscribe to an unknown serialnr get
  error answers, and the connection goes on;
- restarted on its journal, the relay lists the board in its last state
  and a subscription starts from it."""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import WS, Relay, check, fail, sample_feed, unallocated_port, wait_until  # noqa: E402

BOARD = "DGT23164"
PATH = "/api/v1.0"


def feed_lines(path):
    """The placements of the feed's pos lines in order, and its last clock
    line as (white s, black s, running)."""
    placements, clock = [], None
    for line in open(path):
        f = line.split()
        if len(f) >= 4 and f[1] == BOARD and f[2] == "pos":
            placements.append(f[3])
        elif len(f) >= 6 and f[1] == BOARD and f[2] == "clock":
            def sec(s):
                h, m, x = s.split(":")
                return int(h) * 3600 + int(m) * 60 + int(x)
            clock = (sec(f[3]), sec(f[4]), f[5] != "-")
    return placements, clock


def listeners(pid):
    """(address, port) of the TCP sockets in LISTEN that process pid owns."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            m = re.match(r"socket:\[(\d+)\]", os.readlink("/proc/%d/fd/%s" % (pid, fd)))
        except OSError:
            continue
        if m:
            inodes.add(m.group(1))
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).readlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:   # 0A: LISTEN
                addr, port = f[1].split(":")
                if len(addr) == 8:
                    host = ".".join(str(int(addr[i:i + 2], 16)) for i in (6, 4, 2, 0))
                else:
                    host = "ipv6:" + addr
                out.add((host, int(port, 16)))
    return out


def answer(ws):
    """The next message that is not a feed message (none comes before a
    subscribe's answer here)."""
    while True:
        m = ws.recv(timeout=10)
        if m.get("response") != "feed":
            return m


def call(ws, obj):
    """Sends a call and returns its answer and the feed messages before it."""
    ws.send(obj)
    feeds = []
    while True:
        m = ws.recv(timeout=10)
        if m.get("response") != "feed":
            return m, feeds
        feeds.append(m)


def main():
    binary = sys.argv[1]
    feed = sample_feed("p01.feed")
    placements, last_clock = feed_lines(feed)
    check(len(placements) > 100 and last_clock, "p01.feed has its positions and clock")

    # Off by default: one listener only.
    plain = Relay(binary, ["replay", feed, "--serve", "--speed", "50"])
    got = listeners(plain.proc.pid)
    check(got == {("127.0.0.1", plain.port)}, "without --livechess, listeners %r" % got)
    plain.stop()

    port = unallocated_port()
    relay = Relay(binary, ["replay", feed, "--serve", "--speed", "50", "--livechess",
                           "127.0.0.1:%d" % port])
    got = listeners(relay.proc.pid)
    check(got == {("127.0.0.1", relay.port), ("127.0.0.1", port)},
          "listeners %r: the relay's port and the API's, on 127.0.0.1 only" % got)
    log = open(relay.log.name).read()
    check("ws://127.0.0.1:%d/api/v1.0" % port in log, "the log names the API's address:\n" + log)

    a = WS(port, path=PATH)
    # The board appears with the feed's first lines.
    def listed():
        m, _ = call(a, {"id": 1, "call": "eboards"})
        check(m["response"] == "call" and isinstance(m["param"], list), "eboards answer %r" % m)
        return [b for b in m["param"] if b["serialnr"] == BOARD]
    entry = wait_until(listed, "board %s in eboards" % BOARD)[0]
    check(entry["state"] == "ACTIVE" and entry["source"] == "p01.feed" and entry["comment"] is None
          and entry["flipped"] is False and entry["battery"] is None,
          "the board's entry: %r" % entry)
    check(entry["board"] in placements, "listed board %r is a feed position" % entry["board"])
    m, _ = call(a, {"id": 2, "call": "eboards"})
    check(m["id"] == 2 and abs(m["time"] - time.time() * 1000) < 60000,
          "time is the wall clock in ms: %r" % m)

    # Errors: answered, the connection goes on.
    m, _ = call(a, {"id": 3, "call": "setup", "param": {}})
    check(m["response"] == "error" and m["id"] == 3 and "read-only" in m["param"],
          "unknown call: %r" % m)
    a.send_raw("{not json")
    m = answer(a)
    check(m["response"] == "error" and m["id"] is None and "bad JSON" in m["param"],
          "bad JSON: %r" % m)
    m, _ = call(a, {"id": "four", "call": "eboards"})
    check(m["response"] == "error" and m["id"] is None, "a call without an integer id: %r" % m)
    m, _ = call(a, {"id": 4, "call": "eboards"})
    check(m["response"] == "call" and m["id"] == 4, "eboards still answered: %r" % m)
    m, _ = call(a, {"id": 5, "call": "subscribe",
                    "param": {"feed": "eboardevent", "id": 50, "param": {"serialnr": "NOPE9"}}})
    check(m["response"] == "error" and m["id"] == 5 and "NOPE9" in m["param"],
          "subscribe to an unknown board: %r" % m)

    # Follow the board.
    m, feeds = call(a, {"id": 6, "call": "subscribe",
                        "param": {"feed": "eboardevent", "id": 61, "param": {"serialnr": BOARD}}})
    check(m == {"response": "call", "id": 6, "param": None, "time": m["time"]},
          "subscribe answer: %r" % m)
    check(not feeds, "no feed message before the subscribe's answer")
    b = WS(port, path=PATH)
    m, _ = call(b, {"id": 1, "call": "subscribe",
                    "param": {"feed": "eboardevent", "id": 7, "param": {"serialnr": BOARD}}})
    check(m["response"] == "call" and m["param"] is None, "second client subscribed: %r" % m)

    index = 0
    received = 0
    last = None
    b_after_unsub = []
    b_unsubscribed = False
    b_seen = 0
    end = time.time() + 300
    played = False
    while time.time() < end:
        try:
            msg = a.recv(timeout=1.0)
        except TimeoutError:
            msg = None
        if msg is not None:
            check(msg["response"] == "feed" and msg["id"] == 61, "a feed message of 61: %r" % msg)
            p = msg["param"]
            check(set(p) == {"serialnr", "flipped", "board", "clock"} and p["serialnr"] == BOARD,
                  "feed param %r" % p)
            try:
                index = placements.index(p["board"], index)
            except ValueError:
                fail("feed board %r is not a feed position at or after #%d (%r)"
                     % (p["board"], index, placements[index]))
            received += 1
            last = p
        # the second client: a few messages, then unsubscribe
        while not b_unsubscribed:
            try:
                mb = b.recv(timeout=0.01)
            except TimeoutError:
                break
            check(mb["response"] == "feed" and mb["id"] == 7, "client b: %r" % mb)
            b_seen += 1
            if b_seen >= 5:
                mu, _ = call(b, {"id": 2, "call": "unsubscribe", "param": {"id": 7}})
                check(mu["response"] == "call" and mu["id"] == 2 and mu["param"] is None,
                      "unsubscribe answer: %r" % mu)
                b_unsubscribed = True
                unsub_received = received
        if b_unsubscribed:
            try:
                b_after_unsub.append(b.recv(timeout=0.01))
            except TimeoutError:
                pass
        if not played:
            played = "p01.feed: played to the end" in open(relay.log.name).read()
        elif msg is None:
            break  # the feed is over and a second went by without a message
    check(played, "the replay reached the feed's end")
    check(b_unsubscribed, "client b got 5 messages")
    check(received - unsub_received >= 20, "client a went on after b's unsubscribe (%d)"
          % (received - unsub_received))
    check(not b_after_unsub, "nothing after unsubscribe: %r" % b_after_unsub[:2])
    check(received >= 50, "followed the game: %d feed messages" % received)
    check(last["board"] == placements[-1], "last board %r is the feed's last %r"
          % (last["board"], placements[-1]))
    c = last["clock"]
    check(c is not None and (c["white"], c["black"], c["run"]) == last_clock
          and isinstance(c["time"], int), "last clock %r is the feed's last %r" % (c, last_clock))
    m, _ = call(a, {"id": 8, "call": "unsubscribe", "param": {"id": 61}})
    check(m["response"] == "call", "unsubscribe: %r" % m)
    m, _ = call(a, {"id": 9, "call": "unsubscribe", "param": {"id": 61}})
    check(m["response"] == "error" and m["id"] == 9, "unsubscribe twice: %r" % m)
    a.close()
    b.close()
    relay.stop()
    print("OK: %d feed messages followed %d positions of p01.feed in order" % (received, index + 1))
    restart(binary, feed, placements, last_clock)


def restart(binary, feed, placements, last_clock):
    """A relay restarted on its journal lists each board in its last state
    (published once after the rebuild)."""
    tmp = tempfile.TemporaryDirectory(prefix="cr_livechess_")
    state = os.path.join(tmp.name, "state")
    port = unallocated_port()
    args = ["replay", feed, "--serve", "--state", state, "--livechess", "127.0.0.1:%d" % port]
    run = Relay(binary, args + ["--speed", "500", "--exit-at-end"])
    run.proc.wait(60)
    check(run.proc.returncode == 0, "the journaled run ended cleanly")
    again = Relay(binary, args + ["--speed", "1"])
    ws = WS(port, path=PATH)
    m, _ = call(ws, {"id": 1, "call": "eboards"})
    boards = [b for b in m["param"] if b["serialnr"] == BOARD]
    check(len(boards) == 1, "after the restart eboards lists %s: %r" % (BOARD, m))
    b = boards[0]
    check(b["board"] == placements[-1], "after the restart its last position: %r" % b)
    c = b["clock"]
    check(c and (c["white"], c["black"], c["run"]) == last_clock, "and its last clock: %r" % b)
    m, feeds = call(ws, {"id": 2, "call": "subscribe",
                         "param": {"feed": "eboardevent", "id": 3, "param": {"serialnr": BOARD}}})
    f = ws.recv(timeout=10)
    check(m["response"] == "call" and f["response"] == "feed" and f["id"] == 3
          and f["param"]["board"] == placements[-1], "the feed starts from it: %r" % f)
    ws.close()
    again.stop()
    tmp.cleanup()
    print("OK: restarted on the journal, the board is listed in its last state")


main()

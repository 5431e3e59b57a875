"""An agent stalled right after a move, before the clock press that times it
(issue 14), end to end (run by agent_stall.sh). A fake venue agent sends
tests/data/feeds-clocks/agentcut.feed to `serve --agent-token`: the events up
to 2. g4 (the piece set down at 7.1 s) with its watermark there, then nothing
for 11 s (longer than the 10 s after which an away agent no longer holds the
relay's common ticks), then the press of 7.2 s and the rest of the game, and
its bye. The board's ticks must wait at the agent's watermark however long it
is silent: the served PGN equals `chessrelay replay` of the feed, byte for
byte (with a tick past the watermark, the press was taken at 12.1 s:
`2. g4 {[%emt 0:00:07]}` instead of 0:00:02)."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import WS, Relay, check, fail, wait_settled  # noqa: E402

TOKEN = "agent-stall-token"
BASE = 1000000  # the agent's clock at the feed's 0 (any value works: the relay keeps the offset)
STALL_AFTER = 7100  # the last event sent before the stall: 2. g4 set down, not yet pressed
STALL_S = 11


def games_with_moves(text):
    """The PGN's games that have moves (replay prints no others)."""
    out = []
    for block in re.split(r'(?<=\n)(?=\[Event )', text):
        body = re.sub(r'^\[\w+ "(?:[^"\\]|\\.)*"\]$', '', block, flags=re.M).split()
        if [t for t in body if t not in ("*", "1-0", "0-1", "1/2-1/2")]:
            out.append(block)
    return "".join(out)


def main(binary):
    src = os.environ.get("CR_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "..", "..")
    feed = os.path.join(src, "tests", "data", "feeds-clocks", "agentcut.feed")
    events = []
    for ln in open(feed):
        ln = ln.strip()
        if ln and not ln.startswith("#"):
            t, rest = ln.split(" ", 1)
            events.append((int(t), rest))
    check(any(t == STALL_AFTER for t, _ in events) and any(t > STALL_AFTER for t, _ in events),
          "agentcut.feed has no event at %d ms with more after it" % STALL_AFTER)
    offline = subprocess.run([binary, "replay", feed], capture_output=True, text=True, timeout=60)
    check(offline.returncode == 0 and "[Event " in offline.stdout, "replay: %s" % offline.stderr)
    want = games_with_moves(offline.stdout)
    check("0-1" in want, "offline: no 0-1 (mate): %s" % want)

    r = Relay(binary, ["serve", "--agent-token", TOKEN, "--speed", "10", "--quiet"])
    try:
        ws = WS(r.port, {"Sec-WebSocket-Protocol": "chessrelay-agent"}, path="/agent")
        ws.send({"op": "agent-hello", "agent": "stall", "token": TOKEN, "clock": BASE, "last": 0})
        m = ws.recv()
        check(m["type"] == "welcome", "hello: %s" % m)
        head = [e for e in events if e[0] <= STALL_AFTER]
        tail = [e for e in events if e[0] > STALL_AFTER]
        lines = lambda evs: ["%d %s" % (BASE + t, rest) for t, rest in evs]  # noqa: E731
        ws.send({"op": "ev", "n": 1, "clock": BASE + STALL_AFTER, "lines": lines(head)})
        time.sleep(STALL_S)  # the agent stalled: not a word, the link open
        ws.send({"op": "ev", "n": len(head) + 1, "clock": BASE + tail[-1][0], "lines": lines(tail)})
        ws.send({"op": "bye", "last": len(events)})
        # Mate gives 0-1 at once; the press after it (the last %clk) comes
        # later on a loaded machine: the PGN is taken once it stands still.

        def served():
            st, _, body = r.http("/live.pgn")
            got = games_with_moves(body) if st == 200 else ""
            return got if "0-1" in got else None
        got = wait_settled(served, "the served game ends 0-1", limit=20.0)
        ws.close()
    finally:
        r.stop()
    if got != want:
        fail("the PGN after an agent stall differs from the offline replay:\n--- offline\n%s\n"
             "--- served\n%s" % (want, got))
    emt = re.search(r"2\.\s+g4\s+\{([^}]*)\}", got)
    print("ok: agent silent %d s after 2. g4 (before its press): the same PGN as offline "
          "(%d bytes; 2. g4 {%s})" % (STALL_S, len(got), " ".join(emt.group(1).split()) if emt else "?"))


if __name__ == "__main__":
    main(sys.argv[1])

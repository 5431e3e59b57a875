"""Board numbers that do not move (issue 14), end to end (run by
ctest's e2e_board_numbers): `serve --state S` takes four boards from a venue agent
(`agent --feed`), connecting in the order B675, Z9, A100, M42; each board's
number (table) is noted from the arbiter view. The relay is killed
(SIGKILL) and restarted on the same state: the numbers are the same. A
venue agent, restarted, brings the boards back in the other order (M42,
A100, Z9, B675), after a board never seen before (AA1): the four keep their numbers,
AA1 gets one of its own. A second kill -9 and restart: all five unchanged.
Each board's last event is a move set down (no clock, nothing after it):
the live relay settled it on the agent's watermark; a restarted relay has
every such move at once (within RESTORED s of being ready, well before an
away agent's 10 s hold ends), as it had published it before the kill."""
import json
import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, popen  # noqa: E402

AGENT_TOKEN = "board-numbers-agent-token"
ARB_TOKEN = "board-numbers-arbiter-token"
RESTORED = 3
AUTH = {"Authorization": "Bearer " + ARB_TOKEN}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
E4E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"


def write_feed(path, boards, positions):
    """Each board in turn: connect, then the positions 100 ms apart."""
    lines, t = [], 0
    for b in boards:
        lines.append("%d %s connect" % (t, b))
        for p in positions:
            t += 100
            lines.append("%d %s pos %s" % (t, b, p))
        t += 100
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def tables(r, want, plies, limit=30):
    """{board: table} once every board of `want` has `plies` plies."""
    deadline = time.time() + limit
    while True:
        st, _, body = r.http("/arbiter/incidents.json", AUTH)
        got = {}
        if st == 200:
            for g in json.loads(body)["games"]:
                if g["plies"] == plies:
                    got[g["board"]] = g["table"]
        if set(want) <= set(got):
            return got
        if time.time() > deadline:
            fail("boards %s with %d plies: %s (games: %s)" % (want, plies, got, body[:3000]))
        time.sleep(0.2)


def feed_agent(binary, r, feed, state, name):
    a = popen([binary, "agent", "--to", "ws://127.0.0.1:%d/agent" % r.port, "--token", AGENT_TOKEN,
               "--id", name, "--feed", feed, "--speed", "10", "--state", state, "--exit-at-end",
               "--quiet"])
    try:
        rc = a.wait(60)
    except Exception:
        a.kill()
        fail("agent %s did not finish" % name)
    check(rc == 0, "agent %s exited %s" % (name, rc))


def main(binary):
    tmp = tempfile.mkdtemp(prefix="cr_e2e_boards_")
    state = os.path.join(tmp, "state")
    args = ["serve", "--agent-token", AGENT_TOKEN, "--arbiter-token", ARB_TOKEN, "--state", state,
            "--quiet"]
    first = ["B675", "Z9", "A100", "M42"]
    again = first[::-1]
    write_feed(os.path.join(tmp, "first.feed"), first, [START, E4])
    # The agent's feed goes on (its state resumes after the events sent):
    # AA1 (never seen) first, with a game of its own; then the four, reversed.
    with open(os.path.join(tmp, "again.feed"), "w") as f:
        f.write(open(os.path.join(tmp, "first.feed")).read())
        write_feed(os.path.join(tmp, "aa1.feed"), ["AA1"], [START, E4])
        write_feed(os.path.join(tmp, "rest.feed"), again, [E4, E4E5])
        for name, off in (("aa1.feed", 10000), ("rest.feed", 15000)):
            for ln in open(os.path.join(tmp, name)):
                t, rest = ln.split(" ", 1)
                f.write("%d %s" % (int(t) + off, rest))
    r = Relay(binary, args)
    try:
        feed_agent(binary, r, os.path.join(tmp, "first.feed"), os.path.join(tmp, "a1"), "venue-1")
        before = tables(r, first, 1)
        nums = [before[b] for b in first]
        check(len(set(nums)) == 4 and all(n > 0 for n in nums), "numbers: %s" % before)
    finally:
        r.stop(signal.SIGKILL)

    r = Relay(binary, args)
    try:
        after = tables(r, first, 1, RESTORED)
        check(all(after[b] == before[b] for b in first),
              "after kill -9: %s, before: %s" % (after, before))
        # AA1 sorts before the others and comes first; the four come back reversed.
        # The same venue agent (its id and state), restarted with the boards in another order.
        feed_agent(binary, r, os.path.join(tmp, "again.feed"), os.path.join(tmp, "a1"), "venue-1")
        back = tables(r, first, 2)
        check(all(back[b] == before[b] for b in first),
              "boards back in another order: %s, before: %s" % (back, before))
        new = tables(r, ["AA1"], 1)["AA1"]
        check(new > 0 and new not in nums, "the new board's number %d (others %s)" % (new, nums))
    finally:
        r.stop(signal.SIGKILL)

    r = Relay(binary, args)
    try:
        last = tables(r, first, 2, RESTORED)
        last.update(tables(r, ["AA1"], 1, RESTORED))
        check(all(last[b] == before[b] for b in first) and last["AA1"] == new,
              "after the second kill -9: %s, before: %s, AA1 %d" % (last, before, new))
    finally:
        r.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok: board numbers %s, AA1 %d: the same after kill -9, after boards came back in another "
          "order, and after a second kill -9" % (before, new))


if __name__ == "__main__":
    main(sys.argv[1])

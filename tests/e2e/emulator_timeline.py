"""The emulator's timeline against a host and a machine that are slow, run by
ctest's e2e_emulator_timeline. At --speed N a delay of d ms is N x d ms of feed time,
so the timeline must wait rather than let the feed's gaps shrink:
- a muted board (the feed's disconnect..connect without --link) that a host
  takes 0.5 s to take up again (probe, then dump): the dump shows the
  position of the connect (the next two positions come 1 and 1.4 s of feed
  time later, 20 ms at speed 50), and the timeline goes on once the host
  sets an update mode again;
- a host that reads an update late, once the next one is due: that one comes
  the feed's gap (2 s of feed time, 200 ms at speed 10) after the host read
  the last one, not at once;
- an emulator stopped for 0.7 s (SIGSTOP, as a loaded machine may leave it
  without the CPU): the updates that came due meanwhile keep their gaps.
The host is a plain DGT host on the pty, like drivers/board_link.c."""
import array
import fcntl
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import fail, popen  # noqa: E402

BIN = sys.argv[1]
SPEED = 50
RESET, SEND_BRD, RETURN_SERIALNR, UPDATE_NICE = 0x40, 0x42, 0x45, 0x4B
DUMP, FIELD, SERIALNR = 0x86, 0x8E, 0x91
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
AT_CONNECT = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"     # 1. e4 e5 2. Nf3
LIFTED = "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"         # the knight in hand
NC6 = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
FEED = f"""# a board muted for 100 s of feed time (2 s at speed 50)
0 T1 connect
0 T1 pos {START}
1000 T1 pos {E4}
2000 T1 disconnect
102000 T1 connect
102000 T1 pos {AT_CONNECT}
103000 T1 pos {LIFTED}
103400 T1 pos {NC6}
"""
CODES = {c: i + 1 for i, c in enumerate("PRNBKQprnbkq")}   # the DGT piece codes


def squares(placement):
    """DGT order: a8 .. h8, a7 .. h1."""
    out = []
    for rank in placement.split("/"):
        for c in rank:
            out += [0] * int(c) if c.isdigit() else [CODES[c]]
    return out


class Host:
    def __init__(self, dev):
        self.fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        termios.tcflush(self.fd, termios.TCIOFLUSH)
        self.buf = b""

    def waiting(self):
        """Bytes in the pty that the host has not read."""
        n = array.array("i", [0])
        fcntl.ioctl(self.fd, termios.FIONREAD, n)
        return n[0]

    def send(self, *cmds):
        os.write(self.fd, bytes(cmds))

    def messages(self, wait, stamps=None):
        """(id, payload) of the messages that come within `wait` s; with
        `stamps` (a list), their arrival times are appended to it."""
        end = time.monotonic() + wait
        got = []
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return got
            self.buf += os.read(self.fd, 4096)
            while len(self.buf) >= 3:
                if not self.buf[0] & 0x80:
                    self.buf = self.buf[1:]
                    continue
                n = (self.buf[1] << 7) | self.buf[2]
                if len(self.buf) < n:
                    break
                got.append((self.buf[0], self.buf[3:n]))
                if stamps is not None:
                    stamps.append(time.monotonic())
                self.buf = self.buf[n:]
            if got:
                return got


def emulate(tmp, name, text, speed):
    feed = os.path.join(tmp, name)
    with open(feed, "w") as f:
        f.write(text)
    emu = popen([BIN, "emulate", feed, "--pty", "--speed", str(speed)],
                stdout=subprocess.PIPE, text=True)
    return emu, Host(emu.stdout.readline().strip())


def finish(emu, host, what):
    end = time.monotonic() + 20                # a host reads till the board is gone
    while emu.poll() is None and time.monotonic() < end:
        try:
            host.messages(0.2)
        except OSError:
            time.sleep(0.05)
    emu.wait(timeout=5)
    os.close(host.fd)
    if emu.returncode != 0:
        fail("%s: emulate exited %d" % (what, emu.returncode))


def unmuted(tmp):
    emu, host = emulate(tmp, "mute.feed", FEED, SPEED)
    host.send(SEND_BRD, UPDATE_NICE)                 # starts the timeline
    board = None
    # Pinged every 0.2 s, the board answers until the mute; then 0.6 s
    # without an answer: it is gone.
    last_answer = time.monotonic()
    while time.monotonic() - last_answer < 0.6:
        host.send(RETURN_SERIALNR)
        for mid, body in host.messages(0.2):
            if mid == SERIALNR:
                last_answer = time.monotonic()
            elif mid == DUMP:
                board = list(body)
            elif mid == FIELD and board is not None:
                board[body[0]] = body[1]
    if board != squares(E4):
        fail("before the mute the host did not see 1. e4")
    # Probing: reset and ask who it is, until it answers.
    deadline = time.monotonic() + 10
    back = False
    while not back and time.monotonic() < deadline:
        host.send(RESET, RETURN_SERIALNR)
        back = any(mid == SERIALNR for mid, _ in host.messages(0.2))
    if not back:
        fail("the board did not answer after its mute")
    time.sleep(0.5)                                  # a host slowed down
    host.send(SEND_BRD)
    dump = None
    end = time.monotonic() + 3
    while dump is None and time.monotonic() < end:
        dump = next((list(b) for mid, b in host.messages(0.5) if mid == DUMP), None)
    if dump != squares(AT_CONNECT):
        fail("the dump after the mute is not the position of the connect: the board "
             "played on while the host took it up (%s)" %
             ("no dump" if dump is None else "dump != 2. Nf3"))
    host.send(UPDATE_NICE)
    board = dump
    end = time.monotonic() + 3                       # 150 s of feed time
    while board != squares(NC6) and time.monotonic() < end:
        for mid, body in host.messages(0.2):
            if mid == FIELD:
                board[body[0]] = body[1]
    if board != squares(NC6):
        fail("the timeline did not go on once the host set an update mode")
    finish(emu, host, "mute")


# A knight that goes g1-f3-g1-..., one square changing every 2 s of feed time.
SHUFFLE = [START, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R",
           "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R",
           "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R"]
GAP, PACE_SPEED = 2000, 10                     # 200 ms between updates
MIN_GAP = 0.1                                  # half of it: room for jitter, none for a burst


def paced(tmp):
    text = "0 T2 connect\n" + "".join(
        "%d T2 pos %s\n" % (i * GAP, SHUFFLE[i % 4]) for i in range(13))
    emu, host = emulate(tmp, "pace.feed", text, PACE_SPEED)
    host.send(SEND_BRD, UPDATE_NICE)

    pending = []                               # arrival times of knight updates not taken yet

    def updates(n, stamps):
        end = time.monotonic() + 5
        while len(pending) < n and time.monotonic() < end:
            got = []
            for (mid, body), at in zip(host.messages(0.5, got), got):
                if mid == FIELD and body[0] in (45, 62):   # f3, g1 (the start's burst: g1 once)
                    pending.append(at)
        if len(pending) < n:
            fail("pace: %d knight updates of %d came" % (len(pending), n))
        stamps += pending[:n]
        del pending[:n]

    updates(2, [])
    # A host that does not read: the next update waits in the pty, and the
    # one after it comes due (held by the emulator, 200 ms at most) before
    # the host reads, halfway through that.
    end = time.monotonic() + 5
    while not host.waiting() and time.monotonic() < end:
        time.sleep(0.005)
    time.sleep(GAP / PACE_SPEED / 1000 + 0.1)
    updates(1, [])
    read_at = time.monotonic()
    nxt = []
    updates(1, nxt)
    if nxt[0] - read_at < MIN_GAP:
        fail("pace: after a host read late, the next update came %.0f ms after, not %d"
             % ((nxt[0] - read_at) * 1000, GAP // PACE_SPEED))
    emu.send_signal(signal.SIGSTOP)            # the machine leaves it without the CPU
    time.sleep(0.7)
    emu.send_signal(signal.SIGCONT)
    after = []
    updates(3, after)
    gaps = [b - a for a, b in zip(after, after[1:])]
    if min(gaps) < MIN_GAP:
        fail("pace: after a stop the updates due meanwhile came %s ms apart, not %d"
             % ([round(g * 1000) for g in gaps], GAP // PACE_SPEED))
    finish(emu, host, "pace")


def main():
    tmp = tempfile.mkdtemp(prefix="cr-timeline-")
    try:
        unmuted(tmp)
        paced(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("emulator timeline e2e: ok")


main()

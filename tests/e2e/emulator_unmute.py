"""A muted board coming back, to a host that is slow to take it up again,
run by emulator_unmute.sh. `emulate --speed 50` without --link mutes the board
for the feed's disconnect..connect; this host (a plain DGT host on the pty,
like drivers/dgt_link.c) finds it gone, probes until it answers, then takes
0.5 s (as a loaded machine may) before it asks for the dump. That is 25 s of
feed time at speed 50, in which the feed's next two positions come: the
timeline must wait for the host, so that the dump shows the position of the
connect, and go on (the next move arrives as field updates) once the host
sets an update mode again."""
import os
import select
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

    def send(self, *cmds):
        os.write(self.fd, bytes(cmds))

    def messages(self, wait):
        """(id, payload) of the messages that come within `wait` s."""
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
                self.buf = self.buf[n:]
            if got:
                return got


def main():
    tmp = tempfile.mkdtemp(prefix="cr-unmute-")
    feed = os.path.join(tmp, "in.feed")
    with open(feed, "w") as f:
        f.write(FEED)
    emu = popen([BIN, "emulate", feed, "--pty", "--speed", str(SPEED)],
                stdout=subprocess.PIPE, text=True)
    host = Host(emu.stdout.readline().strip())
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
    emu.wait(timeout=20)
    os.close(host.fd)
    os.remove(feed)
    os.rmdir(tmp)
    if emu.returncode != 0:
        fail("emulate exited %d" % emu.returncode)
    print("emulator unmute e2e: ok")


main()

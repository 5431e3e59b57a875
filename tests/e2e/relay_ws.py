"""Minimal WebSocket client (stdlib only) and helpers for the relay's
end-to-end tests: start the real binary on 127.0.0.1 with a free port,
talk HTTP and WebSocket to it, rebuild games from the messages."""
import atexit
import base64
import json
import os
import random
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request


class WSClosed(Exception):
    pass


def readable(sock, timeout):
    """poll, not select: descriptors over 1024 work (tests holding many sockets)."""
    p = select.poll()
    p.register(sock, select.POLLIN)
    return bool(p.poll(max(0, timeout) * 1000))


class WS:
    """tls: an ssl.SSLContext for wss:// (None: ws://); path: /ws, or /agent
    (with a Sec-WebSocket-Protocol header)."""

    def __init__(self, port, headers=None, timeout=10.0, tls=None, path="/ws"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        if tls is not None:
            self.sock = tls.wrap_socket(self.sock, server_hostname="127.0.0.1")
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join("%s: %s\r\n" % kv for kv in (headers or {}).items())
        req = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
               % (path, port, key, extra))
        self.sock.sendall(req.encode())
        resp = b""
        while b"\r\n\r\n" not in resp:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise WSClosed("handshake: connection closed")
            resp += chunk
        head, self.buf = resp.split(b"\r\n\r\n", 1)
        self.status = int(head.split(b" ")[1])
        if self.status != 101:
            raise WSClosed("handshake refused: %d" % self.status)
        self.closed = False

    def send_raw(self, payload, opcode=1):
        if isinstance(payload, str):
            payload = payload.encode()
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            hdr = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            hdr = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(hdr + mask + masked)

    def send(self, obj):
        self.send_raw(json.dumps(obj))

    def _need(self, n, deadline):
        while len(self.buf) < n:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError()
            # TLS: bytes already decrypted are not seen by select
            pending = isinstance(self.sock, ssl.SSLSocket) and self.sock.pending()
            r = pending or readable(self.sock, left)
            if not r:
                raise TimeoutError()
            chunk = self.sock.recv(65536)
            if not chunk:
                self.closed = True
                raise WSClosed("connection closed")
            self.buf += chunk

    def recv(self, timeout=10.0):
        """Next text message as a dict; TimeoutError or WSClosed."""
        deadline = time.time() + timeout
        while True:
            self._need(2, deadline)
            b0, b1 = self.buf[0], self.buf[1]
            n = b1 & 0x7F
            off = 2
            if n == 126:
                self._need(4, deadline)
                n = struct.unpack("!H", self.buf[2:4])[0]
                off = 4
            elif n == 127:
                self._need(10, deadline)
                n = struct.unpack("!Q", self.buf[2:10])[0]
                off = 10
            self._need(off + n, deadline)
            payload = self.buf[off:off + n]
            self.buf = self.buf[off + n:]
            op = b0 & 0x0F
            if op == 8:
                self.closed = True
                raise WSClosed("close frame %r" % payload[:40])
            if op == 9:
                self.send_raw(payload, 10)
                continue
            if op == 1:
                return json.loads(payload.decode())

    def close(self):
        try:
            self.send_raw(b"\x03\xe8", 8)
            self.sock.close()
        except OSError:
            pass


_port_rng = random.Random(os.getpid() ^ time.time_ns())
_ports_given = set()


def unallocated_port():
    """A port for a server that must be named before it starts (cluster
    routes, a server that comes up after its clients): taken from below the
    kernel's ephemeral range, where no port-0 bind or outgoing connection of
    another test is ever given one, and checked free. Every other port here is
    chosen by the OS (-p -1 and the ports file)."""
    lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    for _ in range(200):
        port = _port_rng.randrange(max(1024, lo - 12000), lo)
        if port in _ports_given:
            continue
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            _ports_given.add(port)
            return port
        except OSError:
            continue
        finally:
            s.close()
    fail("no free port below %d" % lo)


_started = []
_tmpdirs = []
_libc = None


def _die_with_parent():
    """In the child before exec: the kernel sends SIGKILL to it when the test
    process dies, however it dies (a failed assertion, a ctest timeout)."""
    global _libc
    import ctypes
    _libc = _libc or ctypes.CDLL(None, use_errno=True)
    _libc.prctl(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG


def popen(args, **kw):
    """subprocess.Popen for every process a test starts: it dies with the
    test, and is killed at exit if still running."""
    p = subprocess.Popen(args, preexec_fn=_die_with_parent, **kw)
    _started.append(p)
    return p


def _kill_all():
    for p in _started:
        if p.poll() is None:
            p.kill()
            p.wait()
    for d in _tmpdirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_kill_all)


class Relay:
    """The real binary, started with --listen 127.0.0.1:0 --port-file.
    Whatever happens, it is killed when the test exits. ca: the relay has
    TLS with this certificate (PEM file): HTTP and WebSocket go over TLS,
    verified against it."""

    def __init__(self, binary, args, log=None, ca=None):
        self.tls = ssl.create_default_context(cafile=ca) if ca else None
        self.tmp = tempfile.mkdtemp(prefix="cr_e2e_")
        _tmpdirs.append(self.tmp)
        self.port_file = os.path.join(self.tmp, "port")
        self.log = open(log or os.path.join(self.tmp, "relay.log"), "ab")
        self.proc = popen([binary] + args + ["--listen", "127.0.0.1:0", "--port-file", self.port_file],
                          stdout=self.log, stderr=self.log)
        deadline = time.time() + 20
        self.port = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("relay exited: %d (log %s)" % (self.proc.returncode, self.log.name))
            try:
                with open(self.port_file) as f:
                    self.port = int(f.read().strip())
                break
            except (OSError, ValueError):
                time.sleep(0.02)
        if not self.port:
            raise RuntimeError("relay did not start")
        # ready: /healthz 200
        while time.time() < deadline:
            try:
                if self.http("/healthz")[0] == 200:
                    return
            except Exception:
                pass
            time.sleep(0.02)
        raise RuntimeError("relay not ready")

    def http(self, path, headers=None):
        scheme = "https" if self.tls else "http"
        req = urllib.request.Request("%s://127.0.0.1:%d%s" % (scheme, self.port, path), headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=10, context=self.tls) as r:
                return r.status, dict(r.headers), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode()

    def ws(self, headers=None):
        return WS(self.port, headers, tls=self.tls)

    def stop(self, sig=signal.SIGTERM):
        """Stops the relay; after SIGTERM it must exit cleanly (status 0:
        no sanitizer report, nothing stuck)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc = self.proc.returncode
        if sig == signal.SIGTERM and rc != 0:
            self.log.flush()
            tail = open(self.log.name, errors="replace").read()[-3000:]
            print("FAIL: relay exited with status %s after SIGTERM; log:\n%s" % (rc, tail))
            sys.exit(1)
        return rc


class Games:
    """Games rebuilt from snapshots and events, checking the protocol's
    rules: a move's ply equals the plies held, seq grows."""

    def __init__(self):
        self.games = {}
        self.last_seq = 0
        self.errors = []

    def apply(self, m):
        t = m.get("type")
        if "seq" in m and t != "snapshot":
            if m["seq"] <= self.last_seq:
                self.errors.append("seq %d after %d" % (m["seq"], self.last_seq))
            self.last_seq = max(self.last_seq, m["seq"])
        if t == "snapshot":
            g = m["game"]
            self.games[g["id"]] = {"moves": [mv["san"] for mv in g["moves"]], "result": g["result"],
                                   "seq": m["seq"]}
        elif t == "game":
            self.games[m["game"]["id"]] = {"moves": [], "result": "*", "seq": m["seq"]}
        elif t == "move":
            g = self.games.get(m["game"])
            if g is None:
                self.errors.append("move for unknown game %d" % m["game"])
                return
            if m["ply"] != len(g["moves"]):
                self.errors.append("game %d: move ply %d but %d held" % (m["game"], m["ply"], len(g["moves"])))
            del g["moves"][m["ply"]:]
            g["moves"].append(m["san"])
        elif t == "correction":
            g = self.games.get(m["game"])
            if g is not None:
                del g["moves"][m["ply"]:]
        elif t == "result":
            g = self.games.get(m["game"])
            if g is not None:
                g["result"] = m["result"]
        if "seq" in m and m.get("game") is not None and t != "snapshot":
            gid = m["game"]["id"] if isinstance(m["game"], dict) else m["game"]
            if gid in self.games:
                self.games[gid]["seq"] = m["seq"]

    def summary(self):
        return {gid: (g["moves"], g["result"]) for gid, g in self.games.items()}


def final_state(relay, round_="1", token=None):
    """Everything a fresh subscriber gets: the snapshots of the round."""
    ws = relay.ws()
    if token:
        ws.send({"op": "hello", "token": token})
        assert ws.recv()["type"] == "welcome"
    ws.send({"op": "list"})
    lst = ws.recv()
    assert lst["type"] == "games", lst
    ws.send({"op": "subscribe", "round": round_})
    g = Games()
    n = len([x for x in lst["games"] if x["round"] == round_])
    for _ in range(n):
        g.apply(ws.recv())
    ws.close()
    return g



def san_tokens(movetext):
    """The SAN moves of a PGN game's movetext: move numbers, comments and the
    result dropped (castling written 0-0 kept)."""
    toks, depth = [], 0
    for tok in movetext.replace("{", " { ").replace("}", " } ").split():
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif depth or tok == "*" or tok in ("1-0", "0-1", "1/2-1/2"):
            continue
        elif not tok[0].isdigit() or "." not in tok:
            toks.append(tok)
    return toks


def moves_of_pgn(text):
    """SAN moves per game of PGN export text (no variations)."""
    out = []
    for game in text.strip().split("\n\n["):
        out.append(san_tokens(game.split("\n\n", 1)[1] if "\n\n" in game else ""))
    return out

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


# The sample feeds live in the repository (tests/data/feeds); a missing one
# fails the test that asked for it.
FEEDS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../data/feeds"))


def make_cert(folder):
    """A self-signed certificate for 127.0.0.1 made now with openssl (the
    relay's own TLS, a local TLS host): (cert.pem, key.pem) in folder."""
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cert, key


def sample_feed(name):
    path = os.path.join(FEEDS, name)
    if not os.path.isfile(path):
        fail("sample feed %s is missing" % path)
    return path


def wait_settled(cond, what, limit=20.0, quiet=1.5):
    """cond() until it gives something true, then until what it gives stays
    the same for `quiet` seconds (returned): a game whole by its plies may
    still get the clock of the press after its last move, later on a slow
    relay (the sanitizers) than on a fast one."""
    end = time.time() + limit
    v = wait_until(cond, what, limit)
    since = time.time()
    while time.time() - since < quiet:
        if time.time() > end + quiet:
            fail("still changing after %.0f s: %s" % (limit, what))
        time.sleep(0.2)
        now = cond()
        if now != v:
            v, since = now, time.time()
    if not v:
        fail("gone while settling: %s" % what)
    return v


def wait_until(cond, what, limit=20.0):
    """cond() until it gives something true (returned), every 0.1 s; fails
    the test after `limit` seconds."""
    end = time.time() + limit
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    fail("timed out after %.0f s: %s" % (limit, what))


def check(cond, msg):
    if not cond:
        fail(msg)


def recv_until(ws, pred, what, timeout=40.0, seen=None):
    """ws's messages until one for which pred holds (returned); every
    message received is appended to `seen` if given. Fails the test after
    `timeout` seconds."""
    deadline = time.time() + timeout
    while True:
        left = deadline - time.time()
        if left <= 0:
            fail("timeout waiting for " + what)
        try:
            m = ws.recv(timeout=left)
        except TimeoutError:
            fail("timeout waiting for " + what)
        if seen is not None:
            seen.append(m)
        if pred(m):
            return m

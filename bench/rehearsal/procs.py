"""The rehearsal's processes: the venue relay, its agents behind cuttable
links, the NATS cluster, the edges, the load clients, the sampling viewers
and the arbiter; everything on 127.0.0.1, started through relay_ws.popen
(each dies with this process: PR_SET_PDEATHSIG, and is killed at exit)."""
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
from relay_ws import WS, WSClosed, popen, unallocated_port  # noqa: E402
from nats_e2e import Nats, pgn_games  # noqa: E402


def http(port, path, headers=None, timeout=10):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode()


def healthy(port):
    try:
        http(port, "/healthz", timeout=2)
        return True
    except Exception:
        return False


def wait(cond, what, limit):
    end = time.time() + limit
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise RuntimeError("timed out after %.0f s: %s" % (limit, what))


class Server:
    """A chessrelay server (serve or edge) on a fixed port, restartable."""

    def __init__(self, name, argv, port, log, env=None):
        self.name, self.argv, self.port, self.env = name, argv, port, env
        self.log = open(log, "ab")
        self.proc = None
        self.cpu_done = 0.0  # CPU seconds of earlier runs (killed ones: the last sample)
        self.cpu_last = 0.0

    def start(self, limit=60):
        self.proc = popen(self.argv + ["--listen", "127.0.0.1:%d" % self.port], stdout=self.log,
                          stderr=self.log, env=self.env)
        wait(lambda: healthy(self.port) or self.proc.poll() is not None, self.name + " up", limit)
        if self.proc.poll() is not None:
            raise RuntimeError("%s exited with %s (log %s)" % (self.name, self.proc.returncode,
                                                               self.log.name))

    def kill(self, sig=9):
        if self.proc and self.proc.poll() is None:
            self.sample()
            self.proc.send_signal(sig)
            self.proc.wait(30)
        self.cpu_done += self.cpu_last
        self.cpu_last = 0.0

    def sample(self):
        """CPU seconds and RSS KiB of the running process (None if gone)."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                v = f.read().rsplit(")", 1)[1].split()
            self.cpu_last = (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
            with open("/proc/%d/status" % self.proc.pid) as f:
                rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))
            return self.cpu_done + self.cpu_last, rss
        except (OSError, StopIteration, ValueError, IndexError):
            return None

    def stop(self):
        self.kill(15)


class Link:
    """A TCP forwarder between an agent and the venue: cut() drops its
    connections and refuses new ones (closes them at once) until mend()."""

    def __init__(self, target_port):
        self.target = target_port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.cut_now = False
        self.pairs = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if self.cut_now:
                c.close()
                continue
            try:
                u = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.pairs.append((c, u))
            threading.Thread(target=self._pump, args=(c, u), daemon=True).start()

    def _pump(self, a, b):
        socks = [a, b]
        try:
            while not self.cut_now:
                r, _, _ = select.select(socks, [], [], 0.2)
                for s in r:
                    data = s.recv(65536)
                    if not data:
                        raise OSError("closed")
                    (b if s is a else a).sendall(data)
        except OSError:
            pass
        for s in socks:
            try:
                s.close()
            except OSError:
                pass

    def cut(self):
        self.cut_now = True

    def mend(self):
        self.cut_now = False


class Sampler(threading.Thread):
    """One viewer of a server's round, as a web viewer that opened every
    game: every move with its arrival time, by board and ply (the first
    arrival of each). It comes back after its server does, resuming
    (`since`) where it was."""

    def __init__(self, name, port):
        super().__init__(daemon=True)
        self.name, self.port = name, port
        self.board_of = {}
        self.arrived = {}  # (board, ply) -> wall s of first arrival
        self.moves = {}  # game -> [san]
        self.last_seq = 0
        self.reconnects = 0
        self.errors = []
        self.stopping = False

    def run(self):
        while not self.stopping:
            try:
                ws = WS(self.port, timeout=5)
            except (OSError, WSClosed):
                time.sleep(0.1)
                continue
            op = {"op": "subscribe", "round": "1"}
            if self.last_seq:
                op["since"] = self.last_seq
                self.reconnects += 1
            try:
                ws.send(op)
                while not self.stopping:
                    try:
                        self.apply(ws.recv(timeout=0.5), time.time())
                    except TimeoutError:
                        pass
            except (OSError, WSClosed, ValueError):
                pass
            ws.close()

    def apply(self, m, now):
        t = m.get("type")
        if t == "snapshot":
            g = m["game"]
            self.board_of[g["id"]] = g.get("board")
            self.moves[g["id"]] = [mv["san"] for mv in g["moves"]]
            for ply in range(len(g["moves"])):
                self.arrived.setdefault((g.get("board"), ply + 1), now)
        elif t == "game":
            self.board_of[m["game"]["id"]] = m["game"].get("board")
            self.moves.setdefault(m["game"]["id"], [])
        elif t == "move":
            mv = self.moves.setdefault(m["game"], [])
            if m["ply"] != len(mv):
                self.errors.append("game %s: ply %s with %d held" % (m["game"], m["ply"], len(mv)))
            del mv[m["ply"]:]
            mv.append(m["san"])
            self.arrived.setdefault((self.board_of.get(m["game"]), m["ply"] + 1), now)
        elif t == "correction":
            del self.moves.setdefault(m["game"], [])[m["ply"]:]
        if "seq" in m and t != "snapshot":
            self.last_seq = max(self.last_seq, m["seq"])


class Arbiter(threading.Thread):
    """The arbiters' dashboard connection to the venue: logged in with its
    token, on the arbiter channel, back after each venue restart."""

    def __init__(self, port, token):
        super().__init__(daemon=True)
        self.port, self.token = port, token
        self.messages = self.connections = 0
        self.stopping = False

    def run(self):
        while not self.stopping:
            try:
                ws = WS(self.port, {"Authorization": "Bearer " + self.token}, timeout=5)
                ws.send({"op": "arbiter"})
                self.connections += 1
                while not self.stopping:
                    try:
                        ws.recv(timeout=0.5)
                        self.messages += 1
                    except TimeoutError:
                        pass
            except (OSError, WSClosed, ValueError):
                time.sleep(0.2)


class Load:
    """relay_load_client: V viewers of one edge following the round as the
    web viewer does (summaries), reconnecting after a restart."""

    def __init__(self, build, port, viewers, seconds, pid, log):
        self.out = log + ".out"
        self.err = log + ".err"
        self.proc = popen([os.path.join(build, "bench", "relay_load", "relay_load_client"),
                           "--port", str(port), "--viewers", str(viewers), "--seconds",
                           str(int(seconds)), "--summary", "1", "--reconnect", "1", "--server-pid",
                           str(pid)], stdout=open(self.out, "w"), stderr=open(self.err, "w"))

    def measuring(self):
        try:
            return "measuring" in open(self.err).read()
        except OSError:
            return False

    def result(self, limit):
        """Its figures: stopped now (SIGTERM: it prints what it measured)."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(limit)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        text = open(self.out).read().split()
        return {k: float(v) for k, v in (x.split("=", 1) for x in text if "=" in x)}


def final_games(port):
    """board -> moves of the server's /live.pgn."""
    out = {}
    for board, moves in pgn_games(http(port, "/live.pgn", timeout=60)):
        out.setdefault(board, []).extend(moves)
    return out


def agent_epoch(state):
    """The agent's feed clock epoch (wall ms at feed time 0), from its journal header."""
    for root, _, files in os.walk(state):
        for n in files:
            try:
                with open(os.path.join(root, n), errors="replace") as f:
                    head = f.readline()
            except OSError:
                continue
            if head.startswith("# chessrelay agent journal") and " epoch " in head:
                return int(head.split(" epoch ")[1].split()[0])
    return None


__all__ = ["Nats", "Server", "Link", "Sampler", "Arbiter", "Load", "final_games", "agent_epoch",
           "unallocated_port", "popen", "http", "healthy", "wait", "json"]

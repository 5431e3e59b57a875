"""End-to-end tests of the NATS JetStream scale-out (relay/nats_out.c,
relay/cmd_edge.c) with real nats-server processes on 127.0.0.1:
python3 nats_e2e.py BINARY SCENARIO (see the nats_*.sh wrappers).

  single   one JetStream server; `replay --serve --publish` and edges: a
           WebSocket viewer of an edge gets every game; the edge's PGN and
           game list equal the venue relay's and the feeds' .expected; an
           edge restarted with --state resumes after its last message; an
           edge started late catches up from the stream; an edge refuses to
           serve with less public delay than the venue.
  cluster  three clustered servers, stream with 3 replicas; one server is
           killed during the replay; two edges still end with every move,
           in order (their viewers check ply and seq order).
  outage   no NATS server when the venue starts: the boards go on, and
           once a server is up an edge gets every event, also after the
           venue is killed (-9) and restarted from its journal.
  engine   a venue with Stockfish (multipv 3) and a public delay of 3 s;
           an edge with 5 s: the edge's public viewer gets an eval of
           every ply, each with its three lines, none before the move is
           public at the edge; the edge's games.json and game PGN carry
           the venue's evals ([%eval] line 1 only); a late edge gets them
           from the stream."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Games, Relay, WSClosed, check, fail, final_state, popen, sample_feed, san_tokens, unallocated_port, wait_until  # noqa: E402



class Nats:
    """One nats-server with JetStream, optionally in a cluster. Its client
    and monitoring ports are the OS's choice unless `port` is given; the
    server tells them in its ports file."""

    def __init__(self, tmp, name, cluster_port=None, routes=None, port=None):
        self.name = name
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        args = ["nats-server", "-js", "-a", "127.0.0.1", "-p", str(port or -1), "-sd", self.dir,
                "-n", name, "-m", "-1", "--ports_file_dir", self.dir]
        if cluster_port:
            args += ["--cluster_name", "crtest", "--cluster", "nats://127.0.0.1:%d" % cluster_port,
                     "--routes", ",".join("nats://127.0.0.1:%d" % r for r in routes)]
        self.log = open(os.path.join(tmp, name + ".log"), "ab")
        self.proc = popen(args, stdout=self.log, stderr=self.log)
        ports_file = os.path.join(self.dir, "nats-server_%d.ports" % self.proc.pid)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                fail("nats-server %s exited (log %s)" % (name, self.log.name))
            try:
                with open(ports_file) as f:
                    ports = json.load(f)
                self.port = int(ports["nats"][0].rsplit(":", 1)[1])
                self.mport = int(ports["monitoring"][0].rsplit(":", 1)[1])  # /jsz
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except (OSError, ValueError, KeyError, IndexError):
                time.sleep(0.05)
        fail("nats-server %s did not start (log %s)" % (name, self.log.name))

    @property
    def url(self):
        return "nats://127.0.0.1:%d" % self.port

    def stream_leader(self):
        """The server name leading the stream's replicas, as this node sees it (or None)."""
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/jsz?streams=true" % self.mport,
                                        timeout=2) as r:
                jsz = json.loads(r.read())
        except Exception:
            return None
        for acc in jsz.get("account_details") or []:
            for st in acc.get("stream_detail") or []:
                if st.get("name") == "CHESSRELAY":
                    return (st.get("cluster") or {}).get("leader")
        return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def feed_board(path):
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            return line.split()[1]


def pgn_games(text):
    """(board, [SAN...]) per game of PGN export text, games without moves left out."""
    out = []
    for game in ("\n" + text.strip()).split("\n[Event ")[1:]:
        head, _, body = game.partition("\n\n")
        board = None
        for line in head.splitlines():
            if line.startswith('[Board "'):
                board = line[8:-2]
        toks = san_tokens(body)
        if toks:
            out.append((board, toks))
    return out


def expected_games(feeds):
    """{board: [[SAN...], ...]} from the feeds' .expected files."""
    exp = {}
    for f in feeds:
        board = feed_board(f)
        exp[board] = [l.split() for l in open(f.replace(".feed", ".expected")) if l.strip()]
    return exp


def by_board(games):
    out = {}
    for board, moves in games:
        out.setdefault(board, []).append(moves)
    return out


def expected_note(got, feeds):
    """The edges equal the venue (checked strictly); whether the venue's
    inference found the feeds' .expected games is the inference's test, so
    a difference is reported, not failed, unless CR_NATS_STRICT is set."""
    exp = expected_games(feeds)
    if got == exp:
        print("info: the edges' PGN matches the feeds' .expected games")
    elif os.environ.get("CR_NATS_STRICT"):
        fail("PGN differs from the .expected games:\n%s\n%s" % (got, exp))
    else:
        print("info: the venue's games differ from the .expected ones (inference), edges equal it")


def games_view(relay):
    """What a viewer sees of the games over HTTP: moves per board (live.pgn)
    and the game list without its freshness fields."""
    st, _, pgn = relay.http("/live.pgn")
    st2, _, gj = relay.http("/games.json")
    if st != 200 or st2 != 200:
        return None
    keys = ("id", "round", "board", "table", "white", "black", "result", "plies")
    return pgn_games(pgn), [{k: g.get(k) for k in keys} for g in json.loads(gj)]


def pause(seconds, viewers=()):
    """Sleeps, reading what the viewers were sent meanwhile: a viewer that
    reads nothing answers no ping and is closed as dead after 60 s
    (docs/protocol.md), which a slow leader election can take."""
    end = time.time() + seconds
    for ws, g in viewers:
        while True:
            try:
                g.apply(ws.recv(timeout=0.01))
            except TimeoutError:
                break
    left = end - time.time()
    if left > 0:
        time.sleep(left)


def wait_same(venue, edges, strict=(), limit=90.0, viewers=()):
    """Polls until every edge shows the venue's games (moves, list) and
    this holds for 2 s (the venue done); edges in `strict` must serve the
    very same bytes of /live.pgn and /games.json (an edge rebuilt from its
    state publishes whole states, fresher than the venue's last per-event
    publication, so only never-restarted edges are compared byte for byte).
    Returns the venue's PGN."""
    end = time.time() + limit
    stable_since = None
    while time.time() < end:
        v = games_view(venue)
        same = v is not None and all(games_view(e) == v for e in edges)
        if same and strict:
            vp, vj = venue.http("/live.pgn")[2], venue.http("/games.json")[2]
            same = all(e.http("/live.pgn")[2] == vp and e.http("/games.json")[2] == vj for e in strict)
        if same:
            if stable_since is None:
                stable_since = time.time()
            elif time.time() - stable_since > 2.0:
                return venue.http("/live.pgn")[2]
        else:
            stable_since = None
        pause(0.3, viewers)
    v = games_view(venue)
    for i, e in enumerate(edges):
        print("edge %d: %s\nvenue: %s" % (i, games_view(e), v))
    fail("edges did not reach the venue's games within %.0f s" % limit)


def wait_played(log_path, nfeeds, limit=120.0, viewers=()):
    """Waits until the venue relay has played every feed to its end."""
    end = time.time() + limit
    while open(log_path).read().count("played to the end") < nfeeds:
        if time.time() > end:
            fail("the venue did not play its feeds within %.0f s (%s)" % (limit, log_path))
        pause(0.2, viewers)


def collect_until(ws, games, done, limit=90.0):
    """Receives until done() holds and nothing came for a second."""
    end = time.time() + limit
    while time.time() < end:
        try:
            games.apply(ws.recv(timeout=1.0))
        except TimeoutError:
            if done():
                return
    fail("viewer: messages did not settle within %.0f s" % limit)


def single(binary):
    tmp = tempfile.mkdtemp(prefix="cr_nats_")
    feeds = [sample_feed(f) for f in ("p03.feed", "p01.feed", "p02.feed")]
    nats = Nats(tmp, "n1")
    procs = []
    try:
        venue = Relay(binary, ["replay"] + feeds + ["--serve", "--speed", "1000", "--publish", nats.url,
                                                    "--publish-tournament", "e2e"],
                      log=os.path.join(tmp, "venue.log"))
        procs.append(venue)
        state = os.path.join(tmp, "edge-a")
        edge_a = Relay(binary, ["edge", "--from", nats.url, "--tournament", "e2e", "--state", state],
                       log=os.path.join(tmp, "edge-a.log"))
        procs.append(edge_a)
        ws = edge_a.ws()
        ws.send({"op": "subscribe", "round": "1"})
        viewer = Games()
        # Restart edge A while the games go on; its viewer's connection ends.
        time.sleep(3.0)
        try:
            while True:
                viewer.apply(ws.recv(timeout=0.2))
        except (TimeoutError, WSClosed):
            pass
        check(not viewer.errors, "edge viewer: protocol errors: %s" % viewer.errors[:5])
        check(viewer.last_seq > 0, "edge viewer got no events in 3 s")
        edge_a.stop()
        edge_a = Relay(binary, ["edge", "--from", nats.url, "--tournament", "e2e", "--state", state],
                       log=os.path.join(tmp, "edge-a.log"))
        procs.append(edge_a)
        log = open(os.path.join(tmp, "edge-a.log")).read()
        check("resuming after stream message " in log and
              "resuming after stream message 0" not in log, "edge A did not resume from its state")
        ws = edge_a.ws()
        ws.send({"op": "subscribe", "round": "1", "since": viewer.last_seq})
        wait_played(os.path.join(tmp, "venue.log"), len(feeds), viewers=[(ws, viewer)])
        pgn = wait_same(venue, [edge_a], viewers=[(ws, viewer)])
        collect_until(ws, viewer, lambda: True)
        check(not viewer.errors, "edge viewer after the restart: %s" % viewer.errors[:5])
        venue_final = final_state(venue)
        check(viewer.summary() == venue_final.summary(),
              "edge viewer's games differ from the venue's:\n%s\n%s" % (viewer.summary(),
                                                                        venue_final.summary()))
        # A late edge catches up from the stream alone.
        edge_b = Relay(binary, ["edge", "--from", nats.url], log=os.path.join(tmp, "edge-b.log"))
        procs.append(edge_b)
        wait_same(venue, [edge_a, edge_b], strict=[edge_b], limit=30)
        check(final_state(edge_b).summary() == venue_final.summary(), "late edge: games differ")
        got = by_board(pgn_games(pgn))
        expected_note(got, feeds)
        plies = sum(len(m) for g in got.values() for m in g)
        st, _, gj = edge_b.http("/games.json")
        check(st == 200 and len(json.loads(gj)) == len(venue_final.summary()), "/games.json")
        # A venue with a public delay: an edge with less refuses to serve,
        # one with as much holds the moves back from the public.
        delayed = Relay(binary, ["replay", feeds[0], "--serve", "--speed", "600", "--delay", "1",
                                 "--publish", nats.url, "--publish-tournament", "e2e-delay"],
                        log=os.path.join(tmp, "venue-delay.log"))
        procs.append(delayed)
        log_path = os.path.join(tmp, "edge-nodelay.log")
        with open(log_path, "ab") as log:
            rc = subprocess.run([binary, "edge", "--from", nats.url, "--tournament", "e2e-delay",
                                 "--listen", "127.0.0.1:0"], stdout=log, stderr=log, timeout=30).returncode
        check(rc == 1 and "the venue delays the public by 60 s" in open(log_path).read(),
              "an edge without the venue's delay should refuse (exit %d, see %s)" % (rc, log_path))
        edge_d = Relay(binary, ["edge", "--from", nats.url, "--tournament", "e2e-delay", "--delay", "1",
                                "--arbiter-token", "edge-token-1"], log=os.path.join(tmp, "edge-delay.log"))
        procs.append(edge_d)
        time.sleep(2.0)
        public = json.loads(edge_d.http("/games.json")[2])
        trusted = json.loads(edge_d.http("/games.json", {"Authorization": "Bearer edge-token-1"})[2])
        check(sum(g["plies"] for g in public) == 0 and sum(g["plies"] for g in trusted) > 0,
              "delayed edge: public %s, trusted %s" % (public, trusted))
        print("ok: %d boards, %d plies; edges equal the venue (PGN, games.json, WebSocket), "
              "restart resumed, late edge caught up, public delay kept" % (len(got), plies))
    finally:
        for p in procs:
            p.stop()
        nats.kill()
        if os.environ.get("CR_KEEP_TMP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def cluster(binary):
    tmp = tempfile.mkdtemp(prefix="cr_natsc_")
    feeds = [sample_feed(f) for f in ("p04.feed", "p03.feed")]
    cports = [unallocated_port() for _ in range(3)]
    nodes = [Nats(tmp, "n%d" % i, cports[i], [cports[j] for j in range(3) if j != i]) for i in range(3)]
    procs = []
    try:
        urls = [n.url for n in nodes]
        # Venue publishes through any node; stream of 3 replicas (created once
        # the cluster has its JetStream leader).
        venue = Relay(binary, ["replay"] + feeds + ["--serve", "--speed", "800", "--publish",
                                                    ",".join(urls), "--stream-replicas", "3"],
                      log=os.path.join(tmp, "venue.log"))
        procs.append(venue)
        deadline = time.time() + 30
        while "created stream" not in open(os.path.join(tmp, "venue.log")).read():
            if time.time() > deadline:
                fail("stream of 3 replicas not created (see %s)" % tmp)
            time.sleep(0.2)
        edges = [Relay(binary, ["edge", "--from", ",".join(urls[i:] + urls[:i]), "--gap-wait", "60"],
                       log=os.path.join(tmp, "edge%d.log" % i)) for i in (1, 2)]
        procs += edges
        viewers = []
        for e in edges:
            ws = e.ws()
            ws.send({"op": "subscribe", "round": "1"})
            viewers.append((ws, Games()))
        pause(3.0, viewers)
        # Kill the stream's leader: a new one must be elected and what was
        # in flight sent again. (If no node tells, n0: the venue's server,
        # as servers are tried in the order given.)
        leader = next((l for l in (n.stream_leader() for n in nodes) if l), None)
        victim = next((n for n in nodes if n.name == leader), nodes[0])
        victim.kill()
        print("info: killed %s (stream leader: %s) during the replay" % (victim.name, leader))
        wait_played(os.path.join(tmp, "venue.log"), len(feeds), viewers=viewers)
        pgn = wait_same(venue, edges, strict=edges, limit=120, viewers=viewers)
        for (ws, g) in viewers:
            collect_until(ws, g, lambda: True)
        venue_final = final_state(venue).summary()
        for i, (ws, g) in enumerate(viewers):
            check(not g.errors, "edge %d viewer: protocol errors (order): %s" % (i, g.errors[:5]))
            check(g.summary() == venue_final, "edge %d viewer's games differ from the venue's" % i)
        got = by_board(pgn_games(pgn))
        expected_note(got, feeds)
        plies = sum(len(m) for g in got.values() for m in g)
        print("ok: 3-node cluster, %s killed: 2 edges with every move in order (%d plies)" %
              (victim.name, plies))
    finally:
        for p in procs:
            p.stop()
        for n in nodes:
            n.kill()
        if os.environ.get("CR_KEEP_TMP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def outage(binary):
    """NATS down when the venue starts and for a while: the boards go on,
    viewers of the venue see them; once the server is up (with an empty
    store) everything held reaches the stream and an edge."""
    tmp = tempfile.mkdtemp(prefix="cr_natso_")
    feeds = [sample_feed("p03.feed")]
    port = unallocated_port()
    url = "nats://127.0.0.1:%d" % port
    procs, nats = [], None
    try:
        args = ["replay"] + feeds + ["--serve", "--speed", "300", "--publish", url, "--state",
                                     os.path.join(tmp, "venue-state")]
        venue = Relay(binary, args, log=os.path.join(tmp, "venue.log"))
        procs.append(venue)
        ws = venue.ws()
        ws.send({"op": "subscribe", "round": "1"})
        direct = Games()
        deadline = time.time() + 30
        while not any(len(m) > 10 for m, _ in direct.summary().values()):
            if time.time() > deadline:
                fail("venue without NATS: fewer than 10 moves in 30 s")
            try:
                direct.apply(ws.recv(timeout=1.0))
            except TimeoutError:
                pass
        end = time.time() + 2.0  # and a while longer
        while time.time() < end:
            try:
                direct.apply(ws.recv(timeout=0.2))
            except TimeoutError:
                pass
        check(not direct.errors, "venue viewer: %s" % direct.errors[:5])
        print("info: venue went on without NATS (%d events seen by a viewer)" % direct.last_seq)
        nats = Nats(tmp, "n1", port=port)  # the server comes up at last
        edge = Relay(binary, ["edge", "--from", url], log=os.path.join(tmp, "edge.log"))
        procs.append(edge)
        # The venue crashes and comes back from its journal: what the stream
        # lacks is published again, nothing twice.
        time.sleep(1.0)
        venue.stop(signal.SIGKILL)
        procs.remove(venue)
        venue = Relay(binary, args, log=os.path.join(tmp, "venue.log"))
        procs.append(venue)
        # The publisher thread asks the stream after the relay listens (the
        # port file is written first): wait for its answer in the log.
        asked = time.time() + 30
        while "holds default up to seq " not in open(os.path.join(tmp, "venue.log")).read():
            check(time.time() < asked, "restarted venue did not ask the stream where it was")
            time.sleep(0.2)
        wait_played(os.path.join(tmp, "venue.log"), len(feeds))
        wait_same(venue, [edge], limit=60)
        elog = open(os.path.join(tmp, "edge.log")).read()
        check("never came" not in elog, "edge skipped events: see %s" % tmp)
        print("ok: NATS outage at the start: the venue went on; after a crash it went on from its "
              "journal; the edge got every event")
    finally:
        for p in procs:
            p.stop()
        if nats:
            nats.kill()
        if os.environ.get("CR_KEEP_TMP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


TOKEN = "arbiter-secret-1"
EVAL_RE = re.compile(r"\[%eval (#-?\d+|-?\d+\.\d\d)\]")


def game_evals(relay):
    """The [%eval]s of /game/1.pgn and the eval of games.json's game 1."""
    st, _, pgn = relay.http("/game/1.pgn")
    st2, _, gj = relay.http("/games.json")
    if st != 200 or st2 != 200:
        return None
    g = [x for x in json.loads(gj) if x.get("id") == 1]
    return EVAL_RE.findall(pgn), g[0].get("eval") if g else None


def engine(binary):
    if not shutil.which("stockfish") and not os.path.exists("/usr/games/stockfish"):
        fail("stockfish is not installed (scripts/setup installs Debian's stockfish package)")
    tmp = tempfile.mkdtemp(prefix="cr_nats_engine_")
    feed = sample_feed("p03.feed")  # one board, 44 plies
    nats = Nats(tmp, "n1")
    procs = []
    try:
        cfg = os.path.join(tmp, "t.json")
        with open(cfg, "w") as f:
            json.dump({"event": "NATS engine", "feeds": [feed], "delay_seconds": 3,
                       "tokens": [{"name": "chief", "role": "arbiter", "token": TOKEN}],
                       "engine": {"path": "stockfish", "processes": 1, "movetime_ms": 60,
                                  "hash_mb": 16, "multipv": 3,
                                  "idle": False}}, f)  # niced only: it must keep pace beside other tests
        venue = Relay(binary, ["serve", "--config", cfg, "--state", os.path.join(tmp, "state"),
                               "--speed", "150", "--publish", nats.url,
                               "--publish-tournament", "e2e-engine"],
                      log=os.path.join(tmp, "venue.log"))
        procs.append(venue)
        # An edge with more delay than the venue: evals reach it before
        # their move is public there.
        edge = Relay(binary, ["edge", "--from", nats.url, "--tournament", "e2e-engine",
                              "--delay", str(5 / 60.0)], log=os.path.join(tmp, "edge.log"))
        procs.append(edge)
        pub = edge.ws()
        pub.send({"op": "subscribe", "round": "1"})
        move_ts, evals, arrived = {}, {}, {}
        end = time.time() + 150
        while time.time() < end and (len(evals) < 44 or len(move_ts) < 44):
            try:
                m = pub.recv(timeout=0.2)
            except TimeoutError:
                continue
            if m["type"] == "move":
                move_ts[m["ply"]] = m["ts"] / 1e6  # the venue's time of the move
            elif m["type"] == "eval":
                arrived.setdefault(m["ply"], time.time())
                e = m["eval"]
                lines = e.get("lines")
                check(isinstance(lines, list) and 1 < len(lines) <= 3,
                      "edge: eval of ply %d without its lines: %s" % (m["ply"], e))
                first = {k: e[k] for k in ("cp", "mate", "depth", "pv") if k in e}
                check(lines[0] == first, "edge: line 1 is not the eval: %s" % e)
                evals[m["ply"]] = e
        # An eval may come just before its move (keep them by ply), never
        # before the move is public at the edge.
        for ply, t in arrived.items():
            check(ply in move_ts, "edge: eval of ply %d but no move" % ply)
            check(t >= move_ts[ply] + 5 - 0.05, "edge: public eval of ply %d %.2f s after its move "
                                               "(edge delay 5 s)" % (ply, t - move_ts[ply]))
        check(len(evals) == 44, "edge: public evals of %d plies of 44" % len(evals))
        # The edge's PGN and game list carry the venue's evals.
        want = wait_until(lambda: (lambda v: v if v and len(v[0]) == 44 else None)(game_evals(venue)),
                          "44 [%eval] in the venue's /game/1.pgn", 30)
        got = wait_until(lambda: (lambda v: v if v == want else None)(game_evals(edge)),
                         "the venue's evals in the edge's PGN and games.json", 30)
        check(got[1] and "lines" in got[1], "games.json: the eval has its lines")
        log = open(os.path.join(tmp, "edge.log")).read()
        check("refused" not in log, "edge refused messages: %s" % log[-2000:])
        # A late edge: the evals from the stream alone.
        late = Relay(binary, ["edge", "--from", nats.url, "--tournament", "e2e-engine",
                              "--delay", str(5 / 60.0)], log=os.path.join(tmp, "late.log"))
        procs.append(late)
        wait_until(lambda: game_evals(late) == want, "the late edge's evals", 30)
        print("ok: engine evals over NATS: 44 public evals at the edge with their lines, none before "
              "the move was public there; PGN and games.json equal the venue's (%s ... %s)"
              % (want[0][0], want[0][-1]))
    finally:
        for p in procs:
            p.stop()
        nats.kill()
        if os.environ.get("CR_KEEP_TMP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("single", "cluster", "outage", "engine"):
        print("usage: nats_e2e.py BINARY single|cluster|outage|engine")
        sys.exit(2)
    if not shutil.which("nats-server"):
        fail("nats-server not installed (scripts/setup installs it)")
    {"single": single, "cluster": cluster, "outage": outage, "engine": engine}[sys.argv[2]](sys.argv[1])

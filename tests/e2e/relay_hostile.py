"""Hostile input against the real relay (issue 16), through real sockets on
127.0.0.1: python3 relay_hostile.py BINARY SCENARIO (see relay_hostile_*.sh).
Every check here failed before the fix it names."""
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import WS, Relay, WSClosed, check, sample_feed, wait_until  # noqa: E402

FEED = sample_feed("p03.feed")   # one board
ARBITER = "arbiter-secret-1"
AGENT = "agent-secret-1"


def board_of(path):
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                return line.split()[1]
    raise RuntimeError("no board in " + path)


def write_config(extra=None, feeds=True):
    tmp = os.environ.get("TMPDIR", "/tmp")
    fd, cfg = tempfile.mkstemp(prefix="cr_hostile_", suffix=".json", dir=tmp)
    doc = {"event": "Hostile",
           "tokens": [{"name": "chief", "role": "arbiter", "token": ARBITER},
                      {"name": "venue", "role": "agent", "token": AGENT}]}
    if feeds:
        doc["feeds"] = [FEED]
        doc["boards"] = [{"board": board_of(FEED), "white": "A", "black": "B"}]
    doc.update(extra or {})
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    return cfg


def wait_for(what, fn, limit=15.0):
    """relay_ws.wait_until, its arguments in this script's order."""
    return wait_until(fn, what, limit)


def first_game(r):
    def get():
        st, _, body = r.http("/games.json", {"Authorization": "Bearer " + ARBITER})
        games = json.loads(body) if st == 200 else []
        return games[0]["id"] if games else None
    return wait_for("a game", get)


def expect_error(ws, where=None, contains=None):
    m = ws.recv()
    check(m["type"] == "error", "expected an error, got %s" % m)
    if where:
        check(m.get("where") == where, "error where %s, got %s" % (where, m))
    if contains:
        check(contains in m["error"], "error '%s' lacks '%s'" % (m["error"], contains))
    return m


def tags(binary):
    """Findings 6 and 7: a tag name cannot inject PGN; commands come back
    from the journal exactly; a corrupted command line is reported."""
    cfg = write_config()
    state = tempfile.mkdtemp(prefix="cr_hostile_tags_")
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        gid = first_game(r)
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "tag", "game": gid, "name": "X\"]\n[Result", "value": "0-1"})
        expect_error(arb, "tag")
        for bad in ("", "a b", "a\tb", "x" * 40):
            arb.send({"op": "tag", "game": gid, "name": bad, "value": "v"})
            expect_error(arb, "tag")
        # game ids are range-checked, never cast (4294967297 is not game 1)
        arb2 = r.ws({"Authorization": "Bearer " + ARBITER})
        arb2.send({"op": "result", "game": 4294967296 + gid, "result": "0-1"})
        expect_error(arb2, "game")
        want = {"a": "hello", "WhiteFideIdentifier": "over fifteen", "Annotator": "tab\there \"q\" \\ end"}
        arb3 = r.ws({"Authorization": "Bearer " + ARBITER})
        for k, v in want.items():
            arb3.send({"op": "tag", "game": gid, "name": k, "value": v})
        pgn = wait_for("the tags", lambda: (lambda b: b if '[Annotator ' in b else None)(
            r.http("/game/%d.pgn" % gid, {"Authorization": "Bearer " + ARBITER})[2]))
        check(pgn.count("[Result ") == 1, "a second Result tag:\n" + pgn)
        check('[Annotator "tab here \\"q\\" \\\\ end"]' in pgn, "value not escaped:\n" + pgn)
        r.stop()
        # restart: the same tags, byte for byte
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        ws = r.ws({"Authorization": "Bearer " + ARBITER})
        ws.send({"op": "subscribe", "game": gid})
        snap = ws.recv()
        check(snap["type"] == "snapshot", "snapshot: %s" % snap)
        got = snap["game"]["tags"] if "game" in snap else snap["tags"]
        for k, v in want.items():
            check(got.get(k) == v, "after restart %s=%r, want %r" % (k, got.get(k), v))
        check(got.get("Result", "*") != "0-1", "injected result")
        r.stop()
        # a corrupted command line is reported, not dropped silently
        # (a command line of the journal turned into a bad one: its seal no
        # longer matches either)
        journals = sorted(x for x in os.listdir(state) if x.startswith("journal-"))
        jpath = os.path.join(state, journals[0])
        lines = open(jpath).read().split("\n")
        k = next(n for n, l in enumerate(lines) if l.startswith("# cmd "))
        lines[k] = "# cmd result %d 1-1" % gid
        open(jpath, "w").write("\n".join(lines))
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        log = open(r.log.name).read()
        check("bad result" in log and "%s:%d" % (journals[0], k + 1) in log and "NOT SOUND" in log,
              "corrupted command line not reported:\n" + log[-2000:])
        metrics = r.http("/metrics")[2]
        check("chessrelay_journal_bad_lines_total 2" in metrics, "bad line not counted (seal and command)")
        r.stop()
        print("ok: tag names checked, values escaped, commands round-trip, bad lines reported")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def roles(binary):
    """Finding 5 and the header limits: every cell of docs/protocol.md's
    roles table for viewer, agent and arbiter tokens."""
    # A long delay: the public lane shows no move for the whole test.
    cfg = write_config({"delay_minutes": 30})
    state = tempfile.mkdtemp(prefix="cr_hostile_roles_")
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        gid = first_game(r)
        wait_for("moves on the live lane", lambda: "1." in r.http(
            "/live.pgn", {"Authorization": "Bearer " + ARBITER})[2])
        bearer = {"viewer": {}, "agent": {"Authorization": "Bearer " + AGENT},
                  "arbiter": {"Authorization": "Bearer " + ARBITER}}
        undelayed = {"viewer": False, "agent": False, "arbiter": True}
        for who, hdr in bearer.items():
            # HTTP: the undelayed lane only for an arbiter
            for path in ("/live.pgn", "/game/%d.pgn" % gid):
                st, _, body = r.http(path, hdr)
                # the delayed lane may not have the game yet
                check(st == 200 or (st == 404 and not undelayed[who]), "%s %s: %d" % (who, path, st))
                check(("1." in body) == undelayed[who], "%s %s: undelayed=%s" % (who, path, "1." in body))
            st, _, body = r.http("/games.json", hdr)
            plies = sum(g["plies"] for g in json.loads(body))
            check((plies > 0) == undelayed[who], "%s /games.json plies %d" % (who, plies))
            st, _, _ = r.http("/arbiter/incidents.json", hdr)
            check((st == 200) == undelayed[who], "%s /arbiter/: %d" % (who, st))
            for path in ("/healthz", "/metrics"):
                check(r.http(path, hdr)[0] == 200, "%s %s" % (who, path))
            # /ws, token in the upgrade and in hello
            for how in ("upgrade", "hello"):
                ws = r.ws(hdr if how == "upgrade" else {})
                if how == "hello" and who != "viewer":
                    ws.send({"op": "hello", "token": hdr["Authorization"][7:]})
                    w = ws.recv()
                    check(w["type"] == "welcome" and w["trusted"] == undelayed[who], "%s hello: %s" % (who, w))
                ws.send({"op": "list"})
                games = ws.recv()["games"]
                plies = sum(g["plies"] for g in games)
                check((plies > 0) == undelayed[who], "%s ws %s list: %s" % (who, how, games))
                for op in ({"op": "result", "game": gid, "result": "*"},
                           {"op": "tag", "game": gid, "name": "Annotator", "value": who},
                           {"op": "arbiter"},
                           {"op": "arbiter-action", "game": gid, "action": "confirm-flag"}):
                    ws.send(op)
                    ws.send({"op": "ping"})
                    got = []
                    while not got or got[-1]["type"] != "pong":
                        got.append(ws.recv())
                    refused = any(m["type"] == "error" and "not allowed" in m["error"] for m in got)
                    check(refused != undelayed[who], "%s %s: %s" % (who, op["op"], got))
                ws.close()
        # Header limits: never silently public
        st, _, _ = r.http("/live.pgn", {"Authorization": "Bearer " + ARBITER + "x" * 600})
        check(st == 431, "long Authorization: %d" % st)
        st, _, _ = r.http("/live.pgn", {"Authorization": "Basic " + ARBITER})
        check(st == 401, "Basic scheme: %d" % st)
        try:
            r.ws({"Authorization": "Bearer " + "x" * 600})
            check(False, "WebSocket upgrade with a long Authorization accepted")
        except WSClosed:
            pass
        r.stop()
        print("ok: roles table (viewer, agent, arbiter) on HTTP and /ws; header limits")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


VENUE_A = "venue-a-secret"
VENUE_B = "venue-b-secret"
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def agent(r, name, token, last=0):
    """An agent link: hello sent; returns (ws, first answer)."""
    ws = WS(r.port, {"Sec-WebSocket-Protocol": "chessrelay-agent"}, path="/agent")
    now = int(time.time() * 1000)
    ws.send({"op": "agent-hello", "agent": name, "token": token, "clock": now, "last": last})
    return ws, ws.recv()


def send_ev(ws, n, lines):
    now = int(time.time() * 1000)
    ws.send({"op": "ev", "n": n, "clock": now, "lines": ["%d %s" % (now, x) for x in lines]})


def wait_ack(ws, n):
    while True:
        m = ws.recv()
        check(m["type"] != "error", "agent error: %s" % m)
        if m["type"] == "ack" and m["n"] >= n:
            return m


def agent_status(r, name):
    for a in json.loads(r.http("/agents.json")[2])["agents"]:
        if a["agent"] == name:
            return a
    return None


def agents(binary):
    """Findings 2 and 3: an agent's token names its ids and boards; event
    numbers are bounded; a board belongs to its first source."""
    local = board_of(FEED)
    cfg = write_config({"tokens": [
        {"name": "chief", "role": "arbiter", "token": ARBITER},
        # B1 listed by both venues: the first to feed it owns it
        {"name": "venue A", "role": "agent", "token": VENUE_A, "agents": ["venue-a"], "boards": ["B1", local]},
        {"name": "venue B", "role": "agent", "token": VENUE_B, "agents": ["venue-b"],
         "boards": ["B1", "B2", "B3"]}]})
    state = tempfile.mkdtemp(prefix="cr_hostile_agents_")
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        wait_for("the local board's moves", lambda: any(
            g["plies"] > 4 for g in json.loads(r.http("/games.json", {"Authorization": "Bearer " + ARBITER})[2])))
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "arbiter"})
        # another venue's id with my token: refused
        ws, m = agent(r, "venue-a", VENUE_B)
        check(m["type"] == "error" and m["where"] == "token", "venue-a with B's token: %s" % m)
        # numbers near INT64_MAX: refused, nothing recorded
        ws, m = agent(r, "venue-b", VENUE_B)
        check(m["type"] == "welcome" and m["acked"] == 0, "venue-b welcome: %s" % m)
        send_ev(ws, 9223372036854775806, ["B2 connect"])
        m = ws.recv()
        check(m["type"] == "error" and "2^40" in m["error"], "huge n: %s" % m)
        ws.close()
        ws, m = agent(r, "venue-b", VENUE_B, last=9223372036854775806)
        check(m["type"] == "error", "huge last: %s" % m)
        ws.close()
        # venue A feeds B1 first; B may not; A may not feed the relay's own board
        wa, m = agent(r, "venue-a", VENUE_A)
        check(m["type"] == "welcome", "venue-a: %s" % m)
        send_ev(wa, 1, ["B1 connect", "B1 pos " + START, "B1 pos " + E4])
        wait_ack(wa, 3)
        send_ev(wa, 4, ["%s pos %s" % (local, START)])
        wait_ack(wa, 4)
        wb, m = agent(r, "venue-b", VENUE_B)
        check(m["type"] == "welcome" and m["acked"] == 0, "venue-b after the attack: %s" % m)
        send_ev(wb, 1, ["B1 pos " + START, "B3 connect", "B9 connect", "B2 connect", "B1 pos " + E4])
        wait_ack(wb, 5)
        a, b = agent_status(r, "venue-a"), agent_status(r, "venue-b")
        check(a["refused"] == 1 and a["acked"] == 4, "venue-a: %s" % a)
        check(b["refused"] == 3 and b["acked"] == 5, "venue-b: %s" % b)
        # the ownership refusals: counted per board and source in /metrics,
        # one arbiter alert per pair (venue-b's two B1 events: one alert)
        owned = {('board="B1",source="agent:venue-b"'): 2, ('board="%s",source="agent:venue-a"' % local): 1}
        def metric_lines():
            text = r.http("/metrics")[2]
            return [l for l in text.splitlines() if l.startswith("chessrelay_board_ownership_refused_total{")]
        want_lines = sorted("chessrelay_board_ownership_refused_total{%s} %d" % kv for kv in owned.items())
        wait_for("the ownership metrics", lambda: sorted(metric_lines()) == want_lines, 5)
        alerts = []
        while True:
            try:
                m = arb.recv(timeout=1.0)
            except TimeoutError:
                break
            if m.get("type") == "relay-alert":
                alerts.append(m)
        owner_alerts = sorted(m["text"] for m in alerts if m["alert"] == "board-owner")
        check(owner_alerts == sorted([
            "board B1: events of agent venue-b refused: agent venue-a fed it first",
            "board %s: events of agent venue-a refused: the relay's own source fed it first" % local]),
            "ownership alerts: %s" % owner_alerts)
        check(sorted(x["board"] for x in b["boards"]) == ["B2", "B3"], "venue-b boards: %s" % b["boards"])
        games = json.loads(r.http("/games.json", {"Authorization": "Bearer " + ARBITER})[2])
        mine = [g for g in games if g["board"] == local]
        check(mine and mine[-1]["plies"] > 4, "the relay's own board reset by an agent: %s" % mine)
        log = open(r.log.name).read()
        print(log[-3000:]) if os.environ.get("CR_DEBUG") else None
        check("another agent fed it first" in log and "does not list that board" in log
              and "the relay's own source feeds it" in log, "refusals not logged")
        wa.close()
        wb.close()
        arb.close()
        r.stop()
        # after a restart: the numbers are sane and the owners the same
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        wb, m = agent(r, "venue-b", VENUE_B, last=5)
        check(m["type"] == "welcome" and m["acked"] == 5, "venue-b after restart: %s" % m)
        send_ev(wb, 6, ["B1 pos " + E4])
        wait_ack(wb, 6)
        check(agent_status(r, "venue-b")["refused"] == 1, "owner lost over the restart")
        wb.close()
        r.stop()
        print("ok: agent ids per token, boards per token, first source owns a board, bounded numbers")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def disk(binary):
    """Finding 1: with the state folder on a full disk nothing is acked, the
    relay says so (/healthz 503, metric), holds the events, and writes them
    whole once there is room; a restart has every acked event. Needs root
    (a small tmpfs), as in CI."""
    import subprocess
    check(os.geteuid() == 0, "this test mounts a tmpfs: run it as root (CI does)")
    base = tempfile.mkdtemp(prefix="cr_hostile_disk_")
    state = os.path.join(base, "state")
    os.mkdir(state)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", state], check=True)
    r = None
    cfg = None
    try:
        cfg = write_config(feeds=False)
        r = Relay(binary, ["serve", "--config", cfg, "--state", state])
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "arbiter"})
        wa, m = agent(r, "venue-a", AGENT)
        check(m["type"] == "welcome", "welcome: %s" % m)
        send_ev(wa, 1, ["B1 connect", "B1 pos " + START])
        wait_ack(wa, 2)
        # fill the disk
        filler = os.path.join(state, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"x" * 4096) > 0:
                pass
        except OSError:
            pass
        os.close(fd)
        n = 3
        for k in range(40):  # 40 batches of 25 events: far more than any room left
            send_ev(wa, n, ["B1 pos " + (E4 if (n + i) % 2 else START) for i in range(25)])
            n += 25
        last = n - 1
        deadline = time.time() + 2.0
        while time.time() < deadline:
            try:
                m = wa.recv(timeout=max(0.05, deadline - time.time()))
            except TimeoutError:
                break
            check(m["type"] != "ack" or m["n"] <= 2, "acked %s with the disk full" % m)
        st, _, body = r.http("/healthz")
        check(st == 503 and "No space left" in body, "/healthz with the disk full: %d %s" % (st, body))
        metrics = r.http("/metrics")[2]
        check("chessrelay_journal_ok 0" in metrics, "chessrelay_journal_ok not 0")
        a = agent_status(r, "venue-a")
        check(a["acked"] <= 2, "/agents.json acked %s" % a)
        def alert(kind):
            while True:
                m = arb.recv(timeout=5)
                if m.get("type") == "relay-alert":
                    check(m["alert"] == kind, "alert %s, want %s" % (m, kind))
                    return m
        check("No space left" in alert("journal-write")["text"], "the alert says why")
        os.unlink(filler)  # room again: everything written, then acked
        wait_ack(wa, last)
        wait_for("/healthz ok", lambda: r.http("/healthz")[0] == 200, 5)
        alert("ok")
        arb.close()
        log = open(r.log.name).read()
        check(log.count("cannot write") == 1, "the failure is logged once, not per write:\n" + log[-1500:])
        wa.close()
        r.stop()
        r = None
        for name in sorted(os.listdir(state)):
            if name.startswith("journal-"):
                with open(os.path.join(state, name), "rb") as f:
                    data = f.read()
                check(data.endswith(b"\n"), "%s: torn last line" % name)
                for line in data.decode().splitlines():
                    check(line.startswith("#") or len(line.split(" ")) >= 3, "%s: torn line %r" % (name, line))
        r = Relay(binary, ["serve", "--config", cfg, "--state", state])
        wa, m = agent(r, "venue-a", AGENT, last=last)
        check(m["type"] == "welcome" and m["acked"] == last, "after restart: %s (want %d)" % (m, last))
        wa.close()
        r.stop()
        r = None
        print("ok: full disk: no ack, 503, held and written whole later, restart has all %d events" % last)
    finally:
        if r:
            r.stop()
        subprocess.run(["umount", state])
        shutil.rmtree(base, ignore_errors=True)
        if cfg:
            os.unlink(cfg)


def open_idle_ws(port, n, source="127.0.0.2"):
    """n WebSocket handshakes from `source` that then say nothing."""
    import base64
    import socket
    socks = []
    for _ in range(n):
        c = socket.socket()
        c.bind((source, 0))
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        socks.append(c)
    time.sleep(0.5)
    for c in socks:
        key = base64.b64encode(os.urandom(16)).decode()
        try:
            c.send(("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key).encode())
        except OSError:
            pass
    return socks


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def flood(binary):
    """Findings 4 and 8: under ulimit -n 1024, 1100 idle WebSockets from one
    address: a new viewer is served within 3 s, the CPU stays idle, the log
    stays quiet; the idle ones are closed; wrong tokens are throttled;
    --listen on an address not of this host is an error."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    cfg = write_config({"limits": {"idle_s": 3, "token_checks": 40}})
    state = tempfile.mkdtemp(prefix="cr_hostile_flood_")
    socks = []
    try:
        r = Relay("/bin/sh", ["-c", 'ulimit -n 1024 && exec "$0" "$@"', binary, "serve", "--config", cfg,
                              "--state", state, "--speed", "1000"])
        log_before = len(open(r.log.name).read().splitlines())
        socks = open_idle_ws(r.port, 1100)
        time.sleep(1.0)
        cpu0, t0 = cpu_seconds(r.proc.pid), time.time()
        start = time.time()
        ws = r.ws()
        ws.send({"op": "list"})
        m = ws.recv(timeout=3)
        took = time.time() - start
        check(m["type"] == "games" and took < 3, "new viewer: %s after %.2f s" % (m["type"], took))
        time.sleep(2.0)
        cpu = (cpu_seconds(r.proc.pid) - cpu0) / (time.time() - t0)
        check(cpu < 0.3, "relay CPU under the flood: %.0f %%" % (cpu * 100))
        metrics = r.http("/metrics")[2]
        check('chessrelay_connections_refused_total{how="answered"}' in metrics, "no connection metrics")
        def metric(text, name):
            return int(text.split(name + " ")[1].split()[0])
        answered = metric(metrics, 'chessrelay_connections_refused_total{how="answered"}')
        closed = metric(metrics, 'chessrelay_connections_refused_total{how="closed"}')
        check(answered + closed >= 1100 - 256, "over the per-address cap: %d answered, %d closed"
              % (answered, closed))
        # the idle ones are closed after idle_s (3 s); the viewer that spoke stays
        time.sleep(3.0)
        open_now = int(r.http("/metrics")[2].split("\nchessrelay_connections ")[1].split()[0])
        check(open_now < 20, "idle sockets still open: %d" % open_now)
        ws.send({"op": "ping"})
        check(ws.recv()["type"] == "pong", "the viewer that spoke was closed")
        log = open(r.log.name).read().splitlines()[log_before:]
        flood_lines = len(log)
        check(len(log) < 30, "the log under the flood: %d lines:\n%s" % (len(log), "\n".join(log[:40])))
        # wrong tokens: throttled per address, logged in summary
        codes = [r.http("/live.pgn", {"Authorization": "Bearer wrong-token-%03d" % k})[0] for k in range(30)]
        check(codes[:10] == [401] * 10 and set(codes[10:]) == {429}, "token throttle: %s" % codes)
        st, _, _ = r.http("/live.pgn", {"Authorization": "Bearer " + ARBITER})
        check(st == 200, "a right token from a throttled address locked out: %d" % st)
        st, _, _ = r.http("/live.pgn", {"Authorization": "Bearer wrong-token-999"})
        check(st == 429, "a wrong token after the right one: %d" % st)
        # the budget of checks (40 here, 32 used): a guesser gets 40 tries a
        # minute, right or wrong; beyond them the right token is not checked
        codes = [r.http("/live.pgn", {"Authorization": "Bearer wrong-token-9%02d" % k})[0] for k in range(8)]
        check(codes == [429] * 8, "wrong tokens within the budget: %s" % codes)
        st, _, _ = r.http("/live.pgn", {"Authorization": "Bearer " + ARBITER})
        check(st == 429, "a right token beyond the budget was checked: %d" % st)
        m = r.http("/metrics")[2]
        throttled = int(m.split('chessrelay_token_failures_total{what="throttled"} ')[1].split()[0])
        check(throttled == 30, "throttled tokens in /metrics: %d, want 20 + 1 + 8 + 1" % throttled)
        log = open(r.log.name).read()
        check(log.count("wrong token") <= 2, "a log line per wrong token")
        r.stop()
        for c in socks:
            c.close()
        socks = []
        # --listen on an address not of this host
        import subprocess
        p = subprocess.run([binary, "serve", "--config", cfg, "--state", state, "--listen", "192.0.2.1:0"],
                           capture_output=True, text=True, timeout=20)
        check(p.returncode != 0 and "cannot listen on 192.0.2.1" in p.stderr,
              "--listen 192.0.2.1: status %d, %s" % (p.returncode, p.stderr[-300:]))
        check("listening on" not in p.stderr, "says listening:\n" + p.stderr[-300:])
        print("ok: flood of 1100 idle sockets: viewer in %.2f s, CPU %.0f %%, %d log lines; idle closed;"
              " tokens throttled; bad --listen refused" % (took, cpu * 100, flood_lines))
    finally:
        for c in socks:
            c.close()
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def journal(binary):
    """The tamper-evident journal: `journal verify` passes a sound folder and
    names the first bad file and line after a single changed byte; a restart
    says so loudly (log, metric); `replay` still reads a sealed journal."""
    import subprocess
    cfg = write_config()
    state = tempfile.mkdtemp(prefix="cr_hostile_journal_")
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        gid = first_game(r)
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "tag", "game": gid, "name": "Annotator", "value": "chief"})
        wait_for("moves", lambda: "1." in r.http("/live.pgn", {"Authorization": "Bearer " + ARBITER})[2])
        arb.send({"op": "arbiter-action", "game": gid, "action": "result", "result": "0-1"})
        incidents = os.path.join(state, "incidents.log")
        wait_for("the game's line in incidents.log", lambda: os.path.exists(incidents)
                 and ("\n%d\t" % gid in "\n" + open(incidents).read()))
        time.sleep(0.5)
        r.stop()
        p = subprocess.run([binary, "journal", "verify", state], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and p.stdout.startswith("sound"), "verify a sound folder: %d %s %s"
              % (p.returncode, p.stdout, p.stderr))
        # the arbiter's evidence: the game's raw events, clock readings, corrections with who and when
        ex = subprocess.run([binary, "journal", "export", state, "--game", str(gid)], capture_output=True,
                            text=True, timeout=60)
        out = ex.stdout
        check(ex.returncode == 0, "export: %d %s" % (ex.returncode, ex.stderr))
        check("# game %d board %s" % (gid, board_of(FEED)) in out and " pos " in out and " clock " in out,
              "export lacks the board's events:\n" + out[:1500])
        check('"cmd":"tag"' in out and '"who":"chief"' in out and '"at":' in out,
              "export lacks the correction with who and when:\n" + out[-1500:])
        check(all(":" in l.split(" ")[0] for l in out.splitlines()), "export lines without file:line")
        # issue 27: and the game's incidents.log lines (incidents, claims, decisions, acks)
        mine = [n + 1 for n, l in enumerate(open(incidents).read().split("\n")) if l.startswith("%d\t" % gid)]
        got = [l for l in out.splitlines() if l.startswith("incidents.log:")]
        check(mine and len(got) == len(mine) and got[0].startswith("incidents.log:%d: %d\t" % (mine[0], gid)),
              "export lacks incidents.log's lines %s:\n%s" % (mine, out[-1500:]))
        ex = subprocess.run([binary, "journal", "export", state, "--game", "4294967297"], capture_output=True,
                            text=True, timeout=60)
        check(ex.returncode == 2 and "game number" in ex.stderr, "export of an id out of range: %s" % ex.stderr)
        name = sorted(x for x in os.listdir(state) if x.startswith("journal-"))[0]
        path = os.path.join(state, name)
        rep = subprocess.run([binary, "replay", path], capture_output=True, text=True, timeout=60)
        check(rep.returncode == 0 and "1." in rep.stdout, "replay of a sealed journal: %d %s"
              % (rep.returncode, rep.stderr[-300:]))
        data = bytearray(open(path, "rb").read())
        lines = data.split(b"\n")
        k = next(n for n, l in enumerate(lines) if b" pos " in l and n > 5)
        at = sum(len(l) + 1 for l in lines[:k]) + len(lines[k]) - 1  # last byte of line k+1
        data[at] = ord("b") if data[at] != ord("b") else ord("n")
        open(path, "wb").write(bytes(data))
        p = subprocess.run([binary, "journal", "verify", state], capture_output=True, text=True, timeout=60)
        want = "%s:%d:" % (name, k + 1)
        check(p.returncode == 1 and want in p.stdout, "verify after one changed byte (want %s): %d %s"
              % (want, p.returncode, p.stdout))
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        log = open(r.log.name).read()
        check("NOT SOUND" in log and want in log, "restart did not report the changed byte:\n" + log[-1500:])
        check("chessrelay_journal_bad_lines_total 1" in r.http("/metrics")[2], "no metric")
        r.stop()
        p = subprocess.run([binary, "journal", "verify", "/nonexistent-dir"], capture_output=True, text=True)
        check(p.returncode == 1 and "not a folder" in p.stderr, "verify of a missing folder: %s" % p.stderr)
        print("ok: journal verify (sound, one changed byte at %s), restart reports it, replay reads seals" % want)
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def emfile(binary):
    """The EMFILE pause: under ulimit -n 64, with the caps set far above it,
    a flood of connections runs the relay out of descriptors, so accept()
    really fails with EMFILE. The relay stops accepting for a moment instead
    of polling the listening socket in a loop: its CPU stays low, the log
    says so once per interval, and once the flood is gone a new viewer is
    served."""
    import socket
    cfg = write_config({"limits": {"connections": 5000, "per_address": 5000, "idle_s": 600}})
    state = tempfile.mkdtemp(prefix="cr_hostile_emfile_")
    socks = []
    try:
        r = Relay("/bin/sh", ["-c", 'ulimit -n 64 && exec "$0" "$@"', binary, "serve", "--config", cfg,
                              "--state", state, "--speed", "1000"])
        first_game(r)
        log_before = len(open(r.log.name).read().splitlines())
        for _ in range(150):  # far more than 64 descriptors; the backlog holds the rest
            c = socket.socket()
            c.setblocking(False)
            try:
                c.connect(("127.0.0.1", r.port))
            except BlockingIOError:
                pass
            socks.append(c)
        time.sleep(1.0)
        cpu0, t0 = cpu_seconds(r.proc.pid), time.time()
        time.sleep(3.0)
        cpu = (cpu_seconds(r.proc.pid) - cpu0) / (time.time() - t0)
        check(cpu < 0.2, "relay CPU with accept() failing: %.0f %%" % (cpu * 100))
        log = open(r.log.name).read().splitlines()[log_before:]
        accept_lines = [l for l in log if "accept" in l]
        check(any("not accepting" in l for l in accept_lines),
              "no log line about the pause:\n" + "\n".join(log[-20:]))
        check(len(accept_lines) <= 3, "the log under EMFILE: %d lines:\n%s"
              % (len(accept_lines), "\n".join(accept_lines[:20])))
        for c in socks:
            c.close()
        socks = []
        start = time.time()
        ws = wait_for("a new viewer after the flood", lambda: try_ws(r), 5)
        ws.send({"op": "list"})
        m = ws.recv(timeout=3)
        took = time.time() - start
        check(m["type"] == "games" and took < 3, "new viewer after the flood: %s after %.2f s"
              % (m["type"], took))
        metrics = r.http("/metrics")[2]
        pauses = int(metrics.split("\nchessrelay_accept_pauses_total ")[1].split()[0])
        check(pauses >= 1, "chessrelay_accept_pauses_total %d" % pauses)
        ws.close()
        r.stop()
        print(open(r.log.name).read()[-6000:]) if os.environ.get("CR_DEBUG") else None
        print("ok: EMFILE under ulimit -n 64: CPU %.0f %%, %d accept log lines, %d pauses, "
              "viewer after the flood in %.2f s" % (cpu * 100, len(accept_lines), pauses, took))
    finally:
        for c in socks:
            c.close()
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def agent_token(binary):
    """--agent-token scoped on the command line, as a tournament token is:
    TOKEN:agents=ID,...:boards=ID,...; bad scopes are usage errors."""
    import subprocess
    cfg = write_config({"tokens": [
        {"name": "chief", "role": "arbiter", "token": ARBITER},
        {"name": "venue", "role": "agent", "token": AGENT},
        {"name": "hall", "role": "agent", "token": "hall-token-1", "boards": ["B9"]}]}, feeds=False)
    state = tempfile.mkdtemp(prefix="cr_hostile_agent_token_")
    try:
        for arg, why in (("venue-cli-tok:agents=a b", 'agents=: "a b" is not an id'),
                         ("venue-cli-tok:board=B1", '"board=B1": expected agents=ID,... or boards=ID,...'),
                         ("venue-cli-tok:boards=B1:boards=B2", "boards= given twice"),
                         ("", "the token: empty"),
                         (ARBITER + ":agents=x", "the same token as the arbiter's or one of the tournament file")):
            p = subprocess.run([binary, "serve", "--config", cfg, "--state", state, "--listen", "127.0.0.1:0",
                                "--agent-token", arg], capture_output=True, text=True, timeout=20)
            check(p.returncode == 2 and "--agent-token: " + why in p.stderr,
                  "--agent-token %r: status %d, %s" % (arg, p.returncode, p.stderr[-300:]))
        tok = "venue-cli-tok"
        r = Relay(binary, ["serve", "--config", cfg, "--state", state,
                           "--agent-token", tok + ":agents=venue-a:boards=B1,B2"])
        ws, m = agent(r, "venue-b", tok)
        check(m["type"] == "error" and m["where"] == "token", "venue-b with venue-a's scoped token: %s" % m)
        ws.close()
        ws, m = agent(r, "venue-a", tok + ":agents=venue-a")
        check(m["type"] == "error" and m["where"] == "token", "the scope is not part of the token: %s" % m)
        ws.close()
        ws, m = agent(r, "venue-a", tok)
        check(m["type"] == "welcome", "venue-a: %s" % m)
        send_ev(ws, 1, ["B1 connect", "B3 connect", "B2 connect"])
        wait_ack(ws, 3)
        a = agent_status(r, "venue-a")
        check(a["refused"] == 1 and sorted(x["board"] for x in a["boards"]) == ["B1", "B2"],
              "venue-a fed a board outside its scope: %s" % a)
        ws.close()
        # issue 27: the scoped command-line token on /ws hello (an agent
        # there), the Bearer scheme in any case
        ws = r.ws()
        ws.send({"op": "hello", "token": tok})
        w = ws.recv()
        check(w["type"] == "welcome" and w.get("role") == "agent", "/ws hello with --agent-token: %s" % w)
        ws.close()
        for scheme in ("bearer ", "BEARER "):
            st, _, _ = r.http("/arbiter/incidents.json", {"Authorization": scheme + ARBITER})
            check(st == 200, "Authorization: %s...: %d" % (scheme, st))
        # a token without boards= may not feed a board the file reserves for another
        ws, m = agent(r, "venue-c", AGENT)
        check(m["type"] == "welcome", "venue-c: %s" % m)
        send_ev(ws, 1, ["B9 connect", "B4 connect"])
        wait_ack(ws, 2)
        c = agent_status(r, "venue-c")
        check(c["refused"] == 1 and [x["board"] for x in c["boards"]] == ["B4"],
              "an unscoped token fed a board reserved for another: %s" % c)
        ws.close()
        r.stop()
        print("ok: --agent-token with agents= and boards= (also on /ws hello), bad scopes and a token "
              "in two roles refused at start; bearer in any case; reserved boards kept")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def wedge(binary):
    """Issue 27: an agent token's "ev" numbered far beyond what the agent
    sent (2^40 - 1) is refused with the numbers named, never acked nor
    journaled; after a relay restart the real `chessrelay agent` of that id
    links and its events are acked."""
    import subprocess
    cfg = write_config(feeds=False)
    state = tempfile.mkdtemp(prefix="cr_hostile_wedge_")
    agent_state = tempfile.mkdtemp(prefix="cr_hostile_wedge_agent_")
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        ws, m = agent(r, "venue-x", AGENT)
        check(m["type"] == "welcome" and m["acked"] == 0, "welcome: %s" % m)
        send_ev(ws, 1, ["B7 connect", "B7 pos " + START])
        wait_ack(ws, 2)
        send_ev(ws, 1099511627775, ["B7 pos " + E4])
        expect_error(ws, "ev", "event 1099511627775 is beyond what this agent has sent (next expected 3")
        ws.close()
        # one batch ahead is still taken (a real agent is never further)
        ws, m = agent(r, "venue-x", AGENT, last=2)
        check(m["type"] == "welcome" and m["acked"] == 2, "welcome after the refusal: %s" % m)
        send_ev(ws, 3 + 257, ["B7 pos " + E4])
        expect_error(ws, "ev", "event 260 is beyond")
        ws.close()
        check(agent_status(r, "venue-x")["acked"] == 2, "acked moved: %s" % agent_status(r, "venue-x"))
        r.stop()
        journal_text = "".join(open(os.path.join(dp, f), errors="replace").read()
                               for dp, _, fs in os.walk(state) for f in fs)
        check("1099511627775" not in journal_text, "the forged number reached the state folder")
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        ag = subprocess.Popen([binary, "agent", "--to", "ws://127.0.0.1:%d/agent" % r.port, "--token", AGENT,
                               "--id", "venue-x", "--feed", FEED, "--speed", "1000", "--state", agent_state,
                               "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            wait_for("the real agent's events acked", lambda: (agent_status(r, "venue-x") or {})
                     .get("acked", 0) >= 12, 30)
        finally:
            ag.terminate()
            _, err = ag.communicate(timeout=20)
        check("beyond what this agent has sent" not in err, "the real agent refused: " + err[-800:])
        r.stop()
        print("ok: ev n=2^40-1 refused (numbers named), not acked nor kept; the real agent links after a restart")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)
        shutil.rmtree(agent_state, ignore_errors=True)


def reseal_plain(path, edit=None):
    """Rewrites path's records with plain SHA-256 seals from the start, as
    someone without the key would after editing one (edit(lines) -> lines)."""
    import hashlib
    data = open(path, "rb").read().split(b"\n")[:-1]
    recs, cur = [], []
    for l in data:
        if l.startswith(b"#= ") or l.startswith(b"#% "):
            recs.append(cur)
            cur = []
        else:
            cur.append(l)
    if edit:
        recs = edit(recs)
    prev, out = bytes(32), b""
    for r in recs:
        body = b"".join(l + b"\n" for l in r)
        prev = hashlib.sha256(prev + body).digest()
        out += body + b"#= " + prev.hex().encode() + b"\n"
    open(path, "wb").write(out)


def cut(binary):
    """Issue 27: keyed seals and their head. Each forgery is named by
    `journal verify`: an edit resealed with plain SHA-256, a cut tail of
    incidents.log, a deleted last journal file; untouched, it is sound."""
    import subprocess
    cfg = write_config()
    state = tempfile.mkdtemp(prefix="cr_hostile_cut_")
    keep = state + ".orig"
    def verify():
        p = subprocess.run([binary, "journal", "verify", state], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr
    def restore():
        shutil.rmtree(state)
        shutil.copytree(keep, state)
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        gid = first_game(r)
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "arbiter-action", "game": gid, "action": "result", "result": "0-1"})
        incidents = os.path.join(state, "incidents.log")
        wait_for("incidents", lambda: os.path.exists(incidents) and open(incidents).read().count("\n#% ") >= 2)
        r.stop()
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        first_game(r)
        r.stop()  # two runs: two journal files
        key = os.path.join(state, "seal.key")
        check(os.stat(key).st_mode & 0o777 == 0o600, "seal.key mode %o" % os.stat(key).st_mode)
        check(os.path.exists(os.path.join(state, "seal.head")), "no seal.head after a clean stop")
        rc, out = verify()
        check(rc == 0 and out.startswith("sound") and "keyed" in out and "unkeyed" not in out,
              "verify untouched: %d %s" % (rc, out))
        shutil.copytree(state, keep)
        # an edit resealed with plain SHA-256 from the start
        reseal_plain(incidents, lambda recs: [[l.replace(b"0-1", b"1-0") for l in r] for r in recs])
        rc, out = verify()
        check(rc == 1 and "incidents.log: cut after record" in out and "or rewritten" in out,
              "incidents.log resealed without the key: %d %s" % (rc, out))
        restore()
        # one line edited, everything resealed with plain SHA-256
        lines = open(incidents).read().split("\n")
        lines[0] = lines[0] + " x"
        open(incidents, "w").write("\n".join(lines))
        reseal_plain(incidents)
        rc, out = verify()
        check(rc == 1 and "NOT SOUND" in out, "incidents.log edited and resealed: %d %s" % (rc, out))
        restore()
        # a cut tail: the last record of incidents.log removed at its boundary
        lines = open(incidents).read().split("\n")[:-1]
        records = sum(1 for l in lines if l.startswith("#% "))
        open(incidents, "w").write("\n".join(lines[:-2]) + "\n")
        rc, out = verify()
        check(rc == 1 and ("incidents.log: cut after record %d" % (records - 1)) in out,
              "incidents.log cut: %d %s" % (rc, out))
        restore()
        # the last journal file deleted
        journals = sorted(f for f in os.listdir(state) if f.startswith("journal-"))
        check(len(journals) >= 2, "journal files: %s" % journals)
        os.unlink(os.path.join(state, journals[-1]))
        rc, out = verify()
        check(rc == 1 and "/journal: cut after record" in out, "last journal deleted: %d %s" % (rc, out))
        restore()
        # the head itself changed
        hp = os.path.join(state, "seal.head")
        text = open(hp).read().split("\n")
        text[1] = text[1][:-1] + ("0" if text[1][-1] != "0" else "1")
        open(hp, "w").write("\n".join(text))
        rc, out = verify()
        check(rc == 1 and "the head was changed" in out, "head changed: %d %s" % (rc, out))
        print("ok: keyed seals and their head: a plain reseal, an edit, a cut tail, a deleted last "
              "journal and a changed head are each named; untouched is sound")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)
        shutil.rmtree(keep, ignore_errors=True)


def snapshot_alerts(r):
    """The arbiter snapshot's and incidents.json's standing alerts."""
    arb = r.ws({"Authorization": "Bearer " + ARBITER})
    arb.send({"op": "arbiter"})
    deadline = time.time() + 10
    while True:
        m = arb.recv(timeout=max(0.1, deadline - time.time()))
        if m.get("type") == "arbiter":
            break
    st, _, body = r.http("/arbiter/incidents.json", {"Authorization": "Bearer " + ARBITER})
    check(st == 200, "incidents.json: %d" % st)
    return arb, m.get("alerts"), json.loads(body).get("alerts")


def journal_sound(r, kind):
    m = r.http("/metrics")[2]
    key = 'chessrelay_journal_sound{kind="%s"} ' % kind
    return int(m.split(key)[1].split()[0]) if key in m else None


def tamper(binary):
    """Issue 27: a tampered or cut file is a standing alert. A cut made while
    the relay was stopped (the last journal file deleted) is found at the
    next start, before the new run's head hides it; the alert names the file
    and what failed, in the arbiter snapshot and /arbiter/incidents.json, on
    every restart until an arbiter acknowledges it (journaled); a changed
    record of incidents.log or of a journal is one too."""
    cfg = write_config()
    state = tempfile.mkdtemp(prefix="cr_hostile_tamper_")
    args = ["serve", "--config", cfg, "--state", state, "--speed", "1000"]
    incidents = os.path.join(state, "incidents.log")
    try:
        r = Relay(binary, args)
        gid = first_game(r)
        arb, alerts, doc_alerts = snapshot_alerts(r)
        check(alerts == [] and doc_alerts == [], "alerts of an untouched folder: %s %s" % (alerts, doc_alerts))
        arb.send({"op": "arbiter-action", "game": gid, "action": "result", "result": "0-1"})
        wait_for("incidents", lambda: os.path.exists(incidents) and open(incidents).read().count("\n#% ") >= 2)
        r.stop()
        r = Relay(binary, args)
        first_game(r)
        r.stop()  # two runs: two journal files
        journals = sorted(f for f in os.listdir(state) if f.startswith("journal-"))
        check(len(journals) >= 2, "journal files: %s" % journals)
        # the last journal file deleted while the relay is stopped
        os.unlink(os.path.join(state, journals[-1]))
        r = Relay(binary, args)
        arb, alerts, doc_alerts = snapshot_alerts(r)
        cut = [a for a in alerts or [] if a["file"] == "journal" and "cut after record" in a["what"]]
        check(len(cut) == 1 and cut[0]["kind"] == "tamper", "no standing alert for the cut: %s" % alerts)
        check(doc_alerts == alerts, "incidents.json's alerts differ: %s / %s" % (doc_alerts, alerts))
        check(journal_sound(r, "journal") == 0, "chessrelay_journal_sound{journal} after the cut")
        key = cut[0]["alert"]
        r.stop()
        # the next run's head no longer shows the cut: the alert still stands
        r = Relay(binary, args)
        arb, alerts, _ = snapshot_alerts(r)
        check([a["alert"] for a in alerts] == [key], "the alert after a restart: %s" % alerts)
        arb.send({"op": "arbiter-action", "game": 0, "action": "ack", "alert": "tamper:nothing:0"})
        m = wait_for("an arbiter-error", lambda: (lambda x: x if x.get("type") == "arbiter-error" else None)(arb.recv()))
        check("no relay alert" in m["error"], "ack of an unknown alert: %s" % m)
        arb.send({"op": "arbiter-action", "game": 0, "action": "ack", "alert": key})
        wait_for("the ack", lambda: arb.recv().get("type") == "ack")
        _, alerts, doc_alerts = snapshot_alerts(r)
        check(alerts == [] and doc_alerts == [], "acknowledged, still shown: %s %s" % (alerts, doc_alerts))
        r.stop()
        log = open(incidents).read()
        check("0\tack\t" in log and key in log and "\tchief" in log, "the ack not journaled:\n" + log[-600:])
        r = Relay(binary, args)
        _, alerts, _ = snapshot_alerts(r)
        check(alerts == [], "acknowledged, back after a restart: %s" % alerts)
        r.stop()
        # a changed record of incidents.log, then of a journal file
        change_byte(incidents, 1)
        r = Relay(binary, args)
        _, alerts, _ = snapshot_alerts(r)
        bad = [a for a in alerts if a["file"] == "incidents.log"]
        check(len(bad) == 1 and "do not match their seals" in bad[0]["what"] and "line 1" in bad[0]["what"],
              "incidents.log changed: %s" % alerts)
        r.stop()
        journals = sorted(f for f in os.listdir(state) if f.startswith("journal-"))
        change_byte(os.path.join(state, journals[0]), 3)
        r = Relay(binary, args)
        _, alerts, _ = snapshot_alerts(r)
        bad = [a for a in alerts if a["file"] == journals[0]]
        check(len(bad) == 1 and "line 3" in bad[0]["what"], "%s changed: %s" % (journals[0], alerts))
        r.stop()
        print("ok: standing alerts: a journal file deleted while stopped is found at start, stands across "
              "restarts until acknowledged (journaled); changed records of incidents.log and of a journal too")
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def signed(binary):
    """Issue 27: Ed25519 checkpoints. With --signing-key the relay signs its
    journal and incidents.log; a copy of the folder without any secret
    verifies with the public key alone (published at /journal/pubkey); an
    edit, a cut tail, a deleted file, a forged checkpoint and another key
    are each named; `journal export` carries the checkpoints."""
    import subprocess
    cfg = write_config()
    tmp = tempfile.mkdtemp(prefix="cr_hostile_signed_")
    state, copy = os.path.join(tmp, "state"), os.path.join(tmp, "copy")
    key = os.path.join(tmp, "relay.key")
    def run(*a):
        p = subprocess.run([binary, "journal"] + list(a), capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr
    def verify(pub=key + ".pub"):
        return run("verify", copy, "--pubkey", pub)
    def fresh_copy():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(state, copy)
        os.unlink(os.path.join(copy, "seal.key"))  # a third party has no secret
    try:
        rc, out = run("keygen", key)
        check(rc == 0 and os.stat(key).st_mode & 0o777 == 0o600, "keygen: %d %s" % (rc, out))
        rc, out = run("keygen", key)
        check(rc == 1 and "File exists" in out, "keygen over a key: %d %s" % (rc, out))
        pub = open(key + ".pub").read().strip()
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000", "--signing-key", key])
        check(r.http("/journal/pubkey") == (200, r.http("/journal/pubkey")[1], pub + "\n"), "/journal/pubkey")
        gid = first_game(r)
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "arbiter-action", "game": gid, "action": "result", "result": "0-1"})
        arb.send({"op": "arbiter-action", "game": gid, "action": "players", "white": "Corrected, White"})
        wait_for("checkpoints of the journal and incidents.log at /journal/head",
                 lambda: "incidents.log " in r.http("/journal/head")[2] and "journal-" in r.http("/journal/head")[2])
        r.stop()
        fresh_copy()
        rc, out = verify()
        check(rc == 0 and "signed: every file matches" in out and "seals not checked" in out,
              "verify with the public key: %d %s" % (rc, out))
        rc, out = run("export", state, "--game", str(gid))
        check(rc == 0 and "signatures.log:1: # chessrelay signatures v1, public key " + pub in out
              and "signatures.log:" in out.split("public key")[1] and "incidents.log" in out,
              "export without checkpoints:\n" + out[-800:])
        # the evidence: the correction (journal and incidents.log), then what signs both files
        tail = out.split("public key")[1]
        check('"Corrected, White"' in out and 'players assigned: White "Corrected, White"' in out,
              "export lacks the correction:\n" + out[-1500:])
        signing = [l.split(" ")[1] for l in tail.splitlines()[1:] if l.startswith("signatures.log:")]
        check("incidents.log" in signing and any(f.startswith("journal-") for f in signing),
              "export lacks the checkpoints of both files:\n" + tail)
        journal = sorted(f for f in os.listdir(copy) if f.startswith("journal-"))[-1]
        # an edit of the journal (whoever has seal.key could reseal it)
        change_byte(os.path.join(copy, journal), 4)
        rc, out = verify()
        check(rc == 1 and ("%s:1: changed between lines 1 and" % journal) in out, "journal edited: %d %s" % (rc, out))
        fresh_copy()
        # a cut tail of incidents.log
        inc = os.path.join(copy, "incidents.log")
        open(inc, "w").write("\n".join(open(inc).read().split("\n")[:-3]) + "\n")
        rc, out = verify()
        check(rc == 1 and "incidents.log" in out and "cut:" in out, "incidents.log cut: %d %s" % (rc, out))
        fresh_copy()
        os.unlink(os.path.join(copy, journal))
        rc, out = verify()
        check(rc == 1 and journal + ": missing (deleted?)" in out, "journal deleted: %d %s" % (rc, out))
        fresh_copy()
        sig = os.path.join(copy, "signatures.log")
        lines = open(sig).read().split("\n")
        f = lines[-2].split(" ")
        f[1] = str(int(f[1]) + 1)
        lines[-2] = " ".join(f)
        open(sig, "w").write("\n".join(lines))
        rc, out = verify()
        check(rc == 1 and ("signatures.log:%d: its signature does not verify" % (len(lines) - 1)) in out,
              "forged checkpoint: %d %s" % (rc, out))
        fresh_copy()
        other = os.path.join(tmp, "other.key")
        run("keygen", other)
        rc, out = verify(other + ".pub")
        check(rc == 1 and "does not verify" in out, "another key: %d %s" % (rc, out))
        # without --signing-key: nothing published, and said so
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        check(r.http("/journal/pubkey")[0] == 404, "/journal/pubkey without a key")
        r.stop()
        print("ok: signatures: verified with the public key alone; an edit, a cut tail, a deleted file, "
              "a forged checkpoint and another key are each named; export carries the checkpoints")
    finally:
        os.unlink(cfg)
        shutil.rmtree(tmp, ignore_errors=True)


def change_byte(path, line_no):
    """Changes one byte (the last) of line line_no (1-based) of path."""
    data = bytearray(open(path, "rb").read())
    lines = data.split(b"\n")
    at = sum(len(l) + 1 for l in lines[:line_no - 1]) + len(lines[line_no - 1]) - 1
    data[at] = ord("b") if data[at] != ord("b") else ord("n")
    open(path, "wb").write(bytes(data))


def sealed(binary):
    """incidents.log and the agent's own journal (events.feed) are sealed like
    the relay's journal: `journal verify` passes them sound and names the
    file and line of a single changed byte in each."""
    import subprocess
    cfg = write_config()
    state = tempfile.mkdtemp(prefix="cr_hostile_sealed_")
    agent_state = os.path.join(state, "agent")
    try:
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        gid = first_game(r)
        arb = r.ws({"Authorization": "Bearer " + ARBITER})
        arb.send({"op": "arbiter-action", "game": gid, "action": "result", "result": "0-1"})
        incidents = os.path.join(state, "incidents.log")
        wait_for("an incident in incidents.log", lambda: os.path.exists(incidents)
                 and open(incidents).read().count("\n") >= 2)
        r.stop()
        text = open(incidents).read().split("\n")
        check(text[1].startswith("#% ") and len(text[1]) == 67, "incidents.log not sealed:\n" + "\n".join(text[:4]))
        p = subprocess.run([binary, "journal", "verify", state], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and p.stdout.startswith("sound"), "verify with incidents.log: %d %s"
              % (p.returncode, p.stdout))
        change_byte(incidents, 1)
        p = subprocess.run([binary, "journal", "verify", state], capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and p.stdout.startswith(incidents + ":1: ") and "NOT SOUND" in p.stdout,
              "verify after one changed byte in incidents.log: %d %s" % (p.returncode, p.stdout))
        # the restart says so too (log and an arbiter alert)
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        log = open(r.log.name).read()
        check("incidents.log: NOT SOUND" in log and incidents + ":1:" in log,
              "restart did not report the changed incidents.log:\n" + log[-1500:])
        metrics = r.http("/metrics")[2]
        check('chessrelay_journal_sound{kind="incidents.log"} 0' in metrics
              and 'chessrelay_journal_sound{kind="journal"} 1' in metrics,
              "the soundness metrics:\n" + "\n".join(l for l in metrics.splitlines() if "sound" in l))
        r.stop()

        # the agent's journal: events kept while no relay answers
        ag = subprocess.Popen([binary, "agent", "--to", "ws://127.0.0.1:9/agent", "--token", AGENT,
                               "--id", "venue-x", "--feed", FEED, "--speed", "1000", "--state", agent_state,
                               "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            events = os.path.join(agent_state, "events.feed")
            wait_for("the agent's journal", lambda: os.path.exists(events)
                     and open(events).read().count(" pos ") >= 10)
        finally:
            ag.terminate()
            ag.wait(timeout=20)
        p = subprocess.run([binary, "journal", "verify", agent_state], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and p.stdout.startswith("sound"), "verify an agent's folder: %d %s %s"
              % (p.returncode, p.stdout, p.stderr))
        lines = open(events).read().split("\n")
        k = next(n for n, l in enumerate(lines) if " pos " in l and n > 4)
        check(lines[k + 1].startswith("#% "), "events.feed not keyed-sealed:\n" + "\n".join(lines[:6]))
        change_byte(events, k + 1)
        p = subprocess.run([binary, "journal", "verify", agent_state], capture_output=True, text=True, timeout=60)
        want = "%s:%d: " % (events, k + 1)
        check(p.returncode == 1 and p.stdout.startswith(want) and "NOT SOUND" in p.stdout,
              "verify after one changed byte in events.feed (want %s): %d %s" % (want, p.returncode, p.stdout))
        print("ok: incidents.log and the agent's events.feed sealed; verify names %s:1 and events.feed:%d"
              % (os.path.basename(incidents), k + 1))
    finally:
        os.unlink(cfg)
        shutil.rmtree(state, ignore_errors=True)


def try_ws(r):
    try:
        return r.ws()
    except (OSError, WSClosed):
        return None


SCENARIOS = {"tags": tags, "roles": roles, "agents": agents, "disk": disk, "flood": flood, "journal": journal,
             "emfile": emfile, "agent_token": agent_token,
             "sealed": sealed, "wedge": wedge, "cut": cut, "tamper": tamper, "signed": signed}

if __name__ == "__main__":
    SCENARIOS[sys.argv[2]](sys.argv[1])

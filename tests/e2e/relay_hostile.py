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
from relay_ws import Relay, WSClosed, check, sample_feed  # noqa: E402

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
    deadline = time.time() + limit
    while True:
        v = fn()
        if v:
            return v
        check(time.time() < deadline, "timed out waiting for " + what)
        time.sleep(0.1)


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
        journals = sorted(x for x in os.listdir(state) if x.startswith("journal-"))
        with open(os.path.join(state, journals[-1]), "a") as j:
            j.write("# cmd result %d 1-1\n" % gid)
        r = Relay(binary, ["serve", "--config", cfg, "--state", state, "--speed", "1000"])
        log = open(r.log.name).read()
        check("bad result" in log and journals[-1] in log, "corrupted command line not reported:\n" + log[-2000:])
        metrics = r.http("/metrics")[2]
        check("chessrelay_journal_bad_lines_total 1" in metrics, "bad line not counted")
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


SCENARIOS = {"tags": tags, "roles": roles}

if __name__ == "__main__":
    SCENARIOS[sys.argv[2]](sys.argv[1])

"""Engine evaluations end to end with real Stockfish (Debian's `stockfish`,
installed by scripts/setup; missing, the test fails):

  replay:  `chessrelay replay FEED --serve --engine stockfish`: the game's
           PGN gets [%eval] while the feed plays.
  evals:   a tournament file with "engine" (2 processes, 100 ms a
           position): every ply of the game gets an eval on the WebSocket
           and [%eval] in /game/N.pgn, games.json has the last one.
  delay:   a public delay of 4 s: no eval reaches a public viewer before
           its position is public (its move's ts + the delay), nothing is
           analysed while every move is still inside the delay, and the
           arbiter's live lane gets the same evals.

The engines of replay --engine run SCHED_IDLE (the default); those of the
tournament files here "idle": false (niced only), since the timing checks
must hold beside other tests and busy loops, which an idle-class engine
would wait behind.

python3 relay_engine.py BINARY"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, sample_feed, wait_until  # noqa: E402

FEED = sample_feed("p03.feed")  # one board, 44 plies in 35 minutes
TOKEN = "arbiter-secret-1"
EVAL_RE = re.compile(r"\[%eval (#-?\d+|-?\d+\.\d\d)\]")


def stockfish():
    for d in os.environ.get("PATH", "").split(":") + ["/usr/games", "/usr/local/games"]:
        p = os.path.join(d, "stockfish")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    fail("stockfish is not installed (scripts/setup installs Debian's stockfish package)")


def metric(relay, name):
    st, _, text = relay.http("/metrics")
    check(st == 200, "/metrics: %d" % st)
    m = re.search(r"^%s (\d+)$" % name, text, re.M)
    check(m, "no %s in /metrics" % name)
    return int(m.group(1))


def config(tmp, **extra):
    path = os.path.join(tmp, "t.json")
    cfg = {"event": "Engine test", "feeds": [FEED],
           "engine": {"path": "stockfish", "processes": 2, "movetime_ms": 100, "hash_mb": 16,
                      "idle": False,
                      "alerts": True}}
    cfg.update(extra)
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def engine_sched(r):
    """(policy, nice) of each engine process of the relay: SCHED_IDLE is
    policy 5, SCHED_OTHER 0 (/proc/PID/stat fields 41 and 19)."""
    out = []
    pid = r.proc.pid
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
            for child in f.read().split():
                with open("/proc/%s/stat" % child) as s:
                    fields = s.read().rsplit(")", 1)[1].split()
                out.append((int(fields[38]), int(fields[16])))
    return out


def replay(binary):
    r = Relay(binary, ["replay", FEED, "--serve", "--speed", "100", "--engine", "stockfish"])
    try:
        pgn = wait_until(lambda: (lambda s: s[2] if s[0] == 200 and EVAL_RE.search(s[2]) else None)(
        r.http("/game/1.pgn")), "[%eval] in /game/1.pgn", 60)
        check(metric(r, "chessrelay_engine_processes") == 1, "one engine process")
        sched = engine_sched(r)
        check(sched == [(5, 10)], "the engine runs SCHED_IDLE at nice 10 by default: %s" % sched)
        print("ok: replay --engine stockfish: %s" % EVAL_RE.search(pgn).group(0))
    finally:
        r.stop()


def evals(binary):
    tmp = tempfile.mkdtemp(prefix="cr_e2e_engine_")
    r = Relay(binary, ["serve", "--config", config(tmp), "--state", os.path.join(tmp, "state"),
                       "--speed", "150"])
    try:
        ws = r.ws()
        ws.send({"op": "subscribe", "round": "1"})
        plies, got, arrived = {}, {}, {}
        seen = set()  # every position a move made, retracted ones too
        lat = []
        end = time.time() + 120
        while time.time() < end:
            # The engines run at a low priority: on a loaded machine they
            # may be silent for a while; only the deadline ends the wait.
            try:
                m = ws.recv(timeout=max(0.1, end - time.time()))
            except TimeoutError:
                break
            t = m["type"]
            if t == "snapshot":
                for i, mv in enumerate(m["game"]["moves"]):
                    plies[i] = mv["fen"]
                    seen.add(" ".join(mv["fen"].split()[:4]))
            elif t == "move":
                plies[m["ply"]] = m["fen"]
                seen.add(" ".join(m["fen"].split()[:4]))
                arrived[m["ply"]] = time.time()
            elif t == "eval":
                e = m["eval"]
                check(("cp" in e) != ("mate" in e) and e["depth"] > 0 and isinstance(e["pv"], str),
                      "eval message: %s" % m)
                got[m["ply"]] = e
                if m["ply"] in arrived:
                    lat.append(time.time() - arrived[m["ply"]])
            if plies and len(got) >= len(plies) and len(plies) >= 44:
                break
        check(len(plies) == 44, "44 plies broadcast, got %d" % len(plies))
        missing = [p for p in plies if p not in got]
        check(not missing, "plies without an eval: %s" % missing)
        st, _, pgn = r.http("/game/1.pgn")
        n = len(EVAL_RE.findall(pgn))
        check(st == 200 and n == 44, "/game/1.pgn: %d [%%eval] for 44 plies" % n)
        st, _, gj = r.http("/games.json")
        g = json.loads(gj)[0]
        check("eval" in g and g["eval"]["depth"] > 0, "games.json: no eval: %s" % g)
        st, _, snap = r.http("/live.pgn")
        check(len(EVAL_RE.findall(snap)) == 44, "/live.pgn: [%eval] missing")
        sched = engine_sched(r)
        check(sched == [(0, 10), (0, 10)], "\"idle\": false: two engines at nice 10, not SCHED_IDLE: %s" % sched)
        analysed = metric(r, "chessrelay_engine_positions_analysed_total")
        check(0 < analysed <= len(seen),
              "positions analysed: %d, positions made: %d (each at most once)" % (analysed, len(seen)))
        lat.sort()
        print("ok: 44 plies, 44 evals, %d positions analysed; eval after its move: median %.2f s, "
              "max %.2f s" % (analysed, lat[len(lat) // 2] if lat else -1, lat[-1] if lat else -1))
    finally:
        r.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def delay(binary, live=False):
    """live: "engine": {"live": true}: the arbiter's lane gets evals of live
    positions (before they are public); the public rule is the same."""
    tmp = tempfile.mkdtemp(prefix="cr_e2e_engine_")
    cfg = config(tmp, delay_seconds=4, tokens=[{"name": "chief", "role": "arbiter", "token": TOKEN}])
    if live:
        with open(cfg) as f:
            c = json.load(f)
        c["engine"]["live"] = True
        with open(cfg, "w") as f:
            json.dump(c, f)
    r = Relay(binary, ["serve", "--config", cfg, "--state", os.path.join(tmp, "state"),
                       "--speed", "150"])
    try:
        pub = r.ws()
        pub.send({"op": "subscribe", "round": "1"})
        arb = r.ws()
        arb.send({"op": "hello", "token": TOKEN})
        check(arb.recv()["type"] == "welcome", "arbiter welcome")
        arb.send({"op": "subscribe", "round": "1"})
        move_ts = {}  # ply -> the move's ts (s), from the live lane
        first_live = None
        checked_quiet = False
        pub_evals, live_evals = {}, {}
        live_early = 0  # live evals that came while their move was inside the delay
        end = time.time() + 120
        while time.time() < end and (len(pub_evals) < 44 or len(live_evals) < 44):
            for ws, lane in ((arb, "live"), (pub, "public")):
                try:
                    m = ws.recv(timeout=0.05)
                except TimeoutError:
                    continue
                now = time.time()
                if m["type"] == "move" and lane == "live":
                    move_ts[m["ply"]] = m["ts"] / 1e6
                    first_live = first_live or now
                elif m["type"] == "eval" and lane == "public":
                    ts = move_ts.get(m["ply"])
                    check(ts is not None, "public eval of ply %d before the live move" % m["ply"])
                    check(now >= ts + 4 - 0.05,
                          "public eval of ply %d %.2f s after its move (delay 4 s)" % (m["ply"], now - ts))
                    pub_evals[m["ply"]] = m["eval"]
                elif m["type"] == "eval" and lane == "live":
                    live_evals[m["ply"]] = m["eval"]
                    ts = move_ts.get(m["ply"])
                    if ts is not None and now < ts + 4 - 0.5:
                        live_early += 1
            # Moves are live, none is public yet: the engines have seen nothing.
            if not live and first_live and not checked_quiet and time.time() < min(move_ts.values()) + 3:
                q = metric(r, "chessrelay_engine_queued")
                a = metric(r, "chessrelay_engine_positions_analysed_total")
                if time.time() < min(move_ts.values()) + 3.5:
                    check(q == 0 and a == 0, "moves inside the delay were given to the engine "
                                             "(queued %d, analysed %d)" % (q, a))
                    checked_quiet = True
        check(live or checked_quiet, "never saw the relay while every move was inside the delay")
        check(len(pub_evals) == 44, "public evals: %d of 44" % len(pub_evals))
        check(live_evals == pub_evals, "the live lane's evals differ from the public ones")
        if live:
            check(live_early >= 22, "only %d of 44 live evals came before their move was public" % live_early)
        else:
            check(live_early == 0, "%d live evals came before their move was public" % live_early)
        print("ok: delay 4 s%s: 44 public evals, none before its position was public; %d live evals "
              "before" % (", live evals for the arbiter" if live else "", live_early))
    finally:
        r.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def bad_path(binary):
    import subprocess
    p = subprocess.run([binary, "replay", FEED, "--serve", "--listen", "127.0.0.1:0",
                        "--engine", "/nonexistent/stockfish"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode != 0, "a wrong engine path must stop the relay at start")
    check("/nonexistent/stockfish: no such file" in p.stderr, "error: %s" % p.stderr[-300:])
    print("ok: wrong engine path: %s" % p.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    binary = sys.argv[1]
    stockfish()
    bad_path(binary)
    replay(binary)
    evals(binary)
    delay(binary)
    delay(binary, live=True)
    print("relay_engine: 5 passed, 0 failed")

"""End to end: the relay pushes each round's PGN to a broadcast host (a
lichess-style receiver here, on 127.0.0.1) and keeps the export folder.
python3 relay_push.py BINARY"""
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, sample_feed  # noqa: E402

FEED = sample_feed("p03.feed")   # one board, 35 minutes
SPEED = "1000"                                       # -> about 2.1 s
TOKEN = "lip_e2e-push-token"

pushes = []  # (monotonic time, path, authorization, content type, body)
lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    fail_first = True  # the first push fails like an overloaded host: the relay must retry

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8")
        with lock:
            pushes.append((time.monotonic(), self.path, self.headers.get("Authorization"),
                           self.headers.get("Content-Type"), body))
            first = len(pushes) == 1
        busy = first and self.fail_first
        status, answer = (503, b'{"error":"busy"}') if busy else (200, b'{"games":[]}')
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def pgn_tag(pgn, name):
    for line in pgn.splitlines():
        if line.startswith("[%s \"" % name):
            return line[len(name) + 3:-2]
    return None


def check_livechess_layout(export, pgn):
    """The folder as DGT LiveChess writes it (and lichess's Broadcaster app
    reads it): tournament.json at the root, index.json per round with the
    same fields, beside game-N.pgn and games.pgn (docs/venue.md)."""
    names = sorted(os.listdir(export))
    check(names == ["round-1", "tournament.json"], "export root holds %s" % names)
    names = sorted(os.listdir(os.path.join(export, "round-1")))
    check(names == ["game-1.pgn", "games.pgn", "index.json"], "round-1 holds %s" % names)
    with open(os.path.join(export, "tournament.json")) as f:
        t = json.load(f)
    check(sorted(t) == ["id", "name", "rounds"], "tournament.json keys %s" % sorted(t))
    check(t["name"] == "Push Test", "tournament.json name %r" % t["name"])
    live = pgn_tag(pgn, "Result") == "*"
    check(t["rounds"] == [{"count": 1, "live": int(live)}], "tournament.json rounds %s" % t["rounds"])
    with open(os.path.join(export, "round-1", "index.json")) as f:
        idx = json.load(f)
    check(sorted(idx) == ["pairings"] and len(idx["pairings"]) == 1, "index.json: %s" % idx)
    p = idx["pairings"][0]
    check(sorted(p) == ["black", "live", "result", "white"], "a pairing's keys %s" % sorted(p))
    for side in ("white", "black"):
        check(sorted(p[side]) == ["federation", "fname", "lname", "mname", "title"],
              "a player's keys %s" % sorted(p[side]))
    check(p["white"]["lname"] == pgn_tag(pgn, "White"), "white %s" % p["white"])
    check(p["black"]["lname"] == pgn_tag(pgn, "Black"), "black %s" % p["black"])
    check(p["result"] == pgn_tag(pgn, "Result") and p["live"] is live, "result/live %s" % p)


def main(binary):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    tmp = tempfile.mkdtemp(prefix="cr_push_")
    export = os.path.join(tmp, "export")
    cfg = os.path.join(tmp, "tournament.json")
    url = "http://127.0.0.1:%d/api/broadcast/round/e2eRound/push" % srv.server_address[1]
    with open(cfg, "w") as f:
        json.dump({"event": "Push Test", "feeds": [FEED], "export_dir": export,
                   "push": [{"round": "1", "url": url, "token": TOKEN}]}, f)
    relay = Relay(binary, ["serve", "--config", cfg, "--speed", SPEED])
    try:
        # until the feed is played (the round stays the same for 1.5 s) and
        # the host has the round as the relay serves it
        end = time.time() + 60
        prev, since = None, time.time()
        while time.time() < end:
            status, _, pgn = relay.http("/round/1.pgn")
            if pgn != prev:
                prev, since = pgn, time.time()
            with lock:
                last = pushes[-1][4] if pushes else None
            if status == 200 and time.time() - since > 1.5 and last == pgn:
                break
            time.sleep(0.2)
        else:
            fail("the host never got the final round (%d pushes)" % len(pushes))
        time.sleep(0.5)
        with lock:
            got = list(pushes)
        check(len(got) >= 3, "a retry and some moves: %d pushes" % len(got))
        for _, path, auth, ctype, body in got:
            check(path == "/api/broadcast/round/e2eRound/push", "path %s" % path)
            check(auth == "Bearer " + TOKEN, "authorization %r" % auth)
            check(ctype.startswith("text/plain"), "content type %r" % ctype)
            check(body.startswith("[Event ") and "[Round \"1\"]" in body, "body %r" % body[:80])
        check(got[1][4] == got[0][4] or got[1][0] - got[0][0] >= 0.4,
              "the failed push is retried after a back-off (0.5-1 s) with the newest round")
        for a, b in zip(got[1:], got[2:]):
            check(a[4] != b[4], "an unchanged round is not pushed again")
        moves = pgn.count(".")  # plies are far more than pushes: bursts are coalesced
        check(len(got) < moves, "%d pushes for about %d move numbers" % (len(got), moves))
        # /metrics: what a broadcaster alerts on, per round (the loop
        # refreshes the figures once a second)
        metrics = ""

        def metric(name, need=True):
            for line in metrics.splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[-1])
            if need:
                fail("%s not in /metrics:\n%s" % (name, metrics[-1500:]))
            return None

        end = time.time() + 10
        while time.time() < end:
            st, _, metrics = relay.http("/metrics")
            check(st == 200, "/metrics: %d" % st)
            if metric('chessrelay_push_requests_total{round="1",result="ok"}', False) == len(got) - 1:
                break
            time.sleep(0.2)

        check(metric('chessrelay_push_requests_total{round="1",result="failed"}') == 1,
              "one failed push (the 503)")
        check(metric('chessrelay_push_requests_total{round="1",result="ok"}') == len(got) - 1,
              "successful pushes in /metrics")
        check(metric('chessrelay_push_retries_total{round="1"}') >= 1, "a retry in /metrics")
        check(metric('chessrelay_push_bytes_total{round="1"}') == sum(len(g[4].encode()) for g in got),
              "pushed bytes in /metrics")
        check(abs(metric('chessrelay_push_last_success_timestamp_seconds{round="1"}') - time.time()) < 60,
              "last success time in /metrics")
        check(metric('chessrelay_push_behind_seconds{round="1"}') == 0, "the host is up to date")
        check(metric('chessrelay_push_last_status{round="1"}') == 200, "last status 200")
        with open(os.path.join(export, "round-1", "games.pgn")) as f:
            check(f.read() == pgn, "export round-1/games.pgn equals /round/1.pgn")
        with open(os.path.join(export, "round-1", "game-1.pgn")) as f:
            check(f.read() == pgn, "export round-1/game-1.pgn (one board: the same game)")
        check_livechess_layout(export, pgn)
        rc = relay.stop()
        check(rc == 0, "relay exit status %s (log %s)" % (rc, relay.log.name))
        print("ok: %d pushes, last %d bytes" % (len(got), len(got[-1][4])))
    finally:
        relay.stop()
        srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])

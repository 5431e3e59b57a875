"""End to end: the round's results back to the pairing program (issue 29).
python3 relay_results.py BINARY

The relay plays round 5 of tests/data/pairings/oslo-open-r5.trf; board
DGT23164 (table 1) plays a fool's mate: the board ends it 0-1. Then:
1. /arbiter/results.trf: 401 without an arbiter's token; with one, the
   pairings file byte for byte, plus a "###" line naming table 1's result
   from the board, which no arbiter has confirmed yet.
2. An arbiter confirms table 1 (the same result again) and sets tables 2-4
   on games without a move: 1/2-1/2 (a draw not rated, D), 0-1 and 1-0
   (forfeits by FIDE 6.7: - and +). The download then has exactly the
   codes and points worked out here from the file's columns, and no "###".
   The export folder has no results.trf while table 5 is open.
3. Table 5's result: the round is over, round-5/results.trf appears in the
   export folder, equal to the download; `chessrelay pairings` reads it back
   with the same results.
4. kill -9 and a restart: the same file (the confirmations were journaled)."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from relay_ws import Relay, check, recv_until, wait_until  # noqa: E402

DATA = os.path.join(HERE, "..", "data")
TRF = os.path.join(DATA, "pairings", "oslo-open-r5.trf")
FEED = os.path.join(DATA, "pairings", "oslo-r5-table1-mate.feed")  # DGT23164 (table 1): 0-1 by mate
TOKEN = "results-e2e-chief-token"
AUTH = {"Authorization": "Bearer " + TOKEN}
# Round 5 by table: White's and Black's start ranks.
TABLES = {1: (1, 4), 2: (11, 2), 3: (5, 8), 4: (3, 6), 5: (7, 10)}
POINTS = {"1": 1.0, "+": 1.0, "W": 1.0, "=": 0.5, "D": 0.5}


def expected(trf, codes):
    """The file with round 5's codes put in by hand: column 139 (the round's
    result), points in 81-84 raised by the code's points."""
    out = []
    for line in trf.split("\n"):
        if line.startswith("001"):
            rank = int(line[4:8])
            if rank in codes:
                pts = float(line[80:84]) + POINTS.get(codes[rank], 0.0)
                line = line[:80] + "%4.1f" % pts + line[84:]
                line = line.ljust(138)[:138] + codes[rank] + line[139:]
        out.append(line)
    return "\n".join(out)


def download(relay):
    st, _, body = relay.http("/arbiter/results.trf", AUTH)
    return body if st == 200 else None


def action(ws, **kw):
    msg = {"op": "arbiter-action"}
    msg.update(kw)
    ws.send(msg)


def run(binary, tmp):
    with open(TRF, encoding="utf-8") as f:
        trf = f.read()
    shutil.copy(TRF, os.path.join(tmp, "pairings.trf"))
    cfg = os.path.join(tmp, "tournament.json")
    with open(cfg, "w") as f:
        json.dump({"event": "Oslo Chess Festival 2026 - Open A", "state_dir": "state",
                   "pairings": "pairings.trf", "export_dir": "export", "feeds": [FEED],
                   "tokens": [{"name": "chief", "role": "arbiter", "token": TOKEN}],
                   "boards": [{"board": "DGT23164", "table": 1}]}, f)
    args = ["serve", "--config", cfg, "--speed", "20", "--quiet"]
    relay = Relay(binary, args)
    try:
        check(relay.http("/arbiter/results.trf")[0] == 401, "results.trf without a token")
        games = {}

        def board_result():
            st, _, body = relay.http("/games.json")
            gs = json.loads(body) if st == 200 else []
            for g in gs:
                games[g["table"]] = g
            return games.get(1, {}).get("result", "*") != "*" and games[1]["result"]
        res1 = wait_until(board_result, "table 1's result from the board", 120)
        check(sorted(games) == [1, 2, 3, 4, 5], "the round's games: %s" % sorted(games))
        note = "### chessrelay: round 5 table 1: %s not confirmed by an arbiter\n" % res1
        got = wait_until(lambda: (lambda b: b if b and b.endswith(note) else None)(download(relay)),
                         "the unconfirmed result named in results.trf", 20)
        check(got == trf + note, "results.trf before any confirmation is the file plus the note")

        arb = relay.ws(AUTH)
        arb.send({"op": "arbiter"})
        recv_until(arb, lambda m: m.get("type") == "arbiter", "arbiter snapshot", 10)
        action(arb, game=games[1]["id"], action="result", result=res1, reason="scoresheets signed")
        action(arb, game=games[2]["id"], action="result", result="1/2-1/2")
        action(arb, game=games[3]["id"], action="result", result="0-1")
        action(arb, game=games[4]["id"], action="result", result="1-0")
        w1, b1 = {"1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("=", "=")}[res1]
        codes = {1: w1, 4: b1, 11: "D", 2: "D", 5: "-", 8: "+", 3: "+", 6: "-"}
        want = expected(trf, codes)
        got = wait_until(lambda: (lambda b: b if b == want else None)(download(relay)),
                         "results.trf with tables 1-4", 20)
        check("###" not in got, "no note left")
        out_file = os.path.join(tmp, "export", "round-5", "results.trf")
        check(not os.path.exists(out_file), "results.trf exported before the round is over")

        action(arb, game=games[5]["id"], action="result", result="1-0")
        codes.update({7: "+", 10: "-"})
        want = expected(trf, codes)
        wait_until(lambda: download(relay) == want, "results.trf with table 5", 20)

        def exported():
            try:
                with open(out_file, encoding="utf-8") as f:
                    return f.read()
            except OSError:
                return None
        check(wait_until(exported, "round-5/results.trf in the export folder", 20) == want,
              "the exported file differs from the download")
        back = subprocess.run([binary, "pairings", out_file, "--round", "5"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=30).stdout.decode()
        for t, r in ((1, res1), (2, "1/2-1/2"), (3, "--+"), (4, "+--"), (5, "+--")):
            check(re.search(r"^\s*%d\s.*\s%s\s*$" % (t, re.escape(r)), back, re.M),
                  "pairings read back, table %d: %s\n%s" % (t, r, back))

        # 4. A restart rebuilds the confirmations from the journal.
        relay.stop(signal.SIGKILL)
        relay = Relay(binary, args)
        wait_until(lambda: download(relay) == want, "results.trf after a restart", 60)
    finally:
        relay.stop()


def main(binary):
    tmp = tempfile.mkdtemp(prefix="cr_results_")
    try:
        run(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main(sys.argv[1])

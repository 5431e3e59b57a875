"""Threefold-repetition and 50-move claims end to end through real sockets,
with the relay killed (SIGKILL) and restarted on the same state folder in
the middle (run by ctest's e2e_arbiter_claims). `chessrelay replay claims.feed
--serve --arbiter-token T --state S` plays two boards: TF1 stops with Black
to play Ng8, which would make the start position stand the third time;
FM1 reaches 100 plies without capture or pawn move. Over /ws:
- Black claims threefold on TF1 writing Ng8 (9.2.1.1): the relay checks the
  position the move gives (3 times, correct); the arbiter upholds it.
- Black claims 50 moves on FM1 (9.3.2): correct, left pending.
- kill -9, restart: both claims are back with their check and decision,
  /arbiter/claim/N.html answers for both; the pending one is decided then.
- kill -9, restart: both decisions and results stand, the reports answer."""
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, recv_until, wait_until  # noqa: E402

TOKEN = "arb-claims-token"
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
FEED = os.path.join(SRC, "tests/data/feeds-arbiter/claims.feed")
AUTH = {"Authorization": "Bearer " + TOKEN}


def arbiter(r):
    arb = r.ws(AUTH)
    arb.send({"op": "arbiter"})
    snap = recv_until(arb, lambda m: m.get("type") == "arbiter", "the arbiter snapshot", 10)
    return arb, snap


def games_by_board(r):
    st, _, body = r.http("/arbiter/incidents.json", AUTH)
    check(st == 200, "incidents.json: %d" % st)
    import json
    return {g["board"]: g for g in json.loads(body)["games"] if g["plies"] > 0}


def wait_played(r):
    """Both boards at the end of the feed: 7 and 3 plies, clocks stopped."""
    def played():
        g = games_by_board(r)
        return g if (g.get("TF1", {}).get("plies") == 7 and g.get("FM1", {}).get("plies") == 3
                     and g["TF1"]["running"] == "-" and g["FM1"]["running"] == "-") else None
    return wait_until(played, "the feed to play (TF1 7 plies, FM1 3, clocks stopped)", 30)


def claims_of(snap):
    return {c["board"]: c for c in snap["claims"]}


def main(binary):
    state = tempfile.mkdtemp(prefix="cr_e2e_claims_")
    args = ["replay", FEED, "--serve", "--arbiter-token", TOKEN, "--speed", "50", "--state", state,
            "--quiet"]
    r = Relay(binary, args)
    try:
        g = wait_played(r)
        tf, fm = g["TF1"], g["FM1"]
        check(tf["repetitions"] == 2 and not tf["threefold"] and tf["side"] == "b",
              "TF1 before the claim: %s" % tf)
        check(fm["halfmove"] == 100 and fm["fifty_moves"] and fm["side"] == "b", "FM1: %s" % fm)
        arb, _ = arbiter(r)

        # Threefold on the move written (Ng8): the relay checks the position it gives.
        arb.send({"op": "arbiter-action", "game": tf["game"], "action": "claim", "claimant": "b",
                  "basis": "threefold", "move": "Ng8"})
        c = recv_until(arb, lambda m: m.get("type") == "claim" and m["claim"]["board"] == "TF1",
                     "the threefold claim")["claim"]
        check(c["basis"] == "threefold" and c["move"] == "Ng8" and c["correct"] is True
              and c["claimed_repetitions"] == 3 and c["decision"] == "pending" and c["ply"] == 7,
              "threefold claim: %s" % c)
        tf_id = c["id"]
        arb.send({"op": "arbiter-action", "game": tf["game"], "action": "decide", "decision": "draw",
                  "note": "threefold upheld"})
        recv_until(arb, lambda m: m.get("type") == "claim" and m["claim"]["id"] == tf_id
                 and m["claim"]["decision"] == "draw", "the threefold decision")

        # 50 moves on the board, left pending across the restart.
        arb.send({"op": "arbiter-action", "game": fm["game"], "action": "claim", "claimant": "b",
                  "basis": "fifty-moves"})
        c = recv_until(arb, lambda m: m.get("type") == "claim" and m["claim"]["board"] == "FM1",
                     "the 50-move claim")["claim"]
        check(c["basis"] == "fifty-moves" and c["move"] is None and c["correct"] is True
              and c["claimed_halfmove"] >= 100 and c["decision"] == "pending", "50-move claim: %s" % c)
        fm_id = c["id"]
        for cid in (tf_id, fm_id):
            check(r.http("/arbiter/claim/%d.html" % cid, AUTH)[0] == 200, "report %d" % cid)
        arb.close()
    finally:
        r.stop(signal.SIGKILL)

    # kill -9: both claims back, with their checks; the pending one decided now.
    r = Relay(binary, args)
    try:
        arb, snap = arbiter(r)
        cl = claims_of(snap)
        check(set(cl) == {"TF1", "FM1"}, "claims after the restart: %s" % snap["claims"])
        t, f = cl["TF1"], cl["FM1"]
        check(t["id"] == tf_id and t["decision"] == "draw" and t["correct"] is True and t["move"] == "Ng8"
              and t["claimed_repetitions"] == 3 and t["note"] == "threefold upheld",
              "the threefold claim after kill -9: %s" % t)
        check(f["id"] == fm_id and f["decision"] == "pending" and f["correct"] is True
              and f["claimed_halfmove"] >= 100, "the 50-move claim after kill -9: %s" % f)
        for cid, word in ((tf_id, "threefold upheld"), (fm_id, "Ra3")):
            st, _, html = r.http("/arbiter/claim/%d.html" % cid, AUTH)
            check(st == 200 and word in html, "report %d after kill -9: %d" % (cid, st))
        g = games_by_board(r)
        check(g["TF1"]["result"] == "1/2-1/2" and g["FM1"]["result"] == "*", "results: %s" % g)
        arb.send({"op": "arbiter-action", "game": g["FM1"]["game"], "action": "decide",
                  "decision": "draw", "note": "fifty moves upheld"})
        recv_until(arb, lambda m: m.get("type") == "claim" and m["claim"]["id"] == fm_id
                 and m["claim"]["decision"] == "draw", "the 50-move decision")
        arb.close()
    finally:
        r.stop(signal.SIGKILL)

    # kill -9 again: decisions, results and reports stand.
    r = Relay(binary, args)
    try:
        arb, snap = arbiter(r)
        cl = claims_of(snap)
        check(cl.get("TF1", {}).get("decision") == "draw" and cl.get("FM1", {}).get("decision") == "draw"
              and cl["FM1"]["note"] == "fifty moves upheld", "claims after the second kill: %s" % snap["claims"])
        g = games_by_board(r)
        check(g["TF1"]["result"] == "1/2-1/2" and g["FM1"]["result"] == "1/2-1/2", "results: %s" % g)
        st, _, html = r.http("/arbiter/claim/%d.html" % fm_id, AUTH)
        check(st == 200 and "fifty moves upheld" in html, "the 50-move report: %d" % st)
        st, _, pgn = r.http("/live.pgn")
        check(pgn.count('[Result "1/2-1/2"]') == 2, "live.pgn results: %s" % pgn)
        arb.close()
    finally:
        r.stop()
        shutil.rmtree(state, ignore_errors=True)
    print("ok: threefold (on the move written) and 50-move claims, decided before and after "
          "kill -9 restarts; reports answer")


if __name__ == "__main__":
    main(sys.argv[1])

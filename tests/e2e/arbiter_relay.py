"""Arbiter monitoring end to end against the real relay (run by
ctest's e2e_arbiter_relay): `chessrelay replay quickplay.feed --serve --arbiter-token T`
plays a quickplay finish; the two-minute mark is raised, a claim is refused,
made and decided through the arbiter channel, the claim report holds the
right position and moves, a viewer without the token cannot reach the
arbiter channel, a claim pending at a restart is back after it (and decided
then), an acknowledgement reaches every dashboard and is back after a
restart, and the incidents and the decided claim survive a restart."""
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, WSClosed, check, recv_until  # noqa: E402

TOKEN = "arb-e2e-token"
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
FEED = os.path.join(SRC, "tests/data/feeds-arbiter/quickplay.feed")
START_FEN = "3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 40"
FINAL_PLACEMENT = "3r1k2/5ppp/8/8/8/8/5PPP/3R1K2"
MOVES = "Kf1 Kf8 Ke1 Ke8 Rd2 Rd7 Rd1 Rd8 Kf1 Kf8".split()
AUTH = {"Authorization": "Bearer " + TOKEN}


def ctype(hdr):
    return {k.lower(): v for k, v in hdr.items()}.get("content-type", "")


def action(ws, **kw):
    msg = {"op": "arbiter-action"}
    msg.update(kw)
    ws.send(msg)


def main(binary):
    state = tempfile.mkdtemp(prefix="cr_e2e_arb_")
    args = ["replay", FEED, "--serve", "--arbiter-token", TOKEN, "--speed", "4", "--state", state, "--quiet"]
    r = Relay(binary, args)
    try:
        # No token, a wrong one, an untrusted WebSocket: no arbiter channel.
        check(r.http("/arbiter/incidents.json")[0] == 401, "incidents.json without a token")
        check(r.http("/arbiter/incidents.json", {"Authorization": "Bearer nope"})[0] == 401,
              "incidents.json with a wrong token")
        check(r.http("/arbiter/claim/1.html")[0] == 401, "claim report without a token")
        viewer = r.ws()
        viewer.send({"op": "arbiter"})
        m = viewer.recv()
        check(m["type"] == "error" and "not allowed" in m["error"], "viewer asked for the channel: %s" % m)
        viewer.send({"op": "arbiter-action", "game": 1, "action": "result", "result": "1-0"})
        m = viewer.recv()
        check(m["type"] == "error", "viewer action: %s" % m)
        viewer.send({"op": "subscribe", "round": "1"})

        arb = r.ws(AUTH)
        arb.send({"op": "arbiter"})
        snap = recv_until(arb, lambda m: m.get("type") == "arbiter", "arbiter snapshot", 10)
        check(isinstance(snap.get("aseq"), int), "snapshot aseq: %s" % snap)
        seen = [snap]
        two = recv_until(arb, lambda m: m.get("type") == "incident" and m["incident"]["kind"] == "two-minutes",
                       "the two-minute mark", seen=seen)
        inc = two["incident"]
        check(inc["color"] == "w" and inc["board"] == "QP1" and inc["white_ms"] < 120000, "two-minutes: %s" % inc)
        gid = two["game"]
        # The feed ends with the clock stopped after Black's 10th ply.
        recv_until(arb, lambda m: m.get("type") == "arbiter-state" and m["state"]["plies"] == 10
                 and m["state"]["running"] == "-", "the end of the feed", seen=seen)
        st = [m for m in seen if m.get("type") == "arbiter-state"][-1]["state"]
        check(st["under_two_minutes"]["w"] and not st["under_two_minutes"]["b"] and st["claim_window"],
              "state at the end: %s" % st)
        check(st["repetitions"] == 2, "the position stands for the second time: %s" % st["repetitions"])

        # Black has two minutes: refused. White claims (b): accepted.
        action(arb, game=gid, action="claim", claimant="b", basis="a")
        m = recv_until(arb, lambda m: m.get("type") == "arbiter-error", "the refusal")
        check("two minutes" in m["error"], "refusal: %s" % m)
        action(arb, game=gid, action="claim", claimant="w", basis="b")
        m = recv_until(arb, lambda m: m.get("type") == "claim", "the claim")
        claim = m["claim"]
        check(claim["decision"] == "pending" and claim["claimant"] == "w" and claim["basis"] == "b", "claim: %s" % claim)
        check(claim["fen"].startswith(FINAL_PLACEMENT + " w "), "frozen position: %s" % claim["fen"])
        check([x["san"] for x in claim["scoresheet"]] == MOVES, "scoresheet: %s" % claim["scoresheet"])
        check(claim["white_ms"] < 120000 and claim["black_ms"] >= 120000, "clocks at the claim: %s" % claim)
        check(claim["evidence"]["captures"] == 0 and claim["evidence"]["pawn_moves"] == 0, "evidence: %s" % claim["evidence"])
        check(claim["move"] is None and claim["correct"] is False and "claimed_repetitions" in claim
              and "claimed_halfmove" in claim, "D1 claim's check fields: %s" % claim)

        # An acknowledgement reaches every arbiter connection and is kept.
        st_, _, body = r.http("/arbiter/incidents.json", AUTH)
        two = [i for i in json.loads(body)["incidents"] if i["kind"] == "two-minutes"]
        check(st_ == 200 and two, "the two-minute incident in incidents.json")
        arb2 = r.ws(AUTH)
        arb2.send({"op": "arbiter"})
        recv_until(arb2, lambda m: m.get("type") == "arbiter", "a second dashboard's snapshot", 10)
        action(arb, game=gid, action="ack", alert=str(two[0]["seq"]))
        m = recv_until(arb2, lambda m: m.get("type") == "ack", "the acknowledgement on the other dashboard", 10)
        check(m["ack"]["alert"] == str(two[0]["seq"]) and m["ack"]["game"] == gid and m["ack"]["who"]
              and m["ack"]["wall"] > 0, "ack: %s" % m)
        arb2.close()

        # A restart with the claim pending: it is back, pending, with its report.
        arb.close()
        viewer.close()
        r.stop()
        r = Relay(binary, args)
        arb = r.ws(AUTH)
        arb.send({"op": "arbiter"})
        snap = recv_until(arb, lambda m: m.get("type") == "arbiter", "arbiter snapshot after the restart", 10)
        pending = [c for c in snap["claims"] if c["id"] == claim["id"]]
        check(pending and pending[0]["decision"] == "pending" and pending[0]["ply"] == claim["ply"],
              "the pending claim after the restart: %s" % snap["claims"])
        check(r.http(claim["report"], AUTH)[0] == 200, "the claim report after the restart")
        check([a["alert"] for a in snap.get("acks", [])] == [str(two[0]["seq"])],
              "the acknowledgement after the restart: %s" % snap.get("acks"))
        viewer = r.ws()
        viewer.send({"op": "subscribe", "round": "1"})

        action(arb, game=gid, action="decide", decision="draw", note="no winning attempts")
        m = recv_until(arb, lambda m: m.get("type") == "claim" and m["claim"]["decision"] == "draw", "the decision")
        # Viewers see the result.
        m = recv_until(viewer, lambda m: m.get("type") == "result" and m["game"] == gid, "the result for viewers")
        check(m["result"] == "1/2-1/2", "result: %s" % m)

        st_, hdr, html = r.http(claim["report"], AUTH)
        check(st_ == 200 and "text/html" in ctype(hdr), "report: %d" % st_)
        for san in ("Kf1", "Kf8", "Rd2", "Rd7"):
            check(san in html, "report lacks %s" % san)
        check("no winning attempts" in html, "report lacks the note")
        st_, _, pgn = r.http(claim["pgn"], AUTH)
        check(st_ == 200, "claim PGN: %d" % st_)
        check('[FEN "%s"]' % START_FEN in pgn, "PGN FEN: %s" % pgn[:400])
        check("40. Kf1" in pgn and "44. Kf1" in pgn and "Kf8" in pgn, "PGN moves: %s" % pgn)
        check(r.http(claim["report"])[0] == 401, "report without a token")

        st_, hdr, body = r.http("/arbiter/incidents.json", AUTH)
        check(st_ == 200 and "json" in ctype(hdr), "incidents.json: %d" % st_)
        data = json.loads(body)
        kinds = [i["kind"] for i in data["incidents"]]
        for k in ("two-minutes", "claim", "decision", "result"):
            check(k in kinds, "incidents.json lacks %s: %s" % (k, kinds))
        for i in data["incidents"]:
            for key in ("board", "game", "ply", "white_ms", "black_ms", "kind", "text"):
                check(key in i, "incident lacks %s: %s" % (key, i))
        n_before = len(data["incidents"])
        arb.close()
        viewer.close()
    finally:
        r.stop()

    # Restart on the same state: incidents restored, the result stays.
    r = Relay(binary, args)
    try:
        deadline = time.time() + 20
        while True:
            st_, _, body = r.http("/arbiter/incidents.json", AUTH)
            data = json.loads(body) if st_ == 200 else {"incidents": []}
            if len(data["incidents"]) >= n_before or time.time() > deadline:
                break
            time.sleep(0.2)
        kinds = [i["kind"] for i in data["incidents"]]
        check(len(data["incidents"]) == n_before, "after the restart %d incidents, before %d: %s"
              % (len(data["incidents"]), n_before, kinds))
        check(kinds.count("two-minutes") == 1, "two-minutes raised again after the restart: %s" % kinds)
        games = [g for g in data["games"] if g["board"] == "QP1"]
        check(games and games[0]["result"] == "1/2-1/2", "result after the restart: %s" % games)
        st_, _, html = r.http("/arbiter/claim/1.html", AUTH)
        check(st_ == 200 and "no winning attempts" in html, "the decided claim's report after the restart: %d" % st_)
    finally:
        r.stop()
        shutil.rmtree(state, ignore_errors=True)
    print("ok: two-minute mark, claim refused/made, ack shared and kept, restart with the claim pending, decided, report, "
          "no channel without a token, restart")


if __name__ == "__main__":
    main(sys.argv[1])

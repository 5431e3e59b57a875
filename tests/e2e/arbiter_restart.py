"""A restart changes nothing anyone can see (issue 24), run by
ctest's e2e_arbiter_restart: for each kind of arbiter action (result, take-back,
replace-move, a draw-offer mark, players, confirm-flag, a claim and its
decision, an acknowledgement), the relay plays a feed
(`replay FEED --serve --speed 1000 --state DIR`), the action goes over the
arbiter WebSocket, and the relay is restarted on the same --state, once
stopped cleanly (SIGTERM) and once killed (SIGKILL). After the restart
/live.pgn, /games.json, the arbiter snapshot and /arbiter/incidents.json are
byte for byte what the same relay served before it stopped, and what a relay
that never restarted serves (there, with the stamps of the wall clock set
aside: two runs act at different moments). The journal's results,
corrections and moves name the token's name as `who`. A 90+30 game keeps its
detected clock control over the restart, so a quickplay-finish claim is
refused after it for the same reason as before."""
import json
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, recv_until, wait_settled, wait_until  # noqa: E402

TOKEN = "arb-restart-token"
WHO = "chief"  # the token's name (tournament file)
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
INC15 = os.path.join(SRC, "tests/data/feeds-clocks/inc15.feed")  # 10 plies, open, 15+10
INC90 = os.path.join(SRC, "tests/data/feeds-clocks/inc90.feed")  # 13 plies, 1-0, 90+30
QUICK = os.path.join(SRC, "tests/data/feeds-arbiter/quickplay.feed")  # 10 plies, White under 2 min
AUTH = {"Authorization": "Bearer " + TOKEN}


def snapshot(r):
    """The arbiter channel's snapshot as a dashboard joining now gets it."""
    ws = r.ws(AUTH)
    try:
        ws.send({"op": "arbiter"})
        return recv_until(ws, lambda m: m.get("type") == "arbiter", "the arbiter snapshot")
    finally:
        ws.close()


def served(r):
    """What anyone sees: the live PGN, the games, the arbiter snapshot and
    incidents.json. No field of the snapshot is per connection (it is the
    same buffer for every dashboard), so it is compared whole."""
    out = {}
    for path, hdr in (("/live.pgn", None), ("/games.json", None), ("/arbiter/incidents.json", AUTH)):
        st, _, body = r.http(path, hdr)
        check(st == 200, "%s: %d" % (path, st))
        out[path] = body
    out["snapshot"] = json.dumps(snapshot(r), sort_keys=True)
    return out


# Stamps of the wall clock: when an arbiter acted or an incident was logged
# ("wall", "decided_wall" in claims), a game's last event ("ts", in µs: an
# arbiter's action is stamped with the moment it came), and the feed clock
# ("t"), whose epoch is the wall time the run began. Two runs differ there;
# a restart of one run does not (compared whole above).
WALL_KEYS = {"wall", "ts", "decided_wall", "t"}


def without_wall(text):
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in WALL_KEYS}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    try:
        return json.dumps(strip(json.loads(text)), sort_keys=True)
    except ValueError:
        return text  # the PGN has no wall-clock stamps


def settled(r, board, plies):
    """The feed has played: the board's game has its plies, and the relay
    has published it all (what it serves unchanged for 1.5 s: the
    snapshot's clocks are published once a second)."""
    games = wait_until(lambda: [g for g in snapshot(r)["games"] if g["board"] == board and g["plies"] == plies],
                       "%s to reach %d plies" % (board, plies), 30)
    wait_settled(lambda: served(r), "what the relay serves of %s" % board, 30)
    return games[0]["game"]


def quiet(r):
    """What the relay serves once the action's messages are out (every
    snapshot carries the last aseq, so equal snapshots over 1.5 s mean
    nothing is on its way)."""
    return wait_settled(lambda: served(r), "what the relay serves after the action", 20)


def act(r, gid, actions):
    """Each action over one arbiter connection, waiting for its effect."""
    ws = r.ws(AUTH)
    try:
        ws.send({"op": "arbiter"})
        snap = recv_until(ws, lambda m: m.get("type") == "arbiter", "the snapshot")
        for a in actions:
            a = dict(a)
            want = a.pop("_want")
            if a.get("action") == "ack" and a.get("alert") == "last":
                incs = [i for i in snapshot(r)["incidents"] if i["game"] == gid]
                a["alert"] = str(incs[-1]["seq"])
            msg = {"op": "arbiter-action", "game": gid}
            msg.update(a)
            ws.send(msg)
            m = recv_until(ws, lambda m: m.get("type") in (want, "arbiter-error"), "%s's answer" % a["action"])
            check(m["type"] == want, "%s: %s" % (a["action"], m))
        return snap["aseq"]
    finally:
        ws.close()


def journal_whos(state):
    """who of every command line the arbiter's actions journaled."""
    whos = []
    for name in sorted(os.listdir(state)):
        if name.startswith("journal-") and name.endswith(".feed"):
            for line in open(os.path.join(state, name), errors="replace"):
                if line.startswith("# cmd {"):
                    whos.append((json.loads(line[6:])["cmd"], json.loads(line[6:]).get("who")))
    return whos


def run(binary, tmp, name, feed, board, plies, actions, restart, after=None):
    """One run of a scenario: restart None (never), SIGTERM or SIGKILL.
    Returns what was served at the end, and before the restart if any."""
    state = os.path.join(tmp, "%s-%s" % (name, {None: "never", signal.SIGTERM: "term",
                                                signal.SIGKILL: "kill"}[restart]))
    cfg = os.path.join(tmp, "tournament.json")
    args = ["replay", feed, "--serve", "--config", cfg, "--speed", "1000", "--state", state, "--quiet"]
    r = Relay(binary, args)
    try:
        gid = settled(r, board, plies)
        aseq0 = act(r, gid, actions)
        before = quiet(r)
        if restart is None:
            extra = after(r, gid) if after else None
            return before, None, extra
        aseq = json.loads(before["snapshot"])["aseq"]
        check(aseq > aseq0 or not actions, "%s: the action sent no arbiter message" % name)
        r.stop(restart)
        r = Relay(binary, args)
        now = quiet(r)
        extra = after(r, gid) if after else None
        bad = [k for k in now if now[k] != before[k]]
        if bad:
            for k in bad:
                print("--- before %s (%s)\n%s\n--- after\n%s" % (k, name, before[k][:3000], now[k][:3000]))
            fail("%s: a restart (%s) changed %s" % (name, restart.name, ", ".join(bad)))
        whos = [w for c, w in journal_whos(state) if w != WHO]
        check(not whos, "%s: journaled commands not by the token's name: %s" % (name, journal_whos(state)))
        return now, before, extra
    finally:
        r.stop()


SCENARIOS = [
    # name, feed, board, plies, actions
    ("result", INC15, "C15", 10, [
        {"action": "result", "result": "1-0", "reason": "resignation", "_want": "incident"},
        {"action": "ack", "alert": "last", "_want": "ack"}]),
    ("take-back", INC15, "C15", 10, [
        {"action": "take-back", "plies": 6, "reason": "knocked pieces", "_want": "incident"}]),
    ("replace-move", INC15, "C15", 10, [
        {"action": "replace-move", "ply": 9, "move": "Bg4", "reason": "scoresheet", "_want": "incident"}]),
    ("replace-earlier", INC15, "C15", 10, [
        {"action": "replace-move", "ply": 4, "move": "Nf3", "reason": "scoresheet", "_want": "incident"}]),
    ("draw-offer", INC15, "C15", 10, [
        {"action": "draw-offer", "ply": 7, "offered": True, "_want": "incident"}]),
    ("players", INC15, "C15", 10, [
        {"action": "players", "white": "Carlsen, Magnus", "black": "Ding, Liren", "_want": "arbiter-state"}]),
    ("confirm-flag", INC15, "C15", 10, [
        {"action": "confirm-flag", "color": "b", "reason": "flag seen on the clock", "_want": "incident"}]),
    ("claim-draw", QUICK, "QP1", 10, [
        {"action": "claim", "claimant": "w", "basis": "b", "_want": "claim"},
        {"action": "decide", "decision": "draw", "note": "no winning attempts", "_want": "claim"}]),
    ("claim-rejected", QUICK, "QP1", 10, [
        {"action": "claim", "claimant": "w", "basis": "a", "_want": "claim"},
        {"action": "decide", "decision": "rejected", "added_ms": 120000, "_want": "claim"}]),
    ("claim-pending", QUICK, "QP1", 10, [
        {"action": "claim", "claimant": "w", "basis": "b", "_want": "claim"}]),
]


def refused_claim(r, gid):
    """A D1 claim in the 90+30 game: refused, and why."""
    ws = r.ws(AUTH)
    try:
        ws.send({"op": "arbiter"})
        recv_until(ws, lambda m: m.get("type") == "arbiter", "the snapshot")
        ws.send({"op": "arbiter-action", "game": gid, "action": "claim", "claimant": "b", "basis": "a"})
        return recv_until(ws, lambda m: m.get("type") in ("arbiter-error", "claim"), "the claim's answer")
    finally:
        ws.close()


def main(binary):
    tmp = tempfile.mkdtemp(prefix="cr_e2e_arbrestart_")
    try:
        with open(os.path.join(tmp, "tournament.json"), "w") as f:
            json.dump({"event": "Restart test", "tokens": [{"name": WHO, "token": TOKEN, "role": "arbiter"}]}, f)
        only = os.environ.get("CR_ARB_RESTART_ONLY")
        for name, feed, board, plies, actions in SCENARIOS:
            if only and name != only:
                continue
            never, _, _ = run(binary, tmp, name, feed, board, plies, actions, None)
            for sig in (signal.SIGTERM, signal.SIGKILL):
                now, _, _ = run(binary, tmp, name, feed, board, plies, actions, sig)
                bad = [k for k in now if without_wall(now[k]) != without_wall(never[k])]
                if bad:
                    for k in bad:
                        print("--- never restarted %s (%s)\n%s\n--- restarted\n%s"
                              % (k, name, without_wall(never[k])[:3000], without_wall(now[k])[:3000]))
                    fail("%s: after a restart (%s) %s differ from a run that never restarted"
                         % (name, sig.name, ", ".join(bad)))
            print("ok: %s: the same after SIGTERM and SIGKILL restarts as never restarted" % name)
        if not only or only == "clock-control":
            # The detected controls stay: 90+30 (a game that ended 1-0), and
            # 15+10 in an open game, where a D1 claim is refused for the
            # increment after a restart as before it.
            for feed, board, plies, bonus in ((INC90, "C90", 13, 30000), (INC15, "C15", 10, 10000)):
                never = run(binary, tmp, "clock-%s" % board, feed, board, plies, [], None, refused_claim)
                if board == "C15":  # C90's game is over: refused for that
                    check(never[2]["type"] == "arbiter-error" and "an increment of 10 s" in never[2]["error"],
                          "the D1 claim, never restarted: %s" % (never[2],))
                for sig in (signal.SIGTERM, signal.SIGKILL):
                    now, _, after = run(binary, tmp, "clock-%s" % board, feed, board, plies, [], sig, refused_claim)
                    games = [g for g in json.loads(now["snapshot"])["games"] if g["board"] == board]
                    check(games and (games[0]["clock_mode"], games[0]["bonus_ms"]) == ("increment", bonus),
                          "%s: clock control after a restart (%s): %s" % (board, sig.name, games))
                    check(after["type"] == never[2]["type"] and after["error"] == never[2]["error"],
                          "%s: the D1 claim after a restart (%s): %s, never restarted: %s"
                          % (board, sig.name, after, never[2]))
            print("ok: clock-control: 90+30 and 15+10 detected and kept over SIGTERM and SIGKILL restarts, "
                  "a D1 claim refused for the increment after them")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("arbiter_restart: ok")


if __name__ == "__main__":
    main(sys.argv[1])

"""End to end: the relay takes its pairings from a FIDE TRF file.
python3 relay_pairings.py BINARY

1. The relay starts with the file and no board: the round's games are there
   (WebSocket list and snapshots, /games.json, /live.pgn) before any move.
2. A venue agent replays two boards' feeds into it: their moves land in the
   games of their tables (the tournament file ties the serials to tables),
   and no other game appears.
3. The file is rewritten (a name and a rating corrected on a game with
   moves, a late pairing added): viewers get the tag and game events, the
   moves stay.
4. A broken rewrite is reported (log with file:line:column, /metrics) and
   the pairings stay as they were.
5. kill -9 and a restart (the file still broken): the same games, no
   duplicates; a good file afterwards is applied again; a restart without
   the file keeps the journaled pairings' games."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from relay_ws import Games, Relay, WSClosed, check, fail, moves_of_pgn, wait_until  # noqa: E402

DATA = os.path.join(HERE, "..", "data")
TRF = os.path.join(DATA, "pairings", "oslo-open-r5.trf")
FEED1 = os.path.join(DATA, "feeds", "p01.feed")  # board DGT23164 -> table 1
FEED2 = os.path.join(DATA, "feeds", "p02.feed")  # board T16.2 -> table 2
TOKEN = "agent-e2e-pairings-token"

# Round 5 of oslo-open-r5.trf, by table: White, Black.
ROUND5 = {1: ("Lindqvist, Erik", "Nováková, Jana"), 2: ("Nilsen, Petter", "Ødegård, Øystein"),
          3: ("Schmidt, Lukas", "Berg, Anders"), 4: ("Kowalski, Marek", "García López, Pablo"),
          5: ("Ivanova, Darya", "Haugen, Ingrid")}


wait = wait_until  # relay_ws.py


def write_file(path, text):
    """As pairing programs and editors often do: a new file renamed over."""
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def games_json(relay):
    st, _, body = relay.http("/games.json")
    check(st == 200, "/games.json: %d" % st)
    return json.loads(body)


def by_table(games):
    out = {}
    for g in games:
        check(g["round"] == "5", "a game outside round 5: %r" % g)
        check(g["table"] not in out, "two games at table %s: %r" % (g["table"], games))
        out[g["table"]] = g
    return out


def essential(games):
    keys = ("id", "round", "board", "table", "white", "black", "white_elo", "black_elo",
            "white_title", "black_title", "white_fed", "black_fed", "plies", "result", "last")
    return sorted(tuple(g.get(k) for k in keys) for g in games)


def game_moves(relay, gid):
    st, _, pgn = relay.http("/game/%d.pgn" % gid)
    check(st == 200, "/game/%d.pgn: %d" % (gid, st))
    return moves_of_pgn(pgn)[0]


def metric(relay, prefix):
    st, _, text = relay.http("/metrics")
    check(st == 200, "/metrics: %d" % st)
    for line in text.splitlines():
        if line.startswith(prefix):
            return line
    return None


def drain(ws, games, log, quiet=0.3):
    """Everything the relay sent so far, applied and logged."""
    while True:
        try:
            m = ws.recv(timeout=quiet)
        except TimeoutError:
            return
        games.apply(m)
        log.append(m)


def main(binary):
    tmp = tempfile.mkdtemp(prefix="cr_pairings_")
    try:
        run(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(binary, tmp):
    pairings = os.path.join(tmp, "pairings.trf")
    with open(TRF, encoding="utf-8") as f:
        trf = f.read()
    write_file(pairings, trf)
    cfg = os.path.join(tmp, "tournament.json")
    with open(cfg, "w") as f:
        json.dump({"event": "Oslo Chess Festival 2026 - Open A", "state_dir": "state",
                   "pairings": "pairings.trf",
                   "tokens": [{"name": "room a", "role": "agent", "token": TOKEN}],
                   "boards": [{"board": "DGT23164", "table": 1}, {"board": "T16.2", "table": 2}]}, f)
    args = ["serve", "--config", cfg]
    relay = Relay(binary, args)

    # 1. The pairings before any board.
    ws = relay.ws()
    ws.send({"op": "list"})
    lst = ws.recv()
    check(lst["type"] == "games", "list: %r" % lst)
    listed = by_table(lst["games"])
    check(sorted(listed) == [1, 2, 3, 4, 5], "WebSocket list: tables %s" % sorted(listed))
    for t, (w, b) in ROUND5.items():
        check((listed[t]["white"], listed[t]["black"]) == (w, b), "table %d: %r" % (t, listed[t]))
        check(listed[t]["plies"] == 0 and not listed[t]["online"], "table %d before any board: %r"
              % (t, listed[t]))
    check(listed[1]["white_elo"] == 2618 and listed[1]["white_title"] == "GM" and
          listed[1]["white_fed"] == "SWE" and listed[1]["black_title"] == "WGM",
          "table 1 rating/title/federation: %r" % listed[1])
    check(listed[1]["board"] == "DGT23164" and listed[3]["board"] == "3", "boards of the tables")
    ws.send({"op": "subscribe", "round": "5"})
    seen = Games()
    log = []
    snaps = [ws.recv() for _ in range(5)]
    for m in snaps:
        check(m["type"] == "snapshot", "subscribe: %r" % m)
        seen.apply(m)
        tags = m["game"]["tags"]
        t = m["game"]["table"]
        check((tags["White"], tags["Black"], tags["Round"]) == (ROUND5[t][0], ROUND5[t][1], "5"),
              "snapshot tags of table %d: %r" % (t, tags))
    check(by_table(games_json(relay)).keys() == listed.keys(), "/games.json = the list")
    st, _, live = relay.http("/live.pgn")
    check(st == 200 and live.count("[Event ") == 5 and '[White "Lindqvist, Erik"]' in live and
          '[WhiteTitle "GM"]' in live and '[Round "5"]' in live, "/live.pgn before the first move")
    ids = {t: g["id"] for t, g in listed.items()}
    # /pairings.json: the earlier rounds, forfeits and byes for the standings.
    pj = wait(lambda: json.loads(relay.http("/pairings.json")[2]), "/pairings.json not null", 10)
    check(len(pj["rounds"]) == 5 and len(pj["players"]) == 11 and len(pj["games"]) == 25,
          "/pairings.json: %d rounds, %d players, %d games" % (len(pj["rounds"]), len(pj["players"]), len(pj["games"])))
    check({"round": "1", "name": "Nilsen, Petter", "kind": "U"} in pj["byes"], "/pairings.json: the round-1 bye")
    check(any(g["round"] == "2" and g["white"] == "García López, Pablo" and g["result"] == "+--"
              for g in pj["games"]), "/pairings.json: the round-2 forfeit")

    # 2. Two boards come through a venue agent.
    agent = subprocess.run([binary, "agent", "--to", "ws://127.0.0.1:%d/agent" % relay.port, "--token",
                            TOKEN, "--id", "room-a", "--feed", FEED1, "--feed", FEED2, "--speed", "1000",
                            "--state", os.path.join(tmp, "agent"), "--exit-at-end"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
    check(agent.returncode == 0, "agent: status %d\n%s" % (agent.returncode, agent.stdout[-2000:]))
    expect = {}
    for t, feed in ((1, FEED1), (2, FEED2)):
        out = subprocess.run([binary, "replay", feed], stdout=subprocess.PIPE, check=True, timeout=60)
        expect[t] = moves_of_pgn(out.stdout.decode())[0]
        check(len(expect[t]) > 40, "replay %s: %d plies" % (feed, len(expect[t])))

    def boards_done():
        g = by_table(games_json(relay))
        return g if all(g[t]["plies"] == len(expect[t]) for t in (1, 2)) else None

    tables = wait(boards_done, "the boards' moves in the games of tables 1 and 2", 60)
    check(len(tables) == 5, "the boards made games of their own: %r" % sorted(tables))
    for t in (1, 2):
        check(tables[t]["id"] == ids[t], "table %d: game %d, not the pairings' %d" % (t, tables[t]["id"], ids[t]))
        check((tables[t]["white"], tables[t]["black"]) == ROUND5[t],
              "table %d: the board's own names took over: %r" % (t, tables[t]))
        check(game_moves(relay, ids[t]) == expect[t], "table %d: moves differ from replay" % t)
    moves_before = {t: game_moves(relay, ids[t]) for t in (1, 2)}
    drain(ws, seen, log)
    check(not seen.errors, "protocol errors: %s" % seen.errors[:5])
    check(seen.games[ids[1]]["moves"] == expect[1], "the viewer's game of table 1")
    del log[:]

    # 3. The pairing program corrects a name and a rating, and pairs a late entry.
    changed = trf.replace("Lindqvist, Erik   ", "Lindqvist, Eirik  ", 1).replace("2618 SWE", "2622 SWE", 1)
    changed = changed.replace(
        "1519999 2008/10/10  0.0   11     4 w 0     6 b -  0000 - Z     7 w 0  0000 - U",
        "1519999 2008/10/10  0.0   11     4 w 0     6 b -  0000 - Z     7 w 0    12 b  ")
    check(changed.count("Eirik") == 1 and "   12 b  " in changed, "test data: the edits apply")
    changed += ("001   12 m    Late, Larry                       1800 NOR     1599999 2001/01/01"
                "  0.0   12  0000 - Z  0000 - Z  0000 - Z  0000 - Z     9 w  \n")
    write_file(pairings, changed)
    tables = wait(lambda: (lambda g: g if len(g) == 6 and g[1]["white"] == "Lindqvist, Eirik" else None)(
        by_table(games_json(relay))), "the changed pairings in /games.json")
    check(tables[1]["white_elo"] == 2622, "table 1 rating: %r" % tables[1])
    # Published with the loop's figures right after the games' events: waited for.
    wait(lambda: any(p["name"] == "Late, Larry" for p in json.loads(relay.http("/pairings.json")[2])["players"]),
         "/pairings.json after the re-import", 10)
    check((tables[6]["white"], tables[6]["black"], tables[6]["plies"]) == ("Late, Larry", "Olsen, Kristian", 0),
          "the late pairing at table 6: %r" % tables[6])
    for t in (1, 2):
        check(tables[t]["plies"] == len(expect[t]) and game_moves(relay, ids[t]) == moves_before[t],
              "table %d: moves changed by the re-import" % t)
    drain(ws, seen, log, quiet=1.0)
    tag_events = [(m["name"], m["value"]) for m in log if m["type"] == "tag" and m["game"] == ids[1]]
    check(("White", "Lindqvist, Eirik") in tag_events and ("WhiteElo", "2622") in tag_events,
          "tag events of table 1: %r" % tag_events)
    new_games = [m["game"] for m in log if m["type"] == "game"]
    check(len(new_games) == 1 and new_games[0]["table"] == 6 and
          new_games[0]["tags"]["White"] == "Late, Larry", "a game event for table 6: %r" % new_games)
    check(seen.games[ids[1]]["moves"] == expect[1], "the viewer's moves of table 1 after the tags")
    check(not [m for m in log if m["type"] in ("correction", "result") and m["game"] in ids.values()],
          "the re-import retracted moves or set a result")

    # 4. A broken rewrite: reported, the pairings stay.
    before = essential(games_json(relay))
    write_file(pairings, changed.replace("2622 SWE", "26x2 SWE", 1))
    err_line = wait(lambda: metric(relay, "chessrelay_pairings_error{"), "the error in /metrics")
    check('line="14",column="49"' in err_line and "26x2" in err_line, "/metrics: %s" % err_line)
    check(metric(relay, "chessrelay_pairings_file_ok ") == "chessrelay_pairings_file_ok 0", "file_ok 0")
    relay.log.flush()
    with open(relay.log.name, errors="replace") as f:
        relay_log = f.read()
    check("pairings.trf:14:49: rating" in relay_log, "the log names file:line:column")
    time.sleep(1.5)
    check(essential(games_json(relay)) == before, "a bad file changed the games")

    # 5. kill -9, restart with the file still broken: the same games.
    pgn_before = relay.http("/round/5.pgn")[2]
    relay.stop(signal.SIGKILL)
    relay = Relay(binary, args)
    after = games_json(relay)
    check(len(after) == 6, "%d games after the restart (duplicates?)" % len(after))
    check(essential(after) == before, "games differ after kill -9 + restart:\n%s\n%s" % (before, essential(after)))
    check(relay.http("/round/5.pgn")[2] == pgn_before, "/round/5.pgn differs after the restart")
    check(metric(relay, "chessrelay_pairings_file_ok ") == "chessrelay_pairings_file_ok 0",
          "the broken file is reported after the restart too")
    # Fixed, with one more change: applied on top of the journaled pairings.
    write_file(pairings, changed.replace("2198 NOR", "2205 NOR", 1))
    tables = wait(lambda: (lambda g: g if g[3]["black_elo"] == 2205 else None)(by_table(games_json(relay))),
                  "the fixed file after the restart")
    check(len(tables) == 6 and tables[1]["plies"] == len(expect[1]), "after the fix: %r" % sorted(tables))
    check(metric(relay, "chessrelay_pairings_file_ok ") == "chessrelay_pairings_file_ok 1", "file_ok 1")
    final = essential(games_json(relay))
    relay.stop(signal.SIGKILL)
    relay = Relay(binary, args)
    check(essential(games_json(relay)) == final, "games differ after the second restart")
    relay.stop()
    # Started without the file by mistake: the journaled pairings keep their games.
    cfg2 = os.path.join(tmp, "no-pairings.json")
    with open(cfg) as f:
        t = json.load(f)
    del t["pairings"]
    with open(cfg2, "w") as f:
        json.dump(t, f)
    relay = Relay(binary, ["serve", "--config", cfg2])
    check(essential(games_json(relay)) == final, "games differ after a restart without the file")
    rc = relay.stop()
    check(rc == 0, "relay exit status %s" % rc)
    print("ok: pairings before the boards, %d + %d plies in their games, re-import, bad file, restarts"
          % (len(expect[1]), len(expect[2])))


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except WSClosed as e:
        fail("WebSocket closed: %s" % e)

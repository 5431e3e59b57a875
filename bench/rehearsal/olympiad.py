"""The rehearsal's round: N boards of an Olympiad team event (matches of 4
boards), its TRF pairings file with teams, and per board a noisy feed of a
real recorded game (tools/feedgen --games: lifted pieces, captures in either
order, slides, knocks, clocks), cut at the round's end; the feeds dealt to K
venue agents in blocks of tables. One board goes silent for 10 plies and
comes back with its own memory (the DGT log the driver replays after a
reconnection, docs/boards.md): `disconnect` while it is silent, then
`connect` and the moves it logged, stamped with their arrival, in a burst.

The expected game of each board is what `chessrelay replay` (the same
inference, offline, no fault) makes of its feed; it is checked against the
recorded game it was made from (the moves of the real game, cut where the
feed ends), and a board where they differ is reported."""
import os
import random
import re
import subprocess

SRC = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

NATIONS = ["Uzbekistan UZB", "India IND", "United States USA", "China CHN", "Netherlands NED",
           "Germany GER", "Poland POL", "Armenia ARM", "Azerbaijan AZE", "France FRA", "Norway NOR",
           "Hungary HUN", "Serbia SRB", "Spain ESP", "Ukraine UKR", "Bosnia and Herzegovina BIH",
           "Georgia GEO", "Romania ROU", "Peru PER", "Iceland ISL", "Mongolia MGL", "Kenya KEN"]
FIRST = ["Nodirbek", "Arjun", "Fabiano", "Wesley", "Anish", "Vincent", "Richard", "Levon", "Wei",
         "Ju", "Hou", "Aleksandra", "Mariya", "Nana", "Harika", "Bibisara", "Jorden", "Divya"]
LAST = ["Abdusattorov", "Erigaisi", "Caruana", "So", "Giri", "Keymer", "Rapport", "Aronian", "Yi",
        "Wenjun", "Yifan", "Goryachkina", "Muzychuk", "Dzagnidze", "Dronavalli", "Assaubayeva",
        "van Foreest", "Deshmukh"]


def real_games():
    """SAN games of real play in the repository: the classics and the one-board
    sample feeds' games (online daily games), one per line."""
    games = []
    for line in open(os.path.join(SRC, "tests/data/games/classics.san")):
        if line.strip() and not line.startswith("#"):
            games.append(line.split())
    feeds = os.path.join(SRC, "tests/data/feeds")
    for name in sorted(os.listdir(feeds)):
        if re.match(r"p\d+\.expected$", name):
            for line in open(os.path.join(feeds, name)):
                if line.strip() and "\t" not in line:
                    games.append(line.split())
    return [g for g in games if len(g) >= 30]


def trf_player(rank, name, title, rating, fed, opp, colour):
    return ("001 %4d m%3s %-33s %4d %3s %11d %10s %4s %4d  %4d %s  " %
            (rank, title, name[:33], rating, fed, 10000000 + rank, "2000/01/01", "0.0", rank, opp,
             colour)).rstrip() + " "


def make_trf(path, boards, rng):
    """Matches of 4 boards: match m is team 2m against team 2m+1, board k of
    the match is table 4m+k+1; the home team has White on boards 1 and 3.
    Start ranks run match by match, so the TRF's table order (C.04.2: the
    pairs' better start rank in round 1) is the match order."""
    matches = (boards + 3) // 4
    teams, players = [], []
    for t in range(2 * matches):
        nation = NATIONS[t % len(NATIONS)]
        country, fed = nation.rsplit(" ", 1)
        teams.append(("%s %d" % (country, t // len(NATIONS) + 1) if t >= len(NATIONS) else country,
                      fed))
    lines = ["012 Rehearsal Olympiad %d boards" % boards, "022 127.0.0.1", "042 2026/12/02",
             "092 Team Swiss (Olympiad)", "XXR 11"]
    table_of = {}
    for m in range(matches):
        home, away = 2 * m, 2 * m + 1
        nb = min(4, boards - 4 * m)
        for side, team in ((0, home), (1, away)):
            ranks = [8 * m + 4 * side + k + 1 for k in range(nb)]
            lines.append("013 %-32s%s" % (teams[team][0][:32], " ".join("%4d" % r for r in ranks)))
        for k in range(nb):
            a, b = 8 * m + k + 1, 8 * m + 4 + k + 1
            home_white = k % 2 == 0
            for rank, opp, is_home in ((a, b, True), (b, a, False)):
                team = teams[home if is_home else away]
                colour = "w" if is_home == home_white else "b"
                name = "%s, %s" % (rng.choice(LAST), rng.choice(FIRST))
                players.append(trf_player(rank, name, rng.choice(["GM", "IM", "FM", "GM"]),
                                          rng.randint(2300, 2800), team[1], opp, colour))
            table_of[4 * m + k + 1] = (teams[home][0], teams[away][0])
    with open(path, "w") as f:
        f.write("\n".join(lines[:5] + sorted(players) + lines[5:]) + "\n")
    return table_of


def feed_lines(path):
    out = []
    for line in open(path):
        f = line.split(None, 2)
        if len(f) >= 3 and not line.startswith("#"):
            out.append((int(f[0]), f[2].rstrip("\n")))
    return out


def silent(lines, done, after, plies):
    """The board silent from ply AFTER's snapshot to ply AFTER+PLIES's, then
    back with its memory: `disconnect` 3 s into the silence (the driver's
    "not responding"), `connect` at its end, the logged changes (pos lines)
    stamped then, clock readings of the silence lost."""
    a, b = done[after], done[after + plies]
    out, held = [], []
    for t, rest in lines:
        if a < t < b:
            if rest.startswith("pos "):
                held.append(rest)
            continue
        if t >= b and held is not None:
            out.append((a + 3000, "disconnect"))
            out.append((b, "connect"))
            out += [(b, r) for r in held]
            held = None
        out.append((t, rest))
    return out, (a, b)


def replay_events(binary, feed):
    """(board -> final moves, (board, ply) -> feed ms of the snapshot that completed it)."""
    p = subprocess.run([binary, "replay", "--events", feed], capture_output=True, text=True,
                       check=True)
    done = {}
    for line in p.stderr.splitlines():
        f = line.split()
        if len(f) < 3 or f[2] != "move":
            continue
        kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
        done[(f[1], int(kv["ply"]))] = int(f[0]) - int(kv.get("delay", "0"))
    moves = {}
    for block in re.split(r"\n(?=\[Event )", p.stdout):
        m = re.search(r'^\[Board "([^"]*)"\]', block, re.M)
        body = re.sub(r'^\[\w+ "(?:[^"\\]|\\.)*"\]$', "", block, flags=re.M)
        body = re.sub(r"\{[^}]*\}", " ", body)
        toks = [t for t in body.split() if not re.match(r"^(\d+\.+|\*|1-0|0-1|1/2-1/2)$", t)]
        if m and toks:
            moves.setdefault(m.group(1), []).extend(toks)
    return moves, done


def make_round(binary, feedgen, tmp, boards, agents, play_ms, silent_board, seed=26):
    """Writes tmp/round.trf and tmp/agent-K.feed; returns the round's facts."""
    rng = random.Random(seed)
    games = real_games()
    gfile = os.path.join(tmp, "games.san")
    with open(gfile, "w") as f:
        f.write("\n".join(" ".join(g) for g in games) + "\n")
    gen = os.path.join(tmp, "gen")
    subprocess.run([feedgen, "--games", gfile, "--out", gen, "--count", str(boards), "--seed",
                    str(seed)], check=True, stdout=subprocess.DEVNULL)
    teams = make_trf(os.path.join(tmp, "round.trf"), boards, rng)
    per_board, silence = {}, None
    for b in range(1, boards + 1):
        lines = [(t, r) for t, r in feed_lines(os.path.join(gen, "g%04d.feed" % b))
                 if not r.startswith("meta ")]
        start = rng.randint(0, 20000)  # the tables start within 20 s of each other
        lines = [(t + start, r) for t, r in lines if t + start <= play_ms]
        # Cut after a clock press (a move done): a board cut mid-move would
        # stand half-moved after its feed ends, and the live relay, whose
        # clock goes on, would in the end take it as a gap that the offline
        # replay, ending with the feed, never sees.
        last = max((i for i, (_, r) in enumerate(lines) if r.startswith("clock ")), default=-1)
        per_board[b] = lines[:last + 1]
    # The silent board: its ply completion times from an offline replay.
    if silent_board:
        one = os.path.join(tmp, "silent-src.feed")
        write_feed(one, {silent_board: per_board[silent_board]})
        _, done = replay_events(binary, one)
        plies = {p: t for (bd, p), t in done.items() if bd == str(silent_board)}
        if plies and max(plies) >= 14:
            per_board[silent_board], silence = silent(per_board[silent_board], plies, 3, 10)
        else:
            silent_board = 0
    feeds = []
    for k in range(agents):
        mine = {b: per_board[b] for b in range(1, boards + 1) if (b - 1) * agents // boards == k}
        path = os.path.join(tmp, "agent-%d.feed" % (k + 1))
        write_feed(path, mine)
        feeds.append((path, sorted(mine)))
    expected, snap = {}, {}
    for path, _ in feeds:
        moves, done = replay_events(binary, path)
        expected.update(moves)
        snap.update(done)
    real = {}
    for b in range(1, boards + 1):
        exp = [l.split() for l in open(os.path.join(gen, "g%04d.expected" % b)) if l.strip()]
        real[str(b)] = exp[0] if exp else []
    differ = [b for b, m in expected.items() if real.get(b, [])[:len(m)] != m]
    return {"feeds": feeds, "expected": expected, "snap": snap, "teams": teams,
            "silent": (silent_board, silence), "offline_vs_real": sorted(differ, key=int)}


def write_feed(path, per_board):
    """One feed file of several boards, lines in time order (a board's own in its order)."""
    rows = [(t, b, i, rest) for b, lines in per_board.items() for i, (t, rest) in enumerate(lines)]
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    with open(path, "w") as f:
        for t, b, _, rest in rows:
            f.write("%d %s %s\n" % (t, b, rest))

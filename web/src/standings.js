// Standings, crosstable and team standings of an event, computed from the
// games the relay lists (every round's results and players) and the
// pairings file the relay publishes (/pairings.json: earlier rounds, byes,
// forfeits). Pure: node tests it. Points: 1 a win, ½ a draw; unfinished
// games count nothing yet.

const SCORE = { '1-0': [1, 0], '0-1': [0, 1], '1/2-1/2': [0.5, 0.5] };

function roundOrder(a, b) {
  const na = Number(a), nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return String(a).localeCompare(String(b));
}

// Points of a pairings file's bye (cr/pairings.h): pairing-allocated and
// full-point byes and byes scored as a forfeit win 1, half-point ½, absent 0.
const BYE_POINTS = { U: 1, F: 1, '+': 1, H: 0.5, Z: 0, '-': 0 };
// Forfeits as the pairings file writes them: [White, Black] points.
const FORFEIT = { '+--': [1, 0], '--+': [0, 1], '---': [0, 0] };

// The games to count: the live games merged with the pairings file's
// (/pairings.json, docs/protocol.md). A pairings board and a live game of the
// same round between the same two players are one game: the live result
// when it has one, else the file's (so a round played before the relay
// started counts, and an unplayed round of the file takes the live result).
// Live games the file does not list are kept, unless neither player is in
// the file's list of players: a spare board's game (players from outside
// the tournament) is not the tournament's.
export function mergeGames(games, pairings) {
  if (!pairings || !Array.isArray(pairings.games)) return games.map((g) => ({ ...g }));
  const entrants = new Set((Array.isArray(pairings.players) ? pairings.players : []).map((p) => p.name));
  const outsider = (g) => entrants.size > 0 && !entrants.has(g.white) && !entrants.has(g.black);
  const key = (round, a, b) => `${round}|${[a, b].sort().join('|')}`;
  const live = new Map();
  for (const g of games) {
    if (g.white && g.black && g.round !== null && g.round !== undefined) live.set(key(String(g.round), g.white, g.black), g);
  }
  const out = [];
  const used = new Set();
  for (const pg of pairings.games) {
    const k = key(String(pg.round), pg.white, pg.black);
    const g = live.get(k);
    if (g && !used.has(g)) {
      used.add(g);
      const liveDone = SCORE[g.result];
      out.push({ ...g, result: liveDone ? g.result : (pg.result && pg.result !== '*' ? pg.result : g.result) });
    } else {
      out.push({ round: String(pg.round), white: pg.white, black: pg.black, result: pg.result || '*' });
    }
  }
  for (const g of games) if (!used.has(g) && !outsider(g)) out.push({ ...g });
  return out;
}

// games: [{round, white, black, result, whiteElo, blackElo, whiteFed,
// blackFed, whiteTitle, blackTitle, whiteTeam, blackTeam}]; pairings: the
// relay's /pairings.json or null (its players, results, forfeits and byes
// are merged in: mergeGames). Returns {rounds, players}: players ranked by
// points, then Buchholz (the opponents' points), then wins, then rating;
// each with `rank` and `cells` by round: {opp (rank), color 'w'|'b', score
// (null: not over), forfeit (true: not played)} or, for a bye,
// {opp: null, color: '-', score, bye (the file's code)}.
export function computeStandings(games, pairings = null) {
  const all = mergeGames(games, pairings);
  const byes = pairings && Array.isArray(pairings.byes) ? pairings.byes : [];
  const roundSet = new Set(all.filter((g) => g.round !== null && g.round !== undefined).map((g) => String(g.round)));
  for (const b of byes) roundSet.add(String(b.round));
  const rounds = [...roundSet].sort(roundOrder);
  const players = new Map();
  const fileInfo = new Map((pairings && Array.isArray(pairings.players) ? pairings.players : []).map((p) => [p.name, p]));
  const entry = (name) => {
    let p = players.get(name);
    if (!p) {
      const f = fileInfo.get(name) || {};
      p = { name, points: 0, played: 0, wins: 0, draws: 0, losses: 0, rating: f.rating || null, fed: f.fed || '', title: f.title || '', team: f.team || '', games: [], byes: [] };
      if (f.startRank) p.startRank = f.startRank;
      players.set(name, p);
    }
    return p;
  };
  for (const name of fileInfo.keys()) entry(name); // every player of the file, games or not
  const player = (name, g, side) => {
    const p = entry(name);
    const w = side === 'white';
    p.rating = (w ? g.whiteElo : g.blackElo) || p.rating;
    p.fed = (w ? g.whiteFed : g.blackFed) || p.fed;
    p.title = (w ? g.whiteTitle : g.blackTitle) || p.title;
    p.team = (w ? g.whiteTeam : g.blackTeam) || p.team;
    return p;
  };
  for (const g of all) {
    if (!g.white || !g.black || g.round === null || g.round === undefined) continue;
    const wp = player(g.white, g, 'white');
    const bp = player(g.black, g, 'black');
    const ff = FORFEIT[g.result];
    const sc = SCORE[g.result] || ff || null;
    wp.games.push({ round: String(g.round), opp: bp, color: 'w', score: sc ? sc[0] : null, forfeit: !!ff });
    bp.games.push({ round: String(g.round), opp: wp, color: 'b', score: sc ? sc[1] : null, forfeit: !!ff });
    if (!sc) continue;
    for (const [p, s] of [[wp, sc[0]], [bp, sc[1]]]) {
      p.points += s;
      if (ff) continue; // a forfeit scores but was not played
      p.played += 1;
      if (s === 1) p.wins += 1; else if (s === 0) p.losses += 1; else p.draws += 1;
    }
  }
  for (const b of byes) {
    const p = entry(b.name);
    const pts = BYE_POINTS[b.kind] ?? 0;
    p.points += pts;
    p.byes.push({ round: String(b.round), kind: b.kind, score: pts });
  }
  const list = [...players.values()];
  for (const p of list) p.buchholz = p.games.reduce((t, x) => t + x.opp.points, 0);
  list.sort((a, b) => b.points - a.points || b.buchholz - a.buchholz || b.wins - a.wins
    || (b.rating || 0) - (a.rating || 0) || a.name.localeCompare(b.name));
  list.forEach((p, i) => { p.rank = i + 1; });
  for (const p of list) {
    p.cells = {};
    for (const x of p.games) {
      p.cells[x.round] = { opp: x.opp.rank, oppName: x.opp.name, color: x.color, score: x.score };
      if (x.forfeit) p.cells[x.round].forfeit = true;
    }
    for (const y of p.byes) p.cells[y.round] = { opp: null, oppName: '', color: '-', score: y.score, bye: y.kind };
  }
  return {
    rounds,
    players: list.map(({ games: _g, byes: _b, ...rest }) => rest),
  };
}

// Team standings when the players have teams: a game's WhiteTeam/BlackTeam,
// else the pairings file's team of the player (TRF 013, /pairings.json).
// The games are the live ones merged with the file's (mergeGames). A
// round's games between two teams are a match, scored as team events do:
// won 2 match points, drawn 1, lost 0, counted once all its games are over;
// game points (board points, `bp`) are the games' points, a forfeit's
// included, counted as each game ends. Ranked by match points, then game
// points. Each team has `rounds` by round: {opp (team), gp, oppGp, mp (null
// while the match is open)}. [] when no game is between two teams.
export function computeTeamStandings(games, pairings = null) {
  const all = mergeGames(games, pairings);
  const teamOf = new Map((pairings && Array.isArray(pairings.players) ? pairings.players : [])
    .filter((p) => p && p.team).map((p) => [p.name, p.team]));
  const matches = new Map(); // "round|teamA|teamB" (sorted) -> {round, a, b, pa, pb, open}
  const teams = new Map();
  const team = (name) => {
    let t = teams.get(name);
    if (!t) { t = { name, mp: 0, bp: 0, played: 0, rounds: {} }; teams.set(name, t); }
    return t;
  };
  for (const g of all) {
    const wt = g.whiteTeam || teamOf.get(g.white), bt = g.blackTeam || teamOf.get(g.black);
    if (!wt || !bt || wt === bt || g.round === null || g.round === undefined) continue;
    team(wt); team(bt);
    const round = String(g.round);
    const [a, b] = [wt, bt].sort();
    const key = `${round}|${a}|${b}`;
    let m = matches.get(key);
    if (!m) { m = { round, a, b, pa: 0, pb: 0, open: 0 }; matches.set(key, m); }
    const sc = SCORE[g.result] || FORFEIT[g.result];
    if (!sc) { m.open += 1; continue; }
    const [sw, sb] = sc;
    if (wt === a) { m.pa += sw; m.pb += sb; } else { m.pa += sb; m.pb += sw; }
  }
  if (!matches.size) return [];
  for (const m of matches.values()) {
    const ta = teams.get(m.a), tb = teams.get(m.b);
    ta.bp += m.pa;
    tb.bp += m.pb;
    let ma = null, mb = null;
    if (!m.open) {
      ma = m.pa > m.pb ? 2 : m.pa < m.pb ? 0 : 1;
      mb = 2 - ma;
      ta.mp += ma;
      tb.mp += mb;
      ta.played += 1;
      tb.played += 1;
    }
    ta.rounds[m.round] = { opp: m.b, gp: m.pa, oppGp: m.pb, mp: ma };
    tb.rounds[m.round] = { opp: m.a, gp: m.pb, oppGp: m.pa, mp: mb };
  }
  const list = [...teams.values()].sort((x, y) => y.mp - x.mp || y.bp - x.bp || x.name.localeCompare(y.name));
  list.forEach((t, i) => { t.rank = i + 1; });
  return list;
}

// A round's state for its tab: 'upcoming' (no game begun), 'live' (a game
// under way) or 'finished' (every game has a result).
export function roundStatus(games) {
  if (!games.length) return 'upcoming';
  if (games.every((g) => g.result && g.result !== '*')) return 'finished';
  if (games.some((g) => g.started || (g.result && g.result !== '*'))) return 'live';
  return 'upcoming';
}

// "½" for halves: 2.5 -> "2½", 0.5 -> "½".
export function pointsText(p) {
  const whole = Math.floor(p);
  const half = p - whole >= 0.5;
  return half ? `${whole || ''}½` : String(whole);
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { computeStandings, computeTeamStandings, mergeGames, roundStatus, pointsText } from '../../../web/src/standings.js';

// What the relay publishes as /pairings.json for tests/data/pairings/oslo-open-r5.trf
// (tests/test_pairings_json.c checks the relay writes exactly these bytes):
// rounds 1-4 played before the relay started, byes (U, H, Z), a forfeit,
// round 5 paired and not played.
const OSLO = JSON.parse(readFileSync(new URL('../../data/pairings/oslo-open-r5.pairings.json', import.meta.url), 'utf8'));

const G = (round, white, black, result, extra = {}) => ({ round, white, black, result, ...extra });

test('standings: points, Buchholz tie-break, crosstable cells', () => {
  const { rounds, players } = computeStandings([
    G('1', 'A', 'B', '1-0'), G('1', 'C', 'D', '1/2-1/2'),
    G('2', 'C', 'A', '0-1'), G('2', 'B', 'D', '1-0'),
    G('3', 'A', 'D', '*'), G('3', 'B', 'C', '*'),
  ]);
  assert.deepEqual(rounds, ['1', '2', '3']);
  assert.deepEqual(players.map((p) => [p.name, p.points]), [['A', 2], ['B', 1], ['C', 0.5], ['D', 0.5]]);
  const a = players[0];
  assert.equal(a.buchholz, 1 + 0.5 + 0.5); // B, C and D (the unfinished game's opponent counts)
  assert.deepEqual(a.cells['1'], { opp: 2, oppName: 'B', color: 'w', score: 1 });
  assert.deepEqual(a.cells['2'], { opp: 3, oppName: 'C', color: 'b', score: 1 });
  assert.equal(a.cells['3'].score, null);
  // C and D: equal points and Buchholz (3½), no wins, no ratings: by name.
  assert.equal(players[2].name, 'C');
});

test('team standings: match points when every game of the match is over, board points always', () => {
  const T = (r, w, b, res, wt, bt) => G(r, w, b, res, { whiteTeam: wt, blackTeam: bt });
  const teams = computeTeamStandings([
    T('1', 'A', 'C', '1-0', 'North', 'South'), T('1', 'D', 'B', '1/2-1/2', 'South', 'North'),
    T('2', 'C', 'A', '0-1', 'South', 'North'), T('2', 'B', 'D', '*', 'North', 'South'),
  ]);
  assert.deepEqual(teams.map((t) => [t.name, t.mp, t.bp, t.played]), [['North', 2, 2.5, 1], ['South', 0, 0.5, 1]]);
  assert.deepEqual(computeTeamStandings([G('1', 'A', 'B', '1-0')]), []);
});

// /pairings.json for tests/data/pairings/team-match-r3.trf (test_pairings_json.c
// checks the bytes): two teams of two (TRF 013); round 1 won 1½-½ by Tromsø,
// round 2 drawn 1-1, round 3 paired and not played.
const TEAMS = JSON.parse(readFileSync(new URL('../../data/pairings/team-match-r3.pairings.json', import.meta.url), 'utf8'));

test('team standings from the pairings file\'s teams (TRF 013): match and game points per round', () => {
  const teams = computeTeamStandings([], TEAMS);
  assert.deepEqual(teams.map((x) => [x.rank, x.name, x.mp, x.bp, x.played]), [[1, 'Tromsø SK', 3, 2.5, 2], [2, 'Bergen SK', 1, 1.5, 2]]);
  const [tromso, bergen] = teams;
  assert.deepEqual(tromso.rounds['1'], { opp: 'Bergen SK', gp: 1.5, oppGp: 0.5, mp: 2 });
  assert.deepEqual(bergen.rounds['1'], { opp: 'Tromsø SK', gp: 0.5, oppGp: 1.5, mp: 0 });
  assert.deepEqual(tromso.rounds['2'], { opp: 'Bergen SK', gp: 1, oppGp: 1, mp: 1 });
  assert.deepEqual(tromso.rounds['3'], { opp: 'Bergen SK', gp: 0, oppGp: 0, mp: null }, 'paired, not played');
  // Round 3 live: one game over, the match is open (its game point counts already) ...
  const live = [G('3', 'Hansen, Are', 'Vik, Ola', '0-1'), G('3', 'Berg, Nils', 'Strand, Ingrid', '*')];
  let t3 = computeTeamStandings(live, TEAMS);
  assert.deepEqual(t3.map((x) => [x.name, x.mp, x.bp, x.played]), [['Tromsø SK', 3, 2.5, 2], ['Bergen SK', 1, 2.5, 2]]);
  assert.deepEqual(t3[1].rounds['3'], { opp: 'Tromsø SK', gp: 1, oppGp: 0, mp: null });
  // ... then over: drawn 1-1, one match point each.
  live[1] = G('3', 'Berg, Nils', 'Strand, Ingrid', '0-1');
  t3 = computeTeamStandings(live, TEAMS);
  assert.deepEqual(t3.map((x) => [x.name, x.mp, x.bp, x.played]), [['Tromsø SK', 4, 3.5, 3], ['Bergen SK', 2, 2.5, 3]]);
  assert.deepEqual(t3[0].rounds['3'], { opp: 'Bergen SK', gp: 1, oppGp: 1, mp: 1 });
  // The players carry their team into the individual standings.
  const { players } = computeStandings([], TEAMS);
  assert.equal(players.find((p) => p.name === 'Vik, Ola').team, 'Bergen SK');
  // A file without teams: no team standings.
  assert.deepEqual(computeTeamStandings([], OSLO), []);
});

test('team standings: a forfeit scores its game point; a match lost 0-2 is 0 match points', () => {
  const T = (r, w, b, res, wt, bt) => G(r, w, b, res, { whiteTeam: wt, blackTeam: bt });
  const teams = computeTeamStandings([
    T('1', 'A', 'C', '+--', 'North', 'South'), T('1', 'D', 'B', '0-1', 'South', 'North'),
  ]);
  assert.deepEqual(teams.map((x) => [x.name, x.mp, x.bp]), [['North', 2, 2], ['South', 0, 0]]);
  assert.deepEqual(teams[1].rounds['1'], { opp: 'North', gp: 0, oppGp: 2, mp: 0 });
});

test('round status and points text', () => {
  assert.equal(roundStatus([]), 'upcoming');
  assert.equal(roundStatus([{ result: '*', started: false }]), 'upcoming');
  assert.equal(roundStatus([{ result: '*', started: true }, { result: '1-0' }]), 'live');
  assert.equal(roundStatus([{ result: '1-0' }, { result: '1/2-1/2' }]), 'finished');
  assert.equal(pointsText(2.5), '2½');
  assert.equal(pointsText(0.5), '½');
  assert.equal(pointsText(3), '3');
});

test('standings from the pairings file: earlier rounds, byes and forfeits count, every player listed', () => {
  const { rounds, players } = computeStandings([], OSLO);
  assert.deepEqual(rounds, ['1', '2', '3', '4', '5']);
  assert.equal(players.length, 11);
  const by = new Map(players.map((p) => [p.name, p]));
  // Rounds 1-4 from the file: the file's own points column agrees.
  for (const name of ['Lindqvist, Erik', 'Ødegård, Øystein', 'Kowalski, Marek', 'Berg, Anders', 'García López, Pablo']) {
    assert.equal(by.get(name).points, OSLO.players.find((p) => p.name === name).points, name);
  }
  const lind = by.get('Lindqvist, Erik');
  assert.equal(lind.rank, 1);
  assert.equal(lind.startRank, 1);
  assert.equal(lind.rating, 2618);
  assert.equal(lind.fed, 'SWE');
  assert.equal(lind.cells['5'].score, null); // paired, not played
  // Nilsen: pairing bye in round 1 (1 point, no game played).
  const nil = by.get('Nilsen, Petter');
  assert.deepEqual(nil.cells['1'], { opp: null, oppName: '', color: '-', score: 1, bye: 'U' });
  assert.equal(nil.points, 2.5);
  assert.equal(nil.played, 3);
  // García: forfeit win over Olsen in round 2 (scores, not played), half-point bye in round 4.
  const gar = by.get('García López, Pablo');
  assert.equal(gar.cells['2'].forfeit, true);
  assert.equal(gar.cells['2'].score, 1);
  assert.equal(gar.cells['4'].bye, 'H');
  assert.equal(gar.cells['4'].score, 0.5);
  assert.equal(gar.played, 2);
  // Olsen: forfeit loss, absent (Z) in round 3, pairing bye in round 5.
  const ols = by.get('Olsen, Kristian');
  assert.equal(ols.cells['2'].forfeit, true);
  assert.equal(ols.cells['2'].score, 0);
  assert.equal(ols.cells['3'].bye, 'Z');
  assert.equal(ols.cells['5'].bye, 'U');
  assert.equal(ols.points, 1);
});

test('standings merge: a live result fills the file\'s unplayed round, the file fills the rounds the relay never saw', () => {
  const live = [
    // Round 5 as the relay sees it: one game over, one under way.
    G('5', 'Lindqvist, Erik', 'Nováková, Jana', '0-1', { whiteElo: 2620 }),
    G('5', 'Nilsen, Petter', 'Ødegård, Øystein', '*'),
  ];
  const merged = mergeGames(live, OSLO);
  // Five boards of round 5, no game twice; the live game's result and tags win.
  const r5 = merged.filter((g) => g.round === '5');
  assert.equal(r5.length, 5);
  assert.equal(r5.find((g) => g.white === 'Lindqvist, Erik').result, '0-1');
  assert.equal(r5.find((g) => g.white === 'Lindqvist, Erik').whiteElo, 2620);
  const { players } = computeStandings(live, OSLO);
  const by = new Map(players.map((p) => [p.name, p]));
  assert.equal(by.get('Lindqvist, Erik').points, 3.5);
  assert.equal(by.get('Nováková, Jana').points, 3.5);
  assert.equal(by.get('Lindqvist, Erik').rating, 2620);
  assert.equal(by.get('Nilsen, Petter').cells['5'].score, null);
  // Without the file only the live round counts: the earlier rounds are missing.
  const alone = computeStandings(live).players;
  assert.equal(alone.find((p) => p.name === 'Lindqvist, Erik').points, 0);
  assert.equal(alone.length, 4);
});

test('standings merge: a result the file has for a game the relay shows unfinished counts; live games the file lacks stay', () => {
  const file = { games: [{ round: '1', table: 1, white: 'A', black: 'B', result: '1-0' }], byes: [{ round: '1', name: 'C', kind: 'H' }], players: [] };
  const { players } = computeStandings([G('1', 'A', 'B', '*'), G('2', 'A', 'C', '1/2-1/2')], file);
  assert.deepEqual(players.map((p) => [p.name, p.points]), [['A', 1.5], ['C', 1], ['B', 0]]);
  assert.deepEqual(computeStandings([], null).players, []);
});

// Issue 30: a spare board's game (a board with no table in the pairings,
// players from outside the tournament) is no game of the tournament: its
// players stay out of the standings and it does not make a finished round live.
test('a game between two players the pairings file does not know is left out', () => {
  const spare = G('1', 'Player P0008-W', 'Player P0008-B', '*', { started: true });
  const merged = mergeGames([spare], OSLO);
  assert.equal(merged.some((g) => g.white === 'Player P0008-W'), false);
  assert.equal(roundStatus(merged.filter((g) => g.round === '1')), 'finished');
  const { players } = computeStandings([spare, G('1', 'Player P0008-B', 'Player P0008-W', '1-0')], OSLO);
  assert.deepEqual(players.filter((p) => /^Player /.test(p.name)).map((p) => p.name), []);
  assert.equal(players.length, OSLO.players.length);
  // One entrant is enough to keep a game (a late entry, a name spelt anew).
  const late = mergeGames([G('5', 'Lindqvist, Erik', 'Newcomer, Nina', '*')], OSLO);
  assert.ok(late.some((g) => g.black === 'Newcomer, Nina'));
});

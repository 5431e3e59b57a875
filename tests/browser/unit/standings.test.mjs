import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeStandings, computeTeamStandings, roundStatus, pointsText } from '../../../web/src/standings.js';

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

test('round status and points text', () => {
  assert.equal(roundStatus([]), 'upcoming');
  assert.equal(roundStatus([{ result: '*', started: false }]), 'upcoming');
  assert.equal(roundStatus([{ result: '*', started: true }, { result: '1-0' }]), 'live');
  assert.equal(roundStatus([{ result: '1-0' }, { result: '1/2-1/2' }]), 'finished');
  assert.equal(pointsText(2.5), '2½');
  assert.equal(pointsText(0.5), '½');
  assert.equal(pointsText(3), '3');
});

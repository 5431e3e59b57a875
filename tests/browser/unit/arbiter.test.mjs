import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ArbiterStore, compareAlerts, counters, formatMs, beepsFor, actionMessage, fenRows, scoresheetRows,
  underTwoMinutes, isArbiterMessage,
} from '../../../web/src/arbiter.js';
import { parseRoute } from '../../../web/src/view.js';

const inc = (game, seq, kind, urgency, wall = 1000 + seq) => ({ game, seq, kind, urgency, wall, ply: 0, color: '-', text: kind });
const state = (game, extra = {}) => ({ game, board: `B${game}`, round: '1', table: game, result: '*', plies: 0, ...extra });

test('routes of the arbiter page', () => {
  assert.deepEqual(parseRoute('#/arbiter'), { page: 'arbiter', game: null });
  assert.deepEqual(parseRoute('#/arbiter/'), { page: 'arbiter', game: null });
  assert.deepEqual(parseRoute('#/arbiter/game/12'), { page: 'arbiter', game: 12 });
  assert.deepEqual(parseRoute('#/arbiterx'), { page: 'round', round: null });
});

test('snapshot first, then messages in aseq order, never twice', () => {
  const a = new ArbiterStore();
  // Before the snapshot nothing counts.
  assert.equal(a.apply({ type: 'incident', aseq: 1, game: 1, incident: inc(1, 1, 'flag', 'critical') }).changed, false);
  const r = a.apply({ type: 'arbiter', aseq: 5, games: [state(1), state(2)], incidents: [inc(1, 1, 'two-minutes', 'notice')], claims: [] });
  assert.equal(r.snapshot, true);
  assert.equal(r.alerts.length, 0, 'a snapshot does not beep');
  assert.equal(a.boards().length, 2);
  // Already in the snapshot: dropped.
  assert.equal(a.apply({ type: 'incident', aseq: 5, game: 1, incident: inc(1, 2, 'flag', 'critical') }).changed, false);
  const r2 = a.apply({ type: 'incident', aseq: 6, game: 1, incident: inc(1, 2, 'flag', 'critical') });
  assert.equal(r2.alerts.length, 1);
  assert.equal(a.incidentsOf(1).length, 2);
  // Info incidents are logged, not alerts.
  const r3 = a.apply({ type: 'incident', aseq: 7, game: 2, incident: inc(2, 1, 'result', 'info') });
  assert.equal(r3.changed, true);
  assert.equal(r3.alerts.length, 0);
  const e = a.apply({ type: 'arbiter-error', aseq: 8, game: 2, action: 'claim', error: 'no' });
  assert.equal(e.error.error, 'no');
  assert.equal(isArbiterMessage({ type: 'move' }), false);
});

test('alerts sorted by urgency, then newest; acknowledged ones go', () => {
  const a = new ArbiterStore();
  a.apply({ type: 'arbiter', aseq: 0, games: [state(1), state(2)], incidents: [
    inc(1, 1, 'two-minutes', 'notice', 100), inc(1, 2, 'flag', 'critical', 50), inc(2, 1, 'board-offline', 'warning', 300),
    inc(2, 2, 'two-minutes', 'notice', 400), inc(2, 3, 'result', 'info', 500)], claims: [] });
  const kinds = a.alerts().map((x) => `${x.game}:${x.kind}`);
  assert.deepEqual(kinds, ['1:flag', '2:board-offline', '2:two-minutes', '1:two-minutes']);
  assert.equal(a.gameAlertLevel(1), 3);
  a.ack(a.alerts()[0]);
  assert.equal(a.gameAlertLevel(1), 1);
  assert.equal(a.alerts().length, 3);
  a.ackAll();
  assert.equal(a.alerts().length, 0);
  assert.equal(a.gameAlertLevel(2), -1);
  assert.ok(compareAlerts(inc(1, 1, 'x', 'warning'), inc(1, 2, 'x', 'notice')) < 0);
});

test('counters of a board', () => {
  const c = counters({ repetitions: 3, threefold: true, halfmove: 101, fifty_moves: true, dead: false,
    claim_window: true, under_two_minutes: { w: true, b: false }, illegal: { w: 1, b: 0 } });
  const by = Object.fromEntries(c.map((x) => [x.key, x]));
  assert.equal(by.repetitions.value, '3×');
  assert.equal(by.repetitions.level, 'notice');
  assert.equal(by.fifty.value, '50/50');
  assert.equal(by.fifty.level, 'notice');
  assert.equal(by.dead.value, 'no');
  assert.equal(by.claim.value, 'open (White)');
  assert.equal(by.illegal.value, 'W 1 · B 0');
  const quiet = Object.fromEntries(counters({ repetitions: 1, halfmove: 7, claim_pending: true }).map((x) => [x.key, x]));
  assert.equal(quiet.fifty.value, '3/50');
  assert.equal(quiet.claim.value, 'claim pending');
  assert.equal(quiet.illegal, undefined);
});

test('clock formatting and the two-minute mark', () => {
  assert.equal(formatMs(110000), '1:50');
  assert.equal(formatMs(3723000), '1:02:03');
  assert.equal(formatMs(9500), '0:09.5');
  assert.equal(formatMs(null), '–');
  assert.equal(underTwoMinutes(119999), true);
  assert.equal(underTwoMinutes(120000), false);
  assert.equal(underTwoMinutes(null), false);
});

test('beeps: the most urgent new alert decides', () => {
  assert.equal(beepsFor([]), 0);
  assert.equal(beepsFor([{ urgency: 'notice' }]), 1);
  assert.equal(beepsFor([{ urgency: 'notice' }, { urgency: 'critical' }]), 3);
});

test('action messages', () => {
  assert.deepEqual(actionMessage('claim', 3, { claimant: 'b', basis: 'a' }),
    { op: 'arbiter-action', game: 3, action: 'claim', claimant: 'b', basis: 'a' });
  assert.deepEqual(actionMessage('decide', 3, { decision: 'rejected', addedMinutes: '1.5', note: ' x ' }),
    { op: 'arbiter-action', game: 3, action: 'decide', decision: 'rejected', added_ms: 90000, note: 'x' });
  assert.deepEqual(actionMessage('decide', 3, { decision: 'draw' }), { op: 'arbiter-action', game: 3, action: 'decide', decision: 'draw' });
  assert.equal(actionMessage('draw-offer', 3, { ply: '' }).ply, -1);
  assert.equal(actionMessage('draw-offer', 3, { ply: '4', offered: false }).offered, false);
  assert.equal(actionMessage('take-back', 3, { plies: '10' }).plies, 10);
  assert.deepEqual(actionMessage('players', 3, { white: 'A', black: '' }), { op: 'arbiter-action', game: 3, action: 'players', white: 'A' });
  assert.equal(actionMessage('result', 3, { result: '1/2-1/2', reason: '' }).reason, undefined);
  assert.throws(() => actionMessage('claim', 3, { claimant: 'x', basis: 'a' }), /claimant/);
  assert.throws(() => actionMessage('take-back', 3, { plies: '' }), /plies/);
  assert.throws(() => actionMessage('result', 3, { result: '2-0' }), /result/);
  assert.throws(() => actionMessage('decide', 3, { decision: 'rejected', addedMinutes: '-1' }), /time added/);
  assert.throws(() => actionMessage('players', 3, {}), /players/);
  assert.throws(() => actionMessage('result', 0, { result: '1-0' }), /no game/);
  assert.deepEqual(actionMessage('claim', 3, { claimant: 'w', basis: 'threefold', move: ' Nf3 ' }),
    { op: 'arbiter-action', game: 3, action: 'claim', claimant: 'w', basis: 'threefold', move: 'Nf3' });
  assert.throws(() => actionMessage('claim', 3, { claimant: 'w', basis: 'a', move: 'Nf3' }), /move/);
  assert.deepEqual(actionMessage('confirm-flag', 3, { color: 'b' }), { op: 'arbiter-action', game: 3, action: 'confirm-flag', color: 'b' });
  assert.throws(() => actionMessage('confirm-flag', 3, {}), /flag/);
  assert.deepEqual(actionMessage('replace-move', 3, { ply: '4', move: 'Nc3', reason: '' }),
    { op: 'arbiter-action', game: 3, action: 'replace-move', ply: 4, move: 'Nc3' });
  assert.throws(() => actionMessage('replace-move', 3, { ply: '', move: 'Nc3' }), /ply/);
  assert.throws(() => actionMessage('replace-move', 3, { ply: '2', move: ' ' }), /move/);
});

test('frozen position and scoresheet', () => {
  const rows = fenRows('3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 40');
  assert.equal(rows.length, 8);
  assert.equal(rows[0][3], 'r');
  assert.equal(rows[7][6], 'K');
  assert.equal(fenRows('8/8/8'), null);
  assert.equal(fenRows('9/8/8/8/8/8/8/8'), null);
  const sheet = scoresheetRows({ scoresheet: [{ san: 'Kf1', clock: 1 }, { san: 'Kf8', clock: 2 }, { san: 'Ke1', clock: 3 }] },
    '3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 40');
  assert.deepEqual(sheet.map((r) => [r.no, r.white && r.white.san, r.black && r.black.san]), [[40, 'Kf1', 'Kf8'], [41, 'Ke1', null]]);
  const fromBlack = scoresheetRows({ scoresheet: [{ san: 'e5' }, { san: 'Nf3' }] }, 'x b - - 0 7');
  assert.deepEqual(fromBlack.map((r) => [r.no, r.white && r.white.san, r.black && r.black.san]), [[7, null, 'e5'], [8, 'Nf3', null]]);
});

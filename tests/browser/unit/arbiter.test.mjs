import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ArbiterStore, compareAlerts, counters, beepsFor, actionMessage, fenRows, scoresheetRows,
  underTwoMinutes, isArbiterMessage, plyLabel, incidentMove, legalSans, alertKey,
} from '../../../web/src/arbiter-store.js';
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

test('the two-minute mark', () => {
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

test('moves named by number and colour, never by ply index', () => {
  const start = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
  assert.equal(plyLabel(start, 0, 'e4'), '1. e4');
  assert.equal(plyLabel(start, 45, 'Qd7'), '23... Qd7');
  assert.equal(plyLabel('8/8/8/8/8/8/8/K1k5 b - - 0 40', 0, 'Kd2'), '40... Kd2');
  const moves = [{ san: 'e4' }, { san: 'e5' }, { san: 'Nf3' }];
  assert.equal(incidentMove(0, start, moves), 'start');
  assert.equal(incidentMove(2, start, moves), '1... e5');
  assert.equal(incidentMove(3, start, moves), '2. Nf3');
  assert.equal(incidentMove(-1, start, moves), '');
});

test('legal moves of a position in SAN', () => {
  const after = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3';
  const legal = legalSans(after);
  assert.ok(legal.includes('Bb5') && legal.includes('Nxe5') && legal.includes('O-O') === false);
  assert.equal(legal.length, 27);
  assert.deepEqual(legalSans('not a fen'), []);
});

test('attention as an alert; acknowledgements from the relay, shared', () => {
  const a = new ArbiterStore();
  a.apply({ type: 'arbiter', aseq: 0, games: [state(1, { plies: 12, attention: true, attention_reason: 'pieces missing', attention_squares: ['e4', 'd5'] }), state(2)],
    incidents: [inc(2, 1, 'flag-check', 'warning')], claims: [], acks: [{ game: 2, alert: '1', who: 'chief', wall: 5 }] });
  const alerts = a.alerts();
  assert.deepEqual(alerts.map((x) => `${x.game}:${x.kind}:${alertKey(x)}`), ['1:attention:attention@12']);
  assert.match(alerts[0].text, /pieces missing: e4 d5/);
  assert.deepEqual(a.ackOf(inc(2, 1, 'flag-check', 'warning')), { who: 'chief', wall: 5 });
  assert.equal(a.gameAlertLevel(1), 2);
  // Another arbiter acknowledges it: gone here too.
  const r = a.apply({ type: 'ack', aseq: 1, game: 1, ack: { game: 1, alert: 'attention@12', who: 'deputy', wall: 9 } });
  assert.ok(r.changed);
  assert.equal(a.alerts().length, 0);
  assert.deepEqual(a.recentAcks().map((x) => x.who), ['deputy', 'chief']);
  assert.deepEqual(actionMessage('ack', 1, { alert: 'attention@12' }), { op: 'arbiter-action', game: 1, action: 'ack', alert: 'attention@12' });
  assert.throws(() => actionMessage('ack', 1, { alert: 'a b' }), /alert/);
});

test('alerts close themselves when their cause is gone', () => {
  const a = new ArbiterStore();
  a.apply({ type: 'arbiter', aseq: 1, games: [state(1, { online: false }), state(2, { flag_check: 'w' }), state(3, { flag_check: 'b' }), state(4, { flag_check: 'w' })],
    incidents: [inc(1, 1, 'board-offline', 'warning'), { ...inc(2, 1, 'flag-check', 'warning'), color: 'w' },
      { ...inc(3, 1, 'flag-check', 'warning'), color: 'b' }, { ...inc(4, 1, 'flag-check', 'warning'), color: 'w' }] });
  assert.deepEqual(a.alerts().map((x) => `${x.game}:${x.kind}`).sort(), ['1:board-offline', '2:flag-check', '3:flag-check', '4:flag-check']);
  // Board 1 is online again: its offline alert closes (and stays in the log, marked).
  a.apply({ type: 'incident', aseq: 2, game: 1, incident: inc(1, 2, 'board-online', 'info') });
  // Game 2 ends by mate: its flag check closes.
  a.apply({ type: 'arbiter-state', aseq: 3, game: 2, state: state(2, { result: '1-0', flag_check: 'w' }) });
  // Game 3: a later reading shows Black's time left: the relay's flag_check is '-'.
  a.apply({ type: 'arbiter-state', aseq: 4, game: 3, state: state(3, { flag_check: '-' }) });
  assert.deepEqual(a.alerts().map((x) => `${x.game}:${x.kind}`), ['4:flag-check']);
  assert.equal(a.closed(a.incidentsOf(1)[0]), true);
  assert.equal(a.closed(a.incidentsOf(4)[0]), false);
  assert.equal(a.gameAlertLevel(1), -1);
  assert.equal(a.gameAlertLevel(4), 2);
  // A result logged closes it too, whatever the state says.
  a.apply({ type: 'incident', aseq: 5, game: 4, incident: inc(4, 2, 'result', 'info') });
  assert.deepEqual(a.alerts(), []);
});

test('a repetition raised on every ply is one alert; acknowledging it acknowledges all', () => {
  const a = new ArbiterStore();
  const rep = (seq, ply) => ({ ...inc(1, seq, 'threefold', 'notice'), ply });
  a.apply({ type: 'arbiter', aseq: 1, games: [state(1)], incidents: [8, 9, 10, 11, 12, 13, 14, 15].map((p, i) => rep(i + 1, p)) });
  let list = a.alerts();
  assert.equal(list.length, 1);
  assert.equal(list[0].count, 8);
  assert.equal(list[0].seq, 8, 'the newest stands for the run');
  // A later repetition (another run) is a second alert.
  a.apply({ type: 'incident', aseq: 2, game: 1, incident: rep(9, 30) });
  list = a.alerts();
  assert.deepEqual(list.map((x) => x.count).sort(), [1, 8]);
  for (const x of list) a.ack(x);
  assert.deepEqual(a.alerts(), []);
  assert.equal(a.acked.size, 9);
});

test('the claim window counter names the sides a D1 claim would be heard from', () => {
  const c = (s) => Object.fromEntries(counters(s).map((x) => [x.key, x]));
  // 90+30: under two minutes, but the relay says no window.
  assert.equal(c({ under_two_minutes: { w: true, b: false }, claim_window: false, claim_open: { w: false, b: false } }).claim.value, 'closed');
  assert.equal(c({ under_two_minutes: { w: true, b: true }, claim_window: true, claim_open: { w: false, b: true } }).claim.value, 'open (Black)');
});

test('the relay\'s standing alerts: in the snapshot until an ack of game 0', () => {
  const a = new ArbiterStore();
  const tamper = { alert: 'tamper:journal:1f2e3d4c', kind: 'tamper', file: 'journal', what: 'cut after record 12', wall: 1000 };
  a.apply({ type: 'arbiter', aseq: 3, games: [state(1)], incidents: [], claims: [], acks: [], alerts: [tamper] });
  assert.deepEqual(a.relayAlerts().map((x) => x.alert), [tamper.alert]);
  assert.equal(a.alerts().length, 0, 'not a game\'s alert');
  // Only an ack may name game 0.
  assert.deepEqual(actionMessage('ack', 0, { alert: tamper.alert }),
    { op: 'arbiter-action', game: 0, action: 'ack', alert: tamper.alert });
  assert.throws(() => actionMessage('result', 0, { result: '1-0' }));
  a.apply({ type: 'ack', aseq: 4, game: 0, ack: { game: 0, alert: tamper.alert, who: 'chief', wall: 2000 } });
  assert.deepEqual(a.relayAlerts(), []);
  // A snapshot without alerts (an older relay) holds none.
  a.apply({ type: 'arbiter', aseq: 9, games: [], incidents: [], claims: [] });
  assert.deepEqual(a.relayAlerts(), []);
});

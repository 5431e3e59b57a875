import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evalText, shortEvalText, whiteShare, nagMark, evalShown, evalPoints, timeUse, plyAt } from '../../../web/src/eval.js';
import { parseOverlay } from '../../../web/src/view.js';
import { Store } from '../../../web/src/game-store.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const E5 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';

test('eval texts: centipawns and mates from White\'s view', () => {
  assert.equal(evalText({ cp: 35 }), '+0.35');
  assert.equal(evalText({ cp: -120 }), '−1.20');
  assert.equal(evalText({ cp: 0 }), '0.00');
  assert.equal(evalText({ mate: 3 }), '#3');
  assert.equal(evalText({ mate: -2 }), '#−2');
  assert.equal(evalText(null), '');
  assert.equal(shortEvalText({ cp: 35 }), '0.3');
  assert.equal(shortEvalText({ cp: -155 }), '−1.6');
  assert.equal(shortEvalText({ cp: -4 }), '0.0');
  assert.equal(shortEvalText({ cp: 1234 }), '12');
  assert.equal(shortEvalText({ mate: -1 }), '#−1');
});

test('the bar: even at 0, more for the better side, all of it for a mate', () => {
  assert.equal(whiteShare({ cp: 0 }), 0.5);
  assert.equal(whiteShare(null), 0.5);
  assert.ok(whiteShare({ cp: 100 }) > 0.55 && whiteShare({ cp: 100 }) < 0.65);
  assert.ok(Math.abs(whiteShare({ cp: -300 }) + whiteShare({ cp: 300 }) - 1) < 1e-9);
  assert.equal(whiteShare({ cp: 5000 }), whiteShare({ cp: 1000 })); // clamped
  assert.equal(whiteShare({ mate: 2 }), 1);
  assert.equal(whiteShare({ mate: -2 }), 0);
});

test('NAG marks, and hiding the engine by URL or by choice', () => {
  assert.equal(nagMark({ cp: 1, nag: 4 }), '??');
  assert.equal(nagMark({ cp: 1, nag: 2 }), '?');
  assert.equal(nagMark({ cp: 1 }), '');
  assert.equal(evalShown('', null), true);
  assert.equal(evalShown('', '0'), false);
  assert.equal(evalShown('?eval=0', '1'), false);
  assert.equal(evalShown('?eval=1', '0'), true);
  assert.equal(evalShown('?x=1&eval=off', null), false);
});

test('graph points, time use and the ply under a click', () => {
  const evals = [{ cp: 20 }, null, { mate: 1, nag: 4 }];
  const pts = evalPoints(evals, 4);
  assert.deepEqual(pts.map((p) => p.ply), [0, 2]);
  assert.equal(pts[1].y, 1);
  const moves = [{ clock: 5400000 }, { clock: 5390000 }, { clock: 5300000 }, { clock: null }, { clock: 5000000 }];
  const movers = ['white', 'black', 'white', 'black', 'white'];
  // White 5400 -> 5300 -> 5000: 100 s then 300 s; black has one reading only.
  assert.deepEqual(timeUse(moves, movers), [null, null, 100000, null, 300000]);
  assert.deepEqual(timeUse([{ clock: 100 }, { clock: 100 }, { clock: 130 }], ['white', 'black', 'white']), [null, null, 0]);
  // The relay's %emt wins over the clocks' difference (it knows the increment).
  assert.deepEqual(timeUse([{ clock: 100, emt: 7 }, { clock: 90, emt: null }, { clock: 80, emt: 12 }], ['white', 'black', 'white']), [7, null, 12]);
  assert.equal(plyAt(0, 600, 10), 0);
  assert.equal(plyAt(599, 600, 10), 9);
  assert.equal(plyAt(330, 600, 10), 5);
  assert.equal(plyAt(50, 600, 0), -1);
});

test('overlay routes and parameters', () => {
  const g = parseOverlay('/overlay/game/7', '?size=400&orientation=black&hide=clocks,flags');
  assert.equal(g.kind, 'game');
  assert.equal(g.id, 7);
  assert.equal(g.size, 400);
  assert.equal(g.orientation, 'black');
  assert.deepEqual([...g.show].sort(), ['board', 'eval', 'last', 'names']);
  const r = parseOverlay('/overlay/round/Final%20A/', '?show=board,eval&limit=4&eval=0');
  assert.equal(r.kind, 'round');
  assert.equal(r.round, 'Final A');
  assert.equal(r.size, 160);
  assert.equal(r.limit, 4);
  assert.deepEqual([...r.show], ['board']);
  assert.equal(parseOverlay('/overlay/game/x', ''), null);
  assert.equal(parseOverlay('/game/1', ''), null);
  assert.equal(parseOverlay('/overlay/game/1', '?size=5').size, 360); // out of range: the default
});

function storeWithGame() {
  const s = new Store();
  s.apply({ type: 'snapshot', seq: 10, ts: 1, game: { id: 1, round: '1', start: START, moves: [
    { san: 'e4', uci: 'e2e4', fen: E4, clock: 5400000, flags: [], eval: { cp: 30, depth: 18, best: 'e5', pv: 'e5 Nf3' } },
  ], clock: null, result: '*' } });
  return s;
}

test('store: evals from snapshots and messages, kept by ply, dropped with retracted plies', () => {
  const s = storeWithGame();
  const g = s.games.get(1);
  assert.equal(s.evalAt(g, 1).cp, 30);
  assert.equal(s.evalAt(g, 0), null);
  // an eval may come before its move
  let r = s.apply({ type: 'eval', game: 1, ply: 1, eval: { cp: 25, depth: 17, best: 'Nf3', pv: 'Nf3' } });
  assert.ok(r.changed.has(1));
  assert.equal(s.lastSeq, 0); // no seq: no resume point moved
  assert.equal(s.evalAt(g, 2), null); // ply 1 not held yet
  s.apply({ type: 'move', seq: 11, ts: 2, game: 1, ply: 1, san: 'e5', uci: 'e7e5', fen: E5, clock: null, flags: [] });
  assert.equal(s.evalAt(g, 2).cp, 25);
  // while the engine works on a new position, the last one stands in
  s.apply({ type: 'move', seq: 12, ts: 3, game: 1, ply: 2, san: 'Nf3', uci: 'g1f3', fen: 'x', clock: null, flags: [] });
  assert.deepEqual(s.evalNear(g, 3), { e: g.evals[1], exact: false });
  assert.deepEqual(s.evalNear(g, 2), { e: g.evals[1], exact: true });
  s.apply({ type: 'correction', seq: 13, ts: 4, game: 1, ply: 1, retracted: 2 });
  assert.equal(g.evals.length, 1);
  assert.equal(s.evalAt(g, 2), null);
  // "evals" (sent on a resume) replaces them all
  s.apply({ type: 'evals', game: 1, evals: [null] });
  assert.equal(s.evalAt(g, 1), null);
  // unknown games and bad messages change nothing
  assert.equal(s.apply({ type: 'eval', game: 9, ply: 0, eval: { cp: 1 } }).changed.size, 0);
  assert.equal(s.apply({ type: 'eval', game: 1, ply: -1, eval: { cp: 1 } }).changed.size, 0);
});

test('store: the press after a move gives the mover\'s time (for the time-use chart)', () => {
  const s = storeWithGame();
  const g = s.games.get(1);
  s.apply({ type: 'move', seq: 11, ts: 2, game: 1, ply: 1, san: 'e5', uci: 'e7e5', fen: E5, clock: null, flags: [] });
  assert.equal(g.moves[1].clock, null);
  s.apply({ type: 'clock', seq: 12, ts: 3, game: 1, white: 5399000, black: 5380000, running: 'w' });
  assert.equal(g.moves[1].clock, 5380000);
  // a press that does not start the other side's clock tells nothing
  s.apply({ type: 'move', seq: 13, ts: 4, game: 1, ply: 2, san: 'Nf3', uci: 'g1f3', fen: 'x b', clock: null, flags: [] });
  s.apply({ type: 'clock', seq: 14, ts: 5, game: 1, white: 5390000, black: 5380000, running: '-' });
  assert.equal(g.moves[2].clock, null);
});

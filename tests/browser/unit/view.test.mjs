import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, parseEmbed, positionUrl, moveNumberLabel, resultText, playerScore, clampPly, pgnFileName } from '../../../web/src/view.js';

test('routes', () => {
  assert.deepEqual(parseRoute('#/game/7'), { page: 'game', id: 7, ply: null });
  assert.deepEqual(parseRoute('#/game/7/41'), { page: 'game', id: 7, ply: 41 });
  assert.deepEqual(parseRoute('#/game/7/0'), { page: 'game', id: 7, ply: 0 });
  assert.deepEqual(parseRoute('#/game/7/x'), { page: 'round', round: null });
  assert.deepEqual(parseRoute('#/round/1'), { page: 'round', round: '1' });
  assert.deepEqual(parseRoute('#/round/Final%20A'), { page: 'round', round: 'Final A' });
  assert.deepEqual(parseRoute(''), { page: 'round', round: null });
  assert.deepEqual(parseRoute('#/game/abc'), { page: 'round', round: null });
  assert.deepEqual(parseRoute('#/round/%E0%A4%A'), { page: 'round', round: '%E0%A4%A' });
});

test('move numbers from the standard start and from a black-to-move FEN', () => {
  const start = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
  assert.equal(moveNumberLabel(start, 0), '1.');
  assert.equal(moveNumberLabel(start, 1), '1...');
  assert.equal(moveNumberLabel(start, 30), '16.');
  const fromBlack = '8/8/8/8/8/8/8/K6k b - - 0 40';
  assert.equal(moveNumberLabel(fromBlack, 0), '40...');
  assert.equal(moveNumberLabel(fromBlack, 1), '41.');
});

test('results and scores', () => {
  assert.equal(resultText('1/2-1/2'), '½–½');
  assert.equal(resultText('0-1'), '0–1');
  assert.equal(playerScore('1-0', 'white'), '1');
  assert.equal(playerScore('1-0', 'black'), '0');
  assert.equal(playerScore('1/2-1/2', 'black'), '½');
  assert.equal(playerScore('*', 'white'), '');
});

test('ply clamping', () => {
  assert.equal(clampPly(-3, 10), 0);
  assert.equal(clampPly(12, 10), 10);
  assert.equal(clampPly(4.7, 10), 4);
  assert.equal(clampPly(NaN, 10), 10);
});

test('result line', async () => {
  const { resultLine } = await import('../../../web/src/view.js');
  assert.equal(resultLine('1-0', null, 'Qxf7#'), '1–0 · White wins · checkmate');
  assert.equal(resultLine('0-1', 'resignation', 'Nf3'), '0–1 · Black wins · resignation');
  assert.equal(resultLine('1/2-1/2', 'agreement', null), '½–½ · Draw · agreement');
});

test('PGN download names: event, round, board, surnames; unsafe characters replaced', () => {
  assert.equal(pgnFileName({ event: 'Tata Steel Masters 2026', round: '1', table: 2, white: 'Carlsen, Magnus', black: 'Gukesh, D' }),
    'Tata_Steel_Masters_2026-R1-B2-Carlsen-Gukesh.pgn');
  assert.equal(pgnFileName({ event: 'Open', round: '3' }), 'Open-R3.pgn');
  assert.equal(pgnFileName({ event: 'a/b: c?', round: 'Final A', white: 'Vachier-Lagrave, Maxime', black: 'Иванов, Иван' }),
    'a_b_c-RFinal_A-Vachier-Lagrave-Иванов.pgn');
  assert.equal(pgnFileName({ white: 'X', black: '' }), 'X-Black.pgn');
  assert.equal(pgnFileName({ id: 7 }), 'game-7.pgn');
  assert.equal(pgnFileName({ event: '', round: null, table: null, id: 7 }), 'game-7.pgn');
});

test('embed paths and position links', () => {
  assert.deepEqual(parseEmbed('/embed/game/7', ''), { id: 7, hide: new Set(), ply: null });
  assert.deepEqual(parseEmbed('/embed/game/7/', '?hide=clocks&ply=12'), { id: 7, hide: new Set(['clocks']), ply: 12 });
  assert.equal(parseEmbed('/embed/round/1', ''), null);
  assert.equal(parseEmbed('/', ''), null);
  assert.equal(parseEmbed('/embed/game/7', '?ply=-1').ply, null);
  assert.equal(positionUrl('http://relay:8080', 7, 41), 'http://relay:8080/#/game/7/41');
});

// Issue 30: the embed's board from the frame's width and height.
test('embedLayout: the board fits the frame, the moves beside or under it or hidden, the clocks last', async () => {
  const { embedLayout, EMBED_SIZES, EMBED_BOX: B } = await import('../../../web/src/view.js');
  for (const [w, h] of EMBED_SIZES) {
    for (const engine of [false, true]) {
      const l = embedLayout(w, h, { engine });
      const player = l.clocks ? B.player : B.small;
      const column = 2 * player + 2 * B.gap + (engine ? B.best : 0) + (l.side === 'under' ? B.gap + B.controls : 0);
      assert.ok(l.board + column + B.pad <= h, `${w}x${h} ${engine}: height ${JSON.stringify(l)}`);
      const width = l.board + (engine ? B.evalW : 0) + (l.side === 'beside' ? B.colGap + B.side : 0) + B.pad;
      assert.ok(width <= w, `${w}x${h} ${engine}: width ${JSON.stringify(l)}`);
      assert.ok(l.board >= 0.6 * Math.min(w, h), `${w}x${h}: board ${l.board}`);
    }
  }
  assert.equal(embedLayout(720, 460).side, 'beside');
  assert.equal(embedLayout(600, 400).side, 'beside');
  assert.deepEqual(embedLayout(360, 520), { board: 348, side: 'under', moves: false, clocks: true });
  assert.equal(embedLayout(360, 300).clocks, false); // too short for the clocks: they go, the names shrink
});

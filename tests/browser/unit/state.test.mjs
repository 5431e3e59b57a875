import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { Store, START_FEN, uciSquares, isCheck } from '../../../web/src/game-store.js';

const T0 = 1_764_427_200_000_000;

// Protocol `move` messages for a list of SAN moves, computed with chess.js.
function moves(sans, { game = 7, seq = 200, ply = 0, base = new Chess() } = {}) {
  const chess = base;
  return sans.map((san, i) => {
    const m = chess.move(san);
    return { type: 'move', seq: seq + i, ts: T0 + (seq + i) * 1e6, game, ply: ply + i, san: m.san,
      uci: m.from + m.to + (m.promotion || ''), fen: chess.fen(), clock: 5_000_000 - i * 1000, flags: [] };
  });
}

function snapshot(sans, { game = 7, seq = 120, clock = null, result = '*', delay = 0 } = {}) {
  const ms = moves(sans, { game, seq: 0 }).map(({ san, uci, fen, clock: c, flags }) => ({ san, uci, fen, clock: c, flags }));
  return { type: 'snapshot', seq, ts: T0 + seq * 1e6, game: { id: game, round: '1', board: 'DGT23164',
    tags: { White: 'Carlsen, Magnus', Black: 'Nepomniachtchi, Ian', WhiteElo: '2830', BlackElo: '2795', Event: 'Test' },
    start: START_FEN, moves: ms, clock, result, delay } };
}

test('a snapshot then live moves build the game in order', () => {
  const s = new Store();
  const r = s.apply(snapshot(['e4', 'e5']));
  assert.deepEqual([...r.changed], [7]);
  const g = s.games.get(7);
  assert.equal(g.white, 'Carlsen, Magnus');
  assert.equal(g.whiteElo, 2830);
  assert.equal(g.moves.length, 2);
  for (const m of moves(['Nf3', 'Nc6', 'Bb5'], { seq: 121, ply: 2, base: new Chess(g.moves[1].fen) })) s.apply(m);
  assert.deepEqual(g.moves.map((m) => m.san), ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']);
  assert.equal(s.current(g).san, 'Bb5');
  assert.equal(s.lastSeq, 123);
  assert.equal(g.seq, 123);
});

test('an event already seen is never applied twice', () => {
  const s = new Store();
  s.apply(snapshot([], { seq: 120 }));
  const ms = moves(['d4', 'd5'], { seq: 121 });
  s.apply(ms[0]);
  s.apply(ms[0]);          // duplicate delivery
  s.apply(ms[1]);
  s.apply(ms[0]);          // late duplicate
  const old = { type: 'clock', seq: 110, ts: T0, game: 7, white: 1, black: 2, running: 'w' };
  s.apply(old);            // older than the snapshot
  const g = s.games.get(7);
  assert.deepEqual(g.moves.map((m) => m.san), ['d4', 'd5']);
  assert.notEqual(g.clock && g.clock.white, 1);
});

test('a move with the wrong ply asks for a snapshot and nothing applies until it comes', () => {
  const s = new Store();
  s.apply(snapshot(['e4'], { seq: 120 }));
  const ms = moves(['e4', 'e5', 'Nf3'], { seq: 120 });   // seq 120..122, ply 0..2
  const r = s.apply(ms[2]);                               // ply 2 while we hold 1: skipped one
  assert.deepEqual(r.resync, [7]);
  const g = s.games.get(7);
  assert.equal(g.stale, true);
  const r2 = s.apply({ type: 'move', seq: 123, ts: T0, game: 7, ply: 3, san: 'Nc6', uci: 'b8c6', fen: 'x', flags: [] });
  assert.equal(r2.resync.length, 0);                      // asked once, waiting
  assert.equal(g.moves.length, 1);
  s.apply(snapshot(['e4', 'e5', 'Nf3', 'Nc6'], { seq: 123 }));
  assert.equal(g.stale, false);
  assert.deepEqual(g.moves.map((m) => m.san), ['e4', 'e5', 'Nf3', 'Nc6']);
  // A move behind what we hold is a gap too.
  const r3 = s.apply({ ...ms[1], seq: 124, ply: 1 });
  assert.deepEqual(r3.resync, [7]);
});

test('a correction retracts moves and the replacements follow', () => {
  const s = new Store();
  s.apply(snapshot(['e4', 'e5', 'Nf3'], { seq: 120 }));
  s.apply({ type: 'correction', seq: 121, ts: T0, game: 7, ply: 2, retracted: 1 });
  const g = s.games.get(7);
  assert.deepEqual(g.moves.map((m) => m.san), ['e4', 'e5']);
  const base = new Chess();
  base.move('e4'); base.move('e5');
  s.apply(moves(['Bc4'], { seq: 122, ply: 2, base })[0]);
  assert.deepEqual(g.moves.map((m) => m.san), ['e4', 'e5', 'Bc4']);
  // A correction past the end cannot be applied: resync.
  const r = s.apply({ type: 'correction', seq: 123, ts: T0, game: 7, ply: 9, retracted: 1 });
  assert.deepEqual(r.resync, [7]);
});

test('clocks: a move stops the mover and starts the opponent; clock events replace; result freezes', () => {
  const s = new Store();
  s.apply(snapshot([], { seq: 120, clock: { white: 5_400_000, black: 5_400_000, running: 'w', at: T0 } }));
  const g = s.games.get(7);
  const [m] = moves(['e4'], { seq: 121 });
  m.ts = T0 + 10e6;
  m.clock = 5_420_000;
  s.apply(m);
  assert.deepEqual(g.clock, { white: 5_420_000, black: 5_400_000, running: 'b', at: T0 + 10e6 });
  s.apply({ type: 'clock', seq: 122, ts: T0 + 12e6, game: 7, white: 5_420_000, black: 5_398_000, running: 'b' });
  assert.equal(g.clock.black, 5_398_000);
  assert.equal(g.clock.at, T0 + 12e6);
  s.apply({ type: 'result', seq: 123, ts: T0 + 20e6, game: 7, result: '0-1', reason: 'resignation' });
  assert.equal(g.result, '0-1');
  assert.equal(g.reason, 'resignation');
  assert.equal(g.clock.running, '-');
  assert.equal(g.clock.black, 5_390_000); // 8 s ran between the clock event and the result
});

test('status, new games and the games list', () => {
  const s = new Store();
  s.apply({ type: 'games', games: [
    { id: 9, round: '2', board: 'B2', table: 2, white: 'A', black: 'B', white_elo: 2500, black_elo: 0, result: '*', plies: 3, fen: 'f3', last: 'Nf3', online: true, attention: false },
    { id: 8, round: '2', board: 'B1', table: 1, white: 'C', black: 'D', result: '*', plies: 0, fen: START_FEN, online: true, attention: false },
    { id: 3, round: '10', board: 'B1', table: 1, white: 'E', black: 'F', result: '1-0', plies: 40, fen: 'x', online: true, attention: false },
  ] });
  assert.deepEqual(s.rounds(), ['2', '10']);
  assert.deepEqual(s.roundGames('2').map((g) => g.id), [8, 9]);
  assert.equal(s.games.get(9).blackElo, null);
  assert.equal(s.games.get(9).whiteTitle, '');
  assert.deepEqual(s.current(s.games.get(9)), { fen: 'f3', plies: 3, san: 'Nf3', uci: null });
  // A live move for a game we only know from the list needs its snapshot first.
  const r = s.apply({ type: 'move', seq: 300, ts: T0, game: 9, ply: 3, san: 'e5', uci: 'e7e5', fen: 'y', flags: [] });
  assert.deepEqual(r.resync, [9]);
  s.apply({ type: 'status', seq: 301, ts: T0, game: 8, online: false, attention: true });
  assert.equal(s.games.get(8).online, false);
  assert.equal(s.games.get(8).attention, true);
  const r2 = s.apply({ type: 'game', seq: 302, ts: T0, game: { id: 11, round: '2', board: 'B3' } });
  assert.equal(r2.list, true);
  assert.deepEqual(s.roundGames('2').map((g) => g.id), [8, 9, 11]);
  const r3 = s.apply({ type: 'error', error: "unknown op 'x'", where: 'op' });
  assert.equal(r3.error.where, 'op');
});

test('garbage does not throw', () => {
  const s = new Store();
  for (const m of [null, 5, 'x', {}, { type: 'move' }, { type: 'snapshot' }, { type: 'games', games: [{}] }, { type: 'move', game: 'abc' }]) s.apply(m);
  assert.equal(s.games.size, 0);
});

test('helpers', () => {
  assert.deepEqual(uciSquares('e2e4'), ['e2', 'e4']);
  assert.deepEqual(uciSquares('e7e8q'), ['e7', 'e8']);
  assert.equal(uciSquares('zz'), undefined);
  assert.equal(isCheck('Qxf7#'), true);
  assert.equal(isCheck('Nf3+'), true);
  assert.equal(isCheck('Nf3'), false);
});

test('a new game event (relay style, with tags and start) and its first moves', () => {
  const s = new Store();
  const r = s.apply({ type: 'game', seq: 400, ts: T0, game: { id: 12, round: '3', board: 'DGT1', table: 5,
    tags: { White: 'Wh, A', Black: 'Bl, B', WhiteElo: '2400' }, start: START_FEN } });
  assert.equal(r.list, false);
  const g = s.games.get(12);
  assert.equal(g.white, 'Wh, A');
  assert.equal(g.whiteElo, 2400);
  assert.equal(g.whiteTitle, '');
  assert.equal(g.table, 5);
  assert.equal(g.loaded, true);
  s.apply(moves(['c4'], { game: 12, seq: 401 })[0]);
  assert.deepEqual(g.moves.map((m) => m.san), ['c4']);
  s.apply({ type: 'tag', seq: 402, ts: T0, game: 12, name: 'Black', value: 'Other, C' });
  assert.equal(g.black, 'Other, C');
  s.apply({ type: 'tag', seq: 402, ts: T0, game: 12, name: 'Black', value: 'Dup' });
  assert.equal(g.black, 'Other, C');
  // The bare form of the protocol document asks for the list.
  assert.equal(s.apply({ type: 'game', seq: 403, ts: T0, game: { id: 13, round: '3', board: 'X' } }).list, true);
  // Titles (the pairings give them) come with the tags.
  s.apply({ type: 'tag', seq: 404, ts: T0, game: 12, name: 'WhiteTitle', value: 'GM' });
  assert.equal(g.whiteTitle, 'GM');
});

test('null clock values from the relay are tolerated', () => {
  const s = new Store();
  s.apply(snapshot([], { seq: 120, clock: { white: null, black: null, running: '-', at: T0 } }));
  const [m] = moves(['e4'], { seq: 121 });
  m.clock = null;
  s.apply(m);
  const g = s.games.get(7);
  assert.equal(g.moves[0].clock, null);
  assert.equal(g.clock.white, null);
});

test('only live events, not snapshots, set the viewer/relay time offset', () => {
  const s = new Store();
  const local = T0 / 1000 + 300_000;       // the viewer's clock, 5 min after T0
  s.apply(snapshot(['e4'], { seq: 120, delay: 60, clock: { white: 5_000_000, black: 5_000_000, running: 'b', at: T0 } }), local);
  assert.equal(s.time.offsetUs, null);
  // Synchronised clocks assumed: the relay's now is the viewer's minus the delay.
  assert.equal(s.time.relayNowUs(local), local * 1000 - 60e6);
  s.apply({ type: 'clock', seq: 121, ts: T0 + 239e6, game: 7, white: 5_000_000, black: 4_990_000, running: 'b' }, local);
  assert.equal(s.time.offsetUs, 61e6);
});

test('resume points: since only for what is held whole', () => {
  const s = new Store();
  assert.equal(s.sinceFor({ round: '1' }), 0);
  s.apply(snapshot([], { seq: 150 }));
  s.apply({ type: 'games', games: [{ id: 8, round: '1', board: 'B', plies: 4, fen: 'x', result: '*' }] });
  assert.equal(s.sinceFor({ game: 7 }), 0);        // no event seen yet: snapshot again
  s.apply(moves(['d4'], { seq: 155 })[0]);
  assert.equal(s.sinceFor({ game: 7 }), 155);
  assert.equal(s.sinceFor({ game: 8 }), 0);       // only known from the list
  assert.equal(s.sinceFor({ game: 99 }), 0);
  assert.equal(s.sinceFor({ round: '1' }), 0);    // game 8 not held
  s.apply(snapshot(['d4'], { game: 8, seq: 151 }));
  assert.equal(s.sinceFor({ round: '1' }), 155);
  s.apply({ type: 'move', seq: 160, ts: T0, game: 8, ply: 5, san: 'x', uci: 'a1a2', fen: 'y', flags: [] });
  assert.equal(s.sinceFor({ round: '1' }), 0);    // stale after a gap
  assert.equal(s.sinceFor({ game: 7 }), 160);
});

test('the resume point moves with events only, not with snapshots or welcome', () => {
  const s = new Store();
  s.apply({ type: 'welcome', trusted: false, delay: 120, seq: 900 });
  assert.equal(s.lastSeq, 0);
  assert.equal(s.time.delayUs, 120e6);
  s.apply(snapshot(['e4'], { seq: 850 }));
  assert.equal(s.lastSeq, 0);
  const base = new Chess();
  base.move('e4');
  s.apply(moves(['e5'], { seq: 860, ply: 1, base })[0]);
  assert.equal(s.lastSeq, 860);
  assert.equal(s.sinceFor({ game: 7 }), 860);
});

test('a round followed by summaries: its list, a summary per change, a game opened and closed', () => {
  const s = new Store();
  const brief = (id, plies, fen, extra = {}) => ({ id, round: '1', board: `B${id}`, table: id,
    w: ['Abdusattorov, Nodirbek', 2766, 'GM', 'UZB', 'Uzbekistan'], b: ['Gukesh, D', null, '', 'IND', ''],
    result: '*', plies, fen, ...extra });
  const E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
  s.apply({ type: 'games', round: '1', seq: 50, games: [brief(7, 0, START_FEN, { seq: 10 }), brief(8, 1, E4, { seq: 40, last: 'e4', uci: 'e2e4', clock: [5_400_000, 5_390_000, 'b', T0], online: false })] });
  const g8 = s.games.get(8);
  assert.equal(g8.white, 'Abdusattorov, Nodirbek');
  assert.equal(g8.whiteElo, 2766);
  assert.equal(g8.whiteFed, 'UZB');
  assert.equal(g8.whiteTeam, 'Uzbekistan');
  assert.equal(g8.blackElo, null);
  assert.equal(g8.online, false);
  assert.deepEqual(s.current(g8), { fen: E4, plies: 1, san: 'e4', uci: 'e2e4' });
  assert.deepEqual(g8.clock, { white: 5_400_000, black: 5_390_000, running: 'b', at: T0 });
  assert.equal(s.sinceFor({ round: '1', summary: true }), 0, 'no summary seen yet: lastSeq 0');
  // A change: the game's summary, whole.
  const out = s.apply({ type: 'summary', seq: 51, ts: T0 + 1, game: brief(8, 2, START_FEN, { last: 'e5', uci: 'e7e5' }) });
  assert.ok(out.changed.has(8));
  assert.equal(s.lastSeq, 51);
  assert.equal(g8.online, true, 'left out: the default');
  assert.equal(g8.clock, null, 'no clock in it: none');
  assert.equal(s.current(g8).san, 'e5');
  assert.equal(s.sinceFor({ round: '1', summary: true }), 51, 'the list held: resume from the last seq');
  // An older one changes nothing; the same seq again brings an evaluation.
  s.apply({ type: 'summary', seq: 50, ts: T0 + 1, game: brief(8, 9, E4) });
  assert.equal(s.current(g8).plies, 2);
  s.apply({ type: 'summary', seq: 51, ts: T0 + 1, game: brief(8, 2, START_FEN, { last: 'e5', eval: { cp: 20, depth: 18 } }) });
  assert.deepEqual(s.evalAt(g8, 2), { cp: 20, depth: 18 });
  // Opened: the snapshot brings the moves; closed, a newer summary drops them.
  s.apply({ type: 'snapshot', seq: 52, ts: T0, game: { id: 8, round: '1', tags: {}, start: START_FEN, moves: [{ san: 'e4', uci: 'e2e4', fen: E4 }], clock: null, result: '*' } });
  assert.equal(g8.loaded, true);
  s.apply({ type: 'summary', seq: 52, ts: T0, game: brief(8, 3, E4) });
  assert.equal(g8.loaded, true, 'not newer than the snapshot: kept');
  s.apply({ type: 'summary', seq: 60, ts: T0, game: brief(8, 3, E4, { last: 'Nf3' }) });
  assert.equal(g8.loaded, false);
  assert.deepEqual(g8.moves, []);
  assert.equal(s.current(g8).san, 'Nf3');
});

// Issue 30's viewer logic under node: followed players, the stream's
// player URL and how far it runs ahead, spoken moves, team matches on the
// overview, player cards, and the Russian texts of those modules.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FollowStore, followEvents } from '../../../web/src/follow-store.js';
import { streamFor, embedSrc, streamAhead, streamMode } from '../../../web/src/stream.js';
import { spokenSan, spokenMove, spokenResult, voiceLang, Speaker } from '../../../web/src/speech.js';
import { roundMatches, arrangeByMatch, matchScore, teamsOf } from '../../../web/src/team-view.js';
import { playerInfo } from '../../../web/src/player-card.js';
import { RU_EXTRAS } from '../../../web/src/i18n-extras.js';
import { tableOf } from '../../../web/src/i18n.js';

function memStorage() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), map: m };
}

test('followed players are kept in the storage, their games first', () => {
  const st = memStorage();
  const f = new FollowStore(st);
  assert.equal(f.toggle('Giri, Anish'), true);
  assert.equal(f.toggle(' So, Wesley '), true);
  assert.equal(f.toggle('Giri, Anish'), false);
  f.toggle('Giri, Anish');
  f.setNotify(true);
  const again = new FollowStore(st);
  assert.deepEqual(again.list(), ['Giri, Anish', 'So, Wesley']);
  assert.equal(again.notify, true);
  const games = [{ id: 1, white: 'A', black: 'B' }, { id: 2, white: 'C', black: 'So, Wesley' }, { id: 3, white: 'Giri, Anish', black: 'D' }, { id: 4, white: 'E', black: 'F' }];
  assert.deepEqual(again.arrange(games).map((g) => g.id), [2, 3, 1, 4]);
  assert.deepEqual(new FollowStore(null).arrange(games).map((g) => g.id), [1, 2, 3, 4]);
  // A broken entry is nothing followed, not an error.
  st.setItem('cr.follow', '{not json');
  assert.deepEqual(new FollowStore(st).list(), []);
  st.setItem('cr.follow', '[1, "", "X"]');
  assert.deepEqual(new FollowStore(st).list(), ['X']);
});

test('what a follower is told: the start, each latest move, the result', () => {
  assert.deepEqual(followEvents(null, { plies: 3, result: '*', last: 'e5' }), []);
  assert.deepEqual(followEvents({ plies: 0, result: '*' }, { plies: 1, result: '*', last: 'e4' }),
    [{ kind: 'start' }, { kind: 'move', ply: 1, san: 'e4' }]);
  assert.deepEqual(followEvents({ plies: 7, result: '*' }, { plies: 8, result: '*', last: 'Nf3' }), [{ kind: 'move', ply: 8, san: 'Nf3' }]);
  assert.deepEqual(followEvents({ plies: 8, result: '*' }, { plies: 8, result: '1-0', last: 'Nf3' }), [{ kind: 'result', result: '1-0' }]);
  assert.deepEqual(followEvents({ plies: 8, result: '*' }, { plies: 8, result: '*', last: 'Nf3' }), []);
  assert.deepEqual(followEvents({ plies: 8, result: '*' }, { plies: 7, result: '*', last: 'e5' }), [], 'a take-back tells nothing');
});

test('the stream of a round, its player URL, how far it runs ahead', () => {
  const tour = { streams: [{ round: '*', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=5', kind: 'youtube', delay_s: 30 },
    { round: '2', url: 'https://www.twitch.tv/chessclub', kind: 'twitch', delay_s: 0 },
    { round: '3', url: 'http://10.0.0.5/hall/index.m3u8', kind: 'hls' }] };
  assert.equal(streamFor(tour, '1').kind, 'youtube');
  assert.equal(streamFor(tour, 2).kind, 'twitch');
  assert.equal(streamFor(null, '1'), null);
  assert.equal(streamFor({ streams: [{ round: '4', url: 'x' }] }, '1'), null);
  assert.deepEqual(embedSrc(streamFor(tour, '1'), 'relay.example'), { tag: 'iframe', src: 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0', kind: 'youtube' });
  assert.equal(embedSrc({ url: 'https://youtu.be/abc_DEF-1' }).src, 'https://www.youtube-nocookie.com/embed/abc_DEF-1?rel=0');
  assert.equal(embedSrc({ url: 'https://www.youtube.com/live/XyZ' }).src, 'https://www.youtube-nocookie.com/embed/XyZ?rel=0');
  assert.equal(embedSrc(streamFor(tour, '2'), 'relay.example').src, 'https://player.twitch.tv/?channel=chessclub&parent=relay.example&autoplay=false');
  assert.equal(embedSrc({ url: 'https://www.twitch.tv/videos/12345', kind: 'twitch' }, 'h').src, 'https://player.twitch.tv/?video=12345&parent=h&autoplay=false');
  assert.deepEqual(embedSrc(streamFor(tour, '3')), { tag: 'video', src: 'http://10.0.0.5/hall/index.m3u8', kind: 'hls' });
  assert.equal(embedSrc({ url: 'javascript:alert(1)//x.m3u8' }), null);
  assert.equal(embedSrc({ url: 'https://www.youtube.com/watch?v=a"b', kind: 'youtube' }), null);
  assert.equal(embedSrc({ url: 'not a url' }), null);
  assert.equal(streamAhead(900, { delay_s: 30 }), 870);
  assert.equal(streamAhead(0, { delay_s: 30 }), 0);
  assert.equal(streamAhead(60, null), 0);
  assert.equal(streamMode('pinned'), 'pinned');
  assert.equal(streamMode('bogus'), 'shown');
});

test('spoken moves in English and Russian', () => {
  assert.equal(spokenSan('Nf3'), 'Knight f 3');
  assert.equal(spokenSan('exd5'), 'e takes d 5');
  assert.equal(spokenSan('Qxf7#'), 'Queen takes f 7, checkmate');
  assert.equal(spokenSan('O-O+'), 'castles kingside, check');
  assert.equal(spokenSan('O-O-O'), 'castles queenside');
  assert.equal(spokenSan('e8=Q+'), 'e 8 promotes to Queen, check');
  assert.equal(spokenSan('Rad1'), 'Rook a d 1');
  assert.equal(spokenSan('Nf3', 'ru'), 'Конь f 3');
  assert.equal(spokenSan('Bxb4+', 'ru'), 'Слон бьёт b 4, шах');
  assert.equal(spokenSan('O-O', 'ru'), 'короткая рокировка');
  assert.equal(spokenSan('a1=N', 'ru'), 'a 1 превращается в коня');
  assert.equal(spokenMove('12', 'black', 'Nf6'), '12 Black: Knight f 6');
  assert.equal(spokenMove('1', 'white', 'e4', 'ru'), '1 Белые: e 4');
  assert.equal(spokenResult('1/2-1/2'), 'Draw');
  assert.equal(spokenResult('0-1', 'ru'), 'Чёрные выиграли');
  assert.equal(spokenResult('*'), '');
  assert.equal(voiceLang('ru'), 'ru-RU');
  const said = [];
  class U { constructor(text) { this.text = text; } }
  const sp = new Speaker({ speechSynthesis: { speak: (u) => said.push([u.text, u.lang]) }, SpeechSynthesisUtterance: U }, 'ru');
  assert.equal(sp.say('Конь f 3'), true);
  assert.deepEqual(said, [['Конь f 3', 'ru-RU']]);
  assert.equal(new Speaker({}, 'en').say('x'), false, 'no speech engine: nothing, no error');
});

test('a round\'s team matches: board points, match points once over, boards by match', () => {
  const g = (id, white, black, wt, bt, result = '*') => ({ id, white, black, whiteTeam: wt, blackTeam: bt, result });
  const games = [
    g(1, 'a1', 'b1', 'A', 'B', '1-0'), g(2, 'b2', 'a2', 'B', 'A', '1/2-1/2'), g(3, 'a3', 'b3', 'A', 'B', '0-1'), g(4, 'b4', 'a4', 'B', 'A', '0-1'),
    g(5, 'c1', 'd1', 'C', 'D', '1-0'), g(6, 'd2', 'c2', 'D', 'C'),
    g(7, 'x', 'y', '', ''),
  ];
  const ms = roundMatches(games);
  assert.equal(ms.length, 2);
  assert.deepEqual([ms[0].home, ms[0].away, ms[0].bp, ms[0].mp], ['A', 'B', [2.5, 1.5], [2, 0]]);
  assert.equal(matchScore(ms[0]), 'A 2½–1½ B');
  assert.deepEqual([ms[1].bp, ms[1].mp, ms[1].open], [[1, 0], null, 1]);
  const shuffled = [games[4], games[0], games[6], games[1], games[5], games[2], games[3]];
  assert.deepEqual(arrangeByMatch(shuffled, roundMatches(shuffled)).map((x) => x.id), [5, 6, 1, 2, 3, 4, 7]);
  assert.deepEqual(roundMatches([g(1, 'x', 'y', '', '')]), []);
  // Teams from the pairings file (TRF 013) when the games have none.
  const file = { players: [{ name: 'x', team: 'X' }, { name: 'y', team: 'Y' }] };
  const fm = roundMatches([g(1, 'x', 'y', '', '', '1/2-1/2')], teamsOf(file));
  assert.deepEqual([fm[0].home, fm[0].away, fm[0].mp], ['X', 'Y', [1, 1]]);
});

test('a player\'s card: the file\'s and the games\' facts, the photo, score and games', () => {
  const games = [
    { id: 1, round: '1', white: 'Carlsen, Magnus', black: 'Nepo, Ian', result: '1-0', whiteElo: 2830, whiteTitle: 'GM', whiteFed: 'NOR' },
    { id: 5, round: '2', white: 'Ding, Liren', black: 'Carlsen, Magnus', result: '*', blackElo: 2831 },
  ];
  const pairings = { players: [{ name: 'Carlsen, Magnus', fideId: 1503014, team: 'Norway' }],
    games: [{ round: '3', white: 'Carlsen, Magnus', black: 'So, Wesley', result: '*' }, { round: '1', white: 'Carlsen, Magnus', black: 'Nepo, Ian', result: '1-0' }] };
  const tour = { players: [{ name: 'Carlsen, Magnus', photo: '/media/photo/0', credit: 'Photo: X' }] };
  const info = playerInfo('Carlsen, Magnus', games, pairings, tour);
  assert.equal(info.title, 'GM');
  assert.equal(info.rating, 2831, 'the latest game\'s rating');
  assert.equal(info.fed, 'NOR');
  assert.equal(info.fideId, '1503014');
  assert.equal(info.team, 'Norway');
  assert.equal(info.photo, '/media/photo/0');
  assert.equal(info.credit, 'Photo: X');
  assert.equal(info.points, 1);
  assert.equal(info.rank, 1);
  assert.deepEqual(info.games.map((r) => [r.round, r.id, r.color, r.opp]), [['1', 1, 'white', 'Nepo, Ian'], ['2', 5, 'black', 'Ding, Liren'], ['3', null, 'white', 'So, Wesley']]);
  const nobody = playerInfo('Nobody', games, null, null);
  assert.deepEqual([nobody.games, nobody.points, nobody.photo], [[], null, '']);
});

test('every text of issue 30\'s modules has its Russian text, with the same {names}', () => {
  const SRC = fileURLToPath(new URL('../../../web/src/', import.meta.url));
  const ru = tableOf('ru');
  const names = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
  const keys = new Set();
  for (const f of ['extras.js', 'followed-page.js', 'player-card.js', 'stream-panel.js', 'team-view.js', 'standings-page.js']) {
    const src = readFileSync(SRC + f, 'utf8');
    for (const m of src.matchAll(/\bt\(\s*'((?:[^'\\]|\\.)*)'/g)) keys.add(m[1].replace(/\\'/g, "'"));
  }
  assert.ok(keys.size > 40, `only ${keys.size} strings found`);
  assert.deepEqual([...keys].filter((k) => !ru[k]), []);
  for (const k of keys) assert.equal(names(ru[k]), names(k), `placeholders of "${k}"`);
  for (const [k, v] of Object.entries(RU_EXTRAS)) assert.equal(names(v), names(k), `placeholders of "${k}"`);
});

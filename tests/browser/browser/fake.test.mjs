// The viewer in a real browser (Debian's chromium) against the fake relay:
// boards, moves, clocks, stepping, notation, reconnect with `since`,
// corrections, resync after a gap, and a phone-sized screen.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { FakeRelay, seedRound, RUY, RUY_MORE } from '../fake-relay.mjs';
import { launch, screenshot, renderedPlacement, waitForBoard, waitFor, parseClock, DEFAULT_WEB, webAssets } from '../lib.mjs';

let relay;
let browser;
let page;
const pageErrors = [];
const outside = [];

before(async () => {
  assert.ok(existsSync(`${DEFAULT_WEB}/index.html`), `web build missing at ${DEFAULT_WEB} (run web/build.sh)`);
  relay = new FakeRelay();
  seedRound(relay);
  await relay.start();
  browser = await launch();
  // Every request must stay on the relay's origin: record and refuse others.
  await browser.context.route(/.*/, (route) => {
    const u = new URL(route.request().url());
    if (u.protocol !== 'data:' && u.hostname !== '127.0.0.1') {
      outside.push(u.href);
      return route.abort();
    }
    return route.continue();
  });
  page = await browser.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  if (browser) await browser.close();
  if (relay) await relay.stop();
});

const moveList = () => page.$$eval('.moves .mv[data-ply]', (els) => els.map((e) => e.dataset.san));
// A move's text without its time used and clock (.mv-times).
const shownMoves = () => page.$$eval('.moves .mv[data-ply]', (els) => els.map((e) => [...e.childNodes]
  .filter((n) => !(n.classList && n.classList.contains('mv-times'))).map((n) => n.textContent).join('')));
const connState = () => page.getAttribute('.conn', 'data-state');

test('round overview: every board, in board order, with the right position and badges', async () => {
  // The bare URL opens the round being played (round 2 has only pairings).
  await page.goto(`${relay.url}/`);
  await page.waitForURL(/#\/round\/1$/);
  await page.waitForSelector('.card[data-game="4"] piece');
  const ids = await page.$$eval('.boards .card', (els) => els.map((e) => Number(e.dataset.game)));
  assert.deepEqual(ids, [1, 2, 3, 4], 'stable board order by table');
  for (const id of ids) {
    const got = await waitForBoard(page, `.card[data-game="${id}"]`, relay.fen(id));
    assert.equal(got, relay.fen(id).split(' ')[0], `board of game ${id}`);
  }
  const card1 = await page.textContent('.card[data-game="1"]');
  assert.match(card1, /Carlsen, Magnus/);
  assert.match(card1, /2830/);
  assert.match(card1, /5\.\.\. Be7/);
  assert.match(await page.textContent('.card[data-game="2"] .result'), /1–0/);
  assert.match(await page.textContent('.card[data-game="3"]'), /not started/);
  assert.match(await page.textContent('.card[data-game="3"]'), /Firouzja/);
  const cls4 = await page.getAttribute('.card[data-game="4"]', 'class');
  assert.match(cls4, /is-offline/);
  assert.match(cls4, /is-attention/);
  assert.equal(await connState(), 'open');
  // Round filter: round 2 holds only game 5.
  const tabs = await page.$$eval('.round-tab', (els) => els.map((e) => e.dataset.round));
  assert.deepEqual(tabs, ['1', '2']);
  await screenshot(page, 'overview-desktop');
});

test('a live move reaches the overview board', async () => {
  const msg = relay.move(1, RUY_MORE[0], { clock: 5_300_000 });
  const got = await waitForBoard(page, '.card[data-game="1"]', msg.fen);
  assert.equal(got, msg.fen.split(' ')[0]);
  await waitFor(async () => /6\. Re1/.test(await page.textContent('.card[data-game="1"] .last')));
  assert.match(await page.textContent('.card[data-game="1"] .last'), /6\. Re1/);
});

test('round filter', async () => {
  await page.click('.round-tab[data-round="2"]');
  await page.waitForSelector('.card[data-game="5"]');
  const ids = await page.$$eval('.boards .card', (els) => els.map((e) => Number(e.dataset.game)));
  assert.deepEqual(ids, [5]);
  await page.click('.round-tab[data-round="1"]');
  await page.waitForSelector('.card[data-game="1"] piece');
});

test('round overview: the search box finds a player, team or federation as you type', async () => {
  Object.assign(relay.games.get(2).tags, { WhiteFed: 'CHN', WhiteTeam: 'China' });
  Object.assign(relay.games.get(3).tags, { BlackFed: 'USA', BlackTeam: 'United States' });
  await page.goto(`${relay.url}/#/round/1`);
  await page.reload(); // the snapshots bring the new tags
  await page.waitForSelector('.card[data-game="4"] piece');
  const ids = () => page.$$eval('.boards .card', (els) => els.map((e) => Number(e.dataset.game)));
  const find = async (text, want) => {
    await page.fill('.board-search', text);
    await waitFor(async () => JSON.stringify(await ids()) === JSON.stringify(want), 3000);
    assert.deepEqual(await ids(), want, `search '${text}'`);
  };
  await find('carl', [1]);
  await find('Caruana', [2]);        // the black player
  await find('china', [2]);          // a team
  await find('usa', [3]);            // a federation
  await find('giri  ANISH', [4]);    // words in any case
  await find('nobody here', []);
  await find('', [1, 2, 3, 4]);
});

test('game page: board, move list in order, clocks ticking for the side to move only', async () => {
  await page.click('.card[data-game="1"]');
  await page.waitForSelector('.game-page .moves .mv[data-ply]');
  assert.equal(new URL(page.url()).hash, '#/game/1');
  const g = relay.games.get(1);
  assert.deepEqual(await moveList(), g.moves.map((m) => m.san));
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1)), relay.fen(1).split(' ')[0]);
  // Black to move after 6. Re1: black's clock (top bar) runs, white's stands.
  const topClock = '.board-col .player.top .clock';
  const bottomClock = '.board-col .player.bottom .clock';
  assert.match(await page.getAttribute(topClock, 'class'), /running/);
  assert.doesNotMatch(await page.getAttribute(bottomClock, 'class'), /running/);
  const b1 = parseClock(await page.textContent(topClock));
  const w1 = parseClock(await page.textContent(bottomClock));
  // Black's clock counts down a second; the same tick draws White's, which stands.
  const b2 = await waitFor(async () => {
    const b = parseClock(await page.textContent(topClock));
    return b1 - b >= 1000 ? b : 0;
  }, 5000);
  const w2 = parseClock(await page.textContent(bottomClock));
  assert.ok(b1 - b2 >= 1000 && b1 - b2 <= 4000, `black's clock ticks: ${b1} -> ${b2}`);
  assert.equal(w2, w1, "white's clock stands");
  assert.equal(w1, 5_300_000);
  // Last move highlighted.
  const last = await page.$$eval('.board-wrap square.last-move', (els) => els.map((e) => e.cgKey).sort());
  assert.deepEqual(last, ['e1', 'f1']);
  await screenshot(page, 'game-desktop');
});

test('stepping backward and forward with keys and buttons, and back to live', async () => {
  const g = relay.games.get(1);
  const n = g.moves.length;
  await page.keyboard.press('ArrowLeft');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, n - 1)), relay.fen(1, n - 1).split(' ')[0]);
  assert.equal(await page.getAttribute('.moves .mv.current', 'data-ply'), String(n - 2));
  assert.match(await page.getAttribute('.game-page', 'class'), /browsing/);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, n - 3)), relay.fen(1, n - 3).split(' ')[0]);
  // A new live move while browsing does not move the board away.
  const msg = relay.move(1, RUY_MORE[1], { clock: 5_290_000 });
  await waitFor(async () => (await moveList()).length === n + 1);
  assert.equal(await renderedPlacement(page, '.board-wrap'), relay.fen(1, n - 3).split(' ')[0]);
  await page.keyboard.press('ArrowRight');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, n - 2)), relay.fen(1, n - 2).split(' ')[0]);
  await page.click('.controls .btn.first');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, 0)), relay.fen(1, 0).split(' ')[0]);
  assert.equal(await page.isDisabled('.controls .btn.prev'), true);
  await page.click('.controls .btn.next');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, 1)), relay.fen(1, 1).split(' ')[0]);
  await page.click('.moves .mv[data-ply="4"]');   // 3. Bb5
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, 5)), relay.fen(1, 5).split(' ')[0]);
  await screenshot(page, 'game-browsing');
  await page.click('.controls .btn.live');
  assert.equal(await waitForBoard(page, '.board-wrap', msg.fen), msg.fen.split(' ')[0]);
  assert.doesNotMatch(await page.getAttribute('.game-page', 'class'), /browsing/);
  await page.keyboard.press('Home');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, 0)), relay.fen(1, 0).split(' ')[0]);
  await page.keyboard.press('End');
  assert.equal(await waitForBoard(page, '.board-wrap', msg.fen), msg.fen.split(' ')[0]);
});

test('flip puts black at the bottom', async () => {
  await page.click('.controls .btn.flip');
  await waitFor(async () => /orientation-black/.test(await page.getAttribute('.board-wrap .cg-wrap', 'class')));
  assert.match(await page.textContent('.board-col .player.bottom .name'), /Nepomniachtchi/);
  assert.equal(await renderedPlacement(page, '.board-wrap'), relay.fen(1).split(' ')[0]);
  await page.keyboard.press('f');
  await waitFor(async () => /orientation-white/.test(await page.getAttribute('.board-wrap .cg-wrap', 'class')));
  assert.match(await page.textContent('.board-col .player.bottom .name'), /Carlsen/);
});

test('localized and figurine notation', async () => {
  await page.selectOption('.notation', 'de');
  await waitFor(async () => (await shownMoves())[2] === 'Sf3');
  const de = await shownMoves();
  assert.deepEqual(de.slice(0, 9), ['e4', 'e5', 'Sf3', 'Sc6', 'Lb5', 'a6', 'La4', 'Sf6', 'O-O']);
  await page.selectOption('.notation', 'ru');
  await waitFor(async () => (await shownMoves())[2] === 'Кf3');
  assert.equal((await shownMoves())[9], 'Сe7');
  await page.selectOption('.notation', 'figurine');
  await waitFor(async () => (await shownMoves())[2] === '♞f3');
  await screenshot(page, 'game-figurine');
  await page.selectOption('.notation', 'en');
  await waitFor(async () => (await shownMoves())[2] === 'Nf3');
});

test('PGN links point at the relay and download', async () => {
  assert.equal(await page.getAttribute('.game-pgn', 'href'), '/game/1.pgn');
  assert.equal(await page.getAttribute('.tools .round-pgn', 'href'), '/round/1.pgn');
  const res = await page.request.get(`${relay.url}/game/1.pgn`);
  assert.match(await res.text(), /1\. e4 e5 2\. Nf3/);
});

test('a dropped connection is survived: resume with since, no move twice, none skipped', async () => {
  const before = (await moveList()).length;
  const seqBefore = await page.evaluate(() => window.__cr.store.lastSeq);
  assert.equal(seqBefore, relay.seq);
  const subsBefore = relay.received.length;
  await relay.stop();
  await waitFor(async () => (await connState()) === 'reconnecting', 5000);
  assert.equal(await connState(), 'reconnecting');
  assert.match(await page.textContent('.notice-bar'), /Connection to the relay lost/);
  await screenshot(page, 'game-reconnecting');
  // Two moves happen while the viewer is cut off.
  relay.move(1, RUY_MORE[2], { clock: 5_280_000 });
  const m2 = relay.move(1, RUY_MORE[3], { clock: 5_270_000 });
  await relay.start();
  await waitFor(async () => (await connState()) === 'open', 20000);
  await waitFor(async () => (await moveList()).length === before + 2, 5000);
  const subs = relay.received.slice(subsBefore).filter((m) => m.op === 'subscribe');
  assert.ok(subs.some((m) => m.round === '1' && m.since === seqBefore), `resumed round 1 with since=${seqBefore}: ${JSON.stringify(subs)}`);
  assert.ok(subs.every((m) => m.since === seqBefore), 'every subscription resumes, none asks for a snapshot');
  assert.deepEqual(await moveList(), relay.games.get(1).moves.map((m) => m.san));
  assert.equal(await waitForBoard(page, '.board-wrap', m2.fen), m2.fen.split(' ')[0]);
  // Both subscriptions resume the same events: each applied once only. An
  // event sent after both resumed comes after every resent one: once it is
  // applied, a move applied twice would show.
  await waitFor(() => relay.received.slice(subsBefore).filter((m) => m.op === 'subscribe').length >= 2);
  const probe = relay.status(1, true, false);
  await waitFor(() => page.evaluate((s) => window.__cr.store.lastSeq >= s, probe.seq));
  assert.equal(await page.evaluate(() => window.__cr.store.games.get(1).moves.length), relay.games.get(1).moves.length);
  assert.deepEqual(await moveList(), relay.games.get(1).moves.map((m) => m.san));
});

test('a relay that no longer holds the events answers with a snapshot', async () => {
  await relay.stop();
  await waitFor(async () => (await connState()) === 'reconnecting', 5000);
  relay.move(1, RUY_MORE[4]);
  relay.move(1, RUY_MORE[5]);
  relay.forgetUpTo(relay.seq);
  await relay.start();
  await waitFor(async () => (await moveList()).length === relay.games.get(1).moves.length, 20000);
  assert.deepEqual(await moveList(), relay.games.get(1).moves.map((m) => m.san));
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1)), relay.fen(1).split(' ')[0]);
});

test('a correction replaces the retracted moves', async () => {
  const g = relay.games.get(1);
  const n = g.moves.length;
  relay.correction(1, n - 1);
  const repl = relay.move(1, 'a5');  // instead of the retracted 8...O-O
  await waitFor(async () => (await moveList()).at(-1) === 'a5');
  const list = await moveList();
  assert.equal(list.length, n);
  assert.deepEqual(list, g.moves.map((m) => m.san));
  assert.equal(await waitForBoard(page, '.board-wrap', repl.fen), repl.fen.split(' ')[0]);
});

test('a lost move (ply gap) makes the viewer ask for a snapshot', async () => {
  const before = relay.received.length;
  relay.move(1, 'h3', { hold: true });        // never delivered
  const m = relay.move(1, 'Bb7');             // arrives with ply = held + 1
  await waitFor(async () => (await moveList()).at(-1) === 'Bb7', 5000);
  const resub = relay.received.slice(before).filter((x) => x.op === 'subscribe' && x.game === 1);
  assert.equal(resub.length, 1);
  assert.equal(resub[0].since, undefined, 'a snapshot is asked for, not a resume');
  assert.deepEqual(await moveList(), relay.games.get(1).moves.map((x) => x.san));
  assert.equal(await waitForBoard(page, '.board-wrap', m.fen), m.fen.split(' ')[0]);
});

test('check is highlighted, flags are marked, the result is shown', async () => {
  await page.goto(`${relay.url}/#/game/2`);
  await page.waitForFunction(() => /Ding/.test(document.querySelector('.game-title')?.textContent || ''));
  await page.waitForSelector('.moves .mv[data-ply="6"]');
  // The board draws on its next frame, after the move list: wait for it.
  await page.waitForSelector('.board-wrap square.check', { timeout: 5000 }).catch(() => {});
  const check = await page.$$eval('.board-wrap square.check', (els) => els.map((e) => e.cgKey));
  assert.deepEqual(check, ['e8']);
  assert.match(await page.textContent('.game-result'), /1–0/);
  assert.match(await page.textContent('.board-col .player.bottom .score'), /1/);
  await screenshot(page, 'game-finished');
  // The round's other boards are listed beside the game.
  assert.deepEqual(await page.$$eval('.round-list .rl-row', (els) => els.map((e) => Number(e.dataset.game))), [1, 2, 3, 4]);
  assert.match(await page.getAttribute('.round-list .rl-row[data-game="2"]', 'class'), /current/);
  await page.click('.round-list .rl-row[data-game="4"]');
  await page.waitForFunction(() => /Giri/.test(document.querySelector('.game-title')?.textContent || ''));
  await page.waitForSelector('.moves .mv[data-ply="5"]');
  assert.equal(new URL(page.url()).hash, '#/game/4');
  assert.match(await page.getAttribute('.moves .mv[data-ply="3"]', 'class'), /reconstructed/);
  assert.match(await page.getAttribute('.moves .mv[data-ply="5"]', 'class'), /illegal/);
  assert.match(await page.textContent('.game-status'), /offline/);
  assert.match(await page.textContent('.game-status'), /attention/);
  // A result arriving live.
  relay.result(4, '1/2-1/2', 'agreement');
  await waitFor(async () => /½–½/.test(await page.textContent('.game-result')));
  assert.match(await page.textContent('.game-result'), /agreement/);
  await screenshot(page, 'game-flags');
});

test('public delay notice', async () => {
  relay.delay = 900;
  await relay.stop();
  // An event the viewer missed is dropped from the relay's memory: the
  // resume is answered with snapshots, which carry the delay.
  relay.status(4, false, true);
  relay.forgetUpTo(relay.seq);
  await relay.start();
  await waitFor(async () => /15-minute delay/.test(await page.textContent('.notice-bar')), 20000);
  assert.match(await page.textContent('.notice-bar'), /15-minute delay/);
  // An arbiter's page (token given once in the URL, kept for that tab only)
  // sees no delay notice.
  const arb = await browser.context.newPage();
  try {
    await arb.goto(`${relay.url}/?token=s3cret#/round/1`);
    await arb.waitForSelector('.badge.trusted');
    await arb.waitForSelector('.card[data-game="1"] piece');
    assert.doesNotMatch(await arb.textContent('.notice-bar'), /delay/);
    assert.ok(relay.received.some((m) => m.op === 'hello' && m.token === 's3cret'));
  } finally {
    await arb.close();
  }
  relay.delay = 0;
});

test('phone-sized screen: no sideways scrolling, board fits', async () => {
  const phone = await browser.context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(`${relay.url}/#/round/1`);
  await phone.waitForSelector('.card[data-game="4"] piece');
  const fits = () => phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.equal(await fits(), true, 'overview fits');
  await screenshot(phone, 'overview-phone');
  await phone.goto(`${relay.url}/#/game/1`);
  await phone.waitForSelector('.board-wrap piece');
  assert.equal(await waitForBoard(phone, '.board-wrap', relay.fen(1)), relay.fen(1).split(' ')[0]);
  assert.equal(await fits(), true, 'game page fits');
  const w = await phone.evaluate(() => document.querySelector('.board-wrap').getBoundingClientRect().width);
  assert.ok(w > 300 && w <= 390, `board width ${w}`);
  await screenshot(phone, 'game-phone');
  await phone.close();
});

test('a direct link to a game loads it and then follows its round', async () => {
  const p2 = await browser.context.newPage();
  const from = relay.received.length;
  try {
    await p2.goto(`${relay.url}/#/game/4`);
    await p2.waitForSelector('.moves .mv[data-ply="5"]');
    assert.deepEqual(await p2.$$eval('.moves .mv[data-ply]', (els) => els.map((e) => e.dataset.san)), relay.games.get(4).moves.map((m) => m.san));
    assert.equal(await waitForBoard(p2, '.board-wrap', relay.fen(4)), relay.fen(4).split(' ')[0]);
    await p2.waitForSelector('.round-list .rl-row[data-game="1"]');
    const subs = relay.received.slice(from).filter((m) => m.op === 'subscribe');
    assert.deepEqual(subs.map((m) => m.game ?? `r${m.round}`), [4, 'r1']);
  } finally {
    await p2.close();
  }
});

test('a page opened before the first game finds it when it starts', async () => {
  const empty = new FakeRelay();
  await empty.start();
  const p2 = await browser.context.newPage();
  try {
    await p2.goto(`${empty.url}/`);
    await p2.waitForSelector('.round-title');
    await waitFor(async () => /No games yet/.test(await p2.textContent('.round-title')));
    assert.match(await p2.textContent('.round-title'), /No games yet/);
    empty.addGame({ id: 1, round: '1', table: 1, white: 'Early, Bird', black: 'Late, Comer', whiteElo: 2100, blackElo: 2000,
      clock: { white: 5_400_000, black: 5_400_000, running: '-' }, announce: true });
    await p2.waitForSelector('.card[data-game="1"] piece', { timeout: 10000 });
    assert.match(await p2.textContent('.card[data-game="1"]'), /Early, Bird/);
    const m = empty.move(1, 'e4');
    assert.equal(await waitForBoard(p2, '.card[data-game="1"]', m.fen), m.fen.split(' ')[0]);
    // An unknown game is reported, not waited for silently.
    await p2.goto(`${empty.url}/#/game/99`);
    await waitFor(async () => /unknown game/.test(await p2.textContent('.notice-bar')), 5000);
    assert.match(await p2.textContent('.notice-bar'), /unknown game/);
  } finally {
    await p2.close();
    await empty.stop();
  }
});

test('nothing left the relay origin and no script error happened', async () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(outside, [], 'requests outside the relay origin');
  const paths = new Set(relay.httpRequests);
  const assets = webAssets();
  for (const p of ['/', assets['app.js'], assets['app.css']]) assert.ok(paths.has(p), `served ${p}`);
});

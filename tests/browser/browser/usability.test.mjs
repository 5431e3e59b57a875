// Issue 17 in a real browser (Debian's chromium) against the fake relay:
// the latest move stays in view in long games, the phone layout puts the
// controls and moves under the board, illegal moves carry a clear label,
// stepping back does not move the buttons, sound has to be enabled, the
// arbiter token leaves the address bar, the pages are accessible (names,
// live announcements, focusable moves, contrast, axe-core), finished games
// look finished, and PGN downloads have descriptive names.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FakeRelay, seedRound, RUY_MORE } from '../fake-relay.mjs';
import { screenshot, waitForBoard, waitFor, fakeRelaySession, axeViolations } from '../lib.mjs';


// A long game of knight moves: 64 plies, more than the move list shows.
const DANCE = ['Nf3', 'Nf6', 'Ng1', 'Ng8'];
const LONG = Array.from({ length: 64 }, (_, i) => DANCE[i % 4]);
const LONG_LIVE = ['Nc3', 'Nc6', 'Nb1', 'Nb8', 'Nf3', 'Nf6'];

let session, relay, browser, page, pageErrors; // set by before()

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    r.addGame({ id: 6, round: '1', table: 5, white: 'Long, Game', black: 'Knight, Dancer', whiteElo: 2500, blackElo: 2500,
      moves: LONG, clock: { white: 3_000_000, black: 3_000_000, running: 'w' } });
    // Ten boards in round 1 (the phone layout lists them all).
    for (let id = 7; id <= 10; id++) {
      r.addGame({ id, round: '1', table: id - 1, white: `White ${id}`, black: `Black ${id}`, whiteElo: 2400, blackElo: 2400, moves: ['e4'] });
    }
  });
  ({ relay, browser, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

// Where the current move sits against the list's visible area.
const currentInView = (p) => p.evaluate(() => {
  const list = document.querySelector('.moves');
  const cur = list && list.querySelector('.mv.current');
  if (!cur) return 'no current move';
  const a = list.getBoundingClientRect();
  const b = cur.getBoundingClientRect();
  return b.top >= a.top - 0.5 && b.bottom <= a.bottom + 0.5 ? true
    : `current move at ${Math.round(b.top)}..${Math.round(b.bottom)}, list shows ${Math.round(a.top)}..${Math.round(a.bottom)}`;
});

test('a long game: the latest move stays in view on every live move', async () => {
  await page.goto(`${relay.url}/#/game/6`);
  await page.waitForSelector(`.moves .mv.current[data-ply="${LONG.length - 1}"]`);
  const overflow = await page.$eval('.moves', (e) => e.scrollHeight - e.clientHeight);
  assert.ok(overflow > 200, `the list scrolls (${overflow} px hidden)`);
  assert.equal(await currentInView(page), true, 'on load');
  let n = LONG.length;
  for (const san of LONG_LIVE) {
    relay.move(6, san);
    await page.waitForSelector(`.moves .mv.current[data-ply="${n}"]`);
    assert.equal(await currentInView(page), true, `after live ply ${n} (${san})`);
    n++;
  }
});

test('phone: step buttons and moves right under the board, before the other boards; 44 px buttons', async () => {
  const phone = await browser.context.newPage();
  try {
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${relay.url}/#/game/1`);
    await phone.waitForSelector('.board-wrap piece');
    await waitFor(async () => (await phone.$$('.round-list .rl-row')).length === 9);
    const box = (sel) => phone.$eval(sel, (e) => { const r = e.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY, height: r.height }; });
    const board = await box('.board-col');
    const controls = await box('.controls');
    const moves = await box('.moves');
    const list = await box('.round-list');
    assert.ok(controls.top < list.top, `controls (${controls.top}) before the round's boards (${list.top})`);
    assert.ok(moves.top < list.top, `moves (${moves.top}) before the round's boards (${list.top})`);
    assert.ok(controls.top - board.bottom <= 120, `controls ${Math.round(controls.top - board.bottom)} px below the board`);
    const heights = await phone.$$eval('.controls .btn', (els) => els.map((e) => e.getBoundingClientRect().height));
    for (const hgt of heights) assert.ok(hgt >= 44, `button height ${hgt} >= 44`);
    await screenshot(phone, 'usability-game-phone');
  } finally {
    await phone.close();
  }
});

test('an illegal move carries a clear label, not "!"', async () => {
  await page.goto(`${relay.url}/#/game/4`);
  await page.waitForSelector('.moves .mv.illegal');
  const text = await page.textContent('.moves .mv.illegal');
  assert.doesNotMatch(text, /!/);
  assert.match(text, /illegal/i);
  const legend = await page.textContent('.moves .legend');
  assert.doesNotMatch(legend, /!/);
});

test('the first step back does not move the buttons or the move list', async () => {
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.moves .mv.current');
  const tops = () => page.evaluate(() => ['.controls', '.moves'].map((s) => document.querySelector(s).getBoundingClientRect().top));
  const before = await tops();
  await page.click('.controls .btn.prev');
  await page.waitForSelector('.game-page.browsing');
  assert.deepEqual(await tops(), before);
  await page.click('.controls .btn.live');
  await waitFor(async () => !(await page.$('.game-page.browsing')));
});

test('finished games: the overview dims their boards; the game page shows no green "Live"', async () => {
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="2"] piece');
  const opacity = (id) => page.$eval(`.card[data-game="${id}"] .mini`, (e) => Number(getComputedStyle(e).opacity));
  assert.ok(await opacity(2) < 0.8, `finished board dimmed (${await opacity(2)})`);
  assert.equal(await opacity(1), 1, 'a game under way is not dimmed');
  await page.goto(`${relay.url}/#/game/2`);
  await page.waitForFunction(() => /Ding/.test(document.querySelector('.game-title')?.textContent || ''));
  await page.waitForSelector('.moves .mv.current');
  const live = await page.$eval('.controls .btn.live', (e) => ({ text: e.textContent, on: e.classList.contains('on'), bg: getComputedStyle(e).backgroundColor }));
  assert.doesNotMatch(live.text, /Live/);
  assert.equal(live.on, false);
  // A game that ends while watched loses its "Live" too.
  await page.goto(`${relay.url}/#/game/7`);
  await page.waitForSelector('.controls .btn.live.on');
  assert.match(await page.textContent('.controls .btn.live'), /Live/);
  relay.result(7, '0-1', 'resignation');
  await page.waitForSelector('.game-result:not([hidden])');
  await waitFor(async () => !(await page.$('.controls .btn.live.on')));
  assert.doesNotMatch(await page.textContent('.controls .btn.live'), /Live/);
});

test('PGN downloads are named after event, round, board and players', async () => {
  await page.goto(`${relay.url}/#/game/1`);
  // The page may still show the game before (a hash change): wait for this one.
  await page.waitForFunction(() => /Carlsen/.test(document.querySelector('.game-title')?.textContent || ''));
  await page.waitForSelector('.moves .mv.current');
  assert.equal(await page.getAttribute('.game-pgn', 'download'), 'chessrelay_test_open-R1-B1-Carlsen-Nepomniachtchi.pgn');
  assert.equal(await page.getAttribute('.tools .round-pgn', 'download'), 'chessrelay_test_open-R1.pgn');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('.game-pgn')]);
  assert.equal(dl.suggestedFilename(), 'chessrelay_test_open-R1-B1-Carlsen-Nepomniachtchi.pgn');
  assert.match(readFileSync(await dl.path(), 'utf8'), /\[White "Carlsen, Magnus"\]/);
  await dl.delete();
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="1"] piece');
  assert.equal(await page.getAttribute('.overview .round-pgn', 'download'), 'chessrelay_test_open-R1.pgn');
});

test('the board has a name, the last move is announced, the moves are focusable with aria-current', async () => {
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.moves .mv.current');
  const board = page.getByRole('img', { name: /Carlsen, Magnus.*Nepomniachtchi, Ian/ });
  assert.equal(await board.count(), 1, 'the board is an image named after the game');
  assert.match(await board.getAttribute('aria-label'), /5\.\.\. Be7.*White to move/);
  const live = '.game-page [aria-live="polite"].sr-announce';
  const msg = relay.move(1, RUY_MORE[0], { clock: 5_300_000 });
  await waitFor(async () => /6\. Re1/.test(await page.textContent(live)));
  assert.match(await page.textContent(live), /6\. Re1/);
  assert.equal(await waitForBoard(page, '.board-wrap', msg.fen), msg.fen.split(' ')[0]);
  const moves = await page.$$eval('.moves .mv[data-ply]', (els) => els.map((e) => ({
    focusable: e.tagName === 'BUTTON' || e.hasAttribute('tabindex'), tab: e.tabIndex, current: e.getAttribute('aria-current'), ply: e.dataset.ply })));
  assert.ok(moves.every((m) => m.focusable), 'every move can take the focus');
  assert.deepEqual(moves.filter((m) => m.current).map((m) => [m.ply, m.current]), [['10', 'true']]);
  assert.deepEqual(moves.filter((m) => m.tab === 0).map((m) => m.ply), ['10'], 'one tab stop: the current move');
  // Enter on a move shows it, and the focus follows the arrows.
  await page.focus('.moves .mv[data-ply="2"]');
  await page.keyboard.press('Enter');
  assert.equal(await waitForBoard(page, '.board-wrap', relay.fen(1, 3)), relay.fen(1, 3).split(' ')[0]);
  await page.waitForSelector('.moves .mv[data-ply="2"][aria-current="true"]');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.ply), '2');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.moves .mv[data-ply="1"][aria-current="true"]');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.ply), '1');
  await page.click('.controls .btn.live');
  await waitFor(async () => !(await page.$('.game-page.browsing')));
});

// WCAG contrast ratio of an element's text on its background.
const contrast = (p, sel) => p.$eval(sel, (e) => {
  const rgb = (s) => s.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const cs = getComputedStyle(e);
  const a = lum(rgb(cs.color));
  const b = lum(rgb(cs.backgroundColor));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
});

test('contrast of the current move, the running clock and the live button is at least 4.5:1', async () => {
  await page.waitForSelector('.moves .mv.current');
  await page.waitForSelector('.board-col .clock.running');
  for (const sel of ['.moves .mv.current', '.board-col .clock.running', '.controls .btn.live.on']) {
    const ratio = await contrast(page, sel);
    assert.ok(ratio >= 4.5, `${sel}: ${ratio.toFixed(2)}:1`);
  }
});


test('axe-core: no serious or critical violation on the overview and the game page', async () => {
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="10"] piece');
  assert.deepEqual(await axeViolations(page), [], 'overview');
  await page.goto(`${relay.url}/#/game/4`);
  await page.waitForSelector('.moves .mv.current');
  await page.waitForSelector('.round-list .rl-row');
  assert.deepEqual(await axeViolations(page), [], 'game page (offline board, flags)');
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.board-col .clock.running');
  await page.waitForSelector('.round-list .rl-row');
  assert.deepEqual(await axeViolations(page), [], 'game page (live, clock running)');
});

test('sound: an explicit "enable sound" until the browser lets the page play', async () => {
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
  await page.waitForSelector('.arb-sound');
  assert.match(await page.textContent('.arb-sound'), /enable sound/i);
  assert.equal(await page.getAttribute('.arb-sound', 'aria-pressed'), 'false');
  assert.notEqual(await page.evaluate(() => window.__cr.arbiterPage.audio?.state ?? null), 'running');
  await page.click('.arb-sound');
  await waitFor(async () => /Sound: on/.test(await page.textContent('.arb-sound')));
  assert.match(await page.textContent('.arb-sound'), /Sound: on/);
  assert.equal(await page.evaluate(() => window.__cr.arbiterPage.audio.state), 'running');
  await page.click('.arb-sound');
  await waitFor(async () => /Sound: off/.test(await page.textContent('.arb-sound')));
  assert.equal(await page.getAttribute('.arb-sound', 'aria-pressed'), 'false');
});

test('the arbiter token leaves the address bar for sessionStorage; sign-out forgets it', async () => {
  // The page above was opened with ?token=…
  assert.doesNotMatch(page.url(), /token/);
  assert.equal(new URL(page.url()).hash, '#/arbiter');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('cr.token')), relay.token);
  assert.equal(await page.evaluate(() => localStorage.getItem('cr.token')), null);
  // A reload of the tab stays signed in.
  const from = relay.received.length;
  await page.reload();
  await page.waitForSelector('.badge.trusted');
  await page.waitForSelector('.arb-sound');
  assert.ok(relay.received.slice(from).some((m) => m.op === 'hello' && m.token === relay.token));
  const before = relay.received.length;
  await page.click('.signout');
  await page.waitForSelector('.arb-need-token');
  assert.equal(await page.$('.badge.trusted'), null);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('cr.token')), null);
  await waitFor(() => relay.received.slice(before).some((m) => m.op === 'hello'));
  const hellos = relay.received.slice(before).filter((m) => m.op === 'hello');
  assert.ok(hellos.length && hellos.every((m) => m.token === undefined), 'the new connection has no token');
});

test('no script error happened', () => {
  assert.deepEqual(pageErrors, []);
});

// Issue 29, the arbiter's floor, against the fake relay: the flag check's
// confirm button is visible and clickable beside the acknowledge button, and
// the game page confirms a flag too; alerts close themselves when their cause
// is gone (a board online again, a result, a reading with time left); a
// repetition raised on every ply is one alert; the claim window follows the
// relay's D1 rule (closed in a 90+30 game); the move list follows the game;
// illegal and reconstructed moves are marked on the list and the board; the
// relay's texts in Russian; axe-core finds nothing serious or critical on the
// dashboard and the game page, in both languages.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FakeRelay, seedRound } from '../fake-relay.mjs';
import { screenshot, waitFor, fakeRelaySession, axeViolations, pageInLanguage } from '../lib.mjs';

let session, relay, browser, page, pageErrors; // set by before()

const DANCE = ['Nf3', 'Nf6', 'Ng1', 'Ng8'];

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    // Game 6: 48 plies of knights going back and forth (a long list, and a
    // repetition raised on every ply from ply 8 on).
    r.addGame({ id: 6, round: '1', table: 6, board: 'T6', white: 'Aronian, Levon', black: 'Vachier-Lagrave, Maxime',
      moves: Array.from({ length: 48 }, (_, i) => ({ san: DANCE[i % 4] })), clock: { white: 3000000, black: 3000000, running: 'w' } });
    for (const id of [1, 2, 3, 5, 6]) r.arbState(id);
    // Board 4 went offline at the start (and is playing now).
    r.arbState(4, { online: false });
    r.incident(4, { kind: 'board-offline', urgency: 'warning', text: 'board offline: moves and clock times are not being received' });
    // Board 1: the clock model suspects White's flag.
    r.arbState(1, { flag_check: 'w' });
    r.incident(1, { kind: 'flag-check', urgency: 'warning', color: 'w',
      text: "White's clock should be at 0:00 (by the move times and the time control), check it: confirm the flag fall as the result, or let play go on" });
    // Board 3: a flag check a later reading answers; board 5: a 90+30 game under two minutes.
    r.incident(3, { kind: 'flag-check', urgency: 'warning', color: 'b', text: "Black's clock should be at 0:00 (by the move times and the time control), check it: confirm the flag fall as the result, or let play go on" });
    r.arbState(3, { flag_check: 'b' });
    r.arbState(5, { under_two_minutes: { w: true, b: false }, claim_window: false, claim_open: { w: false, b: false }, clock_mode: 'increment', bonus_ms: 30000 });
    for (let ply = 8; ply <= 15; ply++) {
      r.incident(6, { kind: 'threefold', urgency: 'notice', ply, text: 'position stands for the 3rd time: a draw claim (9.2) would be correct' });
    }
  });
  ({ relay, browser, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

const actions = (action) => relay.received.filter((m) => m.op === 'arbiter-action' && m.action === action);
const alertKinds = (p) => p.$$eval('.arb-alerts .arb-alert', (els) => els.map((e) => `${e.dataset.game}:${e.dataset.kind}`).sort());

// axe-core in the dark and the light theme (the system's, as the page follows it).
async function axeBothThemes(p, what) {
  for (const scheme of ['dark', 'light']) {
    await p.emulateMedia({ colorScheme: scheme });
    await p.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
    assert.deepEqual(await axeViolations(p), [], `${what}, ${scheme}`);
  }
}

// The element at the centre of `sel` is `sel` itself (or inside it): nothing covers it.
async function uncovered(p, sel) {
  return p.$eval(sel, (el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return false;
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!top && (top === el || el.contains(top));
  });
}

test('dashboard: repeated alerts grouped, closed alerts gone, the claim window as the relay rules it, axe clean', async () => {
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
  await page.waitForSelector('.arb-card[data-game="6"]');
  // Board 4 is online again: its offline alert closes itself.
  assert.ok((await alertKinds(page)).includes('4:board-offline'));
  relay.incident(4, { kind: 'board-online', urgency: 'info', text: 'board back online' });
  relay.arbState(4, { online: true });
  await waitFor(async () => !(await alertKinds(page)).includes('4:board-offline'));
  // A reading shows Black's time left on board 3: the relay's flag_check is '-'.
  relay.arbState(3, { flag_check: '-' });
  await waitFor(async () => !(await alertKinds(page)).includes('3:flag-check'));
  // Eight threefold alerts of one repetition are one row, "×8".
  const rows = await page.$$eval('.arb-alert[data-kind="threefold"]', (els) => els.map((e) => [e.dataset.count, e.querySelector('.arb-kind').textContent]));
  assert.deepEqual(rows, [['8', 'Threefold repetition ×8']]);
  // 90+30: under two minutes, and the card says the window is closed (a D1 claim is refused there).
  assert.equal(await page.$eval('.arb-card[data-game="5"] [data-counter="claim"] dd', (e) => e.textContent), 'closed');
  await axeBothThemes(page, 'arbiter dashboard');
  await screenshot(page, 'arbiter-floor-overview');
  assert.deepEqual(pageErrors, []);
});

test('the flag check\'s confirm button is seen and clicked beside the acknowledge button; the result closes the alert', async () => {
  const row = '.arb-alert[data-kind="flag-check"][data-game="1"]';
  await page.waitForSelector(`${row} .act-confirm-flag`);
  assert.ok(await uncovered(page, `${row} .act-confirm-flag`), 'confirm is not covered');
  assert.ok(await uncovered(page, `${row} .arb-ack`), 'acknowledge is not covered');
  const [c, a] = await Promise.all([`${row} .act-confirm-flag`, `${row} .arb-ack`].map((s) => page.$eval(s, (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
  })));
  assert.ok(c.right <= a.left || a.right <= c.left || c.bottom <= a.top || a.bottom <= c.top, `no overlap: ${JSON.stringify([c, a])}`);
  await page.click(`${row} .act-confirm-flag`);
  await waitFor(() => actions('confirm-flag').length);
  assert.deepEqual((({ game, color }) => ({ game, color }))(actions('confirm-flag').pop()), { game: 1, color: 'w' });
  await waitFor(async () => !(await alertKinds(page)).includes('1:flag-check'));
  // The incident log keeps it, marked closed.
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/1`);
  await page.waitForSelector('.arb-log tr[data-kind="flag-check"].is-closed');
});

test('the game page confirms a flag (after a question), the list follows the game, marks illegal and reconstructed moves; axe clean', async () => {
  // Game 6 has a suspected flag; the game page's own action.
  relay.arbState(6, { flag_check: 'b' });
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/6`);
  await page.waitForSelector('.arb-boardview .arb-mv[data-ply="47"]');
  assert.equal(await page.$eval('.act-confirm-flag-form select[name="color"]', (e) => e.value), 'b', 'the suspected side first');
  // The latest move is in view, and stays so as moves come.
  const inView = (ply) => page.$eval(`.arb-mv[data-ply="${ply}"]`, (el) => {
    const list = el.closest('.arb-moves').getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.top >= list.top - 1 && r.bottom <= list.bottom + 1;
  });
  assert.equal(await page.$eval('.arb-moves', (e) => e.scrollHeight > e.clientHeight), true, 'the list scrolls');
  assert.ok(await waitFor(() => inView(47)), 'ply 47 in view');
  for (let i = 48; i < 52; i++) {
    relay.move(6, DANCE[i % 4]);
    relay.arbState(6, { plies: i + 1 });
    await page.waitForSelector(`.arb-mv[data-ply="${i}"]`);
    assert.ok(await waitFor(() => inView(i)), `ply ${i} in view`);
  }
  await axeBothThemes(page, 'arbiter game page');
  await page.click('.act-confirm-flag-game');
  await page.waitForSelector('.arb-pending[data-stage="confirm"]');
  await page.click('.arb-confirm-yes');
  await waitFor(() => actions('confirm-flag').some((m) => m.game === 6));
  assert.equal(actions('confirm-flag').filter((m) => m.game === 6).pop().color, 'b');
  await page.waitForSelector('.arb-card .result');
  assert.equal(await page.$('.act-confirm-flag-form'), null, 'no flag to confirm in a finished game');

  // Game 4: 3... e6 was reconstructed, 3... Bb4 stood illegal.
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/4`);
  await page.waitForSelector('.arb-mv[data-ply="5"]');
  const marks = await page.$$eval('.arb-mv', (els) => els.map((e) => (e.classList.contains('illegal') ? 'illegal' : e.classList.contains('reconstructed') ? 'reconstructed' : '')));
  assert.deepEqual(marks, ['', '', '', 'reconstructed', '', 'illegal']);
  assert.match(await page.textContent('.arb-mv[data-ply="5"]'), /illegal/);
  // The live position is after the illegal move: the board says so and marks its squares.
  await page.waitForSelector('.arb-move-mark[data-mark="illegal"]:not([hidden])');
  assert.match(await page.textContent('.arb-move-mark'), /3\.\.\. Bb4: an illegal move that stood/);
  assert.equal(await page.$$eval('cg-board square.mark-illegal', (els) => els.length), 2);
  await page.click('.arb-mv[data-ply="3"]');
  await page.waitForSelector('.arb-move-mark[data-mark="reconstructed"]:not([hidden])');
  await axeBothThemes(page, 'arbiter game page, marked moves');
  await screenshot(page, 'arbiter-floor-game');
  assert.deepEqual(pageErrors, []);
});

test('the dashboard saves the round\'s results for the pairing program (TRF), or says why it cannot', async () => {
  // As the relay serves it: the pairings file, Latin-1 and CRLF kept, the results filled in.
  relay.resultsTrf = Buffer.from('012 Rapid Cup\r\n001    5 m    Jensen, Lars                      2204 DEN     1400005 2005/05/05  1.0    7     1 b 0     7 b 0     6 w 1\r\n### chessrelay: round 3 table 2: 1-0 not confirmed by an arbiter\r\n', 'latin1');
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
  await page.waitForSelector('.arb-results');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('.arb-results')]);
  assert.equal(dl.suggestedFilename(), 'results.trf');
  assert.deepEqual(readFileSync(await dl.path()), relay.resultsTrf, 'the file as the relay sent it, byte for byte');
  assert.ok(relay.httpRequests.includes('/arbiter/results.trf'));
  // No round played from a TRF: the relay's 404 is said in the page's words.
  relay.resultsTrf = null;
  await page.click('.arb-results');
  await waitFor(async () => (await page.$$eval('.arb-error', (els) => els.map((e) => e.textContent))).includes('No round is played from a TRF pairings file.'));
  assert.deepEqual(pageErrors, []);
});

test('Russian: the relay\'s texts translated, the flag confirmed and a result accepted from the page, axe clean', async () => {
  relay.arbState(2, { result: '*' });
  relay.arbState(3, { flag_check: 'b' });
  relay.incident(3, { kind: 'flag-check', urgency: 'warning', color: 'b', text: "Black's clock should be at 0:00 (by the move times and the time control), check it: confirm the flag fall as the result, or let play go on" });
  const { page: ru, errors } = await pageInLanguage(browser.context, 'ru-RU');
  await ru.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
  await ru.waitForSelector('.arb-alert[data-kind="flag-check"][data-game="3"]');
  const text = await ru.textContent('.arb-alert[data-kind="flag-check"][data-game="3"] .arb-text');
  assert.equal(text, 'Часы (Чёрные) должны показывать 0:00 (по времени ходов и контролю времени), проверьте: подтвердите падение флажка как результат или пусть игра продолжается');
  assert.match(await ru.textContent('.arb-alert[data-kind="threefold"] .arb-text'), /^позиция повторилась в 3-й раз/);
  assert.deepEqual(await axeViolations(ru), [], 'arbiter dashboard, Russian');
  await ru.click('.arb-alert[data-kind="flag-check"][data-game="3"] .act-confirm-flag');
  await waitFor(() => actions('confirm-flag').some((m) => m.game === 3));
  await waitFor(async () => !(await ru.$('.arb-alert[data-kind="flag-check"][data-game="3"]')));
  // A result from the game page, confirmed; the log's texts are Russian.
  await ru.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/2`);
  await ru.waitForSelector('.act-result select[name="result"]');
  assert.equal(await ru.$eval('.act-result select[name="result"]', (e) => e.getAttribute('aria-label')), 'Результат');
  await ru.selectOption('.act-result select[name="result"]', '1/2-1/2');
  await ru.click('.act-result button[type="submit"]');
  await ru.click('.arb-confirm-yes');
  await waitFor(() => actions('result').some((m) => m.game === 2 && m.result === '1/2-1/2'));
  await ru.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/3`);
  await ru.waitForSelector('.arb-log tr[data-kind="flag"]');
  assert.match(await ru.textContent('.arb-log tr[data-kind="flag"]'), /Упал флажок \(Чёрные\), подтверждено арбитром/);
  assert.deepEqual(await axeViolations(ru), [], 'arbiter game page, Russian');
  await screenshot(ru, 'arbiter-floor-ru');
  assert.deepEqual(errors, []);
  await ru.close();
});

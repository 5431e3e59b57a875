// The arbiter's game page against the fake relay: a board and the move
// list, actions picked on a move (no ply number typed anywhere), a confirm
// step and undo for results and take-backs, attention alerts with the
// squares marked on the board, acknowledgements shared between arbiters
// (and kept over a reload), alarms that ring until acknowledged, and each
// board's link health.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRelay, seedRound, RUY } from '../fake-relay.mjs';
import { screenshot, waitFor, waitForBoard, fakeRelaySession, sentSoFar } from '../lib.mjs';

let session, relay, browser, page, pageErrors; // set by before()

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    for (const id of [1, 2, 3, 4, 5]) r.arbState(id);
    r.incident(1, { kind: 'draw-offer', urgency: 'notice', color: 'b', ply: 6, text: 'draw offered' });
  });
  ({ relay, browser, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

const actions = (action) => relay.received.filter((m) => m.op === 'arbiter-action' && m.action === action);

test('the game page has a board and the move list; a picked move offers its actions', async () => {
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/1`);
  await page.waitForSelector('.arb-boardview .arb-mv[data-ply="9"]');
  assert.equal(await waitForBoard(page, '.arb-boardview', relay.fen(1)), relay.fen(1).split(' ')[0], 'the live position');
  const labels = await page.$$eval('.arb-mv', (els) => els.map((e) => e.dataset.label));
  assert.equal(labels.length, RUY.length);
  assert.equal(labels[4], '3. Bb5');
  assert.equal(labels[5], '3... a6');
  // No ply number is typed anywhere on the page.
  assert.equal(await page.$('input[type="number"]:not([name="addedMinutes"])'), null);
  assert.equal(await page.$('input[name="ply"], input[name="plies"]'), null);
  // The incident log names the move as the list does.
  assert.equal(await page.textContent('.arb-log tr[data-kind="draw-offer"] .arb-log-move'), '3... a6');

  await page.click('.arb-mv[data-ply="4"]');
  await page.waitForSelector('.arb-move-panel h3');
  assert.equal(await page.textContent('.arb-move-panel h3'), 'Move 3. Bb5');
  assert.equal(await waitForBoard(page, '.arb-boardview', relay.fen(1, 5)), relay.fen(1, 5).split(' ')[0], 'the picked move\'s position');
  // Replace: the legal moves of the position before 3. Bb5, not Bb5 itself.
  const options = await page.$$eval('.arb-replace-move option', (els) => els.map((e) => e.value).filter(Boolean));
  assert.ok(options.includes('Bc4') && options.includes('d4') && options.includes('Nc3'), options.join(' '));
  assert.ok(!options.includes('Bb5'));
  assert.ok(!options.includes('e5'), 'no move of the other side');
  await page.selectOption('.arb-replace-move', 'Bc4');
  await page.click('.act-replace-here');
  await waitFor(() => actions('replace-move').length);
  const rep = actions('replace-move').pop();
  assert.deepEqual({ ply: rep.ply, move: rep.move, game: rep.game }, { ply: 4, move: 'Bc4', game: 1 });
  // A draw offer at the picked move.
  await page.click('.act-offer-here');
  await waitFor(() => actions('draw-offer').length);
  const off = actions('draw-offer').pop();
  assert.deepEqual({ ply: off.ply, offered: off.offered }, { ply: 4, offered: true });
  await screenshot(page, 'arbiter-board');
});

test('phone (390x844): board, moves and the picked move\'s actions in one column, 44 px targets', async () => {
  const phone = await browser.context.newPage();
  phone.on('pageerror', (e) => pageErrors.push(e.message));
  try {
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/1`);
    await phone.waitForSelector('.arb-boardview piece');
    await phone.waitForSelector('.arb-mv[data-ply="9"]');
    const box = (sel) => phone.$eval(sel, (e) => { const r = e.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right, height: r.height }; });
    const board = await box('.arb-boardview .board-wrap');
    const moves = await box('.arb-moves');
    assert.ok(board.left >= 0 && board.right <= 390, `board within the screen: ${board.left}..${board.right}`);
    assert.ok(moves.top - board.bottom <= 80, `moves ${Math.round(moves.top - board.bottom)} px below the board`);
    assert.ok(await phone.evaluate(() => document.scrollingElement.scrollWidth <= 390), 'no sideways scrolling');
    await phone.click('.arb-mv[data-ply="4"]');
    await phone.waitForSelector('.arb-move-panel .act-takeback-here');
    const heights = await phone.$$eval('.arb-mv, .arb-move-panel .abtn', (els) => els.map((e) => e.getBoundingClientRect().height));
    for (const hgt of heights) assert.ok(hgt >= 44, `target height ${hgt} >= 44`);
    await screenshot(phone, 'arbiter-board-phone');
  } finally {
    await phone.close();
  }
});

test('a take-back asks first, is held with an undo, then goes out', async () => {
  await page.evaluate(() => { window.__cr.arbiterPage.undoMs = 1500; });
  await page.click('.arb-mv[data-ply="5"]');
  await page.waitForSelector('.arb-move-panel h3:text("Move 3... a6")');
  await page.click('.act-takeback-here');
  await page.waitForSelector('.arb-pending[data-stage="confirm"]');
  assert.match(await page.textContent('.arb-pending'), /Take back to 3\.\.\. a6 \(4 plies removed\)/);
  // Cancelled at the confirmation: nothing goes out.
  await page.click('.arb-confirm-no');
  await page.waitForSelector('.arb-pending', { state: 'detached' });
  // Confirmed, then undone while held: still nothing.
  await page.click('.act-takeback-here');
  await page.click('.arb-confirm-yes');
  await page.waitForSelector('.arb-pending[data-stage="held"] .arb-undo');
  await page.click('.arb-undo');
  await page.waitForSelector('.arb-pending', { state: 'detached' });
  assert.equal(actions('take-back').length, 0, 'undone before its time');
  // Confirmed and left alone: it goes out when the undo time is over. The
  // undone one was due before it: had it gone out, it would come first.
  await page.click('.act-takeback-here');
  await page.click('.arb-confirm-yes');
  await page.waitForSelector('.arb-pending[data-stage="held"]');
  assert.equal(actions('take-back').length, 0);
  await page.waitForSelector('.arb-pending', { state: 'detached', timeout: 5000 });
  await sentSoFar(page, relay);
  assert.equal(actions('take-back').length, 1, 'only the confirmed take-back: the undone one never reached the relay');
  assert.equal(actions('take-back').pop().plies, 6, 'keeps the game up to 3... a6');
});

test('a result asks first; undo sends the previous result back', async () => {
  await page.evaluate(() => { window.__cr.arbiterPage.undoMs = 8000; });
  await page.selectOption('.act-result select[name="result"]', '1-0');
  await page.fill('.act-result input[name="reason"]', 'resignation');
  await page.click('.act-result button[type="submit"]');
  await page.waitForSelector('.arb-pending[data-stage="confirm"]');
  assert.equal(actions('result').length, 0, 'nothing before the confirmation');
  await page.click('.arb-confirm-yes');
  await waitFor(() => actions('result').length);
  assert.equal(actions('result').pop().result, '1-0');
  await page.waitForSelector('.arb-pending[data-stage="sent"] .arb-undo');
  await page.click('.arb-undo');
  await waitFor(() => actions('result').length === 2);
  assert.equal(actions('result').pop().result, '*', 'the inverse op');
  await waitFor(() => page.evaluate(() => window.__cr.store.games.get(1).result === '*'));
});

test('a board that needs attention: an alert, and its squares marked on the board', async () => {
  relay.arbState(4, { attention: true, attention_reason: 'position not reachable from the game', attention_squares: ['e4', 'd5'] });
  await page.goto(`${relay.url}/#/arbiter`);
  await page.waitForSelector('.arb-alert[data-kind="attention"][data-game="4"]');
  assert.match(await page.textContent('.arb-alert[data-kind="attention"]'), /not reachable.*e4 d5/);
  assert.ok(await page.$('.arb-card[data-game="4"] .arb-attn-badge'));
  await page.click('.arb-alert[data-kind="attention"] .arb-where');
  await page.waitForSelector('.arb-boardview[data-game="4"] .cgbox[data-attention="e4 d5"]');
  const marked = await waitFor(() => page.$$eval('.arb-boardview cg-board square.attention', (els) => els.length).then((n) => n === 2 && n));
  assert.equal(marked, 2, 'two squares marked');
  assert.match(await page.textContent('.arb-boardview .arb-attn'), /e4 d5/);
  assert.match(await page.getAttribute('.arb-boardview .board-wrap', 'aria-label'), /squares in question e4, d5/);
  await screenshot(page, 'arbiter-attention');
});

test('acknowledgements are the relay\'s: shared with another arbiter, kept over a reload', async () => {
  await page.goto(`${relay.url}/#/arbiter`);
  await page.waitForSelector('.arb-alert[data-kind="attention"]');
  const other = await browser.context.newPage();
  other.on('pageerror', (e) => pageErrors.push(e.message));
  await other.goto(`${relay.url}/?token=${relay.token}#/arbiter`); // a tab of its own: signs in itself
  await other.waitForSelector('.arb-alert[data-kind="attention"]');
  await page.click('.arb-alert[data-kind="attention"] .arb-ack');
  const sent = await waitFor(() => actions('ack').pop());
  assert.deepEqual({ game: sent.game, alert: sent.alert }, { game: 4, alert: 'attention@6' });
  await other.waitForSelector('.arb-alert[data-kind="attention"]', { state: 'detached' });
  assert.match(await other.textContent('.arb-acks'), /Board 4 · Board needs attention — chief-arbiter/);
  await other.reload();
  await other.waitForSelector('.arb-card[data-game="4"]');
  await other.waitForSelector('.arb-acks li');
  assert.equal(await other.$('.arb-alert[data-kind="attention"]'), null, 'still acknowledged after a reload');
  await other.close();
});

test('alarms ring again until acknowledged, once sound is enabled', async () => {
  await page.evaluate(() => { window.__cr.arbiterPage.alarmEveryMs = 300; });
  relay.incident(3, { kind: 'flag-check', urgency: 'warning', color: 'w', text: 'White at 0:00 on the model: check the clock' });
  await page.waitForSelector('.arb-alert[data-kind="flag-check"]');
  // With sound on, the first tick that sees the alert rings (nothing rang yet):
  // wait for a tick after the alert was shown.
  const shown = await page.evaluate(() => Date.now());
  await waitFor(() => page.evaluate((t0) => window.__cr.arbiterPage.tickedAt > t0, shown));
  assert.equal(await page.evaluate(() => window.__cr.arbiterPage.lastAlarm), 0, 'nothing rang before');
  assert.equal(await page.evaluate(() => window.__cr.arbiterPage.alarms), 0, 'silent until sound is enabled');
  await page.click('.arb-sound');
  await waitFor(() => page.evaluate(() => window.__cr.arbiterPage.sound === 'on'));
  const rung = await waitFor(() => page.evaluate(() => window.__cr.arbiterPage.alarms >= 3 && window.__cr.arbiterPage.alarms), 5000);
  assert.ok(rung >= 3, `rang ${rung} times`);
  await page.click('.arb-alert[data-kind="flag-check"] .arb-ack');
  await page.waitForSelector('.arb-alert[data-kind="flag-check"]', { state: 'detached' });
  const after = await page.evaluate(() => window.__cr.arbiterPage.alarms);
  // A tick at or past the time the alarm was due again, after the acknowledgement.
  const acked = await page.evaluate(() => Date.now());
  assert.ok(await waitFor(() => page.evaluate((t0) => {
    const p = window.__cr.arbiterPage;
    return p.tickedAt > t0 && p.tickedAt >= p.lastAlarm + p.alarmEveryMs;
  }, acked)), 'the page ticks past the next alarm time');
  assert.equal(await page.evaluate(() => window.__cr.arbiterPage.alarms), after, 'quiet once acknowledged');
});

test('board health per board: link state, snapshot rate, battery, rotated, lost', async () => {
  relay.boardsHealth = [
    { device: '/dev/ttyACM0', board: 'DGT23164', state: 'active', identified: true, snapshots_per_min: 42.4, delay_ms: 30, battery: 15, disconnects: 0, resyncs: 0, rotated: true },
    { device: '/dev/ttyACM1', board: '98', state: 'lost', identified: true, snapshots_per_min: 0, delay_ms: null, battery: null, disconnects: 3, resyncs: 1, rotated: false },
  ];
  await page.goto(`${relay.url}/#/arbiter`);
  await page.waitForSelector('.arb-card[data-game="1"] .arb-health');
  const one = await page.textContent('.arb-card[data-game="1"] .arb-health');
  assert.match(one, /link ok/);
  assert.match(one, /42\/min/);
  assert.match(one, /battery 15%/);
  assert.ok(await page.$('.arb-card[data-game="1"] .arb-battery.low'));
  assert.ok(await page.$('.arb-card[data-game="1"] .arb-rotated'));
  await page.waitForSelector('.arb-card[data-game="4"] .arb-health.bad .arb-lost');
  assert.match(await page.textContent('.arb-card[data-game="4"] .arb-health'), /link lost/);
  // Round 2's board DGT23164 is the same board.
  assert.ok(await page.$('.arb-card[data-game="5"] .arb-health'));
  await screenshot(page, 'arbiter-health');
  assert.deepEqual(pageErrors, []);
});

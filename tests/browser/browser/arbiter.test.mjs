// The arbiter dashboard in a real browser (Debian's chromium) against the
// fake relay's arbiter channel: boards with clocks under two minutes marked,
// alerts by urgency with a beep and a visual cue, counters, a board's
// incident log, the claim workflow and the printable report; a page without
// a token never reaches the arbiter channel.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRelay, seedRound } from '../fake-relay.mjs';
import { screenshot, waitFor, fakeRelaySession, sentSoFar, pageInLanguage } from '../lib.mjs';

let session, relay, browser, page, pageErrors; // set by before()

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    // Board 1 in a quickplay finish: White under two minutes.
    r.clock(1, 95000, 130000, 'w');
    r.arbState(1, { under_two_minutes: { w: true, b: false }, claim_window: true, repetitions: 2, halfmove: 14, white_ms: 95000, black_ms: 130000 });
    r.arbState(2, { result: '1-0' });
    r.games.get(3).clock = null; // a board without a clock (Millennium, Certabo)
    r.arbState(3);
    r.arbState(5);
    r.arbState(4, { online: false, illegal: { w: 0, b: 1 } });
    r.incident(1, { kind: 'two-minutes', urgency: 'notice', color: 'w', text: 'White has less than two minutes (1:55): draw claim window open (D1)' });
    r.incident(4, { kind: 'board-offline', urgency: 'warning', text: 'board offline' });
  });
  ({ relay, browser, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

test('without a token the arbiter page asks for one and never asks for the channel', async () => {
  const viewer = await browser.context.newPage();
  const before = relay.received.length;
  await viewer.goto(`${relay.url}/#/arbiter`);
  await viewer.waitForSelector('.arb-need-token');
  // The page has rendered its answer; whatever it sent on the way is ahead of a probe sent now.
  const upTo = await sentSoFar(viewer, relay);
  const ops = relay.received.slice(before, upTo).map((m) => m.op);
  assert.ok(ops.includes('hello'), `the probe came after the page's hello: ${ops}`);
  assert.ok(!ops.includes('arbiter'), `no arbiter op without a token: ${ops}`);
  // The channel itself refuses an untrusted client.
  const refused = await viewer.evaluate((url) => new Promise((ok) => {
    const ws = new WebSocket(url);
    ws.onopen = () => ws.send(JSON.stringify({ op: 'arbiter' }));
    ws.onmessage = (e) => { ok(JSON.parse(e.data)); ws.close(); };
  }), relay.url.replace('http', 'ws') + '/ws');
  assert.equal(refused.type, 'error');
  assert.match(refused.error, /token/);
  const status = await viewer.evaluate(async () => (await fetch('/arbiter/incidents.json')).status);
  assert.equal(status, 401);
  await viewer.close();
});

test('dashboard: all boards, clocks under two minutes marked, alerts by urgency, counters', async () => {
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
  await page.waitForSelector('.arb-card[data-game="4"]');
  const ids = await page.$$eval('.arb-boards .arb-card', (els) => els.map((e) => Number(e.dataset.game)));
  assert.deepEqual(ids, [1, 2, 3, 4, 5], 'boards by round, then table');
  // White's clock on board 1 is under two minutes and marked.
  const white = await waitFor(() => page.$eval('.arb-card[data-game="1"] .arb-clock[data-side="white"]', (e) => e.classList.contains('under2') && e.textContent));
  assert.match(white, /^1:[0-5]\d$/);
  assert.equal(await page.$eval('.arb-card[data-game="1"] .arb-clock[data-side="black"]', (e) => e.classList.contains('under2')), false);
  // Board 3 never had a clock reading (a board without a clock): it says so.
  const noClock = await waitFor(() => page.$eval('.arb-card[data-game="3"] .arb-clock[data-side="white"]', (e) => e.classList.contains('no-clock') && e.textContent));
  assert.equal(noClock, 'no clock');
  assert.equal(await page.$eval('.arb-card[data-game="1"] .arb-clock[data-side="white"]', (e) => e.classList.contains('no-clock')), false);
  // Alerts: the warning (board offline) before the notice (two minutes).
  const kinds = await page.$$eval('.arb-alerts .arb-alert', (els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(kinds, ['board-offline', 'two-minutes']);
  const counters = await page.$$eval('.arb-card[data-game="1"] .arb-counter', (els) => Object.fromEntries(els.map((e) => [e.dataset.counter, e.querySelector('dd').textContent])));
  assert.equal(counters.repetitions, '2×');
  assert.equal(counters.fifty, '7/50');
  assert.equal(counters.dead, 'no');
  assert.equal(counters.claim, 'open (White)');
  assert.ok(await page.$('.arb-card[data-game="4"].lvl-warning'), 'board 4 marked by its warning');
  await screenshot(page, 'arbiter-overview');
});

test('a new critical alert beeps, flashes and goes to the top', async () => {
  const beeps0 = await page.evaluate(() => window.__cr.arbiterPage.beeps);
  relay.incident(3, { kind: 'flag', urgency: 'critical', color: 'b', text: "Black's flag fell: White wins (6.9)" });
  await page.waitForSelector('.arb-alerts .arb-alert[data-kind="flag"]');
  const first = await page.$eval('.arb-alerts .arb-alert', (e) => e.dataset.kind);
  assert.equal(first, 'flag');
  const beeps = await page.evaluate(() => window.__cr.arbiterPage.beeps);
  assert.equal(beeps - beeps0, 3, 'three beeps for a critical alert');
  assert.ok(await page.$('.arb-alerts.flash'), 'visual cue');
  assert.match(await page.title(), /^\(\d+\) Arbiter/);
  // Acknowledged: gone from the list.
  await page.click('.arb-alert[data-kind="flag"] button');
  await waitFor(async () => !(await page.$('.arb-alert[data-kind="flag"]')));
  assert.equal(await page.$('.arb-alert[data-kind="flag"]'), null);
});

test('a board opens its game: incident log; a claim is made, shown and decided', async () => {
  await page.click('.arb-boards .arb-card[data-game="1"]');
  await page.waitForSelector('.arb-game[data-game="1"] .arb-log');
  const log = await page.$$eval('.arb-log tbody tr', (els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(log, ['two-minutes']);
  // A claim by Black (over two minutes) is refused by the relay, and shown.
  await page.selectOption('.act-claim select[name="claimant"]', 'b');
  await page.click('.act-claim button[type="submit"]');
  await page.waitForSelector('.arb-error[data-aseq]');
  assert.match(await page.textContent('.arb-errors'), /less than two minutes/);
  // White claims, basis (b).
  await page.selectOption('.act-claim select[name="claimant"]', 'w');
  await page.selectOption('.act-claim select[name="basis"]', 'b');
  await page.click('.act-claim button[type="submit"]');
  await page.waitForSelector('.arb-claim.open[data-claim="1"]');
  const sent = relay.received.filter((m) => m.op === 'arbiter-action' && m.action === 'claim').pop();
  assert.deepEqual({ claimant: sent.claimant, basis: sent.basis, game: sent.game }, { claimant: 'w', basis: 'b', game: 1 });
  // Frozen position, scoresheet and evidence are shown.
  const fen = await page.getAttribute('.arb-claim .arb-frozen', 'data-fen');
  assert.equal(fen, relay.fen(1));
  const sheet = await page.textContent('.arb-claim .arb-sheet');
  assert.match(sheet, /1\.e4/);
  assert.match(sheet, /4\.Ba4 /);
  assert.match(sheet, /5\.O-O /);
  assert.match(await page.textContent('.arb-claim .arb-evidence'), /Opponent can mate/);
  assert.ok(await page.$('.act-claim button[disabled]'), 'no second claim while one is open');
  await screenshot(page, 'arbiter-claim');
  // Rejected with 1.5 minutes added.
  await page.fill('.arb-decide input[name="addedMinutes"]', '1.5');
  await page.fill('.arb-decide input[name="note"]', 'White plays on');
  await page.click('.arb-decide button[value="rejected"]');
  await page.waitForSelector('.arb-claim.decided[data-decision="rejected"]');
  const decide = relay.received.filter((m) => m.op === 'arbiter-action' && m.action === 'decide').pop();
  assert.equal(decide.decision, 'rejected');
  assert.equal(decide.added_ms, 90000);
  assert.equal(decide.note, 'White plays on');
  // A second claim, upheld: the result reaches the viewer's store too.
  await page.click('.act-claim button[type="submit"]');
  await page.waitForSelector('.arb-claim.open[data-claim="2"]');
  await page.click('.arb-claim[data-claim="2"] .arb-decide button[value="draw"]');
  await page.waitForSelector('.arb-claim[data-claim="2"][data-decision="draw"]');
  await waitFor(() => page.evaluate(() => window.__cr.store.games.get(1).result === '1/2-1/2'));
  assert.equal(await page.evaluate(() => window.__cr.store.games.get(1).result), '1/2-1/2');
  const kinds = await page.$$eval('.arb-log tbody tr', (els) => els.map((e) => e.dataset.kind));
  assert.ok(kinds.includes('claim') && kinds.includes('decision') && kinds.includes('result'), kinds.join(','));
});

test('the printable report opens with the token', async () => {
  const [popup] = await Promise.all([
    page.context().waitForEvent('page'),
    page.click('.arb-claim[data-claim="2"] .arb-report'),
  ]);
  await popup.waitForURL(/^blob:/, { timeout: 10000 });
  await popup.waitForLoadState();
  const text = await popup.textContent('body');
  assert.match(text, /Claim 2/);
  assert.match(text, new RegExp(relay.fen(1).split(' ')[0].replace(/\//g, '\\/')));
  await popup.close();
  assert.deepEqual(pageErrors, []);
});

test('the arbiter page in Russian: from the browser\'s language (ru), overview and a game', async () => {
  const { page: p, errors } = await pageInLanguage(browser.context, 'ru-RU');
  try {
    await p.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
    await p.waitForSelector('.arb-card[data-game="4"]');
    assert.equal(await p.evaluate(() => document.documentElement.lang), 'ru');
    assert.equal(await p.textContent('.arb-head .round-title'), 'Арбитр');
    assert.equal(await p.textContent('.arb-sound'), 'Включить звук');
    assert.match(await p.textContent('.arb-count'), /^досок: 5 · сигналов: \d+$/);
    assert.equal(await p.textContent('.arb-alert-panel h2'), 'Сигналы');
    assert.equal(await p.textContent('.arb-alert[data-kind="board-offline"] .arb-kind'), 'Доска не в сети');
    assert.equal(await p.textContent('.arb-alert[data-kind="board-offline"] .arb-urg'), 'внимание');
    const labels = await p.$$eval('.arb-card[data-game="1"] .arb-counter dt', (els) => els.map((e) => e.textContent));
    assert.deepEqual(labels, ['Повторения', 'Счёт 50 ходов', 'Мёртвая позиция', 'Претензии по D1']);
    assert.equal(await p.textContent('.arb-card[data-game="4"] .badge.offline'), 'нет связи');
    assert.match(await p.title(), /Арбитр · chessrelay$/);
    assert.equal(await p.textContent('.arb-link'), 'Арбитр');
    assert.equal(await p.textContent('.signout'), 'Выйти');
    await p.click('.arb-boards .arb-card[data-game="1"]');
    await p.waitForSelector('.arb-game[data-game="1"] .arb-log');
    assert.equal(await p.textContent('.arb-actions > h2'), 'Действия');
    assert.equal(await p.textContent('.act-claim h3'), 'Претензия на ничью');
    assert.equal(await p.textContent('.act-claim button[type="submit"]'), 'Принять претензию');
    assert.deepEqual(await p.$$eval('.act-claim select[name="claimant"] option', (els) => els.map((e) => e.textContent)), ['Белые', 'Чёрные']);
    // The longer Russian options stay inside the actions column.
    const right = (sel) => p.$eval(sel, (e) => e.getBoundingClientRect().right);
    assert.ok(await right('.act-claim select[name="basis"]') <= await right('.arb-actions'), 'the basis select sticks out of its column');
    const heads = await p.$$eval('.arb-log thead th', (els) => els.map((e) => e.textContent));
    assert.deepEqual(heads, ['#', 'время', 'после', 'вид', 'сторона', 'Белые', 'Чёрные', 'текст', 'принял']);
    assert.equal(await p.textContent('.arb-log tbody tr[data-kind="two-minutes"] td:nth-child(4)'), 'Меньше двух минут');
    // A result asks for its confirmation in Russian.
    await p.selectOption('.act-result select[name="result"]', '0-1');
    await p.click('.act-result button[type="submit"]');
    await p.waitForSelector('.arb-pending[data-stage="confirm"]');
    assert.match(await p.textContent('.arb-pending-text'), /^Записать результат 0-1 \(сейчас .+\)\?$/);
    assert.equal(await p.textContent('.arb-confirm-no'), 'Отмена');
    await p.click('.arb-confirm-no');
    await p.waitForSelector('.arb-pending', { state: 'detached' });
    await screenshot(p, 'arbiter-russian');
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

test('a tampered journal is a standing alert for every arbiter until one acknowledges it', async () => {
  const key = 'tamper:journal:1f2e3d4c';
  relay.relayAlerts.push({ alert: key, kind: 'tamper', file: 'journal', wall: Date.now(),
    what: 'state/journal: cut after record 812, or rewritten: the head\'s last seal is not among its records' });
  const before = relay.received.length;
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
  await page.waitForSelector(`.arb-relay-alert[data-alert="${key}"]`);
  assert.match(await page.textContent('.arb-relay-alert strong'), /^The journal does not verify: journal$/);
  assert.match(await page.textContent('.arb-relay-alert'), /cut after record 812/);
  await page.click('.arb-relay-ack');
  await waitFor(async () => !(await page.$('.arb-relay-alerts')));
  const acks = relay.received.slice(before).filter((m) => m.op === 'arbiter-action' && m.action === 'ack');
  assert.deepEqual(acks.map((m) => [m.game, m.alert]), [[0, key]]);
  // Acknowledged for everybody: a page loaded now does not show it.
  await page.reload();
  await page.waitForSelector('.arb-card[data-game="1"]');
  assert.equal(await page.$('.arb-relay-alerts'), null);
  await waitFor(() => page.$(`.arb-acks li[data-ack="0:${key}"]`));
  assert.match(await page.textContent(`.arb-acks li[data-ack="0:${key}"]`), /^Relay · the journal does not verify — chief-arbiter/);
});

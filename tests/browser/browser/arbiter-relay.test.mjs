// The arbiter dashboard against the real relay: `chessrelay replay
// quickplay.feed --serve --arbiter-token T` plays a quickplay finish; the
// page marks the clock under two minutes, raises the alert, and a claim is
// made and decided from the page; the report opens; a page without the token
// gets no arbiter channel. Needs CR_RELAY_BIN: without it the test fails.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, waitFor, DEFAULT_WEB } from '../lib.mjs';
import { startRelay, stopRelay } from '../relay-proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
const FEED = resolve(repo, 'tests/data/feeds-arbiter/quickplay.feed');
const FINAL = '3r1k2/5ppp/8/8/8/8/5PPP/3R1K2';
const TOKEN = 'arb-browser-token';
const bin = process.env.CR_RELAY_BIN || '';

test('real relay: quickplay finish, two-minute mark, claim made and decided from the dashboard', { timeout: 150000 }, async () => {
  assert.ok(bin && existsSync(bin), `relay binary (CR_RELAY_BIN) not found: '${bin}'`);
  assert.ok(existsSync(FEED), `feed ${FEED}`);
  const relay = await startRelay(bin, ['replay', FEED, '--serve', '--speed', '4', '--arbiter-token', TOKEN],
    { CR_WEB_ROOT: DEFAULT_WEB });
  assert.ok(!relay.failed, `relay did not start: ${relay.log && relay.log.slice(-800)}`);
  const { base } = relay;
  let browser;
  try {
    const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
    const probe = await fetch(`${base}/arbiter/incidents.json`, auth);
    assert.equal(probe.status, 200, 'GET /arbiter/incidents.json with the token');
    assert.equal((await fetch(`${base}/arbiter/incidents.json`)).status, 401, 'no token: 401');

    browser = await launch();
    const errors = [];
    // A viewer without the token: no arbiter channel.
    const viewer = await browser.context.newPage();
    viewer.on('pageerror', (e) => errors.push(e.message));
    await viewer.goto(`${base}/#/arbiter`);
    await viewer.waitForSelector('.arb-need-token');
    const refused = await viewer.evaluate((url) => new Promise((done) => {
      const ws = new WebSocket(url);
      ws.onopen = () => ws.send(JSON.stringify({ op: 'arbiter' }));
      ws.onmessage = (e) => { done(JSON.parse(e.data)); ws.close(); };
    }), `${base.replace(/^http/, 'ws')}/ws`);
    assert.equal(refused.type, 'error');
    assert.match(refused.error, /not allowed/);
    await viewer.close();

    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/?token=${TOKEN}#/arbiter`);
    await page.waitForSelector('.arb-card[data-game]', { timeout: 30000 });
    // The two-minute mark: alert and the clock marked.
    await page.waitForSelector('.arb-alert[data-kind="two-minutes"]', { timeout: 40000 });
    await waitFor(() => page.$('.arb-card .arb-clock[data-side="white"].under2'), 10000);
    assert.ok(await page.$('.arb-card .arb-clock[data-side="white"].under2'), 'White\'s clock marked under two minutes');
    // The feed's end: ten plies.
    const plies = await waitFor(async () => /10 plies/.test(await page.textContent('.arb-card')), 40000, 200);
    assert.ok(plies, `the feed did not reach its end: ${await page.textContent('.arb-card')}`);
    await screenshot(page, 'arbiter-relay-overview');
    await page.click('.arb-boards .arb-card');
    await page.waitForSelector('.arb-game .act-claim');
    await page.selectOption('.act-claim select[name="claimant"]', 'w');
    await page.selectOption('.act-claim select[name="basis"]', 'b');
    await page.click('.act-claim button[type="submit"]');
    await page.waitForSelector('.arb-claim.open', { timeout: 10000 });
    assert.equal((await page.getAttribute('.arb-claim .arb-frozen', 'data-fen')).split(' ')[0], FINAL, 'frozen position');
    const sheet = await page.textContent('.arb-claim .arb-sheet');
    assert.match(sheet, /40\.Kf1/);
    assert.match(sheet, /44\.Kf1 .*Kf8/);
    await page.fill('.arb-decide input[name="note"]', 'no effort to win');
    await page.click('.arb-decide button[value="draw"]');
    await page.waitForSelector('.arb-claim[data-decision="draw"]', { timeout: 10000 });
    await waitFor(() => page.evaluate(() => [...window.__cr.store.games.values()].some((g) => g.result === '1/2-1/2')), 10000);
    assert.ok(await page.evaluate(() => [...window.__cr.store.games.values()].some((g) => g.result === '1/2-1/2')), 'viewers see the draw');
    await screenshot(page, 'arbiter-relay-claim');
    const [popup] = await Promise.all([page.context().waitForEvent('page'), page.click('.arb-claim .arb-report')]);
    await popup.waitForURL(/^blob:/, { timeout: 10000 });
    await popup.waitForLoadState();
    const report = await popup.textContent('body');
    for (const san of ['Kf1', 'Kf8', 'Rd2', 'Rd7']) assert.ok(report.includes(san), `report has ${san}`);
    assert.match(report, /no effort to win/);
    await screenshot(popup, 'arbiter-relay-report');
    await popup.close();
    assert.deepEqual(errors, []);
  } finally {
    if (browser) await browser.close();
    await stopRelay(relay);
  }
});

// The viewer against the real relay: `chessrelay replay FEED --serve` plays a
// sample feed at 20x and the page must show the feed's expected moves and
// positions. Needs CR_RELAY_BIN: without it the test fails.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Chess } from 'chess.js';
import { launch, screenshot, waitForBoard, waitFor, DEFAULT_WEB, webAssets } from '../lib.mjs';
import { startRelay, stopRelay } from '../relay-proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
const feedsDir = resolve(repo, 'tests/data/feeds');
const bin = process.env.CR_RELAY_BIN || '';
const FEED = 'p01';

test('real relay: replayed feed shows the expected moves and positions', { timeout: 150000 }, async () => {
  assert.ok(bin && existsSync(bin), `relay binary (CR_RELAY_BIN) not found: '${bin}'`);
  const feed = resolve(feedsDir, `${FEED}.feed`);
  assert.ok(existsSync(feed), `feed ${feed}`);
  assert.ok(existsSync(`${DEFAULT_WEB}/index.html`), 'web build missing (run web/build.sh)');
  const expected = readFileSync(resolve(feedsDir, `${FEED}.expected`), 'utf8').split('\n')[0].trim().split(/\s+/);
  const env = { CR_WEB_ROOT: DEFAULT_WEB };
  const relay = await startRelay(bin, ['replay', feed, '--serve', '--speed', '20'], env);
  assert.ok(!relay.failed, `replay --serve did not start: ${relay.log && relay.log.slice(-800)}`);
  const { base, log } = relay;
  let browser;
  try {
    const index = await (await fetch(`${base}/`)).text();
    const { 'app.js': appJs } = webAssets();
    assert.ok(index.includes(appJs), `the relay serves web/dist (${appJs})`);
    // The embed mode's path is the app too, and the flags are served (issue 17).
    const embed = await fetch(`${base}/embed/game/1?hide=clocks`);
    assert.equal(embed.status, 200);
    assert.ok((await embed.text()).includes(appJs), '/embed/game/1 serves the app');
    const flag = await fetch(`${base}/flags/no.svg`);
    assert.equal(flag.status, 200);
    assert.equal(flag.headers.get('content-type'), 'image/svg+xml');

    browser = await launch();
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/`);
    await page.waitForSelector('.card[data-game]', { timeout: 30000 });
    assert.equal(await page.getAttribute('.conn', 'data-state'), 'open');
    await page.click('.card[data-game]');
    await page.waitForSelector('.game-page');
    // Wait for the first moves of the game to be played at 20x.
    const want = 9;
    const n = await waitFor(async () => {
      const k = await page.$$eval('.moves .mv[data-ply]', (els) => els.length);
      return k >= want ? k : 0;
    }, 60000, 200);
    assert.ok(n >= want, `only ${n} moves after 60 s: ${log.join('').slice(-1500)}`);
    const sans = await page.$$eval('.moves .mv[data-ply]', (els) => els.map((e) => e.dataset.san));
    assert.deepEqual(sans, expected.slice(0, sans.length), 'moves are a prefix of the expected game');
    // Fix the view a few plies back (clicking the latest move would follow
    // the live game) and compare the drawn board with chess.js.
    const fixed = want - 3;
    await page.click(`.moves .mv[data-ply="${fixed - 1}"]`);
    const chess = new Chess();
    for (const san of expected.slice(0, fixed)) chess.move(san);
    assert.equal(await waitForBoard(page, '.board-wrap', chess.fen()), chess.fen().split(' ')[0]);
    await screenshot(page, 'relay-game');
    await page.click('.controls .btn.live');
    await page.click('.back');
    await page.waitForSelector('.card[data-game] piece');
    await screenshot(page, 'relay-overview');
    assert.deepEqual(errors, []);
  } finally {
    if (browser) await browser.close();
    await stopRelay(relay);
  }
});

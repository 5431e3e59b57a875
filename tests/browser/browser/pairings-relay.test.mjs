// Issue 30 against the real relay: `chessrelay replay p01.feed --serve
// --pairings oslo-open-r5.trf`. The feed's board (DGT23164) has no table in
// the pairings: its game goes to the round played (5), without a table,
// named after the tournament (the games list, the PGN's [Event]); the
// viewer shows the tournament's name, round 1 (finished in the file) is
// not live, and the feed's players are not in the standings.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, waitFor, screenshot, DEFAULT_WEB } from '../lib.mjs';
import { startRelay, stopRelay } from '../relay-proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
const bin = process.env.CR_RELAY_BIN || '';
const EVENT = 'Oslo Chess Festival 2026 - Open A';

test('real relay: a board with no table in the pairings joins the round played, named after the tournament', { timeout: 150000 }, async () => {
  assert.ok(bin && existsSync(bin), `relay binary (CR_RELAY_BIN) not found: '${bin}'`);
  const feed = resolve(repo, 'tests/data/feeds/p01.feed');
  const trf = resolve(repo, 'tests/data/pairings/oslo-open-r5.trf');
  const relay = await startRelay(bin, ['replay', feed, '--serve', '--speed', '20', '--pairings', trf], { CR_WEB_ROOT: DEFAULT_WEB });
  assert.ok(!relay.failed, `replay --serve did not start: ${relay.log && relay.log.slice(-800)}`);
  let browser;
  try {
    const spare = await waitFor(async () => {
      const games = await (await fetch(`${relay.base}/games.json`)).json();
      return games.find((g) => g.board === 'DGT23164');
    }, 30000, 100);
    assert.ok(spare, `no game of board DGT23164: ${relay.log.join('').slice(-1500)}`);
    assert.equal(spare.round, '5', 'the round played, not the finished round 1');
    assert.equal(spare.table, undefined, 'no table number of the pairings');
    const pgn = await (await fetch(`${relay.base}/game/${spare.id}.pgn`)).text();
    assert.match(pgn, new RegExp(`\\[Event "${EVENT}"\\]`));
    assert.match(pgn, /\[Round "5"\]/);
    assert.doesNotMatch(pgn, /Let's Play/);

    browser = await launch();
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${relay.base}/#/game/${spare.id}`);
    await page.waitForSelector('.game-sub');
    await page.waitForFunction((ev) => document.querySelector('.game-sub').textContent.includes(ev), EVENT, { timeout: 30000 });
    await page.waitForSelector('.topbar .event');
    assert.equal(await page.textContent('.topbar .event'), EVENT);
    await page.waitForSelector('.round-tab[data-round="1"]');
    assert.equal(await page.$eval('.round-tab[data-round="1"]', (e) => e.dataset.status), 'finished');
    await page.click('.standings-tab');
    await page.waitForSelector('.standings tr[data-player="Lindqvist, Erik"]');
    assert.equal(await page.$('.standings tr[data-player^="Player P0008"]'), null, 'the feed\'s players in the standings');
    await screenshot(page, 'pairings-relay-standings');
    assert.deepEqual(errors, []);
  } finally {
    if (browser) await browser.close();
    await stopRelay(relay);
  }
});

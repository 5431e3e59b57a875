// Issue 30 against the real relay: the tournament file's streams and
// players' photos (relay/core/config_media.h) reach the viewer through
// /tournament.json and /media/photo/<n>: `chessrelay replay p01.feed --serve
// --config t.json` with a public delay, a YouTube stream and a photo file;
// the page shows the stream beside the boards (its iframe's URL, no request
// leaves 127.0.0.1), says it runs ahead of the delayed boards, and a
// player's card shows the photo file and its credit. Needs CR_RELAY_BIN.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, waitFor, DEFAULT_WEB } from '../lib.mjs';
import { startRelay, stopRelay } from '../relay-proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
const bin = process.env.CR_RELAY_BIN || '';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

test('real relay: the tournament file\'s stream beside the boards, a player\'s photo file on the card', { timeout: 150000 }, async () => {
  assert.ok(bin && existsSync(bin), `relay binary (CR_RELAY_BIN) not found: '${bin}'`);
  const feed = resolve(repo, 'tests/data/feeds/p01.feed');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'cr-media-'));
  writeFileSync(join(dir, 'photo.png'), PNG);
  const tour = join(dir, 't.json');
  // A public delay of 3 s, a stream without one; the feed's White has a card.
  writeFileSync(tour, JSON.stringify({
    event: 'Media Test Open', delay_seconds: 3,
    streams: [{ url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', title: 'Commentary' }],
    players: [{ name: 'Player P0008-W', photo: 'photo.png', credit: 'Photo: Test Studio' }],
  }));
  const relay = await startRelay(bin, ['replay', feed, '--serve', '--speed', '20', '--config', tour, '--state', join(dir, 's1')], { CR_WEB_ROOT: DEFAULT_WEB });
  assert.ok(!relay.failed, `replay --serve --config did not start: ${relay.log && relay.log.slice(-800)}`);
  let browser;
  try {
    const tj = await (await fetch(`${relay.base}/tournament.json`)).json();
    assert.equal(tj.delay_s, 3);
    assert.deepEqual(tj.streams, [{ round: '*', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', kind: 'youtube', title: 'Commentary', delay_s: 0 }]);
    assert.equal(tj.players[0].photo, '/media/photo/0');
    assert.ok(!JSON.stringify(tj).includes(dir), 'no path of the relay\'s machine');
    const ph = await fetch(`${relay.base}/media/photo/0`);
    assert.equal(ph.status, 200);
    assert.equal(ph.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await ph.arrayBuffer()), PNG);
    assert.equal((await fetch(`${relay.base}/media/photo/1`)).status, 404);
    assert.equal((await fetch(`${relay.base}/media/photo/x`)).status, 404);

    browser = await launch();
    const offsite = [];
    await browser.context.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname === '127.0.0.1') return route.continue();
      offsite.push(u.href);
      return route.abort();
    });
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${relay.base}/`);
    const frame = await page.waitForSelector('.stream-panel iframe', { timeout: 30000 });
    assert.equal(await frame.getAttribute('src'), 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0');
    await page.waitForSelector('.card[data-game]', { timeout: 30000 });
    const boards = await page.$eval('.boards', (e) => e.getBoundingClientRect().toJSON());
    const panel = await page.$eval('.stream-panel', (e) => e.getBoundingClientRect().toJSON());
    assert.ok(panel.left >= boards.right - 1, 'the video beside the boards');
    assert.ok(await waitFor(() => page.$('.notice-bar .stream-ahead')), 'the banner: the video runs ahead');
    assert.match(await page.textContent('.notice-bar .stream-ahead'), /3 s ahead/);
    // The card of the feed's White, from the name on the overview's card.
    assert.equal((await page.textContent('.card[data-game] .player[data-side="white"] .pname')).trim(), 'Player P0008-W');
    await page.click('.card[data-game] .player[data-side="white"] .pname');
    const img = await page.waitForSelector('dialog.player-card[open] .pc-photo img');
    assert.equal(await img.getAttribute('src'), '/media/photo/0');
    assert.ok(await waitFor(() => img.evaluate((e) => e.complete && e.naturalWidth === 1)), 'the photo file loaded from the relay');
    assert.equal(await page.textContent('.pc-credit'), 'Photo: Test Studio');
    assert.ok(offsite.every((u) => /youtube-nocookie\.com/.test(u)), `only the player was asked for: ${offsite.join(' ')}`);
    assert.deepEqual(errors, []);
  } finally {
    if (browser) await browser.close();
    await stopRelay(relay);
    rmSync(dir, { recursive: true, force: true });
  }
});

// The issue's "done when" in a browser: `chessrelay replay FEED --serve
// --engine stockfish` (Debian's stockfish, installed by scripts/setup; a
// missing one fails the test) shows eval bars in the viewer and the overlay
// page, and [%eval] in the game's PGN, within seconds of the moves.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, waitFor, DEFAULT_WEB } from '../lib.mjs';
import { startRelay, stopRelay } from '../relay-proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
const bin = process.env.CR_RELAY_BIN || '';

function haveStockfish() {
  const dirs = (process.env.PATH || '').split(':').concat(['/usr/games', '/usr/local/games']);
  return dirs.some((d) => d && existsSync(`${d}/stockfish`));
}

test('real relay with stockfish: eval bars in the viewer and the overlay, [%eval] in the PGN', { timeout: 180000 }, async () => {
  assert.ok(bin && existsSync(bin), `relay binary (CR_RELAY_BIN) not found: '${bin}'`);
  assert.ok(haveStockfish(), 'stockfish is not installed (scripts/setup installs Debian\'s stockfish)');
  const feed = resolve(repo, 'tests/data/feeds/p01.feed');
  const relay = await startRelay(bin, ['replay', feed, '--serve', '--speed', '20', '--engine', 'stockfish'], { CR_WEB_ROOT: DEFAULT_WEB });
  assert.ok(!relay.failed, `replay --serve --engine did not start: ${relay.log && relay.log.slice(-800)}`);
  let browser;
  try {
    browser = await launch();
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${relay.base}/#/game/1`);
    await page.waitForSelector('.game-page .evalbar');
    // An eval of the shown (live) position, or of the one before while the
    // engine works on it: a number on the bar.
    const shown = await waitFor(async () => {
      const t = await page.$eval('.evalbar', (e) => e.dataset.eval);
      return /^([+−]?\d+\.\d\d|#−?\d+)$/.test(t) ? t : null;
    }, 60000, 200);
    assert.ok(shown, `no eval on the bar: ${relay.log.join('').slice(-800)}`);
    const points = await waitFor(async () => Number(await page.$eval('.eval-graph', (e) => e.dataset.points)) >= 2, 60000, 200);
    assert.ok(points, 'the evaluation graph has points');
    await screenshot(page, 'engine-relay-game');
    const ov = await browser.context.newPage();
    ov.on('pageerror', (e) => errors.push(e.message));
    await ov.goto(`${relay.base}/overlay/game/1`);
    const ovEval = await waitFor(async () => {
      const t = await ov.$eval('.ov-block .evalbar', (e) => e.dataset.eval).catch(() => '');
      return t || null;
    }, 60000, 200);
    assert.ok(ovEval, 'no eval on the overlay\'s bar');
    await screenshot(ov, 'engine-relay-overlay');
    const pgn = await (await fetch(`${relay.base}/game/1.pgn`)).text();
    assert.match(pgn, /\[%eval (#-?\d+|-?\d+\.\d\d)\]/);
    assert.deepEqual(errors, []);
  } finally {
    if (browser) await browser.close();
    await stopRelay(relay);
  }
});

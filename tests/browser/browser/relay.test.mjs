// The viewer against the real relay: `chessrelay replay FEED --serve` plays a
// sample feed at 20x and the page must show the feed's expected moves and
// positions. Needs CR_RELAY_BIN; skipped when the binary has no --serve.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Chess } from 'chess.js';
import { launch, screenshot, waitForBoard, waitFor, DEFAULT_WEB } from '../lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
// The sample feeds: the repository's copy, else the shared folder's.
const feedsDir = existsSync(resolve(repo, 'tests/data/feeds/p01.feed')) ? resolve(repo, 'tests/data/feeds')
  : resolve(process.env.CR_SHARED_DIR || resolve(repo, '../shared'), 'feeds');
const bin = process.env.CR_RELAY_BIN || '';
const FEED = 'p01';

function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

// Starts `bin args...` and waits until /healthz answers 200; resolves to the
// running relay, or to {failed, log} when it exits or stays unhealthy.
async function startRelay(args, env, port) {
  const base = `http://127.0.0.1:${port}`;
  const log = [];
  const proc = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const r = { proc, base, log, exited: null };
  proc.stdout.on('data', (d) => log.push(String(d)));
  proc.stderr.on('data', (d) => log.push(String(d)));
  proc.on('exit', (code, sig) => { r.exited = { code, sig }; });
  const healthy = await waitFor(async () => {
    if (r.exited) return 'exited';
    try {
      return (await fetch(`${base}/healthz`)).status === 200 ? 'ok' : false;
    } catch (e) {
      return false;
    }
  }, 20000, 100);
  if (healthy !== 'ok') {
    await stopRelay(r);
    return { failed: true, log: log.join('') };
  }
  return r;
}

async function stopRelay(r) {
  if (r.exited) return;
  r.proc.kill('SIGTERM');
  await waitFor(() => r.exited, 5000);
  if (!r.exited) r.proc.kill('SIGKILL');
}

const why = !bin ? 'no relay binary given (CR_RELAY_BIN)' : !existsSync(bin) ? `relay binary ${bin} not found` : null;
if (why) console.log(`skipped: ${why}`);

test('real relay: replayed feed shows the expected moves and positions', { skip: why || false, timeout: 150000 }, async (t) => {
  const feed = resolve(feedsDir, `${FEED}.feed`);
  assert.ok(existsSync(feed), `feed ${feed}`);
  assert.ok(existsSync(`${DEFAULT_WEB}/index.html`), 'web build missing (run web/build.sh)');
  const expected = readFileSync(resolve(feedsDir, `${FEED}.expected`), 'utf8').split('\n')[0].trim().split(/\s+/);
  const env = { CR_WEB_ROOT: DEFAULT_WEB, CR_DEMO_FEED: feed };
  // `replay FEED --serve` is the contract; a binary without it may still
  // have `demo`, which serves the same feed through CR_DEMO_FEED.
  let port = await freePort();
  let relay = await startRelay(['replay', feed, '--serve', '--listen', `127.0.0.1:${port}`, '--speed', '20'], env, port);
  if (relay.failed) {
    const replayLog = relay.log;
    const help = spawnSync(bin, ['help', 'demo'], { encoding: 'utf8', timeout: 10000 });
    if (!/--listen\b/.test(`${help.stdout}${help.stderr}`) || process.env.CR_NO_DEMO_FALLBACK) {
      console.log('skipped: relay has no --serve');
      t.skip(`skipped: relay has no --serve (${replayLog.trim().split('\n').pop() || 'no output'})`);
      return;
    }
    port = await freePort();
    relay = await startRelay(['demo', '--listen', `127.0.0.1:${port}`, '--speed', '20'], env, port);
    assert.ok(!relay.failed, `neither replay --serve nor demo served: ${replayLog.slice(-800)} / ${relay.log && relay.log.slice(-800)}`);
    console.log(`real relay: ${bin} demo (replay --serve did not start: ${replayLog.trim().split('\n').pop()})`);
  } else {
    console.log(`real relay: ${bin} replay --serve`);
  }
  const { base, log } = relay;
  let browser;
  try {
    const index = await (await fetch(`${base}/`)).text();
    assert.match(index, /app\.js/, 'the relay serves web/dist');

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

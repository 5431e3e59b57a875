// The viewer and the arbiter dashboard against the real relay over HTTPS
// (issue 24): a certificate made now with openssl, the relay's own TLS
// ("tls" in the tournament file). Chromium negotiates HTTP/2 for the page and
// the app's files, which must arrive whole (lws 4.1 used to leave the tail of
// a response behind on h2: a blank page); the viewer shows the moves and the
// arbiter logs in over wss:// and sees its dashboard. Needs CR_RELAY_BIN.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, waitFor, webAssets, DEFAULT_WEB } from '../lib.mjs';
import { startRelay, stopRelay } from '../relay-proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.CR_SOURCE_DIR || resolve(here, '../../..');
const feedsDir = resolve(repo, 'tests/data/feeds');
const bin = process.env.CR_RELAY_BIN || '';
const FEED = 'p01';
const TOKEN = 'tls-browser-arbiter-token';

test('real relay over https (HTTP/2): the viewer shows the moves, the arbiter logs in over wss://', { timeout: 150000 }, async () => {
  assert.ok(bin && existsSync(bin), `relay binary (CR_RELAY_BIN) not found: '${bin}'`);
  assert.ok(existsSync(`${DEFAULT_WEB}/index.html`), 'web build missing (run web/build.sh)');
  const expected = readFileSync(resolve(feedsDir, `${FEED}.expected`), 'utf8').split('\n')[0].trim().split(/\s+/);
  const dir = mkdtempSync(join(tmpdir(), 'cr-browser-tls-'));
  let relay;
  let browser;
  try {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert,
      '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const cfg = join(dir, 'tournament.json');
    writeFileSync(cfg, JSON.stringify({
      event: 'TLS browser', tls: { cert, key }, web_root: DEFAULT_WEB,
      tokens: [{ name: 'chief', role: 'arbiter', token: TOKEN }],
      feeds: [resolve(feedsDir, `${FEED}.feed`)],
    }));
    relay = await startRelay(bin, ['serve', '--config', cfg, '--state', join(dir, 'state'), '--speed', '20'], {},
      { ca: readFileSync(cert) });
    assert.ok(!relay.failed, `serve over TLS did not start: ${relay.log && relay.log.slice(-800)}`);
    const { base, log } = relay;
    assert.match(base, /^https:/);

    browser = await launch(['--ignore-certificate-errors']);
    const errors = [];
    // A WebSocket closed while the game is played is a failure (over HTTP/2
    // lws dropped a batch of messages and the relay closed the viewer).
    const closed = [];
    const watch = (p) => p.on('websocket', (ws) => ws.on('close', () => closed.push(ws.url())));
    const page = await browser.context.newPage();
    watch(page);
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/`);
    await page.waitForSelector('.card[data-game]', { timeout: 30000 });
    // HTTP/2 for the page and every file of the app, each one whole.
    const loads = await page.evaluate(() => performance.getEntriesByType('navigation')
      .concat(performance.getEntriesByType('resource'))
      .filter((e) => e.name.startsWith(location.origin))
      .map((e) => ({ name: e.name, proto: e.nextHopProtocol, size: e.decodedBodySize })));
    const appPath = webAssets()['app.js']; /* the content-hashed bundle */
    const app = loads.find((e) => new URL(e.name).pathname === appPath);
    assert.ok(app, `${appPath} not loaded: ${JSON.stringify(loads)}`);
    for (const e of loads) assert.equal(e.proto, 'h2', `${e.name} over ${e.proto}`);
    const appFile = readFileSync(join(DEFAULT_WEB, new URL(app.name).pathname));
    assert.equal(app.size, appFile.length, 'app.js whole over HTTP/2');
    assert.equal(await page.getAttribute('.conn', 'data-state'), 'open', 'the viewer\'s wss:// connection');

    await page.click('.card[data-game]');
    await page.waitForSelector('.game-page');
    const want = 9;
    const n = await waitFor(async () => {
      const k = await page.$$eval('.moves .mv[data-ply]', (els) => els.length);
      return k >= want ? k : 0;
    }, 60000, 200);
    assert.ok(n >= want, `only ${n} moves after 60 s: ${log.join('').slice(-1500)}`);
    const sans = await page.$$eval('.moves .mv[data-ply]', (els) => els.map((e) => e.dataset.san));
    assert.deepEqual(sans, expected.slice(0, sans.length), 'moves are a prefix of the expected game');
    await screenshot(page, 'relay-tls-game');

    // The arbiter: the token, wss://, the dashboard with the game's card.
    const arb = await browser.context.newPage();
    watch(arb);
    arb.on('pageerror', (e) => errors.push(e.message));
    await arb.goto(`${base}/?token=${TOKEN}#/arbiter`);
    await arb.waitForSelector('.arb-card[data-game]', { timeout: 30000 });
    assert.equal(await arb.$('.arb-need-token'), null, 'the dashboard asks for a token');
    // Both stay connected while the feed goes on.
    await arb.waitForTimeout(3000);
    await screenshot(arb, 'relay-tls-arbiter');
    assert.deepEqual(closed, [], 'WebSockets closed during the test');
    assert.equal(await page.getAttribute('.conn', 'data-state'), 'open', 'the viewer is still connected');
    assert.equal(await arb.getAttribute('.conn', 'data-state'), 'open', 'the arbiter is still connected');
    assert.deepEqual(errors, []);
  } finally {
    if (browser) await browser.close();
    if (relay && !relay.failed) await stopRelay(relay);
    rmSync(dir, { recursive: true, force: true });
  }
});

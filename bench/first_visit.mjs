// Bytes a viewer's browser moves to open the overview and a game page, on a
// first visit (empty cache) and a repeat visit (cache warm): the relay
// replaying bundled feeds (players with federations, so flags load),
// Debian's chromium through playwright-core (tests/browser's packages),
// sizes as the network carried them (CDP Network.loadingFinished's
// encodedDataLength: headers and the encoded body). The WebSocket's traffic
// is not counted.
//   node bench/first_visit.mjs [path/to/chessrelay] [shot.png]   (default build/chessrelay)
// shot.png: a screenshot of the overview as the first visit drew it (the flags).
// Needs web/dist (web/build.sh) and tests/browser's node_modules (npm ci there).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, DEFAULT_WEB } from '../tests/browser/lib.mjs';
import { startRelay, stopRelay } from '../tests/browser/relay-proc.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = resolve(process.argv[2] || join(repo, 'build/chessrelay'));
if (!existsSync(bin)) throw new Error(`no relay binary at ${bin}`);
// $CR_WEB_ROOT: another web build (an older one, to compare).
const web = process.env.CR_WEB_ROOT || DEFAULT_WEB;
if (!existsSync(join(web, 'index.html'))) throw new Error(`no web build in ${web} (web/build.sh)`);

// Eight boards; their players get federations whose flags range from the
// simplest to the most detailed (a coat of arms: SRB, BOL, MEX, ESP).
const FEDS = [['SRB', 'NOR'], ['BOL', 'MEX'], ['ESP', 'GER'], ['USA', 'IND'], ['FRA', 'ENG'], ['UKR', 'ARM'],
  ['CHN', 'BRA'], ['ESA', 'NED']];
const tmp = mkdtempSync(join(tmpdir(), 'cr-first-visit-'));
const feeds = FEDS.map(([w, b], i) => {
  const name = `p0${i + 1}`;
  const lines = readFileSync(join(repo, 'tests/data/feeds', `${name}.feed`), 'utf8').split('\n');
  const at = lines.findIndex((l) => / connect$/.test(l));
  if (at < 0) throw new Error(`${name}.feed has no connect line`);
  const [ts, board] = lines[at].split(' ');
  lines.splice(at + 1, 0, `${ts} ${board} meta WhiteFed ${w}`, `${ts} ${board} meta BlackFed ${b}`);
  const path = join(tmp, `${name}.feed`);
  writeFileSync(path, lines.join('\n'));
  return path;
});

function kind(r) {
  const path = new URL(r.url).pathname;
  if (path.startsWith('/flags/')) return 'flags';
  if (r.mime === 'text/html') return 'html';
  if (path.endsWith('.js')) return 'js';
  if (path.endsWith('.css')) return 'css';
  return 'other';
}

async function visit(context, base, shot) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const reqs = new Map();
  cdp.on('Network.responseReceived', (e) => {
    if (!/^https?:/.test(e.response.url)) return; // the CSS's data: images
    const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    reqs.set(e.requestId, { url: e.response.url, mime: e.response.mimeType, status: e.response.status,
      cached: e.response.fromDiskCache || e.response.fromMemoryCache, enc: h['content-encoding'] || 'identity', bytes: 0 });
  });
  cdp.on('Network.loadingFinished', (e) => { if (reqs.has(e.requestId)) reqs.get(e.requestId).bytes = e.encodedDataLength; });
  const flagsLoaded = () => page.waitForFunction(() => [...document.querySelectorAll('img.fed')].every((i) => i.complete),
    null, { timeout: 30000 });
  await page.goto(`${base}/#/round/1`);
  await page.waitForFunction((n) => document.querySelectorAll('.card[data-game]').length >= n, FEDS.length, { timeout: 60000 });
  await flagsLoaded();
  if (shot) await page.screenshot({ path: shot });
  await page.click('.card[data-game]');
  await page.waitForSelector('.game-page', { timeout: 30000 });
  await flagsLoaded();
  await page.waitForTimeout(1000); // what the game page fetches after drawing
  await page.close();
  return [...reqs.values()];
}

function report(name, reqs) {
  const sum = { html: 0, js: 0, css: 0, flags: 0, other: 0 };
  const count = { html: 0, js: 0, css: 0, flags: 0, other: 0 };
  for (const r of reqs) { sum[kind(r)] += r.bytes; count[kind(r)]++; }
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const parts = Object.keys(sum).map((k) => `${k} ${kb(sum[k])} (${count[k]})`);
  const noFlags = sum.html + sum.js + sum.css + sum.other;
  console.log(`${name}: ${parts.join(', ')}`);
  console.log(`${name}: html+js+css ${kb(sum.html + sum.js + sum.css)}, total without flags ${kb(noFlags)}, with flags ${kb(noFlags + sum.flags)}`);
  const statuses = {};
  for (const r of reqs) {
    const key = `${r.status}${r.cached ? ' cache' : ''}${r.status === 200 && !r.cached ? ` ${r.enc}` : ''}`;
    statuses[key] = (statuses[key] || 0) + 1;
  }
  console.log(`${name}: responses ${Object.entries(statuses).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
}

const relay = await startRelay(bin, ['replay', ...feeds, '--serve', '--speed', '50'], { CR_WEB_ROOT: web });
let browser;
try {
  if (relay.failed) throw new Error(`the relay did not start: ${relay.log.slice(-800)}`);
  browser = await launch();
  report('first visit', await visit(browser.context, relay.base, process.argv[3] && resolve(process.argv[3])));
  report('repeat visit', await visit(browser.context, relay.base));
} finally {
  if (browser) await browser.close();
  if (!relay.failed) await stopRelay(relay);
  rmSync(tmp, { recursive: true, force: true });
}

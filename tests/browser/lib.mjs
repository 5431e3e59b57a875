// Shared helpers of the browser tests: launching Debian's chromium through
// playwright-core (never a downloaded browser) and reading chessground boards.

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS = process.env.CR_ARTIFACTS_DIR || resolve(here, '../../artifacts/browser');
export const DEFAULT_WEB = resolve(here, '../../web/dist');
// The build's logical names to the paths the page loads ({'app.js':
// '/assets/app-HASH.js', ...}: web/build.mjs writes dist/assets.json).
export function webAssets(dir = DEFAULT_WEB) {
  return JSON.parse(readFileSync(join(dir, 'assets.json'), 'utf8'));
}
export const CHROMIUM = process.env.CR_CHROMIUM || '/usr/bin/chromium';

export function haveChromium() {
  return existsSync(CHROMIUM);
}

// extraArgs: more chromium flags (e.g. --ignore-certificate-errors for a
// relay with a certificate made by the test).
export async function launch(extraArgs = []) {
  const profile = mkdtempSync(join(tmpdir(), 'cr-chromium-'));
  // launchPersistentContext is how playwright takes a --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage', ...extraArgs],
    viewport: { width: 1280, height: 860 },
    deviceScaleFactor: 1,
  });
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

// Until nothing moves on the page: no chessground piece sliding or fading,
// no finite CSS animation or transition running (endless ones, a pulsing
// live dot, never end and do not count).
export async function settled(page, timeoutMs = 5000) {
  await page.waitForFunction(() => !document.querySelector('piece.anim, piece.fading')
    && document.getAnimations().every((a) => a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity),
  null, { timeout: timeoutMs });
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await settled(page);
  await page.screenshot({ path, fullPage: false });
  return path;
}

// The piece placement (FEN's first field) that chessground has drawn inside
// the element matched by `selector`, read from its <piece> elements.
export async function renderedPlacement(page, selector) {
  return page.evaluate((sel) => {
    const board = document.querySelector(`${sel} cg-board`);
    if (!board) return null;
    const letters = { king: 'k', queen: 'q', rook: 'r', bishop: 'b', knight: 'n', pawn: 'p' };
    const grid = Array.from({ length: 8 }, () => Array(8).fill(null));
    for (const p of board.querySelectorAll('piece')) {
      if (p.classList.contains('fading') || p.classList.contains('ghost') || !p.cgKey) continue;
      const cls = p.className.split(/\s+/);
      const role = cls.find((c) => letters[c]);
      const white = cls.includes('white');
      const file = p.cgKey.charCodeAt(0) - 97;
      const rank = Number(p.cgKey[1]) - 1;
      const ch = white ? letters[role].toUpperCase() : letters[role];
      if (grid[7 - rank][file]) return `double piece on ${p.cgKey}`;
      grid[7 - rank][file] = ch;
    }
    return grid.map((row) => {
      let s = '';
      let empty = 0;
      for (const c of row) {
        if (!c) { empty++; continue; }
        if (empty) { s += empty; empty = 0; }
        s += c;
      }
      return s + (empty ? empty : '');
    }).join('/');
  }, selector);
}

// Waits until the board under `selector` shows `fen`; returns what it shows.
export async function waitForBoard(page, selector, fen, timeoutMs = 5000) {
  const want = fen.split(' ')[0];
  let got = null;
  await waitFor(async () => (got = await renderedPlacement(page, selector)) === want, timeoutMs);
  return got;
}

// Waits for a condition, never for a time: the bound is wide because the
// suite runs beside the sanitizers' tests and fuzzers on two cores, where a
// page may take seconds to draw; a condition met returns at once.
export async function waitFor(fn, timeoutMs = 15000, stepMs = 50) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return last;
}

// Everything `page` sent on its WebSocket so far has reached the fake relay
// when this returns: a ping sent now, on the same socket, arrives after it.
// Returns the ping's index in relay.received: what a test says was never sent
// is checked among the messages before it (a positive condition, not a wait).
let probes = 0;
export async function sentSoFar(page, relay, timeoutMs = 5000) {
  const probe = `probe-${++probes}`;
  const sent = await page.evaluate((p) => (window.__cr || window.__crOverlay).conn.send({ op: 'ping', probe: p }), probe);
  if (!sent) throw new Error('sentSoFar: the page is not connected');
  const at = await waitFor(() => {
    const i = relay.received.findIndex((m) => m.probe === probe);
    return i >= 0 ? i + 1 : 0;
  }, timeoutMs);
  if (!at) throw new Error('sentSoFar: the probe did not reach the relay');
  return at - 1;
}

// "1:29:58" / "4:05" / "0:09.5" -> milliseconds
export function parseClock(text) {
  const parts = String(text).trim().split(':').map(Number);
  if (!parts.length || parts.some((x) => !Number.isFinite(x))) return null;
  return parts.reduce((acc, x) => acc * 60 + x, 0) * 1000;
}

// A new page whose browser says it prefers `locale` (e.g. 'ru-RU'), with
// the script errors it raises collected in `errors`.
export async function pageInLanguage(context, locale) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript((l) => {
    Object.defineProperty(navigator, 'languages', { get: () => [l, l.split('-')[0]] });
    Object.defineProperty(navigator, 'language', { get: () => l });
  }, locale);
  return { page, errors };
}

// '' once the page is no wider than its window (the layout after a resize
// settles in a frame or two), else what sticks out, for the assertion.
export async function fitsWidth(page, timeoutMs = 3000) {
  const fits = await page.waitForFunction(() => document.documentElement.scrollWidth <= innerWidth, null, { timeout: timeoutMs })
    .then(() => true, () => false);
  if (fits) return '';
  return page.evaluate(() => `${document.documentElement.scrollWidth} > ${innerWidth}: ` + [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 5)
    .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).join(', '));
}

// The usual start of a browser test file against the fake relay: the relay
// (seeded with the fixture round, then `fill(relay)`), chromium and one page
// whose script errors are collected. Call close() in after().
export async function fakeRelaySession(FakeRelay, seedRound, fill = () => {}) {
  if (!existsSync(join(DEFAULT_WEB, 'index.html'))) throw new Error(`web build missing at ${DEFAULT_WEB} (run web/build.sh)`);
  const relay = new FakeRelay();
  seedRound(relay);
  fill(relay);
  await relay.start();
  const browser = await launch();
  const page = await browser.context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const close = async () => {
    await browser.close();
    await relay.stop();
  };
  return { relay, browser, page, pageErrors, close };
}

// axe-core's serious and critical violations on the page as it is now
// (axe.min.js injected from the test packages).
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
export async function axeViolations(p) {
  await p.addScriptTag({ path: AXE });
  const found = await p.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

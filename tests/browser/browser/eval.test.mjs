// Engine evaluations and the OBS overlays in Debian's chromium against the
// fake relay (which sends "eval" messages as the relay does): the eval bar,
// best line, graphs (click to jump), ? and ?? marks, the Engine switch and
// ?eval=0, the overview's small bars; /overlay/game/N and /overlay/round/R:
// they render, follow a move without a reload, have a transparent
// background, flash on a blunder and reconnect by themselves.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRelay, seedRound, RUY } from '../fake-relay.mjs';
import { screenshot, waitForBoard, waitFor, fakeRelaySession, renderedPlacement } from '../lib.mjs';

let session, relay, browser, page, pageErrors; // set by before()

const E = (cp, extra = {}) => ({ cp, depth: 18, best: 'Re1', pv: 'Re1 b5 Bb3', ...extra });

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    // Game 1 (the Ruy Lopez, 10 plies with clocks): every ply evaluated,
    // the last one (...Be7) a mistake.
    RUY.forEach((_, i) => { r.games.get(1).moves[i].eval = E(20 + i * 5); });
    r.games.get(1).moves[9].eval = E(180, { nag: 2, best: 'Re1', pv: 'Re1 b5 Bb3 d6' });
  });
  ({ relay, browser, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

const barEval = (p, sel = '.evalbar') => p.$eval(sel, (e) => e.dataset.eval);

test('game page: eval bar, best line, graphs, marks; a new eval follows live', async () => {
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.board-wrap piece');
  assert.equal(await waitFor(async () => (await barEval(page)) === '+1.80', 5000), true);
  const share = Number(await page.$eval('.evalbar', (e) => e.dataset.share));
  assert.ok(share > 60 && share < 70, `White's share ${share}`);
  const best = await page.textContent('.bestline');
  assert.match(best, /\+1\.80/);
  assert.match(best, /6\. Re1 b5 7\. Bb3 d6/);
  assert.match(best, /depth 18/);
  assert.equal(await page.$eval('.eval-graph', (e) => e.dataset.points), '10');
  assert.equal(await page.$eval('.time-graph', (e) => e.dataset.bars), '8'); // each side's first move has no time before it
  assert.equal(await page.textContent('.moves .mv[data-ply="9"] .nag'), '?');
  assert.equal(await page.$$eval('.bestline .best-line', (l) => l.length), 1);
  // A move: the bar waits dimmed on the last eval, then takes the new one.
  relay.move(1, 'Re1');
  await page.waitForSelector('.moves .mv[data-ply="10"]');
  await page.waitForSelector('.evalbar.pending');
  assert.equal(await page.textContent('.bestline'), '');
  relay.evaluate(1, 10, E(-350, { nag: 4, best: 'b5', pv: 'b5 Bb3' }));
  assert.equal(await waitFor(async () => (await barEval(page)) === '−3.50'), true);
  assert.equal(await page.$eval('.evalbar', (e) => e.classList.contains('pending')), false);
  assert.equal(await page.textContent('.moves .mv[data-ply="10"] .nag'), '??');
  assert.equal(await page.$eval('.eval-graph', (e) => e.dataset.points), '11');
  assert.ok(await page.$('.eval-graph .g-blunder'), 'the blunder is marked on the graph');
  await screenshot(page, 'eval-game');
  // multipv: the engine's best lines, one under the other, the first the eval's own.
  relay.evaluate(1, 10, E(-350, { nag: 4, best: 'b5', pv: 'b5 Bb3',
    lines: [{ cp: -350, depth: 18, pv: 'b5 Bb3' }, { cp: -420, depth: 18, pv: 'd6 c3' }, { mate: -3, depth: 17, pv: 'Nxe4 Qe2' }] }));
  assert.equal(await waitFor(async () => (await page.$$eval('.bestline .best-line', (l) => l.length)) === 3), true);
  const texts = await page.$$eval('.bestline .best-line', (l) => l.map((x) => x.textContent));
  assert.match(texts[0], /^−3\.50 6\.\.\. b5 7\. Bb3 depth 18$/);
  assert.match(texts[1], /^−4\.20 6\.\.\. d6 7\. c3 depth 18$/);
  assert.match(texts[2], /^#−3 6\.\.\. Nxe4 7\. Qe2 depth 17$/);
  // A click on the graph's left end jumps to the first move.
  const box = await page.$eval('.eval-graph', (e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
  await page.mouse.click(box.x + 2, box.y + box.h / 2);
  await page.waitForSelector('.board-wrap .cgbox[data-ply="1"]');
  assert.equal(await barEval(page), '+0.20'); // the eval of the shown position
  // ... and on the time graph's right end to the latest.
  const tb = await page.$eval('.time-graph', (e) => { const r = e.getBoundingClientRect(); return { x: r.right, y: r.top + r.height / 2 }; });
  await page.mouse.click(tb.x - 2, tb.y);
  await page.waitForSelector('.board-wrap .cgbox[data-ply="11"]');
  assert.deepEqual(pageErrors, []);
});

test('the Engine switch and ?eval=0 hide bar, line, graph and marks', async () => {
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.evalbar');
  await page.uncheck('.show-eval');
  await page.waitForSelector('.game-page.no-eval');
  assert.equal(await page.isVisible('.evalbar'), false);
  assert.equal(await page.isVisible('.eval-graph'), false);
  assert.equal(await page.$('.moves .nag'), null);
  await page.check('.show-eval');
  await page.waitForSelector('.moves .nag');
  // For a screen in the playing hall: the URL decides, whatever was chosen.
  const hall = await browser.context.newPage();
  try {
    await hall.goto(`${relay.url}/?eval=0#/game/1`);
    await hall.waitForSelector('.game-page.no-eval');
    assert.equal(await hall.isVisible('.evalbar'), false);
    await hall.goto(`${relay.url}/?eval=0#/round/1`);
    await hall.waitForSelector('.card[data-game="1"] .cgbox');
    assert.equal(await hall.isVisible('.card[data-game="1"] .card-eval'), false);
  } finally {
    await hall.close();
  }
});

test('overview: a small eval bar on the cards with an eval', async () => {
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="1"] .card-eval:not([hidden])');
  assert.equal(await page.$eval('.card[data-game="1"] .card-eval', (e) => e.dataset.eval), '−3.50');
  const w = await page.$eval('.card[data-game="1"] .card-eval-white', (e) => parseFloat(e.style.width));
  assert.ok(w > 15 && w < 30, `White's share ${w}%`);
  assert.equal(await page.isVisible('.card[data-game="3"] .card-eval'), false); // not started: no eval
});

// The page paints nothing of its own: with the browser's background left
// out, the corners of a screenshot are fully transparent.
async function transparentCorners(p) {
  const png = await p.screenshot({ omitBackground: true });
  return p.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const at = (x, y) => ctx.getImageData(x, y, 1, 1).data[3];
    return [at(1, img.height - 2), at(img.width - 2, img.height - 2), at(img.width - 2, 1)];
  }, png.toString('base64'));
}

test('overlay game: board, names, clocks, eval bar, last move; transparent; live without reload', async () => {
  const ov = await browser.context.newPage();
  const errors = [];
  ov.on('pageerror', (e) => errors.push(e.message));
  let loads = 0;
  ov.on('load', () => loads++);
  try {
    await ov.goto(`${relay.url}/overlay/game/1?size=320`);
    await ov.waitForSelector('.ov-game .ov-block[data-game="1"] piece');
    assert.equal(await waitForBoard(ov, '.ov-block', relay.fen(1)), relay.fen(1).split(' ')[0]);
    assert.equal(await ov.textContent('.ov-player.bottom .ov-name'), 'Carlsen, Magnus');
    assert.equal(await ov.textContent('.ov-player.top .ov-name'), 'Nepomniachtchi, Ian');
    assert.match(await ov.textContent('.ov-player.bottom .ov-clock'), /^\d:\d\d:\d\d$/);
    assert.equal(await barEval(ov), '−3.50');
    assert.equal(await ov.textContent('.ov-last'), '6. Re1??');
    const size = await ov.$eval('.ov-board', (e) => e.getBoundingClientRect().width);
    assert.equal(Math.round(size), 320);
    assert.deepEqual(await ov.evaluate(() => [getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).backgroundColor]),
      ['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)']);
    assert.deepEqual(await transparentCorners(ov), [0, 0, 0]);
    await screenshot(ov, 'overlay-game');
    // A move and its eval: drawn without a reload.
    relay.move(1, 'b5');
    assert.equal(await waitForBoard(ov, '.ov-block', relay.fen(1)), relay.fen(1).split(' ')[0]);
    await ov.waitForSelector('.ov-block .evalbar.pending');
    relay.evaluate(1, 11, E(-20, { best: 'Bb3', pv: 'Bb3' }));
    assert.equal(await waitFor(async () => (await barEval(ov)) === '−0.20'), true);
    // A blunder on the latest move flashes, and tells the page's scripts.
    await ov.evaluate(() => { window.__blunders = []; window.addEventListener('cr-blunder', (e) => window.__blunders.push(e.detail)); });
    relay.move(1, 'Bb3');
    await ov.waitForSelector('.ov-block[data-plies="13"]');
    relay.evaluate(1, 12, E(-900, { nag: 4, best: 'c4', pv: 'c4' }));
    await ov.waitForSelector('.ov-block.blunder');
    assert.equal(await ov.textContent('.ov-last'), '7. Bb3??');
    assert.deepEqual(await ov.evaluate(() => window.__blunders), [{ game: 1, ply: 12, san: 'Bb3', eval: '−9.00' }]);
    assert.equal(loads, 1, 'no reload');
    assert.deepEqual(errors, []);
  } finally {
    await ov.close();
  }
});

test('overlay game: orientation and parts from the URL; reconnects by itself', async () => {
  const ov = await browser.context.newPage();
  const errors = [];
  ov.on('pageerror', (e) => errors.push(e.message));
  try {
    await ov.goto(`${relay.url}/overlay/game/1?orientation=black&hide=clocks,eval`);
    await ov.waitForSelector('.ov-block piece');
    assert.equal(await ov.textContent('.ov-player.bottom .ov-name'), 'Nepomniachtchi, Ian');
    assert.equal(await ov.isVisible('.ov-clock'), false);
    assert.equal(await ov.isVisible('.evalbar'), false);
    assert.ok(await ov.$('.cg-wrap.orientation-black'));
    // The relay goes away and comes back: the overlay finds it again.
    await ov.waitForSelector('.ov[data-conn="open"]');
    await relay.stop();
    await ov.waitForSelector('.ov:not([data-conn="open"])');
    relay.move(1, 'Na5'); // made while the overlay was cut off
    await relay.start();
    await ov.waitForSelector('.ov[data-conn="open"]', { timeout: 20000 });
    assert.equal(await waitForBoard(ov, '.ov-block', relay.fen(1), 10000), relay.fen(1).split(' ')[0]);
    relay.move(1, 'd4');
    assert.equal(await waitForBoard(ov, '.ov-block', relay.fen(1)), relay.fen(1).split(' ')[0]);
    assert.deepEqual(errors, []);
  } finally {
    await ov.close();
  }
});

test('overlay round: a strip of the round\'s boards, limit and size from the URL', async () => {
  const ov = await browser.context.newPage();
  try {
    await ov.goto(`${relay.url}/overlay/round/1?size=140`);
    await waitFor(async () => (await ov.$$('.ov-round .ov-card')).length === 4);
    const ids = await ov.$$eval('.ov-round .ov-card', (els) => els.map((e) => e.dataset.game));
    assert.deepEqual(ids, ['1', '2', '3', '4']); // board order
    const boxes = await ov.$$eval('.ov-card .ov-board', (els) => els.map((e) => { const r = e.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.top)]; }));
    for (const [w, top] of boxes) {
      assert.equal(w, 140);
      assert.equal(top, boxes[0][1]); // one row
    }
    assert.equal(await renderedPlacement(ov, '.ov-card[data-game="2"]'), relay.fen(2).split(' ')[0]);
    assert.equal(await ov.$eval('.ov-card[data-game="1"] .evalbar', (e) => e.classList.contains('horizontal')), true);
    assert.deepEqual(await transparentCorners(ov), [0, 0, 0]);
    await screenshot(ov, 'overlay-round');
    relay.move(3, 'd4');
    assert.equal(await waitForBoard(ov, '.ov-card[data-game="3"]', relay.fen(3)), relay.fen(3).split(' ')[0]);
    await ov.goto(`${relay.url}/overlay/round/1?limit=2`);
    // Every game of the round is in the overlay's store, then a frame is drawn: still two.
    await ov.waitForFunction(() => window.__crOverlay && window.__crOverlay.store.roundGames('1').length === 4);
    await ov.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal((await ov.$$('.ov-round .ov-card')).length, 2);
  } finally {
    await ov.close();
  }
});

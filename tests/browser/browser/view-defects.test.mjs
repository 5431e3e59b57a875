// Issue 30, the viewer's defects, against the fake relay, each at the size
// the issue names: the embed fits its iframe (720x460, 600x400 and every
// size the Embed button offers); names are never cut to initials (round and
// game overlays at 1920x1080, overview cards on a phone 390x844 and a
// desktop 1440x900); a spare board's game (no table in the pairings, as an
// older relay put it into the finished round 1) makes no round live and no
// outsider reaches the standings; the tournament's name, not the feed's, in
// the top bar and the game's subtitle; the old game of a board that began a
// new one is not live and shows no public attention badge; a finished
// game's header shows its result; the eval bar (no engine: no bar, graph or
// ticked box; "−0.9" whole; White's part visible in the light theme); the
// phone's top bar (live round and Standings reachable), the arbiter's top
// bar (Standings not clipped); the Live button's accessible name in Russian.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FakeRelay } from '../fake-relay.mjs';
import { waitFor, fakeRelaySession, screenshot, pageInLanguage, settled } from '../lib.mjs';
import { EMBED_SIZES } from '../../../web/src/view.js';

const H = 3_600_000;
const OSLO = JSON.parse(readFileSync(new URL('../../data/pairings/oslo-open-r5.pairings.json', import.meta.url), 'utf8'));
const EVENT = OSLO.event;
const P = Object.fromEntries(OSLO.players.map((p) => [p.name, p]));
const RUY = ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Ba4', 'Nf6', 'O-O', 'Be7'];

// Round 5 of the Oslo file, live; a spare board (no table) in round 1 with
// the feed's own players and event; board T9's old game (no result, the
// board needing attention) and the new game it began.
function oslo(relay) {
  relay.pairingsJson = OSLO;
  const pairs = OSLO.games.filter((g) => g.round === '5');
  pairs.forEach((pg, i) => {
    const w = P[pg.white], b = P[pg.black];
    relay.addGame({ id: i + 1, round: '5', table: pg.table, board: String(pg.table), white: pg.white, black: pg.black,
      whiteElo: w.rating, blackElo: b.rating, event: EVENT, moves: i === 1 ? ['d4', 'Nf6', 'c4', 'e6'] : RUY.slice(0, 3 + i),
      result: i === 1 ? '0-1' : '*', clock: { white: 1.4 * H, black: 1.45 * H, running: i === 1 ? '-' : 'b' },
      tags: { WhiteTitle: w.title || '', BlackTitle: b.title || '', WhiteFed: w.fed || '', BlackFed: b.fed || '' } });
  });
  relay.addGame({ id: 20, round: '1', board: 'DGT23164', white: 'Player P0008-W', black: 'Player P0008-B', event: "Let's Play!",
    moves: ['e4', 'c5'], clock: { white: H, black: H, running: 'w' } });
  relay.addGame({ id: 30, round: '5', board: 'T9', white: 'Blitz, Old', black: 'Game, Old', event: EVENT, moves: ['e4', 'e5', 'Qh5'],
    attention: true, online: true });
  relay.addGame({ id: 31, round: '5', board: 'T9', white: 'Blitz, New', black: 'Game, New', event: EVENT, moves: ['d4'] });
  // Paired ahead on board 1, not begun: board 1's game of round 5 goes on.
  relay.addGame({ id: 32, round: '6', board: '1', white: 'Lindqvist, Erik', black: 'Ødegård, Øystein', event: EVENT });
}

let session, relay, browser, page, pageErrors;

before(async () => {
  session = await fakeRelaySession(FakeRelay, oslo);
  ({ relay, browser, page, pageErrors } = session);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: relay.url });
});

after(async () => {
  if (session) await session.close();
});

const text = (p, sel) => p.$eval(sel, (e) => e.textContent.trim());
const visible = (p, sel) => p.$eval(sel, (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden').catch(() => false);

// The surnames under `scope` that are not wholly shown: clipped by their
// own box or by an ancestor that hides its overflow, or outside the window.
async function cutSurnames(p, scope) {
  return p.evaluate((sel) => {
    const cut = [];
    for (const el of document.querySelectorAll(`${sel} .sur`)) {
      const r = el.getBoundingClientRect();
      let bad = el.scrollWidth > el.clientWidth + 1 || r.width < 4 || r.right > innerWidth + 0.5 || r.left < -0.5;
      for (let a = el.parentElement; a && !bad && a !== document.body; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (cs.display === 'contents' || (cs.overflowX === 'visible' && cs.overflowY === 'visible')) continue;
        const ar = a.getBoundingClientRect();
        if (r.left < ar.left - 0.5 || r.right > ar.right + 0.5 || r.top < ar.top - 0.5 || r.bottom > ar.bottom + 0.5) bad = true;
      }
      if (bad) cut.push(el.textContent);
    }
    return cut;
  }, scope);
}

test('embed: the board sized from the iframe\'s width and height; nothing cut at 720x460, 600x400 and every offered size', async () => {
  // The Embed button offers the checked sizes, and copies each one's code.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.moves .mv.current');
  const offered = await page.$$eval('.embed-size option', (os) => os.map((o) => o.value));
  assert.deepEqual(offered, EMBED_SIZES.map(([w, h]) => `${w}x${h}`));
  for (const size of ['720x460', '600x400']) assert.ok(offered.includes(size), `${size} offered`);
  for (const [w, h] of EMBED_SIZES) {
    await page.selectOption('.embed-size', `${w}x${h}`);
    await page.evaluate(() => { document.querySelector('.share-note').textContent = ''; });
    await page.click('.copy-embed');
    await page.waitForFunction(() => / copied$/.test(document.querySelector('.share-note').textContent));
    const code = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(code, new RegExp(`^<iframe src="${relay.url}/embed/game/1" width="${w}" height="${h}" `));
  }
  const host = await browser.context.newPage();
  try {
    await host.setViewportSize({ width: 1440, height: 900 });
    for (const [w, h] of EMBED_SIZES) {
      await host.setContent(`<iframe src="${relay.url}/embed/game/1" width="${w}" height="${h}" style="border:0"></iframe>`);
      const frame = await waitFor(() => host.frames().find((f) => f.url().startsWith(`${relay.url}/embed/game/1`)));
      await frame.waitForSelector('.board-wrap piece');
      await settled(frame);
      const m = await frame.evaluate(() => {
        const rect = (sel) => { const e = document.querySelector(sel); if (!e || !e.getClientRects().length) return null; const r = e.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width }; };
        const root = document.documentElement;
        return { W: innerWidth, H: innerHeight, sw: root.scrollWidth, sh: root.scrollHeight, board: rect('.board-wrap cg-container'),
          top: rect('.board-col .player.top'), bottom: rect('.board-col .player.bottom'), clock: rect('.board-col .player.bottom .clock'),
          controls: rect('.controls'), noclocks: root.classList.contains('embed-noclocks') };
      });
      const where = `${w}x${h}: ${JSON.stringify(m)}`;
      assert.ok(m.sw <= m.W && m.sh <= m.H, `the page scrolls inside the frame, ${where}`);
      for (const part of ['board', 'top', 'bottom', 'controls']) {
        const r = m[part];
        assert.ok(r && r.l >= -0.5 && r.t >= -0.5 && r.r <= m.W + 0.5 && r.b <= m.H + 0.5, `${part} cut or missing, ${where}`);
      }
      assert.ok(m.noclocks || (m.clock && m.clock.b <= m.H + 0.5 && m.clock.r <= m.W + 0.5), `bottom clock neither shown nor hidden on purpose, ${where}`);
      // The board takes the room there is: the frame's height or its width, less the players and the moves.
      assert.ok(m.board.w >= Math.min(w, h) * 0.6, `board only ${m.board.w} px, ${where}`);
      await screenshot(host, `defects-embed-${w}x${h}`);
    }
  } finally {
    await host.close();
  }
  assert.deepEqual(pageErrors, []);
});

test('names: overview cards on a phone and a desktop, the surname whole; flag, title and rating beside', async () => {
  for (const [w, h] of [[390, 844], [1440, 900]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto(`${relay.url}/#/round/5`);
    await page.waitForSelector('.card[data-game="1"] .cgbox piece');
    assert.deepEqual(await cutSurnames(page, '.boards'), [], `cut surnames at ${w}x${h}`);
    // Each surname shows whole, never initials: "Lindqvist," in full.
    const first = await page.$eval('.card[data-game="1"] .player.bottom .sur', (e) => e.textContent);
    assert.equal(first, `${OSLO.games.find((g) => g.round === '5').white.split(',')[0]},`);
    assert.ok(await page.$('.card[data-game="1"] .player img.fed'), 'flag image on a card');
    await screenshot(page, `defects-cards-${w}`);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('names: the game and round overlays (1920x1080), surname first, title, flag image, two lines below 200 px', async () => {
  const ov = await browser.context.newPage();
  try {
    await ov.setViewportSize({ width: 1920, height: 1080 });
    await ov.goto(`${relay.url}/overlay/game/1`);
    await ov.waitForSelector('.ov-block piece');
    const g1 = OSLO.games.find((g) => g.round === '5' && g.table === 1);
    assert.equal(await text(ov, '.ov-player.bottom .ov-name'), g1.white);
    assert.equal(await text(ov, '.ov-player.bottom .ov-title'), P[g1.white].title);
    assert.equal(await ov.$eval('.ov-player.bottom img.ov-flag', (e) => e.alt), P[g1.white].fed);
    assert.deepEqual(await cutSurnames(ov, '.ov'), [], 'game overlay');
    await screenshot(ov, 'defects-overlay-game');
    await ov.goto(`${relay.url}/overlay/round/5`);
    await ov.waitForSelector('.ov-block[data-game="1"] piece');
    assert.deepEqual(await cutSurnames(ov, '.ov'), [], 'round overlay (160 px cards)');
    // Below 200 px: the name on its own line, flag, title and clock on the next.
    const lines = await ov.$eval('.ov-block[data-game="1"] .ov-player.bottom', (row) => {
      const r = (s) => row.querySelector(s).getBoundingClientRect();
      return { name: r('.ov-name'), flag: r('.ov-fed'), clock: r('.ov-clock'), width: row.getBoundingClientRect().width };
    });
    assert.ok(lines.width < 200);
    assert.ok(lines.flag.top >= lines.name.bottom - 1 && lines.clock.top >= lines.name.bottom - 1, JSON.stringify(lines));
    assert.ok(await ov.$('.ov-block[data-game="1"] img.ov-flag'), 'flag image in the round overlay');
    await screenshot(ov, 'defects-overlay-round');
  } finally {
    await ov.close();
  }
});

test('wrong people and names: a spare board\'s game, the tournament\'s name, a superseded game, a finished game\'s result', async () => {
  await page.goto(`${relay.url}/#/round/5`);
  await page.waitForSelector('.round-tab[data-round="1"]');
  // The spare board's game sits in round 1 (as an older relay put it): round 1 stays finished.
  assert.equal(await page.$eval('.round-tab[data-round="1"]', (e) => e.dataset.status), 'finished');
  assert.equal(await page.$eval('.round-tab[data-round="5"]', (e) => e.dataset.status), 'live');
  assert.equal(await text(page, '.topbar .event'), EVENT);
  await page.click('.standings-tab');
  await page.waitForSelector('.standings tbody tr');
  const names = await page.$$eval('.standings tr[data-player], .crosstable tr[data-player]', (rows) => rows.map((r) => r.dataset.player));
  assert.deepEqual(names.filter((n) => /^Player P0008/.test(n)), [], 'outsiders in the standings');
  assert.ok(names.includes('Lindqvist, Erik'));
  // The spare board's own game page: the tournament's name, not the feed's.
  await page.goto(`${relay.url}/#/game/20`);
  await page.waitForSelector('.moves .mv.current');
  assert.match(await text(page, '.game-sub'), new RegExp(EVENT));
  assert.doesNotMatch(await text(page, '.game-sub'), /Let's Play/);
  assert.equal(await text(page, '.topbar .event'), EVENT);

  // Board T9 began a new game: the old one is not live and shows no public alarm.
  await page.goto(`${relay.url}/#/round/5`);
  await page.waitForSelector('.card[data-game="30"]');
  assert.equal(await page.$('.card[data-game="30"] .badge.attention'), null);
  assert.equal(await page.$eval('.card[data-game="30"]', (e) => e.classList.contains('is-attention')), false);
  assert.ok(await page.$('.card[data-game="30"] .badge.superseded'));
  assert.ok(await page.$('.card[data-game="31"]:not(.is-finished)'));
  const live = Number((await text(page, '.round-title')).match(/(\d+) live/)[1]);
  assert.equal(live, 5, 'live count: round 5 less the finished game and the old game');
  assert.ok(await page.$('.card[data-game="1"]:not(.is-finished)'), 'a game paired ahead on the board ends nothing');
  await page.goto(`${relay.url}/#/game/30`);
  await page.waitForSelector('.moves .mv.current');
  assert.equal(await page.$('.game-status .badge.attention'), null);
  assert.equal(await page.$eval('.btn.live', (e) => e.classList.contains('on')), false);
  assert.ok(await page.$('.game-status .badge.superseded'));

  // A finished game's header shows its result.
  await page.goto(`${relay.url}/#/game/2`);
  await page.waitForSelector('.moves .mv');
  assert.equal(await text(page, '.game-title .title-result'), '0–1');
  assert.match(await text(page, '.game-title'), /–.*0–1$/);
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.moves .mv.current');
  assert.equal(await text(page, '.game-title .title-result'), '');
  relay.result(1, '1/2-1/2', 'agreed');
  await page.waitForFunction(() => document.querySelector('.game-title .title-result').textContent === '½–½');
  assert.deepEqual(pageErrors, []);
});

test('eval bar: none without an engine; then "−0.9" whole, and White\'s part visible in the light theme', async () => {
  const p = await browser.context.newPage();
  try {
    await p.emulateMedia({ colorScheme: 'light' });
    await p.goto(`${relay.url}/#/game/3`);
    await p.waitForSelector('.moves .mv.current');
    assert.equal(await visible(p, '.evalbar'), false, 'an eval bar without an engine');
    assert.equal(await visible(p, '.eval-graph'), false, 'an evaluation graph without an engine');
    assert.equal(await visible(p, '.show-eval'), false, 'an Engine box without an engine');
    assert.equal(await p.$eval('.show-eval', (e) => e.checked), false);
    await screenshot(p, 'defects-no-engine');
    const g = relay.games.get(3);
    relay.evaluate(3, g.moves.length - 1, { cp: -90, depth: 18, best: 'e5' });
    await p.waitForFunction(() => document.querySelector('.evalbar').dataset.eval === '−0.90');
    assert.equal(await visible(p, '.evalbar'), true);
    assert.equal(await p.$eval('.show-eval', (e) => e.checked), true);
    const fit = await p.$eval('.evalbar', (bar) => {
      const t = bar.querySelector('.evalbar-text');
      const r = t.getBoundingClientRect(), b = bar.getBoundingClientRect();
      // the text's own width, not its box's: a range over its characters
      const range = document.createRange();
      range.selectNodeContents(t);
      const ink = range.getBoundingClientRect();
      return { text: t.textContent, inside: ink.left >= b.left - 0.5 && ink.right <= b.right + 0.5 && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5 };
    });
    assert.deepEqual(fit, { text: '−0.9', inside: true });
    // Light theme: White's part and the page around it are told apart (a frame of 3:1 or more).
    const seen = await p.evaluate(() => {
      const rgb = (s) => (s.match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
        .reduce((a, c, i) => a + c * [0.2126, 0.7152, 0.0722][i], 0);
      const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m); return (x + 0.05) / (y + 0.05); };
      const page = rgb(getComputedStyle(document.body).backgroundColor);
      const bar = document.querySelector('.evalbar');
      const frame = rgb(getComputedStyle(bar).boxShadow);
      const white = rgb(getComputedStyle(bar.querySelector('.evalbar-white')).backgroundColor);
      return { theme: document.documentElement.dataset.theme, frame: ratio(frame, page), whiteHeight: bar.querySelector('.evalbar-white').getBoundingClientRect().height, white };
    });
    assert.equal(seen.theme, 'light');
    assert.ok(seen.frame >= 3, `eval bar frame against the page: ${seen.frame}`);
    assert.ok(seen.whiteHeight > 10, 'White\'s part drawn');
    await screenshot(p, 'defects-evalbar-light');
  } finally {
    await p.close();
  }
});

test('phone 390x844: the live round\'s tab and Standings on screen; the arbiter\'s top bar shows Standings whole', async () => {
  const onScreen = (p, sel) => p.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    const at = document.elementFromPoint(Math.min(innerWidth - 1, r.left + r.width / 2), r.top + r.height / 2);
    return r.left >= -0.5 && r.right <= innerWidth + 0.5 && r.width > 0 && e.scrollWidth <= e.clientWidth + 1 && !!at && (at === e || e.contains(at));
  });
  const p = await browser.context.newPage();
  try {
    await p.setViewportSize({ width: 390, height: 844 });
    for (const r of ['1', '2', '3', '4']) relay.addGame({ id: 40 + Number(r), round: String(Number(r) + 5), table: 1, white: 'Later, A', black: 'Later, B' });
    await p.goto(`${relay.url}/#/round/1`);
    await p.waitForSelector('.round-tab[data-round="5"][data-status="live"]');
    assert.ok(await onScreen(p, '.round-tab[data-round="5"]'), 'live round tab off-screen');
    assert.ok(await onScreen(p, '.standings-tab'), 'Standings off-screen');
    await screenshot(p, 'defects-phone-tabs');
    // The arbiter's top bar, phone and desktop.
    for (const [w, h] of [[390, 844], [1440, 900]]) {
      await p.setViewportSize({ width: w, height: h });
      await p.goto(`${relay.url}/?token=${relay.token}#/arbiter`);
      await p.waitForSelector('.topbar .signout');
      await p.waitForSelector('.topbar .standings-tab');
      assert.ok(await onScreen(p, '.topbar .standings-tab'), `arbiter top bar: Standings clipped at ${w}x${h}`);
      await screenshot(p, `defects-arbiter-topbar-${w}`);
    }
  } finally {
    await p.close();
  }
});

test('Russian: the Live button is named in Russian (its text in its accessible name)', async () => {
  const { page: p, errors } = await pageInLanguage(browser.context, 'ru-RU');
  try {
    await p.goto(`${relay.url}/#/game/3`);
    await p.waitForSelector('.moves .mv.current');
    assert.equal(await p.getByRole('button', { name: 'Эфир', exact: true }).count(), 1);
    assert.equal(await p.getByRole('button', { name: /Live/ }).count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

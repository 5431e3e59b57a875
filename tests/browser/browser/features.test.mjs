// Issue 30's new viewer features in Debian's chromium against the fake
// relay: followed players (their game first, the Followed tab, a browser
// notification on their move with the permission granted), the stream
// beside the boards (YouTube, Twitch, HLS; pinned, hidden, kept; the delay
// banner when it runs ahead), player cards from every name, team matches
// on the overview of an 800-board round and the team standings beside the
// players', spoken moves in English and Russian. No request leaves
// 127.0.0.1: the streams' players are checked by their elements and URLs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { FakeRelay, seedRound } from '../fake-relay.mjs';
import { waitFor, fakeRelaySession, launch, screenshot, pageInLanguage } from '../lib.mjs';

let session, relay, browser, page, pageErrors; // set by before()
const offsite = []; // requests the pages tried to make outside 127.0.0.1 (refused)

// 1x1 PNG, a player's photo file as the relay serves it.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const TOUR = {
  event: 'chessrelay test open', site: 'Test hall', date: '', rounds: 2, delay_s: 120,
  streams: [
    { round: '*', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', kind: 'youtube', title: 'Commentary', delay_s: 0 },
    { round: '2', url: 'https://www.twitch.tv/chessclub', kind: 'twitch', title: '', delay_s: 120 },
  ],
  players: [{ name: 'Carlsen, Magnus', photo: '/media/photo/0', credit: 'Photo: Test Studio', fideId: '1503014' }],
};

// Notifications and speech recorded instead of shown and spoken.
function stubs() {
  window.__notes = [];
  window.__spoken = [];
  class N {
    constructor(title, opts) { window.__notes.push({ title, body: opts && opts.body }); }
    static get permission() { return 'granted'; }
    static requestPermission() { return Promise.resolve('granted'); }
  }
  Object.defineProperty(window, 'Notification', { value: N, configurable: true, writable: true });
  class U { constructor(text) { this.text = text; this.lang = ''; } }
  Object.defineProperty(window, 'SpeechSynthesisUtterance', { value: U, configurable: true, writable: true });
  Object.defineProperty(window, 'speechSynthesis', {
    value: { speak: (u) => window.__spoken.push({ text: u.text, lang: u.lang }), cancel() {}, getVoices: () => [] },
    configurable: true,
  });
}

async function isolate(context) {
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1') return route.continue();
    offsite.push(u.href);
    return route.abort();
  });
}

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    r.delay = 120; // a public delay of two minutes; the YouTube stream has none
    r.tournamentJson = TOUR;
    r.photos.set(0, { type: 'image/png', body: PNG });
  });
  ({ relay, browser, page, pageErrors } = session);
  await isolate(browser.context);
  await browser.context.grantPermissions(['notifications'], { origin: relay.url });
  await browser.context.addInitScript(stubs);
  await page.setViewportSize({ width: 1440, height: 900 });
});

after(async () => {
  if (session) await session.close();
});

const cardsInOrder = (p) => p.$$eval('.boards .card', (els) => els.map((e) => e.dataset.game));

test('follow a player: their game first, the Followed tab, a notification on their move', async () => {
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="4"] .pname');
  assert.equal((await cardsInOrder(page))[0], '1');
  // A name on an overview card opens the player's card; its star follows.
  await page.click('.card[data-game="4"] .player[data-side="white"] .pname');
  await page.waitForSelector('dialog.player-card[open]');
  assert.equal(await page.textContent('.pc-name'), 'Giri, Anish');
  assert.equal(page.url().endsWith('#/round/1'), true, 'the card link was not followed');
  await page.click('.player-card .follow-btn');
  await page.waitForSelector('.player-card .follow-btn[aria-pressed="true"]');
  await page.click('.pc-close button');
  assert.ok(await waitFor(async () => (await cardsInOrder(page))[0] === '4'), 'the followed player\'s game is first');
  assert.ok(await page.$('.card[data-game="4"] .followed-star'));
  assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('cr.follow'))), ['Giri, Anish']);
  // The Followed tab: the player, their game, the notifications switch.
  await page.click('.followed-tab');
  await page.waitForSelector('.followed-player[data-player="Giri, Anish"] .fp-game[data-game="4"]');
  await page.click('.notify-toggle');
  await page.waitForSelector('.notify-toggle:checked');
  assert.equal(await page.evaluate(() => localStorage.getItem('cr.follow.notify')), '1');
  // Kept across a reload (no account: this browser's storage).
  await page.reload();
  await page.waitForSelector('.followed-player[data-player="Giri, Anish"]');
  assert.equal(await page.isChecked('.notify-toggle'), true);
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="4"]');
  assert.ok(await waitFor(async () => (await cardsInOrder(page))[0] === '4'));
  await page.evaluate(() => { window.__notes.length = 0; });
  relay.move(4, 'Qc2');
  const note = await waitFor(() => page.evaluate(() => window.__notes.find((n) => /Qc2/.test(n.body))));
  assert.ok(note, 'a notification on the followed player\'s move');
  assert.equal(note.title, 'Giri, Anish – Gukesh, D');
  assert.equal(note.body, 'Move 4. Qc2');
  // Nobody followed plays on board 1: no notification for its move.
  relay.move(1, 'Re1');
  relay.result(4, '0-1', 'resignation');
  assert.ok(await waitFor(() => page.evaluate(() => window.__notes.some((n) => n.body === 'Result: 0–1'))));
  assert.equal(await page.evaluate(() => window.__notes.some((n) => /Re1/.test(n.body))), false);
  // Unfollowed from the tab: board order again.
  await page.goto(`${relay.url}/#/followed`);
  await page.click('.followed-player[data-player="Giri, Anish"] .unfollow');
  await page.waitForSelector('.followed-page .empty');
  await page.goto(`${relay.url}/#/round/1`);
  assert.ok(await waitFor(async () => (await cardsInOrder(page))[0] === '1'));
  assert.deepEqual(pageErrors, []);
});

test('the stream beside the boards: shown, pinned, hidden and kept; ahead of the delayed boards', async () => {
  await page.goto(`${relay.url}/#/round/1`);
  const frame = await page.waitForSelector('.stream-panel iframe.stream-frame');
  assert.equal(await frame.getAttribute('src'), 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0');
  assert.equal(await page.textContent('.stream-title'), 'Commentary');
  await page.waitForSelector('.card[data-game="1"]');
  const boards = await page.$eval('.boards', (e) => e.getBoundingClientRect().toJSON());
  const panel = await page.$eval('.stream-panel', (e) => e.getBoundingClientRect().toJSON());
  assert.ok(panel.left >= boards.right - 1, `the video is beside the boards (${panel.left} >= ${boards.right})`);
  assert.ok(panel.top < 300 && panel.width >= 380, 'at the top, at a watchable size');
  // The public delay is two minutes, the YouTube stream has none.
  assert.match(await page.textContent('.notice-bar .stream-ahead'), /The video runs 2 min ahead of the boards/);
  await screenshot(page, 'features-stream-desktop');
  // Pinned: it stays in view while the page scrolls.
  await page.click('.stream-pin');
  await page.waitForSelector('.stream-panel.mode-pinned .stream-pin[aria-pressed="true"]');
  await page.evaluate(() => { document.querySelector('.main').style.paddingBottom = '3000px'; window.scrollTo(0, 1500); });
  assert.ok(await waitFor(() => page.$eval('.stream-panel', (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })), 'pinned: still in view');
  // Hidden: no player, a button to show it; kept across a reload.
  await page.click('.stream-hide');
  await page.waitForSelector('.stream-panel.mode-hidden .stream-show');
  assert.equal(await page.$('.stream-panel iframe'), null);
  assert.equal(await page.$('.notice-bar .stream-ahead'), null, 'no banner for a hidden video');
  await page.reload();
  await page.waitForSelector('.stream-panel.mode-hidden .stream-show');
  await page.click('.stream-show');
  await page.waitForSelector('.stream-panel.mode-shown iframe');
  // The game page of round 2: its own stream (Twitch), as late as the boards.
  await page.goto(`${relay.url}/#/game/5`);
  await page.waitForSelector('.stream-panel iframe[src*="twitch"]');
  assert.equal(await page.getAttribute('.stream-panel iframe', 'src'), 'https://player.twitch.tv/?channel=chessclub&parent=127.0.0.1&autoplay=false');
  assert.equal(await page.$('.notice-bar .stream-ahead'), null, 'the stream is as late as the boards');
  const board = await page.$eval('.board-col', (e) => e.getBoundingClientRect().toJSON());
  const p2 = await page.$eval('.stream-panel', (e) => e.getBoundingClientRect().toJSON());
  assert.ok(p2.left >= board.right - 1, 'beside the game page\'s board');
  // Phone: above the boards, full width, no sideways scroll.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.stream-panel iframe');
  const ph = await page.$eval('.stream-panel', (e) => e.getBoundingClientRect().toJSON());
  const b1 = await page.$eval('.boards', (e) => e.getBoundingClientRect().toJSON());
  assert.ok(ph.bottom <= b1.top + 1 && ph.right <= 390, 'phone: the video above the boards');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
  await page.setViewportSize({ width: 1440, height: 900 });
  assert.ok(offsite.length > 0 && offsite.every((u) => /youtube-nocookie\.com|twitch\.tv/.test(u)), `only the players were asked for: ${offsite.join(' ')}`);
  assert.deepEqual(pageErrors, []);
});

test('an HLS stream is a <video> with its URL', async () => {
  relay.tournamentJson = { ...TOUR, streams: [{ round: '*', url: 'http://127.0.0.1:9/hall/index.m3u8', kind: 'hls', title: 'Hall', delay_s: 0 }] };
  try {
    const p = await browser.context.newPage();
    await p.goto(`${relay.url}/#/round/1`);
    const v = await p.waitForSelector('.stream-panel video.stream-video');
    assert.equal(await v.getAttribute('src'), 'http://127.0.0.1:9/hall/index.m3u8');
    assert.equal(await v.getAttribute('preload'), 'none');
    await p.close();
  } finally {
    relay.tournamentJson = TOUR;
  }
});

test('player cards from every name: photo with credit, rating, flag, FIDE profile, score, games', async () => {
  await page.goto(`${relay.url}/#/round/1`);
  await page.waitForSelector('.card[data-game="1"] .pname');
  await page.click('.card[data-game="1"] .player[data-side="white"] .pname');
  await page.waitForSelector('dialog.player-card[open] .pc-games');
  const img = await page.waitForSelector('.pc-photo img');
  assert.equal(await img.getAttribute('src'), '/media/photo/0');
  assert.ok(await waitFor(() => img.evaluate((e) => e.complete && e.naturalWidth === 1)), 'the photo file loaded');
  assert.equal(await page.textContent('.pc-credit'), 'Photo: Test Studio');
  assert.equal(await page.textContent('.pc-rating'), '2830');
  assert.equal(await page.getAttribute('.pc-fide', 'href'), 'https://ratings.fide.com/profile/1503014');
  const games = await page.$$eval('.pc-game', (els) => els.map((e) => [e.dataset.round, e.querySelector('.pc-opp').textContent, e.querySelector('a') && e.querySelector('a').getAttribute('href')]));
  assert.deepEqual(games, [['1', 'Nepomniachtchi, Ian', '#/game/1']]);
  assert.match(await page.textContent('.pc-score'), /points, place \d+ of \d+/);
  assert.deepEqual(await axeIn(page, '.player-card'), []);
  await screenshot(page, 'features-player-card');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('dialog.player-card').open);
  // From the standings (a button, so keyboards reach it too).
  await page.goto(`${relay.url}/#/standings`);
  await page.waitForSelector('.standings button.pname[data-card="Ding, Liren"]');
  await page.focus('.standings button.pname[data-card="Ding, Liren"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog.player-card[open]');
  assert.equal(await page.textContent('.pc-name'), 'Ding, Liren');
  assert.deepEqual(await page.$$eval('.pc-game', (els) => els.map((e) => e.dataset.round)), ['1', '2']);
  await page.click('.pc-close button');
  // From the game page: the card button beside the name, the star there too.
  await page.goto(`${relay.url}/#/game/2`);
  await page.waitForSelector('.board-col .player[data-side="black"] .card-btn');
  await page.click('.board-col .player[data-side="black"] .card-btn');
  await page.waitForSelector('dialog.player-card[open]');
  assert.equal(await page.textContent('.pc-name'), 'Caruana, Fabiano');
  // The game link in the card goes to the game and closes the card.
  await page.click('.pc-game a');
  await page.waitForFunction(() => !document.querySelector('dialog.player-card').open);
  // The round list beside the game stays a list of links to the games.
  await page.click('.round-list .rl-row[data-game="3"] .rl-players span:first-child');
  await page.waitForFunction(() => location.hash === '#/game/3');
  assert.equal(await page.evaluate(() => document.querySelector('dialog.player-card').open), false);
  assert.deepEqual(pageErrors, []);
});

test('spoken moves of one board, in English and in Russian', async () => {
  await page.goto(`${relay.url}/#/game/1`);
  await page.waitForSelector('.speak-label:not([hidden]) .speak-moves');
  await page.evaluate(() => { window.__spoken.length = 0; });
  await page.check('.speak-moves');
  assert.ok(await waitFor(() => page.evaluate(() => window.__spoken.length === 1)));
  const n = relay.games.get(1).moves.length;
  const san = n % 2 === 0 ? 'h3' : 'h6';
  relay.move(1, san);
  const said = await waitFor(() => page.evaluate((s) => window.__spoken.find((u) => u.text.endsWith(s)), `${san[0]} ${san[1]}`));
  assert.ok(said, 'the move was spoken');
  assert.equal(said.lang, 'en-GB');
  assert.match(said.text, new RegExp(`^${Math.floor(n / 2) + 1} (White|Black): ${san[0]} ${san[1]}$`));
  // Another board's move is not spoken.
  relay.move(3, 'a3');
  relay.result(1, '1/2-1/2', 'agreement');
  assert.ok(await waitFor(() => page.evaluate(() => window.__spoken.some((u) => u.text === 'Draw'))));
  assert.equal(await page.evaluate(() => window.__spoken.some((u) => / a 3$/.test(u.text))), false);
  // Russian: the switch, the words and the voice.
  const { page: ru, errors } = await pageInLanguage(browser.context, 'ru-RU');
  await ru.goto(`${relay.url}/#/game/5`);
  await ru.waitForSelector('.speak-label');
  assert.match(await ru.textContent('.speak-label'), /Озвучивать ходы/);
  await ru.check('.speak-moves');
  relay.move(5, 'Nf3');
  const ruSaid = await waitFor(() => ru.evaluate(() => window.__spoken.find((u) => /Конь f 3/.test(u.text))));
  assert.ok(ruSaid);
  assert.equal(ruSaid.text, '1 Белые: Конь f 3');
  assert.equal(ruSaid.lang, 'ru-RU');
  // The Russian texts of the other parts.
  assert.match(await ru.textContent('.followed-tab'), /Избранное/);
  await ru.click('.board-col .player[data-side="white"] .card-btn');
  await ru.waitForSelector('dialog.player-card[open]');
  assert.match(await ru.textContent('.follow-btn'), /Следить/);
  await ru.close();
  assert.deepEqual(errors, []);
});

test('team events: 800 boards grouped by match with match scores, followed game first, team standings beside', async () => {
  const big = new FakeRelay();
  const teams = 400;
  let id = 1000;
  for (let m = 0; m < teams / 2; m++) {
    const home = `Team ${String(2 * m + 1).padStart(3, '0')}`;
    const away = `Team ${String(2 * m + 2).padStart(3, '0')}`;
    for (let b = 0; b < 4; b++) {
      const homeWhite = b % 2 === 0;
      const hp = `${home} player ${b + 1}`, ap = `${away} player ${b + 1}`;
      // The first ten matches are over: board 1 won by White, the rest drawn.
      const result = m < 10 ? (b === 0 ? '1-0' : '1/2-1/2') : '*';
      big.addGame({ id: ++id, round: '7', table: 4 * m + b + 1, white: homeWhite ? hp : ap, black: homeWhite ? ap : hp,
        moves: result === '*' && b === 0 ? ['e4'] : [], result,
        tags: { WhiteTeam: homeWhite ? home : away, BlackTeam: homeWhite ? away : home } });
    }
  }
  await big.start();
  const b = await launch();
  try {
    await isolate(b.context);
    await b.context.addInitScript(() => localStorage.setItem('cr.follow', JSON.stringify(['Team 399 player 3'])));
    const p = await b.context.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.setViewportSize({ width: 1440, height: 900 });
    const t0 = Date.now();
    await p.goto(`${big.url}/#/round/7`);
    await p.waitForSelector('.match-strip .match[data-match="200"]');
    await p.waitForSelector('.boards .card');
    const ms = Date.now() - t0;
    console.log(`# 800 boards, 200 matches: overview with the match list drawn in ${ms} ms`);
    assert.equal(await p.$$eval('.match-strip .match', (els) => els.length), 200);
    assert.equal((await p.textContent('.match[data-match="1"] .match-pick')).replace(/\s+/g, ' ').trim(), 'Team 001 2½–1½ Team 002 (2–0)');
    assert.match(await p.textContent('.match[data-match="11"]'), /Team 021 0–0 Team 022 · live/);
    // The followed player's game first, then the boards by match.
    const order = await cardsInOrder(p);
    assert.equal(order[0], String(1000 + 4 * 199 + 3), 'the followed player\'s game first');
    assert.equal(order[1], '1001');
    assert.ok(order.length < 120, `virtualised: ${order.length} cards for 800 boards`);
    assert.match(await p.textContent('.card[data-game="1001"] .match-tag'), /Team 001 2½–1½ Team 002/);
    await screenshot(p, 'features-teams-overview');
    // The end of the round is reached by scrolling.
    await p.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    assert.ok(await waitFor(() => p.$('.card[data-game="1800"]')), 'the last board drawn after scrolling');
    assert.ok((await cardsInOrder(p)).length < 120);
    // A match picked: its four boards.
    await p.evaluate(() => window.scrollTo(0, 0));
    await p.click('.match[data-match="2"] .match-pick');
    assert.ok(await waitFor(async () => (await cardsInOrder(p)).join(',') === '1005,1006,1007,1008'));
    // The standings: teams beside the players.
    await p.goto(`${big.url}/#/standings`);
    await p.waitForSelector('.team-standings tbody tr');
    const tb = await p.$eval('.st-teams', (e) => e.getBoundingClientRect().toJSON());
    const pb = await p.$eval('.st-players', (e) => e.getBoundingClientRect().toJSON());
    assert.ok(Math.abs(tb.top - pb.top) < 2 && pb.left >= tb.right, 'team standings beside the individual ones');
    assert.equal(await p.$eval('.team-standings tr[data-team="Team 001"] .st-mp', (e) => e.textContent), '2');
    await screenshot(p, 'features-teams-800');
    assert.deepEqual(errors, []);
  } finally {
    await b.close();
    await big.stop();
  }
});

// axe-core's serious and critical findings inside `selector` only.
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
async function axeIn(p, selector) {
  await p.addScriptTag({ path: AXE });
  const found = await p.evaluate(async (sel) => {
    const r = await window.axe.run({ include: [[sel]] }, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  }, selector);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

// Issue 17, the viewer's new parts, in Debian's chromium against the fake
// relay: move times and thinking time, players (flags, titles, FIDE links),
// sharing (position links, copy FEN/PGN, embed mode), the event (round
// status, standings, crosstable, teams), the look (themes, sounds, board
// themes) and the Russian UI. Desktop and phone (390x844) where the layout
// matters.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FakeRelay, seedRound } from '../fake-relay.mjs';
import { waitFor, fakeRelaySession, screenshot, axeViolations, pageInLanguage, fitsWidth } from '../lib.mjs';

const H = 3_600_000;

let session, relay, browser, page, pageErrors; // set by before()

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    // Round 3: clocks with %emt on some plies, the clock running for Black.
    r.addGame({ id: 11, round: '3', table: 1, white: 'Timer, White', black: 'Timer, Black', whiteElo: 2600, blackElo: 2590,
      moves: [
        { san: 'e4', clock: 1.5 * H - 10_000, emt: 10_000 },
        { san: 'e5', clock: 1.5 * H - 5_000, emt: 5_000 },
        { san: 'Nf3', clock: 1.5 * H - 100_000 },            // no emt: the clocks' difference, 1:30
      ],
      clock: { white: 1.5 * H - 100_000, black: 1.5 * H - 5_000, running: 'b' } });
    // Players with federations, titles and a FIDE id (the pairings file's tags).
    r.addGame({ id: 12, round: '3', table: 2, white: 'Carlsen, Magnus', black: 'Goryachkina, Aleksandra', whiteElo: 2830, blackElo: 2553,
      moves: ['d4'], tags: { WhiteTitle: 'GM', WhiteFed: 'NOR', WhiteFideId: '1503014', BlackTitle: 'WGM', BlackFed: 'RUS' } });
    r.addGame({ id: 13, round: '3', table: 3, white: 'Arbiter, Fide', black: 'Scot, Land', whiteElo: 1800, blackElo: 1900,
      tags: { WhiteFed: 'FID', BlackFed: 'SCO', BlackTitle: 'xx' } });
    // Rounds 4 and 5, finished: a team match each (North against South).
    const T = (wt, bt) => ({ tags: { WhiteTeam: wt, BlackTeam: bt } });
    r.addGame({ id: 20, round: '4', table: 1, white: 'Alpha, A', black: 'Gamma, G', whiteElo: 2400, blackElo: 2300, moves: ['e4'], result: '1-0', ...T('North', 'South') });
    r.addGame({ id: 21, round: '4', table: 2, white: 'Delta, D', black: 'Beta, B', whiteElo: 2200, blackElo: 2350, moves: ['d4'], result: '1/2-1/2', ...T('South', 'North') });
    r.addGame({ id: 22, round: '5', table: 1, white: 'Gamma, G', black: 'Alpha, A', whiteElo: 2300, blackElo: 2400, moves: ['c4'], result: '0-1', ...T('South', 'North') });
    r.addGame({ id: 23, round: '5', table: 2, white: 'Beta, B', black: 'Delta, D', whiteElo: 2350, blackElo: 2200, moves: ['Nf3'], result: '1-0', ...T('North', 'South') });
    // Round 6: paired, not begun, with a start time from the pairings' tags.
    r.addGame({ id: 24, round: '6', table: 1, white: 'Alpha, A', black: 'Beta, B', tags: { Date: '2026.12.02', Time: '15:00:00' } });
  });
  ({ relay, browser, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

const text = (p, sel) => p.$eval(sel, (e) => e.textContent.trim());

test('move times: time used and the clock after each move, thinking for m:ss, a time chart per game', async () => {
  await page.goto(`${relay.url}/?eval=0#/game/11`);
  await page.waitForSelector('.moves .mv[data-ply="2"] .mv-times');
  assert.equal(await text(page, '.mv[data-ply="0"] .mv-used'), '10s');
  assert.equal(await text(page, '.mv[data-ply="0"] .mv-clk'), '1:29:50');
  assert.equal(await text(page, '.mv[data-ply="1"] .mv-used'), '5s');
  assert.equal(await text(page, '.mv[data-ply="2"] .mv-used'), '1:30');
  assert.equal(await text(page, '.mv[data-ply="2"] .mv-clk'), '1:28:20');
  // Black is to move: "thinking for" under Black's clock (the top bar), none under White's.
  const think = await waitFor(async () => {
    const t = await text(page, '.player[data-side="black"] .think');
    return /^thinking for 0:[0-5]\d$/.test(t) ? t : null; // under a minute: the page may load slowly
  });
  assert.ok(think, 'thinking time under the running clock');
  assert.equal(await text(page, '.player[data-side="white"] .think'), '');
  // A live move: its time shows at once, and the thinking moves to White.
  relay.move(11, 'Nc6', { clock: 1.5 * H - 8_000, emt: 3_000 });
  await page.waitForSelector('.mv[data-ply="3"] .mv-used');
  assert.equal(await text(page, '.mv[data-ply="3"] .mv-used'), '3s');
  assert.ok(await waitFor(async () => /^thinking for/.test(await text(page, '.player[data-side="white"] .think'))));
  assert.equal(await text(page, '.player[data-side="black"] .think'), '');
  // The time-use chart, with the engine off as well: a bar per timed move.
  assert.ok(await page.$eval('.time-graph', (e) => e.getBoundingClientRect().height > 20), 'time graph shown');
  assert.equal(await page.$eval('.time-graph', (e) => e.dataset.bars), '4');

  // Phone: the times fit inside the move list.
  const phone = await browser.context.newPage();
  try {
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${relay.url}/#/game/11`);
    await phone.waitForSelector('.mv[data-ply="3"] .mv-clk');
    const over = await phone.$$eval('.mv-times', (els) => {
      const list = document.querySelector('.moves').getBoundingClientRect();
      return els.filter((e) => e.getBoundingClientRect().right > list.right + 0.5).length;
    });
    assert.equal(over, 0, 'move times overflow the list on a phone');
    await screenshot(phone, 'viewer-move-times-phone');
  } finally {
    await phone.close();
  }
  assert.deepEqual(pageErrors, []);
});

test('players: bundled federation flags, styled titles, ratings, FIDE profile link', async () => {
  await page.goto(`${relay.url}/#/game/12`);
  await page.waitForSelector('.player[data-side="white"] img.fed');
  const white = await page.$eval('.player[data-side="white"]', (row) => {
    const img = row.querySelector('img.fed');
    const t = row.querySelector('.ptitle');
    const a = row.querySelector('a.pname');
    return { src: img.getAttribute('src'), alt: img.alt, title: t && t.textContent, long: t && t.title,
      link: a && a.href, name: row.querySelector('.pname').textContent, elo: row.querySelector('.elo').textContent };
  });
  assert.deepEqual(white, { src: '/flags/no.svg', alt: 'NOR', title: 'GM', long: 'Grandmaster',
    link: 'https://ratings.fide.com/profile/1503014', name: 'Carlsen, Magnus', elo: '2830' });
  // The image came from the relay (bundled), and it drew.
  assert.ok(await waitFor(() => page.$eval('.player[data-side="white"] img.fed', (i) => i.complete && i.naturalWidth > 0)), 'flag image loaded');
  assert.ok(relay.httpRequests.includes('/flags/no.svg'));
  const black = await page.$eval('.player[data-side="black"]', (row) => ({
    src: row.querySelector('img.fed').getAttribute('src'), title: row.querySelector('.ptitle').textContent,
    link: !!row.querySelector('a.pname') }));
  assert.deepEqual(black, { src: '/flags/ru.svg', title: 'WGM', link: false });
  // The overview's cards: flags and titles too (no link inside the card's link).
  await page.goto(`${relay.url}/#/round/3`);
  await page.waitForSelector('.card[data-game="13"] .fed');
  assert.equal(await page.$eval('.card[data-game="12"] .player.bottom img.fed', (i) => i.getAttribute('src')), '/flags/no.svg');
  assert.equal(await page.$$eval('.card a', (a) => a.length), 0);
  // FIDE's own code has no flag: the code as text; Scotland's own flag; an unknown title is left out.
  assert.equal(await text(page, '.card[data-game="13"] .player.bottom .fed-text'), 'FID');
  assert.equal(await page.$eval('.card[data-game="13"] .player.top img.fed', (i) => i.getAttribute('src')), '/flags/gb-sct.svg');
  assert.equal(await page.$$eval('.card[data-game="13"] .ptitle', (a) => a.length), 0);
  // A player with none of these: the name alone.
  await page.goto(`${relay.url}/#/game/11`);
  await page.waitForSelector('.player[data-side="white"] .pname');
  assert.equal(await text(page, '.player[data-side="white"] .name'), 'Timer, White');
  assert.deepEqual(pageErrors, []);
});

test('sharing: a link to a position, copy link / FEN / PGN / embed code', async () => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: relay.url });
  await page.goto(`${relay.url}/#/game/1/4`);
  await page.waitForSelector('.moves .mv.current[data-ply="3"]');
  assert.equal(await page.$eval('.board-wrap .cgbox', (e) => e.dataset.ply), '4');
  assert.ok(await page.$('.game-status .badge.browsing'), 'a position link is not live');
  // Stepping names the shown position in the address bar.
  await page.click('.btn.next');
  await page.waitForSelector('.moves .mv.current[data-ply="4"]');
  assert.equal(new URL(page.url()).hash, '#/game/1/5');
  const copied = async (btn) => {
    await page.evaluate(() => { document.querySelector('.share-note').textContent = ''; });
    await page.click(btn);
    await page.waitForFunction(() => / copied$/.test(document.querySelector('.share-note').textContent));
    return page.evaluate(() => navigator.clipboard.readText());
  };
  assert.equal(await copied('.copy-link'), `${relay.url}/#/game/1/5`);
  assert.equal(await copied('.copy-fen'), relay.fen(1, 5));
  const pgn = await copied('.copy-pgn');
  assert.match(pgn, /\[White "Carlsen, Magnus"\]/);
  assert.match(pgn, /1\. e4 e5/);
  assert.match(await copied('.copy-embed'), new RegExp(`^<iframe src="${relay.url}/embed/game/1" `));
  // The copied link opens that position in a fresh page.
  const other = await browser.context.newPage();
  try {
    await other.goto(`${relay.url}/#/game/1/5`);
    await other.waitForSelector('.moves .mv.current[data-ply="4"]');
    assert.equal(await other.$eval('.board-wrap .cgbox', (e) => e.dataset.fen), relay.fen(1, 5));
  } finally {
    await other.close();
  }
  assert.deepEqual(pageErrors, []);
});

test('embed: /embed/game/N in an iframe, no header or round list, ?hide=clocks', async () => {
  for (const size of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
    const host = await browser.context.newPage();
    const errors = [];
    host.on('pageerror', (e) => errors.push(e.message));
    try {
      await host.setViewportSize(size);
      await host.setContent(`<iframe id="f" src="${relay.url}/embed/game/1" width="${size.width - 20}" height="440" style="border:0"></iframe>` +
        `<iframe id="g" src="${relay.url}/embed/game/1?hide=clocks" width="${size.width - 20}" height="440" style="border:0"></iframe>`);
      const frame = await waitFor(() => host.frames().find((f) => f.url() === `${relay.url}/embed/game/1`));
      const bare = await waitFor(() => host.frames().find((f) => f.url().endsWith('?hide=clocks')));
      await frame.waitForSelector('.board-wrap piece');
      // A 370x440 frame has room for the board and its controls, not the moves (issue 30).
      await frame.waitForSelector('.moves .mv.current', { state: 'attached' });
      const shown = (f, sel) => f.$eval(sel, (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden').catch(() => false);
      assert.equal(await shown(frame, '.topbar'), false, 'no header in the embed');
      assert.equal(await shown(frame, '.round-list'), false, 'no round list in the embed');
      assert.equal(await shown(frame, '.controls'), true);
      assert.equal(await shown(frame, '.board-col .clock'), true);
      assert.equal(await frame.$eval('.game-title a', (a) => a.getAttribute('href')), '/#/game/1');
      // The board fits inside the frame.
      const fits = await frame.$eval('.board-wrap', (e) => e.getBoundingClientRect().right <= innerWidth + 0.5);
      assert.ok(fits, 'board wider than the iframe');
      await bare.waitForSelector('.board-wrap piece');
      await bare.waitForSelector('.moves .mv.current', { state: 'attached' });
      assert.equal(await shown(bare, '.board-col .clock'), false, '?hide=clocks shows a clock');
      assert.equal(await shown(bare, '.mv-times'), false);
      // Live: a move reaches the embedded board.
      const n = relay.games.get(1).moves.length;
      if (size.width > 400) {
        relay.move(1, 'Re1');
        await frame.waitForSelector(`.moves .mv.current[data-ply="${n}"]`);
      }
      await screenshot(host, `viewer-embed-${size.width}`);
      assert.deepEqual(errors, []);
    } finally {
      await host.close();
    }
  }
});

test('event: round tabs with status and start time, standings, crosstable, team standings', async () => {
  await page.goto(`${relay.url}/#/round/6`);
  await page.waitForSelector('.round-tab[data-round="6"] .rt-start');
  const tabs = await page.$$eval('.round-tab', (els) => Object.fromEntries(els.map((e) => [e.dataset.round, e.dataset.status])));
  assert.deepEqual(tabs, { 1: 'live', 2: 'upcoming', 3: 'live', 4: 'finished', 5: 'finished', 6: 'upcoming' });
  assert.equal(await text(page, '.round-tab[data-round="6"] .rt-start'), '2026.12.02 15:00');
  assert.equal(await text(page, '.round-tab[data-round="4"] .rt-status'), 'finished');

  await page.click('.standings-tab');
  await page.waitForSelector('.standings tbody tr');
  const row = (name) => page.$eval(`.standings tr[data-player="${name}"]`, (tr) => [...tr.children].map((td) => td.textContent.trim()));
  // Alpha: two wins, ranked first (Ding has one win, Buchholz 0).
  assert.deepEqual((await row('Alpha, A')).slice(0, 2), ['1', 'Alpha, A']);
  assert.equal(await page.$eval('.standings tr[data-player="Alpha, A"] .st-points', (e) => e.textContent), '2');
  assert.equal(await page.$eval('.standings tr[data-player="Beta, B"] .st-points', (e) => e.textContent), '1½');
  assert.equal(await page.$eval('.standings tr[data-player="Delta, D"] .st-points', (e) => e.textContent), '½');
  assert.equal(await page.$eval('.standings tr[data-player="Alpha, A"] .st-team', (e) => e.textContent), 'North');
  // Crosstable: Alpha beat Gamma with White in round 4 and with Black in round 5.
  const gamma = await page.$eval('.standings tr[data-player="Gamma, G"] .st-rank', (e) => e.textContent);
  assert.equal(await page.$eval('.crosstable tr[data-player="Alpha, A"] .ct-cell[data-round="4"]', (e) => e.textContent), `${gamma}w1`);
  assert.equal(await page.$eval('.crosstable tr[data-player="Alpha, A"] .ct-cell[data-round="5"]', (e) => e.textContent), `${gamma}b1`);
  assert.equal(await page.$eval('.crosstable tr[data-player="Alpha, A"] .ct-cell[data-round="6"]', (e) => e.textContent.endsWith('w*')), true);
  // Teams: North won both matches (2 match points each), 3½ board points.
  const teams = await page.$$eval('.team-standings tbody tr', (trs) => trs.map((tr) => [tr.dataset.team, tr.querySelector('.st-mp').textContent, tr.querySelector('.st-bp').textContent]));
  assert.deepEqual(teams, [['North', '4', '3½'], ['South', '0', '½']]);
  // A result arriving live changes the table.
  relay.result(11, '0-1', 'resignation');
  await page.waitForFunction(() => document.querySelector('.standings tr[data-player="Timer, Black"] .st-points')?.textContent === '1');
  // Phone: the tables scroll inside the page, not the page itself.
  await page.setViewportSize({ width: 390, height: 844 });
  assert.equal(await fitsWidth(page), '', 'page wider than the phone');
  await screenshot(page, 'viewer-standings-phone');
  await page.setViewportSize({ width: 1280, height: 860 });
  assert.deepEqual(pageErrors, []);
});

// Opens the header's settings menu (a click on its summary when closed).
async function openPrefs(p) {
  if (!(await p.$eval('.prefs', (d) => d.open))) await p.click('.prefs summary');
}

test('event from the pairings file: round dates (TRF 132) and rounds before the relay on the tabs, their results and byes in the standings', async () => {
  // What the relay publishes as /pairings.json (docs/protocol.md): dates of
  // rounds 4, 5 and 7, a player who had byes in rounds 4 and 5, round 7
  // paired and not begun (the relay has no game of it yet).
  relay.pairingsJson = {
    format: 'trf', event: 'Fake Open',
    rounds: [{ round: '4', date: '2026-11-28' }, { round: '5', date: '2026-11-29' }, { round: '7', date: '2026-12-04' }],
    players: [{ startRank: 1, name: 'Alpha, A', rating: 2400, points: 2 }, { startRank: 9, name: 'Bye, Bob', fed: 'NOR', points: 1 }],
    games: [{ round: '7', table: 1, white: 'Alpha, A', black: 'Bye, Bob', result: '*' }],
    byes: [{ round: '4', name: 'Bye, Bob', kind: 'U' }, { round: '5', name: 'Bye, Bob', kind: 'H' }],
  };
  const p = await browser.context.newPage();
  try {
    await p.goto(`${relay.url}/#/round/4`);
    await p.waitForSelector('.round-tab[data-round="7"] .rt-start');
    assert.equal(await text(p, '.round-tab[data-round="7"] .rt-start'), '2026.12.04');
    assert.equal(await p.$eval('.round-tab[data-round="7"]', (e) => e.dataset.status), 'upcoming');
    // A finished round's date is in its title.
    assert.match(await p.$eval('.round-tab[data-round="4"]', (e) => e.title), /2026\.11\.28/);
    await p.click('.standings-tab');
    await p.waitForSelector('.standings tr[data-player="Bye, Bob"]');
    assert.equal(await p.$eval('.standings tr[data-player="Bye, Bob"] .st-points', (e) => e.textContent), '1½');
    assert.equal(await p.$eval('.crosstable tr[data-player="Bye, Bob"] td[data-round="4"]', (e) => e.textContent), '–1');
    assert.equal(await p.$eval('.crosstable tr[data-player="Bye, Bob"] td[data-round="7"]', (e) => e.textContent), '1b*');
  } finally {
    relay.pairingsJson = null;
    await p.close();
  }
});

test('team standings from the pairings file\'s teams (TRF 013): match and game points per round', async () => {
  // The relay's /pairings.json for tests/data/pairings/team-match-r3.trf (test_pairings_json.c checks the bytes).
  relay.pairingsJson = JSON.parse(readFileSync(new URL('../../data/pairings/team-match-r3.pairings.json', import.meta.url), 'utf8'));
  const p = await browser.context.newPage();
  try {
    await p.goto(`${relay.url}/#/standings`);
    await p.waitForSelector('.team-standings tr[data-team="Tromsø SK"]');
    const row = (team) => p.$eval(`.team-standings tr[data-team="${team}"]`, (tr) => [tr.querySelector('.st-mp').textContent, tr.querySelector('.st-bp').textContent]);
    assert.deepEqual(await row('Tromsø SK'), ['3', '2½']);
    assert.deepEqual(await row('Bergen SK'), ['1', '1½']);
    const cell = (team, r) => p.$eval(`.team-standings tr[data-team="${team}"] .tm-cell[data-round="${r}"]`, (td) => [td.textContent, td.dataset.mp || null, td.title]);
    assert.deepEqual(await cell('Tromsø SK', 1), ['1½–½', '2', 'against Bergen SK']);
    assert.deepEqual(await cell('Bergen SK', 2), ['1–1', '1', 'against Tromsø SK']);
    assert.deepEqual(await cell('Bergen SK', 3), ['0–0*', null, 'against Tromsø SK']);
    assert.equal(await p.$eval('.standings tr[data-player="Vik, Ola"] .st-team', (e) => e.textContent), 'Bergen SK');
  } finally {
    relay.pairingsJson = null;
    await p.close();
  }
});

test('look: light and dark themes (system or chosen, kept), board colours, optional move sounds; axe in both themes', async () => {
  const p = await browser.context.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  try {
    const bg = () => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await p.emulateMedia({ colorScheme: 'dark' });
    await p.goto(`${relay.url}/#/game/1`);
    await p.waitForSelector('.board-wrap piece');
    assert.equal(await p.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await bg(), 'rgb(22, 21, 18)');
    // The system's preference is followed live while the choice is "System".
    await p.emulateMedia({ colorScheme: 'light' });
    await waitFor(async () => (await p.evaluate(() => document.documentElement.dataset.theme)) === 'light');
    assert.equal(await bg(), 'rgb(242, 241, 239)');
    assert.deepEqual(await axeViolations(p), [], 'game page, light');
    // A chosen theme wins over the system's and is kept across a reload.
    await openPrefs(p);
    await p.selectOption('.pref-theme select', 'dark');
    assert.equal(await p.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await p.selectOption('.pref-board select', 'blue');
    await p.reload();
    await p.waitForSelector('.board-wrap piece');
    assert.equal(await p.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.match(await p.$eval('.board-wrap cg-board', (e) => getComputedStyle(e).backgroundImage), /data:image\/svg\+xml.*8ca2ad/);
    assert.deepEqual(await axeViolations(p), [], 'game page, dark');
    await p.goto(`${relay.url}/#/standings`);
    await p.waitForSelector('.standings tbody tr');
    assert.deepEqual(await axeViolations(p), [], 'standings, dark');
    await openPrefs(p);
    await p.selectOption('.pref-theme select', 'light');
    assert.deepEqual(await axeViolations(p), [], 'standings, light');
    await p.goto(`${relay.url}/#/round/1`);
    await p.waitForSelector('.card .cgbox piece');
    assert.deepEqual(await axeViolations(p), [], 'overview, light');
    await screenshot(p, 'viewer-light-overview');

    // Move sounds: off by default; on, each new live move plays one.
    await p.goto(`${relay.url}/#/game/1`);
    await p.waitForSelector('.board-wrap piece');
    const played = () => p.evaluate(() => window.__cr.prefs.played);
    const anyMove = () => relay.chessAt(relay.games.get(1)).moves()[0];
    let n = relay.games.get(1).moves.length;
    relay.move(1, anyMove());
    await p.waitForSelector(`.mv.current[data-ply="${n}"]`);
    assert.equal(await played(), 0, 'a sound with sounds off');
    await openPrefs(p);
    await p.check('.pref-sound input');
    n++;
    relay.move(1, anyMove());
    await p.waitForSelector(`.mv.current[data-ply="${n}"]`);
    assert.equal(await played(), 1);
    assert.equal(await p.evaluate(() => window.__cr.prefs.audio && window.__cr.prefs.audio.state), 'running', 'audio unlocked by the click');
    await p.uncheck('.pref-sound input');
    n++;
    relay.move(1, anyMove());
    await p.waitForSelector(`.mv.current[data-ply="${n}"]`);
    assert.equal(await played(), 1);
    // Back to the defaults for the other tests.
    await p.selectOption('.pref-theme select', 'auto');
    await p.selectOption('.pref-board select', 'brown');
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

test('Russian UI: from the browser\'s language, with a switch back to English (desktop and phone)', async () => {
  const { page: p, errors } = await pageInLanguage(browser.context, 'ru-RU');
  try {
    await p.goto(`${relay.url}/#/round/1`);
    await p.waitForSelector('.card .cgbox piece');
    assert.equal(await p.evaluate(() => document.documentElement.lang), 'ru');
    assert.equal(await p.$eval('.round-tab[data-round="1"]', (e) => e.firstChild.textContent), 'Тур 1');
    assert.equal(await text(p, '.round-tab[data-round="4"] .rt-status'), 'завершён');
    assert.equal(await text(p, '.standings-tab'), 'Таблица');
    assert.match(await text(p, '.round-title'), /^Тур 1 · досок: \d+/);
    await p.goto(`${relay.url}/#/game/1`);
    await p.waitForSelector('.moves .mv.current');
    assert.equal(await text(p, '.copy-link'), 'Копировать ссылку');
    assert.equal(await text(p, '.btn.live'), '● Эфир');
    assert.match(await p.$eval('.board-wrap', (e) => e.getAttribute('aria-label')), /^Доска: /);
    // Phone: the longer Russian texts fit the width; the share buttons come after the moves.
    await p.setViewportSize({ width: 390, height: 844 });
    assert.equal(await fitsWidth(p), '', 'page wider than the phone');
    const top = (sel) => p.$eval(sel, (e) => e.getBoundingClientRect().top);
    assert.ok(await top('.share') > await top('.moves'), 'share buttons above the moves on a phone');
    assert.equal(await p.$eval('.btn.live', (e) => e.getBoundingClientRect().height), 44, 'the live button wraps');
    await screenshot(p, 'viewer-russian-phone');
    await p.setViewportSize({ width: 1280, height: 860 });
    // The switch: English, kept over the browser's language.
    await openPrefs(p);
    await Promise.all([p.waitForEvent('load'), p.selectOption('.pref-lang select', 'en')]);
    await p.waitForSelector('.moves .mv.current');
    assert.equal(await p.evaluate(() => document.documentElement.lang), 'en');
    assert.equal(await text(p, '.copy-link'), 'Copy link');
    await p.reload();
    await p.waitForSelector('.copy-link');
    assert.equal(await text(p, '.copy-link'), 'Copy link');
    await p.evaluate(() => localStorage.removeItem('cr.lang'));
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

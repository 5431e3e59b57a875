// Prints how fast the overview draws and follows a large round in chromium
// (numbers, not a test): node tests/browser/bench-overview.mjs [BOARDS] [--teams]
// --teams: an Olympiad round, matches of four boards between two teams
// (the overview's match list and the boards by match, issue 30).
import { FakeRelay, RUY, RUY_MORE } from './fake-relay.mjs';
import { launch } from './lib.mjs';

const N = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) || 100);
const TEAMS = process.argv.includes('--teams');
const line = [...RUY, ...RUY_MORE];
const relay = new FakeRelay();
for (let i = 1; i <= N; i++) {
  relay.addGame({ id: i, round: '1', table: i, white: `White ${i}`, black: `Black ${i}`, whiteElo: 2500, blackElo: 2500,
    moves: line.slice(0, 10), clock: { white: 5e6, black: 5e6, running: 'w' },
    tags: TEAMS ? { WhiteTeam: `Team ${2 * Math.floor((i - 1) / 4) + ((i - 1) % 2)}`, BlackTeam: `Team ${2 * Math.floor((i - 1) / 4) + 1 - ((i - 1) % 2)}` } : {} });
}
await relay.start();
const { context, close } = await launch();
try {
  const page = await context.newPage();
  let t = Date.now();
  await page.goto(`${relay.url}/#/round/1`);
  // Above 48 boards only the rows on screen have cards (overview-page.js).
  const onScreen = () => {
    const cards = [...document.querySelectorAll('.card')];
    return cards.length > 0 && cards.every((c) => c.querySelectorAll('piece').length >= 30) ? cards.length : 0;
  };
  await page.waitForFunction((n) => window.__cr.store.games.size >= n, N, { timeout: 60000 });
  await page.waitForFunction(onScreen, null, { timeout: 60000 });
  const cards = await page.evaluate(onScreen);
  if (TEAMS) console.log(`team matches listed: ${await page.$$eval('.match-strip .match', (e) => e.length)}`);
  console.log(`overview: ${N} boards${TEAMS ? ' (team round)' : ''}, the ${cards} cards on screen drawn ${Date.now() - t} ms after navigation`);
  t = Date.now();
  for (let y = 0; y < 20; y++) await page.evaluate(() => window.scrollBy(0, window.innerHeight));
  await page.waitForFunction(onScreen, null, { timeout: 60000 });
  console.log(`scrolled 20 screens down: cards on screen drawn ${Date.now() - t} ms later (${await page.evaluate(onScreen)} cards)`);
  await page.evaluate(() => window.scrollTo(0, 0));
  const before = relay.seq;
  t = Date.now();
  for (let k = 10; k < 20; k++) for (let i = 1; i <= N; i++) relay.move(i, line[k]);
  const made = Date.now() - t;
  await page.waitForFunction((want) => window.__cr.store.lastSeq >= want, relay.seq, { timeout: 60000 });
  await page.waitForFunction(() => [...document.querySelectorAll('.card .last')].every((e) => e.textContent.startsWith('10...')), null, { timeout: 60000 });
  const total = Date.now() - t;
  console.log(`live: ${relay.seq - before} moves over ${N} boards; the fake relay (chess.js) made them in ${made} ms, page drew the last ${total - made} ms later`);
  const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
  console.log(`page JS heap: ${(heap / 1048576).toFixed(1)} MiB`);
} finally {
  await close();
  await relay.stop();
}

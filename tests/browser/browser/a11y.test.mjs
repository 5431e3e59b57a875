// Issue 30, accessibility as a property: axe-core finds no serious or
// critical violation on any page of the viewer (the round overview, a game
// live and a finished one, the standings, the embed, both overlays, the
// arbiter's dashboard and its game page), in English and Russian, in the
// dark and the light theme, against the fake relay (engine evaluations,
// titles and flags, a board needing attention, an offline board).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRelay, seedRound } from '../fake-relay.mjs';
import { fakeRelaySession, axeViolations, pageInLanguage, settled } from '../lib.mjs';

const PAGES = [
  ['overview', '/#/round/1', '.card .cgbox piece'],
  ['game, live', '/#/game/1', '.moves .mv.current'],
  ['game, finished', '/#/game/2', '.moves .mv'],
  ['standings', '/#/standings', '.standings tbody tr'],
  ['embed', '/embed/game/1', '.board-wrap piece'],
  ['game overlay', '/overlay/game/1', '.ov-block piece'],
  ['round overlay', '/overlay/round/1', '.ov-block piece'],
  ['arbiter dashboard', '/?token=TOKEN#/arbiter', '.arb-card'],
  ['arbiter game page', '/?token=TOKEN#/arbiter/game/4', '.arb-mv'],
];

let session, relay, browser;

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    // Titles and federations (flags), and an evaluation for the eval bars.
    Object.assign(r.games.get(1).tags, { WhiteTitle: 'GM', WhiteFed: 'NOR', BlackTitle: 'GM', BlackFed: 'RUS' });
    r.games.get(1).moves[9].eval = { cp: -90, depth: 20, best: 'Re1', pv: 'Re1 b5' };
  });
  ({ relay, browser } = session);
  for (const id of [1, 2, 3, 4]) relay.arbState(id);
  relay.incident(4, { kind: 'illegal', urgency: 'warning', text: 'illegal move on the board' });
});

after(async () => {
  if (session) await session.close();
});

for (const lang of ['en-US', 'ru-RU']) {
  for (const scheme of ['dark', 'light']) {
    test(`axe: every page, ${lang}, ${scheme} theme`, { timeout: 240000 }, async () => {
      const { page, errors } = await pageInLanguage(browser.context, lang);
      try {
        await page.emulateMedia({ colorScheme: scheme });
        const found = {};
        for (const [name, url, ready] of PAGES) {
          await page.goto(relay.url + url.replace('TOKEN', relay.token));
          await page.waitForSelector(ready);
          await settled(page);
          if (!url.startsWith('/overlay/')) {
            assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), scheme, `${name}: theme`);
            assert.equal(await page.evaluate(() => document.documentElement.lang), lang.slice(0, 2), `${name}: language`);
          }
          const v = await axeViolations(page);
          if (v.length) found[name] = v;
        }
        assert.deepEqual(found, {}, `serious or critical axe findings, ${lang}, ${scheme}`);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  }
}

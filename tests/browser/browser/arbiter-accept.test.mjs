// "Accept the board's position" on the arbiter page (issue 15), in a real
// browser against the fake relay: a game under attention (a status with the
// squares in question) gets the button on its arbiter page; it asks first,
// sends nothing when the arbiter cancels, sends {"op":"accept-board"} when
// confirmed, and goes away with the attention.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRelay, seedRound } from '../fake-relay.mjs';
import { waitFor, fakeRelaySession, screenshot, sentSoFar } from '../lib.mjs';

let session, relay, page, pageErrors; // set by before()

before(async () => {
  session = await fakeRelaySession(FakeRelay, seedRound, (r) => {
    r.arbState(1);
    r.arbState(3);
  });
  ({ relay, page, pageErrors } = session);
});

after(async () => {
  if (session) await session.close();
});

const accepts = () => relay.received.filter((m) => m.op === 'accept-board');

test('a game under attention: the button, a confirmation, the op', async () => {
  await page.goto(`${relay.url}/?token=${relay.token}#/arbiter/game/3`);
  await page.waitForSelector('.arb-game[data-game="3"] .arb-actions');
  assert.equal(await page.$('.act-accept-board'), null, 'no button while the board is followed');

  const g = relay.games.get(3);
  g.attention = true;
  relay.emit(g, { type: 'status', game: 3, online: true, attention: true,
    reason: 'position not reachable from the game', squares: ['e2', 'd7'] });
  await page.waitForSelector('.act-accept-board button');
  const text = await page.textContent('.act-accept-board');
  assert.match(text, /position not reachable from the game/);
  assert.match(text, /squares in question: e2 d7/);
  await screenshot(page, 'arbiter-accept-board');

  // Cancelled: nothing goes out.
  let asked = '';
  page.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
  await page.click('.act-accept-board button');
  await waitFor(() => asked);
  assert.match(asked, /Game 3/);
  // The dismissed dialog ends the click's handler: anything it sent is ahead of a probe sent now.
  await sentSoFar(page, relay);
  assert.equal(accepts().length, 0, 'cancelled: no accept-board sent');

  // Confirmed: the op for this game.
  page.once('dialog', (d) => d.accept());
  await page.click('.act-accept-board button');
  await waitFor(() => accepts().length === 1);
  assert.deepEqual({ op: accepts()[0].op, game: accepts()[0].game }, { op: 'accept-board', game: 3 });

  // The relay follows the board again: the button goes.
  g.attention = false;
  relay.emit(g, { type: 'status', game: 3, online: true, attention: false });
  await waitFor(async () => (await page.$('.act-accept-board')) === null);
  assert.deepEqual(pageErrors, []);
});

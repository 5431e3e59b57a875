import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeBase, clockRemaining, formatClock, formatUsed, formatElapsed } from '../../../web/src/clock.js';

test('only the running side counts down, never below zero', () => {
  const at = 1_000_000_000_000_000;
  const c = { white: 60_000, black: 90_000, running: 'w', at };
  assert.equal(clockRemaining(c, 'white', at + 10_000_000), 50_000);
  assert.equal(clockRemaining(c, 'black', at + 10_000_000), 90_000);
  assert.equal(clockRemaining(c, 'white', at + 600_000_000), 0);
  assert.equal(clockRemaining(c, 'white', at - 5_000_000), 60_000); // time before `at` is not added
  assert.equal(clockRemaining({ ...c, running: '-' }, 'white', at + 10_000_000), 60_000);
  assert.equal(clockRemaining(null, 'white', at), null);
});

test('the time base learns the smallest arrival offset and falls back to the delay', () => {
  const tb = new TimeBase();
  tb.setDelay(120);
  // Nothing heard yet: relay time = local time - delay.
  assert.equal(tb.relayNowUs(1_000_000), 1_000_000_000 - 120_000_000);
  tb.observe(900_000_000, 1_000_000);   // arrived 100 s after ts
  tb.observe(950_000_000, 1_000_100);   // arrived 50.1 s after ts: better
  tb.observe(500_000_000, 1_000_200);   // old backlog: ignored
  assert.equal(tb.offsetUs, 50_100_000);
  assert.equal(tb.relayNowUs(1_001_000), 1_001_000_000 - 50_100_000);
  tb.observe(NaN, 5);
  assert.equal(tb.offsetUs, 50_100_000);
});

test('clock formatting', () => {
  assert.equal(formatClock(5_400_000), '1:30:00');
  assert.equal(formatClock(3_599_000), '59:59');
  assert.equal(formatClock(61_000), '1:01');
  assert.equal(formatClock(9_960), '0:09.9');
  assert.equal(formatClock(0), '0:00.0');
  assert.equal(formatClock(null), '–:––');
  assert.equal(formatClock(undefined), '–:––');
  assert.equal(formatClock(-1), '–:––');
  assert.equal(formatClock(NaN), '–:––');
  assert.equal(formatClock('5000'), '–:––');
  // The arbiter page's readings: the same format, a lone dash when unknown.
  assert.equal(formatClock(110000, '–'), '1:50');
  assert.equal(formatClock(3723000, '–'), '1:02:03');
  assert.equal(formatClock(9500, '–'), '0:09.5');
  assert.equal(formatClock(null, '–'), '–');
  assert.equal(formatClock(-5, '–'), '–');
});

test('time per move and thinking time formatting', () => {
  assert.equal(formatUsed(0), '0s');
  assert.equal(formatUsed(12_400), '12s');
  assert.equal(formatUsed(65_000), '1:05');
  assert.equal(formatUsed(3_723_000), '1:02:03');
  assert.equal(formatUsed(null), '');
  assert.equal(formatElapsed(5_900), '0:05');
  assert.equal(formatElapsed(125_000), '2:05');
  assert.equal(formatElapsed(3_725_000), '1:02:05');
  assert.equal(formatElapsed(-5), '0:00');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection, backoffDelay, BACKOFF_MAX_MS } from '../../../web/src/conn.js';

// A scripted WebSocket and timers the test advances by hand.
function harness({ since = () => 0 } = {}) {
  const sockets = [];
  class FakeWS {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      sockets.push(this);
    }
    send(s) { this.sent.push(JSON.parse(s)); }
    close() {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.onclose && this.onclose();
    }
    open() { this.readyState = 1; this.onopen(); }
    recv(obj) { this.onmessage({ data: typeof obj === 'string' ? obj : JSON.stringify(obj) }); }
  }
  let now = 0;
  let timers = [];
  let nextId = 1;
  const t = {
    setTimeout: (f, ms) => { const id = nextId++; timers.push({ id, at: now + ms, f }); return id; },
    clearTimeout: (id) => { timers = timers.filter((x) => x.id !== id); },
    setInterval: (f, ms) => { const id = nextId++; timers.push({ id, at: now + ms, f, every: ms }); return id; },
    clearInterval: (id) => { timers = timers.filter((x) => x.id !== id); },
    now: () => now,
  };
  const advance = (ms) => {
    const end = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > end) break;
      now = next.at;
      if (next.every) next.at += next.every; else timers.shift();
      next.f();
    }
    now = end;
  };
  const got = [];
  const states = [];
  const conn = new Connection({ url: 'ws://relay/ws', WebSocket: FakeWS, timers: t, random: () => 0.5,
    getSince: since, onMessage: (m) => got.push(m), onState: (s, info) => states.push([s, info]) });
  return { conn, sockets, advance, got, states, pending: () => timers };
}

test('backoff grows, is capped and jittered', () => {
  assert.equal(backoffDelay(0, () => 0.5), 500);
  assert.equal(backoffDelay(1, () => 0.5), 1000);
  assert.equal(backoffDelay(3, () => 0.5), 4000);
  assert.equal(backoffDelay(30, () => 0.5), BACKOFF_MAX_MS);
  assert.equal(backoffDelay(0, () => 0), 400);
  assert.equal(backoffDelay(0, () => 1), 600);
});

test('on open it lists and sends its subscriptions; messages go through, pongs and junk do not', () => {
  const h = harness();
  h.conn.subscribe({ round: '1' });      // before the socket is open: kept for later
  h.conn.start();
  const ws = h.sockets[0];
  assert.equal(ws.url, 'ws://relay/ws');
  ws.open();
  assert.deepEqual(ws.sent, [{ op: 'list' }, { op: 'subscribe', round: '1' }]);
  h.conn.subscribe({ game: 7 });
  h.conn.subscribe({ game: 7 });        // once only
  assert.deepEqual(ws.sent.slice(2), [{ op: 'subscribe', game: 7 }]);
  ws.recv({ type: 'pong' });
  ws.recv('{not json');
  ws.recv({ type: 'move', seq: 5 });
  assert.deepEqual(h.got, [{ type: 'move', seq: 5 }]);
  assert.equal(h.states.at(-1)[0], 'open');
});

test('a dropped connection is retried with growing delays and resumed with since', () => {
  let last = 0;
  const h = harness({ since: (sub) => (sub.game === 9 ? 0 : last) });
  h.conn.subscribe({ round: '1' });
  h.conn.start();
  h.sockets[0].open();
  last = 130;
  h.sockets[0].close();                 // the relay went away
  assert.equal(h.states.at(-1)[0], 'reconnecting');
  assert.equal(h.states.at(-1)[1].delay, 500);
  h.advance(499);
  assert.equal(h.sockets.length, 1);
  h.advance(1);
  assert.equal(h.sockets.length, 2);    // first retry after 500 ms
  h.sockets[1].close();                 // refused again
  assert.equal(h.states.at(-1)[1].delay, 1000);
  h.advance(1000);
  assert.equal(h.sockets.length, 3);
  h.conn.resync(9);                     // while down: remembered
  h.sockets[2].open();
  assert.deepEqual(h.sockets[2].sent, [
    { op: 'list' },
    { op: 'subscribe', round: '1', since: 130 },
    { op: 'subscribe', game: 9 },       // a game waiting for a snapshot: no since
  ]);
  // Success resets the backoff.
  h.sockets[2].close();
  assert.equal(h.states.at(-1)[1].delay, 500);
});

test('a silent connection is dropped and pinged before that', () => {
  const h = harness();
  h.conn.start();
  const ws = h.sockets[0];
  ws.open();
  h.advance(20000);
  assert.deepEqual(ws.sent.at(-1), { op: 'ping' });
  ws.recv({ type: 'pong' });            // heard: fine
  h.advance(40000);
  assert.equal(h.sockets.length, 1);
  h.advance(60000);                     // nothing heard for > 50 s
  assert.ok(h.sockets.length >= 2, 'reconnected');
});

test('stop ends everything and nudge reconnects at once', () => {
  const h = harness();
  h.conn.start();
  h.sockets[0].close();
  assert.equal(h.conn.state, 'reconnecting');
  h.conn.nudge();
  assert.equal(h.sockets.length, 2);
  h.conn.stop();
  assert.equal(h.conn.state, 'closed');
  assert.equal(h.pending().length, 0);
  h.advance(100000);
  assert.equal(h.sockets.length, 2);
});

test('messages are paced under the relay limit of 20 a second, none lost', async () => {
  const { SEND_BURST } = await import('../../../web/src/conn.js');
  const h = harness({ since: () => 500 });
  for (let i = 1; i <= 40; i++) h.conn.subscribe({ game: i });
  h.conn.start();
  const ws = h.sockets[0];
  ws.open();
  assert.equal(ws.sent.length, SEND_BURST);
  const times = [];
  let seen = ws.sent.length;
  for (let t = 0; t < 10000; t += 50) {
    h.advance(50);
    for (; seen < ws.sent.length; seen++) times.push(t);
  }
  assert.equal(ws.sent.length, 41);       // list + 40 subscriptions
  assert.deepEqual(ws.sent.slice(1).map((m) => m.game), Array.from({ length: 40 }, (_, i) => i + 1));
  assert.ok(ws.sent.every((m) => m.op === 'list' || m.since === 500));
  // No one-second window holds more than 20 messages.
  const all = [...Array(SEND_BURST).fill(-1), ...times];
  for (let i = 0; i < all.length; i++) {
    const inWindow = all.filter((t) => t >= all[i] && t < all[i] + 1000).length;
    assert.ok(inWindow <= 20, `window at ${all[i]}: ${inWindow}`);
  }
});

test('hello goes first on every open', () => {
  const sockets = [];
  class WS { constructor() { this.readyState = 0; this.sent = []; sockets.push(this); } send(x) { this.sent.push(JSON.parse(x)); } close() {} }
  const conn = new Connection({ url: 'ws://x/ws', WebSocket: WS, hello: () => ({ op: 'hello', token: 't' }),
    timers: { setTimeout: () => 1, clearTimeout() {}, setInterval: () => 2, clearInterval() {}, now: () => 0 } });
  conn.subscribe({ round: '1' });
  conn.start();
  sockets[0].readyState = 1;
  sockets[0].onopen();
  assert.deepEqual(sockets[0].sent.map((m) => m.op), ['hello', 'list', 'subscribe']);
  assert.equal(sockets[0].sent[0].token, 't');
  conn.stop();
});

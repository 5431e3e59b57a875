// WebSocket connection to the relay: reconnects by itself with exponential
// backoff and resumes every subscription from the last seq it saw.

export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 15000;
const PING_EVERY_MS = 20000;
// The relay refuses more than 20 messages a second: stay well under it.
export const SEND_BURST = 10;
export const SEND_RATE = 8; // messages a second after the burst
const SILENCE_LIMIT_MS = 50000;

export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.8 + 0.4 * random())); // jitter spreads a crowd of viewers
}

function subKey(sub) {
  return sub.game !== undefined ? `g:${sub.game}` : `r:${sub.round}`;
}

export class Connection {
  // opts: url, WebSocket (constructor), onMessage(msg), onState(state, info),
  // getSince(sub) -> last seq seen for it, or 0 for a fresh snapshot, timers {setTimeout, clearTimeout, setInterval,
  // clearInterval, now}, random.
  constructor(opts) {
    this.url = opts.url;
    this.WS = opts.WebSocket;
    this.onMessage = opts.onMessage || (() => {});
    this.onState = opts.onState || (() => {});
    this.getSince = opts.getSince || (() => 0);
    this.hello = opts.hello || null; // () => the hello message sent first on each open
    // Wrapped: browsers refuse timer functions called with another `this`.
    this.t = opts.timers || {
      setTimeout: (f, ms) => setTimeout(f, ms),
      clearTimeout: (id) => clearTimeout(id),
      setInterval: (f, ms) => setInterval(f, ms),
      clearInterval: (id) => clearInterval(id),
      now: () => Date.now(),
    };
    this.random = opts.random || Math.random;
    this.subs = new Map();
    this.ws = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.state = 'idle';
    this.stopped = false;
    this.retryAt = 0;
    this.outbox = [];
    this.tokens = SEND_BURST;
    this.tokenAt = 0;
    this.flushTimer = null;
  }

  setState(state, info = {}) {
    this.state = state;
    this.onState(state, info);
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    this.clearTimers();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try { ws.close(); } catch (e) { /* already closed */ }
    }
    this.setState('closed');
  }

  clearTimers() {
    if (this.retryTimer !== null) this.t.clearTimeout(this.retryTimer);
    if (this.pingTimer !== null) this.t.clearInterval(this.pingTimer);
    if (this.flushTimer !== null) this.t.clearTimeout(this.flushTimer);
    this.retryTimer = null;
    this.pingTimer = null;
    this.flushTimer = null;
  }

  isOpen() {
    return !!this.ws && this.ws.readyState === 1;
  }

  // Queued and paced (token bucket); what is queued when the socket closes
  // is dropped: subscriptions are sent again on the next open anyway.
  send(obj) {
    if (!this.isOpen()) return false;
    this.outbox.push(JSON.stringify(obj));
    this.flush();
    return true;
  }

  flush() {
    const now = this.t.now();
    this.tokens = Math.min(SEND_BURST, this.tokens + ((now - this.tokenAt) * SEND_RATE) / 1000);
    this.tokenAt = now;
    while (this.outbox.length && this.tokens >= 1 && this.isOpen()) {
      this.ws.send(this.outbox.shift());
      this.tokens -= 1;
    }
    if (!this.isOpen()) this.outbox = [];
    if (this.outbox.length && this.flushTimer === null) {
      this.flushTimer = this.t.setTimeout(() => {
        this.flushTimer = null;
        this.flush();
      }, Math.ceil(1000 / SEND_RATE));
    }
  }

  // Add a subscription; it is kept and resumed after every reconnect.
  subscribe(sub) {
    const key = subKey(sub);
    if (this.subs.has(key)) return;
    this.subs.set(key, sub);
    this.send({ op: 'subscribe', ...sub });
  }

  // Drop a subscription (a game no longer shown whole).
  unsubscribe(sub) {
    const key = subKey(sub);
    if (!this.subs.has(key)) return;
    this.subs.delete(key);
    this.send({ op: 'unsubscribe', ...(sub.game !== undefined ? { game: sub.game } : { round: sub.round }) });
  }

  // The games followed whole (subscriptions by game).
  gameSubs() {
    return [...this.subs.values()].filter((sub) => sub.game !== undefined).map((sub) => Number(sub.game));
  }

  // Ask for a fresh snapshot of one game (sequence gap or bad ply).
  resync(gameId) {
    const sub = { game: gameId };
    this.subs.set(subKey(sub), sub);
    this.send({ op: 'subscribe', game: gameId });
  }

  requestList() {
    this.send({ op: 'list' });
  }

  // Reconnect now (page became visible, network came back).
  nudge() {
    if (this.stopped || this.state === 'open' || this.state === 'connecting') return;
    if (this.retryTimer !== null) this.t.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    this.clearTimers();
    this.setState('connecting', { attempt: this.attempt });
    let ws;
    try {
      ws = new this.WS(this.url);
    } catch (e) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.outbox = [];
      this.tokens = SEND_BURST;
      this.tokenAt = this.t.now();
      this.lastHeard = this.t.now();
      if (this.hello) this.send(this.hello());
      this.send({ op: 'list' });
      for (const sub of this.subs.values()) {
        const since = this.getSince(sub);
        const m = { op: 'subscribe', ...sub };
        if (since > 0) m.since = since;
        this.send(m);
      }
      this.pingTimer = this.t.setInterval(() => this.heartbeat(), PING_EVERY_MS);
      this.setState('open');
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      this.lastHeard = this.t.now();
      let msg;
      try {
        msg = JSON.parse(typeof ev.data === 'string' ? ev.data : String(ev.data));
      } catch (e) {
        return; // not ours to crash on
      }
      if (msg && msg.type === 'pong') return;
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.scheduleRetry();
    };
    ws.onerror = () => {
      // onclose follows; closing here makes sure it does.
      try { ws.close(); } catch (e) { /* ignore */ }
    };
  }

  heartbeat() {
    if (!this.isOpen()) return;
    if (this.t.now() - this.lastHeard > SILENCE_LIMIT_MS) {
      // A half-open TCP connection: drop it and start over.
      const ws = this.ws;
      this.ws = null;
      try { ws.close(); } catch (e) { /* ignore */ }
      this.scheduleRetry();
      return;
    }
    this.send({ op: 'ping' });
  }

  scheduleRetry() {
    this.clearTimers();
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt, this.random);
    this.attempt++;
    this.retryAt = this.t.now() + delay;
    this.setState('reconnecting', { delay, at: this.retryAt, attempt: this.attempt });
    this.retryTimer = this.t.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }
}

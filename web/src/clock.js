// Clock arithmetic. Relay times (ts, at) are microseconds since the epoch;
// clock values are milliseconds remaining. The viewer maps its own clock onto
// the relay's time line with an offset learnt from event arrival times, which
// also absorbs the public delay (events arrive `delay` after their ts).

// Offset estimator: the smallest (arrival - ts) seen is the best estimate of
// skew + delay + latency; replayed backlog only ever gives larger values.
export class TimeBase {
  constructor() {
    this.offsetUs = null;
    this.delayUs = 0;
  }
  setDelay(seconds) {
    this.delayUs = Math.max(0, Number(seconds) || 0) * 1e6;
  }
  observe(tsUs, localNowMs) {
    if (typeof tsUs !== 'number' || !isFinite(tsUs)) return;
    const off = localNowMs * 1000 - tsUs;
    if (this.offsetUs === null || off < this.offsetUs) this.offsetUs = off;
  }
  // "now" on the relay's time line, as seen through the public delay.
  relayNowUs(localNowMs) {
    if (this.offsetUs === null) return localNowMs * 1000 - this.delayUs;
    return localNowMs * 1000 - this.offsetUs;
  }
}

// Remaining ms for `side` ('white'|'black') at relay time nowUs.
export function clockRemaining(clock, side, nowUs) {
  if (!clock || typeof clock[side] !== 'number') return null;
  let v = clock[side];
  if (clock.running === side[0] && typeof clock.at === 'number') {
    v -= Math.max(0, (nowUs - clock.at) / 1000);
  }
  return Math.max(0, v);
}

// A clock reading: "1:30:00", "1:55", "0:09.5" (tenths under ten seconds).
// The one formatter of clock times, the viewer's and the arbiter page's;
// `unknown` is what a missing or impossible reading shows.
export function formatClock(ms, unknown = '–:––') {
  if (typeof ms !== 'number' || !isFinite(ms) || ms < 0) return unknown;
  const tenthsMode = ms < 10000;
  const totalS = tenthsMode ? Math.floor(ms / 100) / 10 : Math.floor(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  const ss = tenthsMode ? s.toFixed(1).padStart(4, '0') : String(Math.floor(s)).padStart(2, '0');
  if (h > 0) return `${h}:${String(m).padStart(2, '0')}:${ss}`;
  return `${m}:${ss}`;
}

// Time a move took, short: "0s", "12s", "1:05", "1:02:03".
export function formatUsed(ms) {
  if (ms === null || ms === undefined || !isFinite(ms) || ms < 0) return '';
  const t = Math.round(ms / 1000);
  if (t < 60) return `${t}s`;
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = String(t % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// A running time always as m:ss (h:mm:ss past an hour): "thinking for 2:05".
export function formatElapsed(ms) {
  const t = Math.max(0, Math.floor((Number(ms) || 0) / 1000));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = String(t % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// Followed players (issue 30): a viewer stars players without an account;
// the names are kept in the browser (localStorage "cr.follow"), with the
// choice of browser notifications ("cr.follow.notify"). Pure: the storage
// is handed in, so node tests it.

const KEY = 'cr.follow';
const NOTIFY_KEY = 'cr.follow.notify';

export class FollowStore {
  // storage: a localStorage-like object, or null (nothing kept).
  constructor(storage = null) {
    this.storage = storage;
    this.names = new Set();
    this.notify = false;
    try {
      const raw = storage ? JSON.parse(storage.getItem(KEY) || '[]') : [];
      if (Array.isArray(raw)) for (const n of raw) if (typeof n === 'string' && n.trim()) this.names.add(n.trim());
      this.notify = !!storage && storage.getItem(NOTIFY_KEY) === '1';
    } catch (e) { /* a broken entry: nothing followed */ }
  }

  save() {
    try {
      if (!this.storage) return;
      this.storage.setItem(KEY, JSON.stringify([...this.names]));
      this.storage.setItem(NOTIFY_KEY, this.notify ? '1' : '0');
    } catch (e) { /* private mode: kept for this page only */ }
  }

  has(name) {
    return !!name && this.names.has(String(name).trim());
  }

  list() {
    return [...this.names].sort((a, b) => a.localeCompare(b));
  }

  // Stars or unstars a player; returns whether they are followed now.
  toggle(name) {
    const n = String(name || '').trim();
    if (!n) return false;
    if (this.names.has(n)) this.names.delete(n); else this.names.add(n);
    this.save();
    return this.names.has(n);
  }

  setNotify(on) {
    this.notify = !!on;
    this.save();
  }

  // Whether a game has a followed player (white or black).
  follows(g) {
    return this.has(g.white) || this.has(g.black);
  }

  // The list with the followed players' games first, each part in the
  // order it had.
  arrange(games) {
    if (!this.names.size) return games;
    const first = [], rest = [];
    for (const g of games) (this.follows(g) ? first : rest).push(g);
    return first.length ? [...first, ...rest] : games;
  }
}

// What a viewer is told about a followed game between two looks at it:
// prev and now are {plies, result, last} (last: the latest SAN). Returns
// [{kind: 'start'|'move'|'result', ...}]: the game began (its first move),
// the latest move, the result. prev null: the first look, nothing told.
export function followEvents(prev, now) {
  if (!prev || !now) return [];
  const out = [];
  if (now.plies > prev.plies) {
    if (prev.plies === 0) out.push({ kind: 'start' });
    if (now.last) out.push({ kind: 'move', ply: now.plies, san: now.last });
  }
  if (now.result !== prev.result && now.result && now.result !== '*') out.push({ kind: 'result', result: now.result });
  return out;
}

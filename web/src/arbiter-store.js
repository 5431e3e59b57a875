// The arbiter dashboard's state: applies the relay's arbiter messages
// (docs/protocol.md, "Arbiters") and answers what the page shows: alerts by
// urgency, counters per board, claims. Pure logic, no DOM: node tests it.

import { Chess } from 'chess.js';
import { moveNumberLabel } from './view.js';
import { t } from './i18n.js';

export const URGENCY = { info: 0, notice: 1, warning: 2, critical: 3 };
export const TWO_MINUTES_MS = 120000;
const ARBITER_TYPES = new Set(['arbiter', 'incident', 'arbiter-state', 'claim', 'arbiter-error', 'ack']);

export function isArbiterMessage(msg) {
  return !!msg && typeof msg === 'object' && ARBITER_TYPES.has(msg.type);
}

export function urgencyOf(inc) {
  return URGENCY[inc && inc.urgency] ?? 0;
}

// What the relay's "ack" names an alert by: an incident's seq, or
// "attention@<plies>" for a board whose picture the game cannot explain.
export function alertKey(a) {
  return a.key !== undefined ? a.key : String(a.seq);
}

export function incidentKey(inc) {
  return `${inc.game}:${alertKey(inc)}`;
}

// Alerts that ring again until acknowledged (once sound is enabled).
export const ALARM_KINDS = new Set(['flag-check', 'attention', 'claim']);

// "23... Qd7": the move number and colour of 0-based ply i, then its SAN.
export function plyLabel(startFen, i, san) {
  return `${moveNumberLabel(startFen, i)} ${san || ''}`.trim();
}

// The move an incident came after (its ply counts the plies played then):
// "23... Qd7", "start" before any move.
export function incidentMove(ply, startFen, moves) {
  const n = Number(ply);
  if (!Number.isInteger(n) || n < 0) return '';
  if (n === 0) return t('start');
  const m = moves && moves[n - 1];
  return plyLabel(startFen, n - 1, m && m.san);
}

// The legal moves of a position in SAN, sorted; [] when chess.js refuses the FEN.
export function legalSans(fen) {
  try {
    return new Chess(fen).moves().sort((a, b) => a.localeCompare(b));
  } catch (e) {
    return [];
  }
}

// Urgency first (highest first), then newest first (as the relay sorts them).
export function compareAlerts(a, b) {
  const u = urgencyOf(b) - urgencyOf(a);
  if (u) return u;
  const wa = typeof a.wall === 'number' ? a.wall : -1;
  const wb = typeof b.wall === 'number' ? b.wall : -1;
  if (wa !== wb) return wb - wa;
  if (a.game !== b.game) return b.game - a.game;
  return b.seq - a.seq;
}

// Alerts a position raises again on every ply while it lasts (a repetition
// stands at each ply of the cycle): one per run.
export const REPEATING_KINDS = new Set(['threefold', 'fifty-moves']);

// One game's open alerts with each run of a repeating kind (plies in a row,
// same side) as one alert: the newest, with `count` and its `members`.
export function groupRepeats(list) {
  const out = [];
  const last = new Map(); // kind|color -> the group being extended
  for (const inc of [...list].sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity))) {
    const k = `${inc.kind}|${inc.color}`;
    const g = REPEATING_KINDS.has(inc.kind) ? last.get(k) : null;
    if (g && Number(inc.ply) - Number(g.ply) <= 1) {
      const members = [...g.members, inc];
      const grown = { ...inc, count: members.length, members };
      out[out.indexOf(g)] = grown;
      last.set(k, grown);
      continue;
    }
    const one = { ...inc, count: 1, members: [inc] };
    out.push(one);
    if (REPEATING_KINDS.has(inc.kind)) last.set(k, one);
  }
  return out;
}

export class ArbiterStore {
  constructor() {
    this.aseq = null; // null until the first snapshot
    this.games = new Map(); // game id -> state (arbiter-state)
    this.incidents = new Map(); // game id -> incidents by seq
    this.claims = new Map(); // claim id (relay-wide) -> claim
    this.errors = [];
    this.acked = new Set();        // incidentKey()s seen here or by any arbiter
    this.ackInfo = new Map();      // incidentKey() -> {who, wall} as the relay keeps it
    this.attentionSeen = new Map(); // attention alert key -> when this page first saw it
    this.relay = [];               // the relay's standing alerts (tampered state files), game 0
    this.version = 0;
  }

  // The relay's standing alerts not acknowledged yet (docs/protocol.md:
  // the snapshot's "alerts"; an ack of game 0 closes one for everybody).
  relayAlerts() {
    return this.relay.filter((a) => !this.acked.has(`0:${a.alert}`));
  }

  setAck(a) {
    if (!a || typeof a.game !== 'number' || typeof a.alert !== 'string') return;
    const k = `${a.game}:${a.alert}`;
    this.acked.add(k);
    this.ackInfo.set(k, { who: a.who || '?', wall: a.wall });
  }

  // Returns {changed, snapshot, alerts: new incidents at notice or above, error}.
  apply(msg) {
    const out = { changed: false, snapshot: false, alerts: [], error: null };
    if (!isArbiterMessage(msg)) return out;
    if (msg.type === 'arbiter') {
      this.aseq = Number(msg.aseq) || 0;
      this.games = new Map();
      this.incidents = new Map();
      this.claims = new Map();
      for (const s of msg.games || []) this.games.set(s.game, s);
      for (const inc of msg.incidents || []) this.addIncident(inc);
      for (const c of msg.claims || []) this.claims.set(c.id, c);
      for (const a of msg.acks || []) this.setAck(a);
      this.relay = (Array.isArray(msg.alerts) ? msg.alerts : []).filter((a) => a && typeof a.alert === 'string');
      out.changed = out.snapshot = true;
      this.version++;
      return out;
    }
    // Before the snapshot nothing counts; what the snapshot holds already is dropped.
    if (this.aseq === null || typeof msg.aseq !== 'number' || msg.aseq <= this.aseq) return out;
    this.aseq = msg.aseq;
    switch (msg.type) {
      case 'incident':
        if (msg.incident && this.addIncident(msg.incident) && urgencyOf(msg.incident) >= URGENCY.notice) {
          out.alerts.push(msg.incident);
        }
        break;
      case 'arbiter-state':
        if (msg.state) this.games.set(msg.game, msg.state);
        break;
      case 'claim':
        if (msg.claim) this.claims.set(msg.claim.id, msg.claim);
        break;
      case 'ack':
        this.setAck(msg.ack);
        break;
      case 'arbiter-error':
        out.error = msg;
        this.errors.push({ ...msg, receivedAt: Date.now() });
        if (this.errors.length > 50) this.errors.shift();
        break;
      default:
        return out;
    }
    out.changed = true;
    this.version++;
    return out;
  }

  addIncident(inc) {
    if (!inc || typeof inc.game !== 'number' || typeof inc.seq !== 'number') return false;
    let list = this.incidents.get(inc.game);
    if (!list) {
      list = [];
      this.incidents.set(inc.game, list);
    }
    if (list.some((x) => x.seq === inc.seq)) return false;
    list.push(inc);
    list.sort((a, b) => a.seq - b.seq);
    return true;
  }

  incidentsOf(game) {
    return this.incidents.get(game) || [];
  }

  // A board whose picture the game cannot explain, as an alert (the relay
  // says so in the game's state, with the squares in question), or null.
  attentionAlert(s) {
    if (!s || !s.attention) return null;
    const key = `attention@${s.plies}`;
    const seenKey = `${s.game}:${key}`;
    if (!this.attentionSeen.has(seenKey)) this.attentionSeen.set(seenKey, Date.now());
    const squares = Array.isArray(s.attention_squares) ? s.attention_squares : [];
    const why = s.attention_reason || t('the board shows a position the game cannot explain');
    return { game: s.game, key, kind: 'attention', urgency: 'warning', ply: s.plies, color: '-', squares,
      wall: this.attentionSeen.get(seenKey), text: squares.length ? `${why}: ${squares.join(' ')}` : why };
  }

  // An alert whose cause is gone closes itself: a board offline that is
  // online again, a flag check after a result, a flag fall, or a reading
  // that shows the side's time left (the relay's "flag_check" then names
  // another side or none).
  closed(inc) {
    const s = this.games.get(inc.game);
    const later = this.incidentsOf(inc.game).filter((x) => x.seq > inc.seq);
    switch (inc.kind) {
      case 'board-offline':
        return later.some((x) => x.kind === 'board-online') || !!(s && s.online);
      case 'flag-check':
        if (later.some((x) => x.kind === 'result' || (x.kind === 'flag' && x.color === inc.color))) return true;
        if (s && s.result && s.result !== '*') return true;
        return !!s && typeof s.flag_check === 'string' && s.flag_check !== inc.color;
      default:
        return false;
    }
  }

  // A game's incidents and its attention alert, if any.
  alertsOf(game) {
    const att = this.attentionAlert(this.games.get(game));
    return att ? [...this.incidentsOf(game), att] : this.incidentsOf(game);
  }

  // Alerts still to be seen: notice and above, not acknowledged, not closed,
  // a run of repeated ones as one (groupRepeats), sorted.
  alerts() {
    const out = [];
    for (const game of new Set([...this.incidents.keys(), ...this.games.keys()])) {
      const open = this.alertsOf(game).filter((inc) => urgencyOf(inc) >= URGENCY.notice &&
        !this.acked.has(incidentKey(inc)) && !this.closed(inc));
      out.push(...groupRepeats(open));
    }
    return out.sort(compareAlerts);
  }

  // Marks an alert (every one of a group) seen here at once; the page tells
  // the relay, which tells every arbiter (and keeps who and when).
  ack(inc) {
    for (const x of inc.members || [inc]) this.acked.add(incidentKey(x));
    this.version++;
  }

  ackAll() {
    const all = this.alerts().flatMap((a) => a.members || [a]);
    for (const inc of all) this.acked.add(incidentKey(inc));
    this.version++;
    return all;
  }

  // {who, wall} of an acknowledged alert, or null.
  ackOf(inc) {
    return this.ackInfo.get(incidentKey(inc)) || null;
  }

  // The latest acknowledgements, newest first.
  recentAcks(n = 5) {
    return [...this.ackInfo.entries()].map(([k, v]) => ({ key: k, ...v }))
      .sort((a, b) => (b.wall || 0) - (a.wall || 0)).slice(0, n);
  }

  // Highest urgency among a game's open alerts, or -1.
  gameAlertLevel(game) {
    let level = -1;
    for (const inc of this.alertsOf(game)) {
      if (!this.acked.has(incidentKey(inc)) && !this.closed(inc)) level = Math.max(level, urgencyOf(inc));
    }
    return level >= URGENCY.notice ? level : -1;
  }

  // Boards by round, then table, then board id.
  boards() {
    return [...this.games.values()].sort((a, b) => {
      const ra = Number(a.round), rb = Number(b.round);
      if (a.round !== b.round) {
        return Number.isFinite(ra) && Number.isFinite(rb) ? ra - rb : String(a.round).localeCompare(String(b.round));
      }
      const ta = a.table || Infinity, tb = b.table || Infinity;
      if (ta !== tb) return ta - tb;
      const c = String(a.board).localeCompare(String(b.board), undefined, { numeric: true });
      return c || a.game - b.game;
    });
  }

  rounds() {
    return [...new Set([...this.games.values()].map((s) => String(s.round)))];
  }

  claimsOf(game) {
    return [...this.claims.values()].filter((c) => c.game === game).sort((a, b) => a.id - b.id);
  }

  // The claim awaiting a decision (pending or postponed), or null.
  openClaim(game) {
    const list = this.claimsOf(game);
    const last = list[list.length - 1];
    return last && (last.decision === 'pending' || last.decision === 'postponed') ? last : null;
  }
}

// The counters a board card shows, each {key, label, value, level} with
// level '' (quiet), 'notice' or 'alert'.
export function counters(s) {
  const out = [];
  const reps = Number(s.repetitions) || 1;
  out.push({ key: 'repetitions', label: t('Repetitions'), value: `${reps}×`,
    level: s.fivefold ? 'alert' : s.threefold ? 'notice' : '' });
  const half = Number(s.halfmove) || 0;
  out.push({ key: 'fifty', label: t('50-move count'), value: `${Math.floor(half / 2)}/50`,
    level: s.seventy_five ? 'alert' : s.fifty_moves ? 'notice' : '' });
  out.push({ key: 'dead', label: t('Dead position'), value: s.dead ? t('yes') : t('no'), level: s.dead ? 'alert' : '' });
  let claim = t('closed');
  if (s.claim_pending) claim = t('claim pending');
  else if (s.claim_window) {
    // The sides a D1 claim would be heard from (the relay's claim_open; an
    // older relay sends only under_two_minutes).
    const open = s.claim_open || s.under_two_minutes || {};
    const who = [open.w ? t('White') : null, open.b ? t('Black') : null].filter(Boolean).join(', ');
    claim = t('open ({who})', { who });
  }
  out.push({ key: 'claim', label: t('Claim window'), value: claim,
    level: s.claim_pending ? 'alert' : s.claim_window ? 'notice' : '' });
  const ill = s.illegal || {};
  if ((ill.w || 0) + (ill.b || 0) > 0) {
    out.push({ key: 'illegal', label: t('Illegal moves'), value: t('W {w} · B {b}', { w: ill.w || 0, b: ill.b || 0 }), level: 'alert' });
  }
  return out;
}

export function underTwoMinutes(ms) {
  return typeof ms === 'number' && ms >= 0 && ms < TWO_MINUTES_MS;
}

// How many beeps a batch of new alerts deserves (0 for none): the most
// urgent one decides (notice 1, warning 2, critical 3).
export function beepsFor(alerts) {
  let n = 0;
  for (const a of alerts || []) n = Math.max(n, urgencyOf(a));
  return n;
}

// The WebSocket message of an arbiter's action; throws an Error naming the
// field when the input is not usable (the form shows it).
export function actionMessage(action, game, f = {}) {
  const id = Number(game);
  // Game 0 is the relay's own: only its standing alerts are acknowledged.
  if (!Number.isInteger(id) || id < 0 || (id === 0 && action !== 'ack')) throw new Error(t('no game'));
  const m = { op: 'arbiter-action', game: id, action };
  const text = (v) => String(v ?? '').trim();
  switch (action) {
    case 'result':
      if (!['1-0', '0-1', '1/2-1/2', '*'].includes(f.result)) throw new Error(t('result: choose 1-0, 0-1, ½-½ or *'));
      m.result = f.result;
      if (text(f.reason)) m.reason = text(f.reason);
      return m;
    case 'draw-offer': {
      const ply = f.ply === '' || f.ply === undefined || f.ply === null ? -1 : Number(f.ply);
      if (!Number.isInteger(ply) || ply < -1) throw new Error(t('ply: a ply number (0 = White\'s first move) or empty for the last'));
      m.ply = ply;
      m.offered = f.offered !== false;
      return m;
    }
    case 'take-back': {
      const n = Number(f.plies);
      if (f.plies === '' || !Number.isInteger(n) || n < 0) throw new Error(t('plies: how many plies to keep'));
      m.plies = n;
      if (text(f.reason)) m.reason = text(f.reason);
      return m;
    }
    case 'players':
      if (!text(f.white) && !text(f.black)) throw new Error(t('players: give White and/or Black'));
      if (text(f.white)) m.white = text(f.white);
      if (text(f.black)) m.black = text(f.black);
      return m;
    case 'claim':
      if (f.claimant !== 'w' && f.claimant !== 'b') throw new Error(t('claimant: White or Black'));
      if (!BASIS_TEXT[f.basis]) throw new Error(t('basis: (a), (b), threefold or 50 moves'));
      m.claimant = f.claimant;
      m.basis = f.basis;
      if (text(f.move)) {
        if (f.basis === 'a' || f.basis === 'b') throw new Error(t('move: only for a threefold or 50-move claim'));
        m.move = text(f.move);
      }
      return m;
    case 'confirm-flag':
      if (f.color !== 'w' && f.color !== 'b') throw new Error(t('flag: White or Black'));
      m.color = f.color;
      if (text(f.reason)) m.reason = text(f.reason);
      return m;
    case 'replace-move': {
      const ply = Number(f.ply);
      if (f.ply === '' || f.ply === undefined || !Number.isInteger(ply) || ply < 0) throw new Error(t('ply: the ply to correct (0 = White\'s first move)'));
      if (!text(f.move)) throw new Error(t('move: the move played (SAN or UCI)'));
      m.ply = ply;
      m.move = text(f.move);
      if (text(f.reason)) m.reason = text(f.reason);
      return m;
    }
    case 'ack':
      if (!/^[A-Za-z0-9@:._-]{1,47}$/.test(String(f.alert ?? ''))) throw new Error(t('alert: the alert\'s key'));
      m.alert = String(f.alert);
      return m;
    case 'decide': {
      if (!['draw', 'rejected', 'postponed'].includes(f.decision)) throw new Error(t('decision: draw, rejected or postponed'));
      m.decision = f.decision;
      if (f.decision === 'rejected') {
        const min = f.addedMinutes === undefined || f.addedMinutes === '' ? 2 : Number(f.addedMinutes);
        if (!isFinite(min) || min < 0 || min > 60) throw new Error(t('time added: minutes (0..60)'));
        m.added_ms = Math.round(min * 60000);
      }
      if (text(f.note)) m.note = text(f.note);
      return m;
    }
    default:
      throw new Error(t('unknown action {action}', { action }));
  }
}

// FEN -> 8 rows (rank 8 first) of 8 piece letters or '' for the frozen position.
export function fenRows(fen) {
  const rows = String(fen || '').split(' ')[0].split('/');
  if (rows.length !== 8) return null;
  const out = [];
  for (const r of rows) {
    const row = [];
    for (const ch of r) {
      if (/[1-8]/.test(ch)) for (let i = 0; i < Number(ch); i++) row.push('');
      else if (/[prnbqkPRNBQK]/.test(ch)) row.push(ch);
      else return null;
    }
    if (row.length !== 8) return null;
    out.push(row);
  }
  return out;
}

export const PIECE_GLYPHS = { K: '♔', Q: '♕', R: '♖', B: '♗', N: '♘', P: '♙', k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };

// The scoresheet as rows "40. Kf1 (2:03)  Kf8 (2:12)" from a claim's
// scoresheet, numbered from the frozen game's start (FEN move number/side).
export function scoresheetRows(claim, startFen) {
  const parts = String(startFen || '').split(' ');
  let no = Math.max(1, parseInt(parts[5], 10) || 1);
  let black = parts[1] === 'b';
  const rows = [];
  let cur = null;
  for (const m of (claim && claim.scoresheet) || []) {
    if (!black) {
      cur = { no, white: m, black: null };
      rows.push(cur);
    } else {
      if (!cur || cur.no !== no) {
        cur = { no, white: null, black: null };
        rows.push(cur);
      }
      cur.black = m;
      no++;
    }
    black = !black;
  }
  return rows;
}

export const BASIS_TEXT = {
  a: '(a) the opponent cannot win by normal means',
  b: '(b) the opponent is making no effort to win by normal means',
  threefold: 'threefold repetition (9.2)',
  'fifty-moves': '50 moves without a capture or pawn move (9.3)',
};

export const KIND_LABEL = {
  'two-minutes': 'Under two minutes', flag: 'Flag fall', threefold: 'Threefold repetition',
  fivefold: 'Fivefold repetition', 'fifty-moves': '50-move rule', 'seventy-five-moves': '75-move rule',
  'dead-position': 'Dead position', 'illegal-move': 'Illegal move', 'board-offline': 'Board offline',
  'board-online': 'Board online', claim: 'Claim', decision: 'Decision', result: 'Result',
  correction: 'Correction', 'draw-offer': 'Draw offer', 'flag-check': 'Flag check',
  attention: 'Board needs attention', 'press-without-move': 'Clock pressed without a move',
  'move-without-press': 'Clock not pressed after a move', 'time-added': 'Time added on the clock',
};

// The tables above hold the English texts (the keys of i18n.js); these give
// them in the page's language.
export function kindLabel(kind) {
  return KIND_LABEL[kind] ? t(KIND_LABEL[kind]) : kind;
}

export function basisText(basis) {
  return BASIS_TEXT[basis] ? t(BASIS_TEXT[basis]) : basis;
}

// An arbiter-action's name in notices and refusals.
export const ACTION_LABEL = {
  result: 'Result', claim: 'Draw claim', decide: 'Decision', players: 'Players', 'confirm-flag': 'Flag confirmed',
  'replace-move': 'Move replaced', 'draw-offer': 'Draw offer', 'take-back': 'Take-back', ack: 'Acknowledgement',
  'accept-board': "Accept the board's position",
};

export function actionLabel(action) {
  return ACTION_LABEL[action] ? t(ACTION_LABEL[action]) : action;
}

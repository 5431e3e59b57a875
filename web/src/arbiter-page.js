// The arbiter dashboard (#/arbiter, #/arbiter/game/<id>): every board with
// both clocks and its counters, alerts by urgency with a beep, and a game's
// board, move list, incident log, actions and claim workflow. State:
// arbiter-store.js; the board and the actions picked on a move: arbiter-board.js;
// actions go out on the WebSocket as "arbiter-action" messages. A page of
// the shape main.js routes to: render(route), destroy(), tick().

import {
  counters, underTwoMinutes, beepsFor, actionMessage, fenRows, PIECE_GLYPHS,
  scoresheetRows, basisText, kindLabel, actionLabel, urgencyOf, incidentMove, alertKey, ALARM_KINDS,
} from './arbiter-store.js';
import { ArbiterBoard } from './arbiter-board.js';
import { clockRemaining, formatClock } from './clock.js';
import { h, setText } from './dom.js';
import { t } from './i18n.js';
import { relayText } from './relay-text.js';

// How long a result can be undone, and a take-back held before it goes out.
export const UNDO_MS = 10000;

function wallTime(ms) {
  if (typeof ms !== 'number' || ms < 0) return '';
  const d = new Date(ms);
  return d.toISOString().slice(11, 19);
}

// A claim's scoresheet by ply index, for naming its moves.
function claimMoves(c) {
  const out = [];
  for (const m of (c && c.scoresheet) || []) out[m.ply] = m;
  return out;
}

// The relay's words for a link state, a decision and an urgency, as the page shows them.
function linkState(st) {
  return { active: t('active'), 'not responding': t('not responding'), lost: t('lost') }[st] || st;
}

function decisionLabel(d) {
  return { pending: t('pending'), postponed: t('postponed'), draw: t('draw'), rejected: t('rejected') }[d] || d;
}

function urgencyLabel(u) {
  return { info: t('info'), notice: t('notice'), warning: t('warning'), critical: t('critical') }[u] || u;
}

function colorName(c) {
  return c === 'w' ? t('White') : c === 'b' ? t('Black') : '';
}

export class ArbiterPage {
  // opts: store (viewer store: clocks), arb (ArbiterStore), conn, token() -> string|null, main (element)
  constructor(opts) {
    Object.assign(this, opts);
    this.el = null;
    this.key = '';
    this.subscribed = new Set();
    // 'locked' until the arbiter enables it: browsers keep audio suspended
    // until a click, so "on" before that would be a silent promise.
    this.sound = 'locked';
    this.audio = null;
    this.beeps = 0; // played, for tests
    this.flashUntil = 0;
    this.formError = '';
    this.notice = '';
    this.board = new ArbiterBoard(this);
    // An action waiting for its confirmation, held, or just sent (undo):
    // {action, game, fields, label, hold, undo, stage, until}.
    this.pending = null;
    this.undoMs = UNDO_MS;
    // Alarms (flag check, attention, claim) ring again this often until acknowledged.
    this.alarmEveryMs = 10000;
    this.lastAlarm = 0;
    this.alarms = 0; // rung, for tests
    this.tickedAt = 0; // when tick() last ran its checks, for tests
    this.health = new Map(); // board id -> its entry of /boards.json
    this.healthKey = '';
    this.healthAt = 0;
  }

  destroy() {
    this.el = null;
    this.key = '';
    this.board.destroy();
  }

  // The incident log names moves: it is redrawn when the game's moves change.
  movesKey(id) {
    const g = id ? this.store.games.get(id) : null;
    return g ? `${g.moves.length}:${g.moves.length ? g.moves[g.moves.length - 1].san : ''}` : '';
  }

  notation() {
    return (this.ui && this.ui.notation) || 'en';
  }

  // --- sound and visual cue ---
  onAlerts(alerts) {
    const n = beepsFor(alerts);
    if (!n) return;
    this.flashUntil = Date.now() + 2500;
    this.beep(n);
  }

  beep(n) {
    this.beeps += n;
    if (this.sound !== 'on' || !this.audio || this.audio.state !== 'running') return;
    try {
      const ctx = this.audio;
      const t0 = ctx.currentTime + 0.02;
      for (let i = 0; i < n; i++) {
        const o = ctx.createOscillator();
        const g = ctx.createGain();
        o.type = 'square';
        o.frequency.value = n >= 3 ? 1320 : 880;
        const s = t0 + i * 0.22;
        g.gain.setValueAtTime(0.0001, s);
        g.gain.exponentialRampToValueAtTime(0.2, s + 0.01);
        g.gain.exponentialRampToValueAtTime(0.0001, s + 0.16);
        o.connect(g).connect(ctx.destination);
        o.start(s);
        o.stop(s + 0.18);
      }
    } catch (e) { /* no audio: the visual cue stays */ }
  }

  // Runs within the click: the browser lets a page start audio only then.
  async enableSound() {
    try {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) throw new Error(t('this browser has no WebAudio'));
      if (!this.audio) this.audio = new AC();
      if (this.audio.state !== 'running') await this.audio.resume();
      if (this.audio.state !== 'running') throw new Error(t('audio is {state}', { state: this.audio.state }));
      this.sound = 'on';
      this.beep(1);
    } catch (e) {
      this.formError = t('Sound: {error}', { error: e.message });
    }
    this.key = '';
    this.requestRender();
  }

  soundButton() {
    const label = this.sound === 'locked' ? t('Enable sound') : this.sound === 'on' ? t('Sound: on') : t('Sound: off');
    const locked = this.sound === 'locked';
    return h('button', { class: 'abtn arb-sound' + (locked ? ' locked' : ''), type: 'button', 'aria-pressed': String(this.sound === 'on'),
      title: locked ? t('alerts beep only once sound is enabled') : null,
      onclick: () => {
        if (this.sound === 'on') {
          this.sound = 'off';
          this.key = '';
          this.requestRender();
        } else {
          this.enableSound();
        }
      } }, label);
  }

  send(action, game, fields) {
    try {
      const m = actionMessage(action, game, fields);
      if (!this.conn.send(m)) throw new Error(t('not connected to the relay'));
      this.formError = '';
      this.notice = t('{action}: sent', { action: actionLabel(action) });
    } catch (e) {
      this.formError = e.message;
    }
    this.key = '';
    this.requestRender();
  }

  fail(text) {
    this.formError = text;
    this.key = '';
    this.requestRender();
  }

  // --- confirmation and undo ---
  pendingKey() {
    return this.pending ? `${this.pending.stage}|${this.pending.label}` : '';
  }

  // An action that needs a confirmation first: a result (then undone by
  // sending the previous one back) or a take-back (then held UNDO_MS before
  // it goes out: the relay has no op that puts retracted moves back).
  ask(p) {
    try {
      actionMessage(p.action, p.game, p.fields);
    } catch (e) {
      this.fail(e.message);
      return;
    }
    this.pending = { ...p, stage: 'confirm', until: 0 };
    this.formError = '';
    this.key = '';
    this.requestRender();
  }

  confirm() {
    const p = this.pending;
    if (!p || p.stage !== 'confirm') return;
    if (p.hold) {
      this.pending = { ...p, stage: 'held', until: Date.now() + this.undoMs };
      this.key = '';
      this.requestRender();
      return;
    }
    this.pending = p.undo ? { ...p, stage: 'sent', until: Date.now() + this.undoMs } : null;
    this.send(p.action, p.game, p.fields);
  }

  // Cancel before the confirmation, while held, or undo what was sent.
  cancel() {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    if (p.stage === 'sent') {
      this.send(p.undo.action, p.game, p.undo.fields);
      this.notice = t('undone: {action}', { action: p.label });
    } else {
      this.notice = p.stage === 'held' ? t('cancelled: {action}', { action: p.label }) : '';
    }
    this.key = '';
    this.requestRender();
  }

  pendingBar() {
    const p = this.pending;
    if (!p) return null;
    const btn = (cls, label, fn) => h('button', { class: `abtn ${cls}`, type: 'button', onclick: fn }, label);
    if (p.stage === 'confirm') {
      return h('div', { class: 'arb-pending', 'data-stage': 'confirm', role: 'alertdialog', 'aria-label': t('confirm the action') },
        h('span', { class: 'arb-pending-text' }, t('{action}?', { action: p.label })),
        btn('arb-confirm-yes', t('Confirm'), () => this.confirm()),
        btn('arb-confirm-no', t('Cancel'), () => this.cancel()));
    }
    const text = p.stage === 'held' ? t('{action}: goes out in ', { action: p.label }) : t('{action}: sent. Undo within ', { action: p.label });
    return h('div', { class: 'arb-pending', 'data-stage': p.stage, role: 'status' },
      h('span', { class: 'arb-pending-text' }, text, h('span', { class: 'arb-countdown' }, '')),
      btn('arb-undo', t('Undo'), () => this.cancel()));
  }

  tickPending(now) {
    const p = this.pending;
    if (!p || p.stage === 'confirm') return;
    if (now >= p.until) {
      this.pending = null;
      if (p.stage === 'held') this.send(p.action, p.game, p.fields);
      else {
        this.key = '';
        this.requestRender();
      }
      return;
    }
    const cd = this.el && this.el.querySelector('.arb-countdown');
    if (cd) setText(cd, t('{s} s', { s: Math.ceil((p.until - now) / 1000) }));
  }

  // --- acknowledgements: kept by the relay, shared by every arbiter ---
  ackAlerts(list) {
    for (const a of list.flatMap((x) => x.members || [x])) {
      this.arb.ack(a);
      try {
        this.conn.send(actionMessage('ack', a.game, { alert: alertKey(a) }));
      } catch (e) { /* shown as acknowledged here; the relay may not have taken it */ }
    }
    this.key = '';
    this.requestRender();
  }

  // Alarms ring again until acknowledged; only once sound is enabled.
  tickAlarms(now) {
    if (this.sound !== 'on' || now - this.lastAlarm < this.alarmEveryMs) return;
    if (!this.arb.alerts().some((a) => ALARM_KINDS.has(a.kind))) return;
    this.lastAlarm = now;
    this.alarms++;
    this.flashUntil = now + 1500;
    this.beep(2);
  }

  // --- board health: /boards.json (link state, snapshot rate, battery) ---
  async pollHealth(now) {
    if (now - this.healthAt < 3000) return;
    this.healthAt = now;
    try {
      const r = await fetch('/boards.json', { cache: 'no-store' });
      if (!r.ok) return;
      const list = await r.json();
      const map = new Map();
      for (const b of Array.isArray(list) ? list : []) if (b && b.board) map.set(String(b.board), b);
      const key = JSON.stringify([...map.entries()]);
      this.health = map;
      if (key !== this.healthKey) {
        this.healthKey = key;
        this.key = '';
        this.requestRender();
      }
    } catch (e) { /* the relay is away: the last figures stay */ }
  }

  healthLine(s) {
    const b = this.health.get(String(s.board));
    if (!b) return null;
    const bad = b.state === 'lost' || b.state === 'not responding';
    const parts = [
      h('span', { class: `arb-link st-${String(b.state).replace(/\s+/g, '-')}` }, b.state === 'active' ? t('link ok') : t('link {state}', { state: linkState(b.state) })),
      typeof b.snapshots_per_min === 'number' ? h('span', { class: 'arb-rate' }, t('{n}/min', { n: Math.round(b.snapshots_per_min) })) : null,
      typeof b.battery === 'number' ? h('span', { class: 'arb-battery' + (b.battery < 20 ? ' low' : '') }, t('battery {n}%', { n: b.battery })) : null,
      b.rotated ? h('span', { class: 'badge attention arb-rotated' }, t('rotated')) : null,
      b.state === 'lost' ? h('span', { class: 'badge attention arb-lost' }, t('lost')) : null,
    ];
    return h('div', { class: 'arb-health' + (bad ? ' bad' : ''), 'data-board': String(s.board) }, parts);
  }

  // Reports need the token in a header: fetched, then opened as a blob.
  async openReport(path) {
    // The tab is opened within the click (popup blockers), filled after the fetch.
    const win = window.open('', '_blank');
    try {
      const r = await fetch(path, { headers: { Authorization: `Bearer ${this.token()}` } });
      if (!r.ok) throw new Error(t('{path}: HTTP {status}', { path, status: r.status }));
      const blob = await r.blob();
      const url = URL.createObjectURL(blob);
      if (win) win.location.href = url;
      else window.open(url, '_blank');
      this.lastReport = { path, size: blob.size };
    } catch (e) {
      if (win) win.close();
      this.formError = e.message;
      this.key = '';
      this.requestRender();
    }
  }

  // The round's results for the pairing program (GET /arbiter/results.trf,
  // docs/venue.md) saved as a file: the request needs the token, so it is
  // fetched here and handed to the browser's download.
  async downloadResults() {
    const path = '/arbiter/results.trf';
    try {
      const r = await fetch(path, { headers: { Authorization: `Bearer ${this.token()}` } });
      if (r.status === 404) throw new Error(t('No round is played from a TRF pairings file.'));
      if (!r.ok) throw new Error(t('{path}: HTTP {status}', { path, status: r.status }));
      const url = URL.createObjectURL(await r.blob());
      const a = h('a', { href: url, download: 'results.trf' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (e) {
      this.formError = e.message;
      this.key = '';
      this.requestRender();
    }
  }

  // --- rendering ---
  render(route) {
    const token = this.token();
    if (!token) {
      this.main.replaceChildren(h('section', { class: 'arbiter' },
        h('h1', { class: 'round-title' }, t('Arbiter')),
        h('p', { class: 'empty arb-need-token' }, t('The arbiter page needs a token: open this page once with ?token=… in its address (it is kept for this tab only, and removed from the address).'))));
      this.el = null;
      return;
    }
    const welcome = this.store.welcome;
    if (welcome && !welcome.trusted) {
      this.main.replaceChildren(h('section', { class: 'arbiter' },
        h('h1', { class: 'round-title' }, t('Arbiter')),
        h('p', { class: 'empty arb-need-token' }, t('The relay did not accept the token: open the page with ?token=… again.'))));
      this.el = null;
      return;
    }
    for (const r of this.arb.rounds()) {
      if (!this.subscribed.has(r)) {
        this.subscribed.add(r);
        this.conn.subscribe({ round: r });
      }
    }
    if (route.game === null) this.board.destroy();
    if (route.game !== this.shownGame) {
      // Another board: the last one's notices and a question still open stay behind.
      this.shownGame = route.game;
      this.notice = '';
      this.formError = '';
      if (this.pending && this.pending.stage === 'confirm') this.pending = null;
    }
    const key = `${route.game}|${this.arb.version}|${this.formError}|${this.notice}|${this.sound}|${this.arb.aseq}|${this.pendingKey()}|${this.healthKey}|${this.movesKey(route.game)}|${this.attentionKey(route.game)}`;
    if (this.el && key === this.key) return;
    // The key is kept once the page is drawn: a render that threw is tried
    // again at the next one, not skipped while nothing changes.
    this.key = '';
    // Messages redraw the page: what the arbiter is typing stays.
    const kept = new Map();
    let focused = null;
    if (this.el) {
      for (const f of this.el.querySelectorAll('input, select')) {
        const k = `${f.form ? f.form.className : ''}|${f.name}`;
        kept.set(k, f.type === 'checkbox' ? f.checked : f.value);
        if (f === document.activeElement) focused = k;
      }
    }
    this.el = route.game ? this.renderGame(route.game) : this.renderOverview();
    const slot = this.el.querySelector('.arb-board-slot');
    if (slot) slot.replaceWith(this.board.element(route.game));
    this.main.replaceChildren(this.el);
    this.board.update();
    this.key = key;
    for (const f of this.el.querySelectorAll('input, select')) {
      const k = `${f.form ? f.form.className : ''}|${f.name}`;
      if (kept.has(k)) {
        if (f.type === 'checkbox') f.checked = kept.get(k);
        else f.value = kept.get(k);
      }
      if (k === focused) f.focus();
    }
    const n = this.arb.alerts().filter((a) => urgencyOf(a) >= 2).length;
    document.title = `${n ? `(${n}) ` : ''}${t('Arbiter')} · chessrelay`;
    this.tick();
  }

  requestRender() {
    if (this.onChange) this.onChange();
  }

  head(title, extra) {
    return h('div', { class: 'overview-head arb-head' },
      h('h1', { class: 'round-title' }, title),
      extra || null,
      this.soundButton(),
      h('button', { class: 'abtn', type: 'button', onclick: () => this.openReport('/arbiter/incidents.json') }, t('Incident log (JSON)')),
      h('button', { class: 'abtn arb-results', type: 'button', title: t('The pairings file with the round\'s confirmed results, for the pairing program'), onclick: () => this.downloadResults() }, t('Results (TRF)')));
  }

  renderOverview() {
    const alerts = this.arb.alerts();
    const boards = this.arb.boards();
    const list = h('ol', { class: 'arb-alerts' + (Date.now() < this.flashUntil ? ' flash' : '') },
      alerts.length ? alerts.map((a) => this.alertRow(a)) : h('li', { class: 'empty' }, t('No open alerts.')));
    const grid = h('div', { class: 'arb-boards' }, boards.length ? boards.map((s) => this.boardCard(s))
      : h('p', { class: 'empty' }, this.arb.aseq === null ? t('Waiting for the relay…') : t('No boards yet.')));
    return h('section', { class: 'arbiter' },
      this.head(t('Arbiter'), h('span', { class: 'arb-count' }, `${boards.length === 1 ? t('1 board') : t('{n} boards', { n: boards.length })} · ${alerts.length === 1 ? t('1 alert') : t('{n} alerts', { n: alerts.length })}`)),
      this.errorLine(),
      this.relayAlerts(),
      h('div', { class: 'arb-cols' },
        h('div', { class: 'arb-alert-panel' },
          h('div', { class: 'arb-panel-head' }, h('h2', {}, t('Alerts')),
            alerts.length ? h('button', { class: 'abtn small arb-ack-all', type: 'button', onclick: () => this.ackAlerts(alerts) }, t('Acknowledge all')) : null),
          list,
          this.recentAcks()),
        grid));
  }

  // The relay's standing alerts: a state file that did not verify (edited,
  // cut, deleted). Shown to every arbiter until one acknowledges it.
  relayAlerts() {
    const list = this.arb.relayAlerts();
    if (!list.length) return null;
    return h('div', { class: 'arb-relay-alerts', role: 'alert' }, list.map((a) =>
      h('p', { class: 'arb-relay-alert', 'data-alert': a.alert },
        h('strong', {}, t('The journal does not verify: {file}', { file: a.file || '?' })), ' ',
        h('span', {}, `${a.what || ''} (${wallTime(a.wall)})`), ' ',
        h('button', { class: 'abtn small arb-relay-ack', type: 'button', onclick: () => this.ackRelay(a) }, t('Acknowledge')))));
  }

  ackRelay(a) {
    this.arb.acked.add(`0:${a.alert}`); /* the relay's ack (who, when) follows */
    this.arb.version++;
    try {
      this.conn.send(actionMessage('ack', 0, { alert: a.alert }));
    } catch (e) { /* shown as acknowledged here; the relay may not have taken it */ }
    this.key = '';
    this.requestRender();
  }

  // Who acknowledged what, and when (the relay's record, shared by all).
  recentAcks() {
    const acks = this.arb.recentAcks(5);
    if (!acks.length) return null;
    return h('div', { class: 'arb-acks' }, h('h3', {}, t('Acknowledged')),
      h('ul', {}, acks.map((a) => {
        const [game, alert] = a.key.split(':');
        if (game === '0') return h('li', { 'data-ack': a.key }, `${t('Relay')} · ${t('the journal does not verify')} — ${a.who}, ${wallTime(a.wall)}`);
        const s = this.arb.games.get(Number(game));
        const inc = this.arb.incidentsOf(Number(game)).find((x) => alertKey(x) === alert);
        const what = inc ? kindLabel(inc.kind) : alert.startsWith('attention') ? kindLabel('attention') : alert;
        return h('li', { 'data-ack': a.key }, `${s && s.table ? t('Board {n}', { n: s.table }) : t('Game {n}', { n: game })} · ${what} — ${a.who}, ${wallTime(a.wall)}`);
      })));
  }

  errorLine() {
    const last = this.arb.errors[this.arb.errors.length - 1];
    const relayErr = this.store.errors && this.store.errors[this.store.errors.length - 1];
    const parts = [];
    if (this.formError) parts.push(h('p', { class: 'arb-error' }, this.formError));
    if (last && Date.now() - (last.receivedAt || 0) < 20000) parts.push(h('p', { class: 'arb-error', 'data-aseq': String(last.aseq) }, t('Refused ({action}, game {game}): {error}', { action: actionLabel(last.action), game: last.game, error: relayText(last.error) })));
    if (relayErr && /token|not allowed/.test(relayErr.error || '')) parts.push(h('p', { class: 'arb-error' }, t('Relay: {text}', { text: relayErr.error })));
    return parts.length ? h('div', { class: 'arb-errors' }, parts) : null;
  }

  alertRow(a) {
    const s = this.arb.games.get(a.game);
    const where = s ? (s.table ? t('Board {n}', { n: s.table }) : s.board) : t('Game {n}', { n: a.game });
    const n = a.count || 1;
    return h('li', { class: `arb-alert u-${a.urgency}`, 'data-kind': a.kind, 'data-game': String(a.game), 'data-alert': alertKey(a), 'data-count': String(n) },
      h('span', { class: 'arb-urg' }, urgencyLabel(a.urgency)),
      h('a', { class: 'arb-where', href: `#/arbiter/game/${a.game}` }, where),
      h('span', { class: 'arb-kind' }, kindLabel(a.kind),
        n > 1 ? h('span', { class: 'arb-repeat', title: t('raised on {n} plies in a row', { n }) }, ` ×${n}`) : null),
      h('span', { class: 'arb-text' }, relayText(a.text)),
      h('span', { class: 'arb-time' }, wallTime(a.wall)),
      // A flag the clock model only suspects: the arbiter looks at the clock and confirms it.
      a.kind === 'flag-check' && (a.color === 'w' || a.color === 'b') && s && s.result === '*'
        ? h('button', { class: 'abtn small act-confirm-flag', type: 'button', 'aria-label': a.color === 'w' ? t('confirm that White\'s flag fell') : t('confirm that Black\'s flag fell'), title: a.color === 'w' ? t('confirm that White\'s flag fell') : t('confirm that Black\'s flag fell'),
          onclick: () => this.send('confirm-flag', a.game, { color: a.color, reason: t('flag seen on the clock') }) }, t('confirm'))
        : null,
      h('button', { class: 'abtn small arb-ack', type: 'button', title: t('acknowledge (for every arbiter)'), 'aria-label': t('acknowledge (for every arbiter)'), onclick: () => this.ackAlerts([a]) }, '✓'));
  }

  clockEl(s, side) {
    return h('span', { class: 'arb-clock', 'data-arb-game': String(s.game), 'data-side': side }, '');
  }

  boardCard(s) {
    const level = this.arb.gameAlertLevel(s.game);
    const cls = ['arb-card', level >= 3 ? 'lvl-critical' : level === 2 ? 'lvl-warning' : level === 1 ? 'lvl-notice' : '',
      s.online ? '' : 'is-offline', s.result !== '*' ? 'is-finished' : ''].filter(Boolean).join(' ');
    return h('a', { class: cls, href: `#/arbiter/game/${s.game}`, 'data-game': String(s.game) },
      h('div', { class: 'arb-card-head' },
        h('span', { class: 'board-no' }, s.table ? t('Board {n}', { n: s.table }) : s.board),
        h('span', { class: 'arb-round' }, t('R{r} · {board}', { r: s.round, board: s.board })),
        s.online ? null : h('span', { class: 'badge offline' }, t('offline')),
        s.claim_pending ? h('span', { class: 'badge attention' }, t('claim')) : null,
        s.attention ? h('span', { class: 'badge attention arb-attn-badge' }, t('attention')) : null,
        s.result !== '*' ? h('span', { class: 'result' }, s.result) : null),
      h('div', { class: 'arb-players' },
        h('div', { class: 'arb-player' }, h('span', { class: 'name' }, s.white || t('White')), this.clockEl(s, 'white')),
        h('div', { class: 'arb-player' }, h('span', { class: 'name' }, s.black || t('Black')), this.clockEl(s, 'black'))),
      h('dl', { class: 'arb-counters' }, counters(s).map((c) => h('div', { class: `arb-counter ${c.level}`, 'data-counter': c.key },
        h('dt', {}, c.label), h('dd', {}, c.value)))),
      s.attention ? h('div', { class: 'arb-card-attn' }, `⚠ ${s.attention_reason || t('needs attention')}${(s.attention_squares || []).length ? `: ${s.attention_squares.join(' ')}` : ''}`) : null,
      this.healthLine(s),
      h('div', { class: 'arb-plies' }, s.side === 'w' ? t('{n} plies · White to move', { n: s.plies }) : t('{n} plies · Black to move', { n: s.plies })));
  }

  renderGame(id) {
    const s = this.arb.games.get(id);
    if (!s) {
      return h('section', { class: 'arbiter' }, this.head(t('Arbiter')), h('p', { class: 'empty' }, t('Game {n} is not known (yet).', { n: id })),
        h('a', { href: '#/arbiter' }, t('← all boards')));
    }
    const incs = [...this.arb.incidentsOf(id)].reverse();
    const g = this.store.games.get(id);
    const claim = this.arb.openClaim(id);
    const claims = this.arb.claimsOf(id);
    return h('section', { class: 'arbiter arb-game', 'data-game': String(id) },
      this.head(`${s.table ? t('Board {n}', { n: s.table }) : s.board} · ${s.white || t('White')} – ${s.black || t('Black')}`,
        h('a', { class: 'pgn-link', href: '#/arbiter' }, t('← all boards'))),
      this.errorLine(),
      this.pendingBar(),
      h('div', { class: 'arb-cols arb-game-cols' },
        h('div', { class: 'arb-board-col' },
          h('div', { class: 'arb-board-slot' }),
          h('p', {}, h('a', { href: `#/game/${id}` }, t('Open the game page')))),
        h('div', {},
          this.boardCard(s),
          this.actions(s, claim)),
        h('div', {},
          claims.length ? h('div', { class: 'arb-claims' }, claims.slice().reverse().map((c) => this.claimPanel(c))) : null,
          h('h2', {}, t('Incident log')),
          h('table', { class: 'arb-log' },
            h('thead', {}, h('tr', {}, ['#', t('time'), t('after'), t('kind'), t('side'), t('White'), t('Black'), t('text'), t('seen by')].map((c) => h('th', {}, c)))),
            h('tbody', {}, incs.map((inc) => {
              const ack = this.arb.ackOf(inc);
              const closed = this.arb.closed(inc);
              return h('tr', { class: `u-${inc.urgency}${closed ? ' is-closed' : ''}`, 'data-kind': inc.kind, 'data-seq': String(inc.seq) },
                h('td', {}, inc.seq), h('td', {}, wallTime(inc.wall)),
                h('td', { class: 'arb-log-move' }, incidentMove(inc.ply, g ? g.start : null, g ? g.moves : null)),
                h('td', {}, kindLabel(inc.kind)), h('td', {}, colorName(inc.color)),
                h('td', {}, formatClock(inc.white_ms, '–')), h('td', {}, formatClock(inc.black_ms, '–')), h('td', {}, relayText(inc.text)),
                h('td', { class: 'arb-log-ack' }, ack ? `${ack.who} ${wallTime(ack.wall)}` : closed ? t('closed: its cause is gone') : ''));
            }))))));
  }

  actions(s, claim) {
    const id = s.game;
    const field = (name, attrs = {}) => h('input', { name, ...attrs });
    const form = (cls, title, children, submit) => h('form', { class: `arb-action ${cls}`, onsubmit: (e) => {
      e.preventDefault();
      submit(Object.fromEntries(new FormData(e.target).entries()));
    } }, h('h3', {}, title), children);
    return h('div', { class: 'arb-actions' },
      h('h2', {}, t('Actions')),
      this.notice ? h('p', { class: 'arb-notice' }, this.notice) : null,
      this.acceptBoardAction(id),
      form('act-claim', t('Draw claim'), [
        h('label', {}, t('Claimant') + ' ', h('select', { name: 'claimant' }, h('option', { value: 'w' }, t('White')), h('option', { value: 'b' }, t('Black')))),
        h('label', {}, t('Basis') + ' ', h('select', { name: 'basis' }, h('option', { value: 'a' }, t('D1 (a) cannot win by normal means')), h('option', { value: 'b' }, t('D1 (b) no effort to win')),
          h('option', { value: 'threefold' }, t('threefold repetition')), h('option', { value: 'fifty-moves' }, t('50 moves')))),
        field('move', { placeholder: t('move written (threefold/50 moves, optional)'), 'aria-label': t('move written (threefold/50 moves, optional)') }),
        h('button', { class: 'abtn', type: 'submit', disabled: !!claim || s.result !== '*' }, t('Start claim')),
      ], (f) => this.send('claim', id, f)),
      this.confirmFlagAction(s),
      form('act-result', t('Result'), [
        h('select', { name: 'result', 'aria-label': t('Result') }, ['1-0', '0-1', '1/2-1/2', '*'].map((r) => h('option', { value: r, selected: r === s.result }, r))),
        field('reason', { placeholder: t('reason (resignation, …)'), 'aria-label': t('reason (resignation, …)') }),
        h('button', { class: 'abtn', type: 'submit' }, t('Set result')),
      ], (f) => {
        if (f.result === s.result) {
          this.fail(t('the result is {result} already', { result: s.result }));
          return;
        }
        this.ask({ action: 'result', game: id, fields: f, label: t('Set the result to {result} (now {was})', { result: f.result, was: s.result }),
          undo: { action: 'result', fields: { result: s.result, reason: t('undo of {result}', { result: f.result }) } } });
      }),
      h('p', { class: 'arb-hint' }, t('Take-backs, replaced moves and draw offers: pick the move in the list beside the board.')),
      form('act-players', t('Players'), [
        field('white', { placeholder: s.white || t('White'), 'aria-label': t('White') }),
        field('black', { placeholder: s.black || t('Black'), 'aria-label': t('Black') }),
        h('button', { class: 'abtn', type: 'submit' }, t('Assign')),
      ], (f) => this.send('players', id, f)));
  }

  // A flag fall the arbiter saw on the clock: confirmed after a question
  // (it ends the game). The side the relay suspects, else the side whose
  // flag is down or whose clock runs, is chosen first.
  confirmFlagAction(s) {
    if (s.result !== '*') return null;
    const side = ['w', 'b'].includes(s.flag_check) ? s.flag_check : ['w', 'b'].includes(s.flagged) ? s.flagged
      : s.running === 'b' ? 'b' : 'w';
    return h('form', { class: 'arb-action act-confirm-flag-form', onsubmit: (e) => {
      e.preventDefault();
      const f = Object.fromEntries(new FormData(e.target).entries());
      this.ask({ action: 'confirm-flag', game: s.game, fields: { color: f.color, reason: f.reason || t('flag seen on the clock') },
        label: f.color === 'b' ? t('Confirm that Black\'s flag fell') : t('Confirm that White\'s flag fell') });
    } },
    h('h3', {}, t('Flag fall')),
    h('label', {}, t('Flag of') + ' ', h('select', { name: 'color' },
      h('option', { value: 'w', selected: side === 'w' }, t('White')), h('option', { value: 'b', selected: side === 'b' }, t('Black')))),
    h('input', { name: 'reason', placeholder: t('flag seen on the clock'), 'aria-label': t('reason (for the log)') }),
    h('button', { class: 'abtn act-confirm-flag-game', type: 'submit' }, t('Confirm the flag fall')));
  }

  // --- a board the relay cannot follow: accept its position (accept-board) ---
  attentionKey(id) {
    const g = id ? this.store.games.get(id) : null;
    return g && g.attention ? `a:${g.squares || ''}` : '';
  }

  acceptBoardAction(id) {
    const g = this.store.games.get(id);
    if (!g || !g.attention) return null;
    const squares = Array.isArray(g.squares) ? g.squares.join(' ') : '';
    return h('div', { class: 'arb-action act-accept-board' },
      h('h3', {}, t('Board not followed')),
      h('p', {}, g.statusReason || t('the board shows a position the game does not reach'),
        squares ? t(' (squares in question: {squares})', { squares }) : ''),
      h('button', { class: 'abtn', type: 'button', onclick: () => this.acceptBoard(id) }, t('Accept the board\'s position')));
  }

  acceptBoard(id) {
    if (!window.confirm(t('Game {n}: go on from the position on the board? The moves in between are recorded as missing, never guessed.', { n: id }))) return;
    if (this.conn.send({ op: 'accept-board', game: id })) {
      this.formError = '';
      this.notice = t('{action}: sent', { action: actionLabel('accept-board') });
    } else {
      this.formError = t('not connected to the relay');
    }
    this.key = '';
    this.requestRender();
  }

  frozenBoard(fen) {
    const rows = fenRows(fen);
    if (!rows) return h('p', {}, fen || '');
    return h('table', { class: 'arb-frozen', 'data-fen': fen }, h('tbody', {}, rows.map((row, r) => h('tr', {},
      row.map((p, f) => h('td', { class: (r + f) % 2 ? 'dark' : 'light' }, p ? PIECE_GLYPHS[p] : ''))))));
  }

  claimPanel(c) {
    const ev = c.evidence || {};
    const mat = (m) => (m ? `${m.points} (${t('Q{q} R{r} B{b} N{n} P{p}', m)})` : '–');
    const open = c.decision === 'pending' || c.decision === 'postponed';
    const rows = scoresheetRows(c, c.start);
    return h('div', { class: `arb-claim ${open ? 'open' : 'decided'}`, 'data-claim': String(c.id), 'data-decision': c.decision },
      h('h2', {}, t('Claim {id}: {side} claims a draw · {decision}', { id: c.id, side: colorName(c.claimant), decision: decisionLabel(c.decision) })),
      h('p', { class: 'arb-basis' }, `${c.basis === 'a' || c.basis === 'b' ? 'D1 ' : ''}${basisText(c.basis)}${c.move ? t(', with the move {move}', { move: c.move }) : ''}${c.basis === 'a' || c.basis === 'b' ? '' : `: ${c.correct ? t('correct') : t('NOT correct')} ${t('(the relay\'s check)')}`}. ${t('Clocks at the claim: White {white}, Black {black}; after {move}.', { white: formatClock(c.white_ms, '–'), black: formatClock(c.black_ms, '–'), move: incidentMove(c.ply, c.start, claimMoves(c)) })}`),
      h('div', { class: 'arb-claim-body' },
        this.frozenBoard(c.fen),
        h('table', { class: 'arb-sheet' }, h('tbody', {}, rows.map((r) => h('tr', {},
          h('td', {}, `${r.no}.`),
          h('td', {}, r.white ? `${r.white.san} ` : '…', r.white ? h('small', {}, formatClock(r.white.clock, '–')) : ''),
          h('td', {}, r.black ? `${r.black.san} ` : '', r.black ? h('small', {}, formatClock(r.black.clock, '–')) : '')))))),
      h('dl', { class: 'arb-evidence' },
        h('dt', {}, t('Material White')), h('dd', {}, mat(ev.white_material)),
        h('dt', {}, t('Material Black')), h('dd', {}, mat(ev.black_material)),
        h('dt', {}, t('Last {n} moves each', { n: ev.moves })), h('dd', {}, t('{captures} captures, {pawns} pawn moves', { captures: ev.captures, pawns: ev.pawn_moves })),
        h('dt', {}, t('Since last capture/pawn move')), h('dd', {}, t('{n} plies', { n: ev.plies_since_irreversible })),
        h('dt', {}, t('Repetitions')), h('dd', {}, t('{n} (max {max})', { n: ev.repetitions, max: ev.max_repetitions })),
        h('dt', {}, t('Opponent can mate')), h('dd', {}, ev.opponent_can_mate ? t('yes') : t('no'))),
      open ? h('form', { class: 'arb-decide', onsubmit: (e) => {
        e.preventDefault();
        const f = Object.fromEntries(new FormData(e.target).entries());
        f.decision = e.submitter ? e.submitter.value : 'postponed';
        this.send('decide', c.game, f);
      } },
      h('input', { name: 'note', placeholder: t('note for the report') }),
      h('label', {}, t('time added (min)') + ' ', h('input', { name: 'addedMinutes', type: 'number', min: '0', max: '60', step: '0.5', value: '2' })),
      h('button', { class: 'abtn', type: 'submit', name: 'decision', value: 'draw' }, t('Draw')),
      h('button', { class: 'abtn', type: 'submit', name: 'decision', value: 'rejected' }, t('Reject (+time)')),
      h('button', { class: 'abtn', type: 'submit', name: 'decision', value: 'postponed' }, t('Postpone')))
        : h('p', { class: 'arb-decision' }, `${t('Decision: {decision}', { decision: decisionLabel(c.decision) })}${c.decision === 'rejected' && c.added_ms !== null ? t(' (+{time} to the opponent)', { time: formatClock(c.added_ms, '–') }) : ''}${c.note ? ` — ${c.note}` : ''}`),
      h('p', {},
        h('button', { class: 'abtn arb-report', type: 'button', onclick: () => this.openReport(c.report) }, t('Printable report')),
        ' ',
        h('button', { class: 'abtn', type: 'button', onclick: () => this.openReport(c.pgn) }, 'PGN')));
  }

  // Clocks: the live store's (counted down), else the monitor's last figure.
  tick() {
    if (!this.el) return;
    const now = Date.now();
    this.tickPending(now);
    this.tickAlarms(now);
    this.pollHealth(now);
    this.board.update();
    const nowUs = this.store.time.relayNowUs(now);
    for (const el of this.el.querySelectorAll('.arb-clock')) {
      const id = Number(el.dataset.arbGame);
      const side = el.dataset.side;
      const g = this.store.games.get(id);
      const s = this.arb.games.get(id);
      let ms = g && g.clock ? clockRemaining(g.clock, side, nowUs) : null;
      if (ms === null && s) ms = side === 'white' ? s.white_ms : s.black_ms;
      // A board that never gave a clock reading (Millennium, Certabo, or a
      // DGT board without a clock attached) says so rather than a dash.
      const noClock = (ms === null || ms === undefined) && !(g && g.clock) &&
        !(s && (typeof s.white_ms === 'number' || typeof s.black_ms === 'number'));
      setText(el, noClock ? 'no clock' : formatClock(ms, '–'));
      el.classList.toggle('no-clock', noClock);
      el.classList.toggle('under2', underTwoMinutes(ms));
      el.classList.toggle('running', !!(g && g.clock && g.clock.running === side[0] && s && s.result === '*'));
    }
    const list = this.el.querySelector('.arb-alerts');
    if (list) list.classList.toggle('flash', Date.now() < this.flashUntil);
    // An alert while the sound is not enabled points at the button.
    const gate = this.el.querySelector('.arb-sound.locked');
    if (gate) gate.classList.toggle('flash', Date.now() < this.flashUntil);
    this.tickedAt = now;
  }
}

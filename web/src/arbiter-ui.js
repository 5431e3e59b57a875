// The arbiter dashboard (#/arbiter, #/arbiter/game/<id>): every board with
// both clocks and its counters, alerts by urgency with a beep, and a game's
// incident log, actions and claim workflow. State: arbiter.js; actions go
// out on the WebSocket as "arbiter-action" messages. A page of the shape
// main.js routes to: render(route), destroy(), tick().

import {
  counters, formatMs, underTwoMinutes, beepsFor, actionMessage, fenRows, PIECE_GLYPHS,
  scoresheetRows, BASIS_TEXT, KIND_LABEL, urgencyOf,
} from './arbiter.js';
import { clockRemaining } from './clock.js';
import { h, setText } from './dom.js';

function wallTime(ms) {
  if (typeof ms !== 'number' || ms < 0) return '';
  const d = new Date(ms);
  return d.toISOString().slice(11, 19);
}

function colorName(c) {
  return c === 'w' ? 'White' : c === 'b' ? 'Black' : '';
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
  }

  destroy() {
    this.el = null;
    this.key = '';
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
      if (!AC) throw new Error('this browser has no WebAudio');
      if (!this.audio) this.audio = new AC();
      if (this.audio.state !== 'running') await this.audio.resume();
      if (this.audio.state !== 'running') throw new Error(`audio is ${this.audio.state}`);
      this.sound = 'on';
      this.beep(1);
    } catch (e) {
      this.formError = `Sound: ${e.message}`;
    }
    this.key = '';
    this.requestRender();
  }

  soundButton() {
    const label = this.sound === 'locked' ? 'Enable sound' : this.sound === 'on' ? 'Sound: on' : 'Sound: off';
    const locked = this.sound === 'locked';
    return h('button', { class: 'abtn arb-sound' + (locked ? ' locked' : ''), type: 'button', 'aria-pressed': String(this.sound === 'on'),
      title: locked ? 'alerts beep only once sound is enabled' : null,
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
      if (!this.conn.send(m)) throw new Error('not connected to the relay');
      this.formError = '';
      this.notice = `${action} sent`;
    } catch (e) {
      this.formError = e.message;
    }
    this.key = '';
    this.requestRender();
  }

  // Reports need the token in a header: fetched, then opened as a blob.
  async openReport(path) {
    // The tab is opened within the click (popup blockers), filled after the fetch.
    const win = window.open('', '_blank');
    try {
      const r = await fetch(path, { headers: { Authorization: `Bearer ${this.token()}` } });
      if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
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

  // --- rendering ---
  render(route) {
    const token = this.token();
    if (!token) {
      this.main.replaceChildren(h('section', { class: 'arbiter' },
        h('h1', { class: 'round-title' }, 'Arbiter'),
        h('p', { class: 'empty arb-need-token' }, 'The arbiter page needs a token: open this page once with ?token=… in its address (it is kept for this tab only, and removed from the address).')));
      this.el = null;
      return;
    }
    const welcome = this.store.welcome;
    if (welcome && !welcome.trusted) {
      this.main.replaceChildren(h('section', { class: 'arbiter' },
        h('h1', { class: 'round-title' }, 'Arbiter'),
        h('p', { class: 'empty arb-need-token' }, 'The relay did not accept the token: open the page with ?token=… again.')));
      this.el = null;
      return;
    }
    for (const r of this.arb.rounds()) {
      if (!this.subscribed.has(r)) {
        this.subscribed.add(r);
        this.conn.subscribe({ round: r });
      }
    }
    const key = `${route.game}|${this.arb.version}|${this.formError}|${this.notice}|${this.sound}|${this.arb.aseq}`;
    if (this.el && key === this.key) return;
    this.key = key;
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
    this.main.replaceChildren(this.el);
    for (const f of this.el.querySelectorAll('input, select')) {
      const k = `${f.form ? f.form.className : ''}|${f.name}`;
      if (kept.has(k)) {
        if (f.type === 'checkbox') f.checked = kept.get(k);
        else f.value = kept.get(k);
      }
      if (k === focused) f.focus();
    }
    const n = this.arb.alerts().filter((a) => urgencyOf(a) >= 2).length;
    document.title = `${n ? `(${n}) ` : ''}Arbiter · chessrelay`;
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
      h('button', { class: 'abtn', type: 'button', onclick: () => this.openReport('/arbiter/incidents.json') }, 'Incident log (JSON)'));
  }

  renderOverview() {
    const alerts = this.arb.alerts();
    const boards = this.arb.boards();
    const list = h('ol', { class: 'arb-alerts' + (Date.now() < this.flashUntil ? ' flash' : '') },
      alerts.length ? alerts.map((a) => this.alertRow(a)) : h('li', { class: 'empty' }, 'No open alerts.'));
    const grid = h('div', { class: 'arb-boards' }, boards.length ? boards.map((s) => this.boardCard(s))
      : h('p', { class: 'empty' }, this.arb.aseq === null ? 'Waiting for the relay…' : 'No boards yet.'));
    return h('section', { class: 'arbiter' },
      this.head('Arbiter', h('span', { class: 'arb-count' }, `${boards.length} board${boards.length === 1 ? '' : 's'} · ${alerts.length} alert${alerts.length === 1 ? '' : 's'}`)),
      this.errorLine(),
      h('div', { class: 'arb-cols' },
        h('div', { class: 'arb-alert-panel' },
          h('div', { class: 'arb-panel-head' }, h('h2', {}, 'Alerts'),
            alerts.length ? h('button', { class: 'abtn small', type: 'button', onclick: () => { this.arb.ackAll(); this.requestRender(); } }, 'Acknowledge all') : null),
          list),
        grid));
  }

  errorLine() {
    const last = this.arb.errors[this.arb.errors.length - 1];
    const relayErr = this.store.errors && this.store.errors[this.store.errors.length - 1];
    const parts = [];
    if (this.formError) parts.push(h('p', { class: 'arb-error' }, this.formError));
    if (last && Date.now() - (last.receivedAt || 0) < 20000) parts.push(h('p', { class: 'arb-error', 'data-aseq': String(last.aseq) }, `Refused (${last.action}, game ${last.game}): ${last.error}`));
    if (relayErr && /token|not allowed/.test(relayErr.error || '')) parts.push(h('p', { class: 'arb-error' }, `Relay: ${relayErr.error}`));
    return parts.length ? h('div', { class: 'arb-errors' }, parts) : null;
  }

  alertRow(a) {
    const s = this.arb.games.get(a.game);
    const where = s ? (s.table ? `Board ${s.table}` : s.board) : `Game ${a.game}`;
    return h('li', { class: `arb-alert u-${a.urgency}`, 'data-kind': a.kind, 'data-game': String(a.game) },
      h('span', { class: 'arb-urg' }, a.urgency),
      h('a', { class: 'arb-where', href: `#/arbiter/game/${a.game}` }, where),
      h('span', { class: 'arb-kind' }, KIND_LABEL[a.kind] || a.kind),
      h('span', { class: 'arb-text' }, a.text),
      h('span', { class: 'arb-time' }, wallTime(a.wall)),
      // A flag the clock model only suspects: the arbiter looks at the clock and confirms it.
      a.kind === 'flag-check' && (a.color === 'w' || a.color === 'b') && s && s.result === '*'
        ? h('button', { class: 'abtn small act-confirm-flag', type: 'button', title: `confirm that ${colorName(a.color)}'s flag fell`,
          onclick: () => this.send('confirm-flag', a.game, { color: a.color, reason: 'flag seen on the clock' }) }, 'confirm')
        : null,
      h('button', { class: 'abtn small', type: 'button', title: 'acknowledge', onclick: () => { this.arb.ack(a); this.requestRender(); } }, '✓'));
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
        h('span', { class: 'board-no' }, s.table ? `Board ${s.table}` : s.board),
        h('span', { class: 'arb-round' }, `R${s.round} · ${s.board}`),
        s.online ? null : h('span', { class: 'badge offline' }, 'offline'),
        s.claim_pending ? h('span', { class: 'badge attention' }, 'claim') : null,
        s.result !== '*' ? h('span', { class: 'result' }, s.result) : null),
      h('div', { class: 'arb-players' },
        h('div', { class: 'arb-player' }, h('span', { class: 'name' }, s.white || 'White'), this.clockEl(s, 'white')),
        h('div', { class: 'arb-player' }, h('span', { class: 'name' }, s.black || 'Black'), this.clockEl(s, 'black'))),
      h('dl', { class: 'arb-counters' }, counters(s).map((c) => h('div', { class: `arb-counter ${c.level}`, 'data-counter': c.key },
        h('dt', {}, c.label), h('dd', {}, c.value)))),
      h('div', { class: 'arb-plies' }, `${s.plies} plies · ${s.side === 'w' ? 'White' : 'Black'} to move`));
  }

  renderGame(id) {
    const s = this.arb.games.get(id);
    if (!s) {
      return h('section', { class: 'arbiter' }, this.head('Arbiter'), h('p', { class: 'empty' }, `Game ${id} is not known (yet).`),
        h('a', { href: '#/arbiter' }, '← all boards'));
    }
    const incs = [...this.arb.incidentsOf(id)].reverse();
    const claim = this.arb.openClaim(id);
    const claims = this.arb.claimsOf(id);
    return h('section', { class: 'arbiter arb-game', 'data-game': String(id) },
      this.head(`${s.table ? `Board ${s.table}` : s.board} · ${s.white || 'White'} – ${s.black || 'Black'}`,
        h('a', { class: 'pgn-link', href: '#/arbiter' }, '← all boards')),
      this.errorLine(),
      h('div', { class: 'arb-cols' },
        h('div', {},
          this.boardCard(s),
          h('p', {}, h('a', { href: `#/game/${id}` }, 'Open the game page')),
          this.actions(s, claim)),
        h('div', {},
          claims.length ? h('div', { class: 'arb-claims' }, claims.slice().reverse().map((c) => this.claimPanel(c))) : null,
          h('h2', {}, 'Incident log'),
          h('table', { class: 'arb-log' },
            h('thead', {}, h('tr', {}, ['#', 'time', 'ply', 'kind', 'side', 'White', 'Black', 'text'].map((t) => h('th', {}, t)))),
            h('tbody', {}, incs.map((inc) => h('tr', { class: `u-${inc.urgency}`, 'data-kind': inc.kind },
              h('td', {}, inc.seq), h('td', {}, wallTime(inc.wall)), h('td', {}, inc.ply),
              h('td', {}, KIND_LABEL[inc.kind] || inc.kind), h('td', {}, colorName(inc.color)),
              h('td', {}, formatMs(inc.white_ms)), h('td', {}, formatMs(inc.black_ms)), h('td', {}, inc.text))))))));
  }

  actions(s, claim) {
    const id = s.game;
    const field = (name, attrs = {}) => h('input', { name, ...attrs });
    const form = (cls, title, children, submit) => h('form', { class: `arb-action ${cls}`, onsubmit: (e) => {
      e.preventDefault();
      submit(Object.fromEntries(new FormData(e.target).entries()));
    } }, h('h3', {}, title), children);
    return h('div', { class: 'arb-actions' },
      h('h2', {}, 'Actions'),
      this.notice ? h('p', { class: 'arb-notice' }, this.notice) : null,
      form('act-claim', 'Draw claim', [
        h('label', {}, 'Claimant ', h('select', { name: 'claimant' }, h('option', { value: 'w' }, 'White'), h('option', { value: 'b' }, 'Black'))),
        h('label', {}, 'Basis ', h('select', { name: 'basis' }, h('option', { value: 'a' }, 'D1 (a) cannot win by normal means'), h('option', { value: 'b' }, 'D1 (b) no effort to win'),
          h('option', { value: 'threefold' }, 'threefold repetition'), h('option', { value: 'fifty-moves' }, '50 moves'))),
        field('move', { placeholder: 'move written (threefold/50 moves, optional)' }),
        h('button', { class: 'abtn', type: 'submit', disabled: !!claim || s.result !== '*' }, 'Start claim'),
      ], (f) => this.send('claim', id, f)),
      form('act-result', 'Result', [
        h('select', { name: 'result' }, ['1-0', '0-1', '1/2-1/2', '*'].map((r) => h('option', { value: r, selected: r === s.result }, r))),
        field('reason', { placeholder: 'reason (resignation, …)' }),
        h('button', { class: 'abtn', type: 'submit' }, 'Set result'),
      ], (f) => this.send('result', id, f)),
      form('act-offer', 'Draw offer', [
        field('ply', { type: 'number', min: '0', placeholder: `ply (empty: last, ${s.plies - 1})` }),
        h('label', {}, h('input', { type: 'checkbox', name: 'clear' }), ' clear'),
        h('button', { class: 'abtn', type: 'submit' }, 'Mark'),
      ], (f) => this.send('draw-offer', id, { ply: f.ply, offered: !f.clear })),
      form('act-replace', 'Replace a move', [
        field('ply', { type: 'number', min: '0', max: String(Math.max(0, s.plies - 1)), placeholder: `ply (0 = White's first, < ${s.plies})` }),
        field('move', { placeholder: 'the move played (Nf3, g1f3)' }),
        field('reason', { placeholder: 'reason' }),
        h('button', { class: 'abtn', type: 'submit', disabled: !s.plies }, 'Replace'),
      ], (f) => this.send('replace-move', id, f)),
      form('act-takeback', 'Take back', [
        field('plies', { type: 'number', min: '0', max: String(s.plies), placeholder: `plies to keep (< ${s.plies})` }),
        field('reason', { placeholder: 'reason' }),
        h('button', { class: 'abtn', type: 'submit' }, 'Take back'),
      ], (f) => this.send('take-back', id, f)),
      form('act-players', 'Players', [
        field('white', { placeholder: s.white || 'White' }),
        field('black', { placeholder: s.black || 'Black' }),
        h('button', { class: 'abtn', type: 'submit' }, 'Assign'),
      ], (f) => this.send('players', id, f)));
  }

  frozenBoard(fen) {
    const rows = fenRows(fen);
    if (!rows) return h('p', {}, fen || '');
    return h('table', { class: 'arb-frozen', 'data-fen': fen }, h('tbody', {}, rows.map((row, r) => h('tr', {},
      row.map((p, f) => h('td', { class: (r + f) % 2 ? 'dark' : 'light' }, p ? PIECE_GLYPHS[p] : ''))))));
  }

  claimPanel(c) {
    const ev = c.evidence || {};
    const mat = (m) => (m ? `${m.points} (Q${m.q} R${m.r} B${m.b} N${m.n} P${m.p})` : '–');
    const open = c.decision === 'pending' || c.decision === 'postponed';
    const rows = scoresheetRows(c, c.start);
    return h('div', { class: `arb-claim ${open ? 'open' : 'decided'}`, 'data-claim': String(c.id), 'data-decision': c.decision },
      h('h2', {}, `Claim ${c.id}: ${colorName(c.claimant)} claims a draw · ${c.decision}`),
      h('p', { class: 'arb-basis' }, `${c.basis === 'a' || c.basis === 'b' ? 'D1 ' : ''}${BASIS_TEXT[c.basis] || c.basis}${c.move ? `, with the move ${c.move}` : ''}${c.basis === 'a' || c.basis === 'b' ? '' : `: ${c.correct ? 'correct' : 'NOT correct'} (the relay's check)`}. Clocks at the claim: White ${formatMs(c.white_ms)}, Black ${formatMs(c.black_ms)}; after ply ${c.ply}.`),
      h('div', { class: 'arb-claim-body' },
        this.frozenBoard(c.fen),
        h('table', { class: 'arb-sheet' }, h('tbody', {}, rows.map((r) => h('tr', {},
          h('td', {}, `${r.no}.`),
          h('td', {}, r.white ? `${r.white.san} ` : '…', r.white ? h('small', {}, formatMs(r.white.clock)) : ''),
          h('td', {}, r.black ? `${r.black.san} ` : '', r.black ? h('small', {}, formatMs(r.black.clock)) : '')))))),
      h('dl', { class: 'arb-evidence' },
        h('dt', {}, 'Material White'), h('dd', {}, mat(ev.white_material)),
        h('dt', {}, 'Material Black'), h('dd', {}, mat(ev.black_material)),
        h('dt', {}, `Last ${ev.moves} moves each`), h('dd', {}, `${ev.captures} captures, ${ev.pawn_moves} pawn moves`),
        h('dt', {}, 'Since last capture/pawn move'), h('dd', {}, `${ev.plies_since_irreversible} plies`),
        h('dt', {}, 'Repetitions'), h('dd', {}, `${ev.repetitions} (max ${ev.max_repetitions})`),
        h('dt', {}, 'Opponent can mate'), h('dd', {}, ev.opponent_can_mate ? 'yes' : 'no')),
      open ? h('form', { class: 'arb-decide', onsubmit: (e) => {
        e.preventDefault();
        const f = Object.fromEntries(new FormData(e.target).entries());
        f.decision = e.submitter ? e.submitter.value : 'postponed';
        this.send('decide', c.game, f);
      } },
      h('input', { name: 'note', placeholder: 'note for the report' }),
      h('label', {}, 'time added (min) ', h('input', { name: 'addedMinutes', type: 'number', min: '0', max: '60', step: '0.5', value: '2' })),
      h('button', { class: 'abtn', type: 'submit', name: 'decision', value: 'draw' }, 'Draw'),
      h('button', { class: 'abtn', type: 'submit', name: 'decision', value: 'rejected' }, 'Reject (+time)'),
      h('button', { class: 'abtn', type: 'submit', name: 'decision', value: 'postponed' }, 'Postpone'))
        : h('p', { class: 'arb-decision' }, `Decision: ${c.decision}${c.decision === 'rejected' && c.added_ms !== null ? ` (+${formatMs(c.added_ms)} to the opponent)` : ''}${c.note ? ` — ${c.note}` : ''}`),
      h('p', {},
        h('button', { class: 'abtn arb-report', type: 'button', onclick: () => this.openReport(c.report) }, 'Printable report'),
        ' ',
        h('button', { class: 'abtn', type: 'button', onclick: () => this.openReport(c.pgn) }, 'PGN')));
  }

  // Clocks: the live store's (counted down), else the monitor's last figure.
  tick() {
    if (!this.el) return;
    const nowUs = this.store.time.relayNowUs(Date.now());
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
      setText(el, noClock ? 'no clock' : formatMs(ms));
      el.classList.toggle('no-clock', noClock);
      el.classList.toggle('under2', underTwoMinutes(ms));
      el.classList.toggle('running', !!(g && g.clock && g.clock.running === side[0] && s && s.result === '*'));
    }
    const list = this.el.querySelector('.arb-alerts');
    if (list) list.classList.toggle('flash', Date.now() < this.flashUntil);
    // An alert while the sound is not enabled points at the button.
    const gate = this.el.querySelector('.arb-sound.locked');
    if (gate) gate.classList.toggle('flash', Date.now() < this.flashUntil);
  }
}

// chessrelay viewer: round overview and game page, fed by the relay's
// WebSocket (docs/protocol.md). Plain DOM, chessground for the boards.

import { Chessground } from 'chessground';
import './app.css';
import { Store, uciSquares, isCheck, sideToMove } from './state.js';
import { Connection } from './conn.js';
import { NOTATIONS, localizeSan } from './san.js';
import { clockRemaining, formatClock } from './clock.js';
import { parseRoute, moveNumberLabel, resultText, resultLine, playerScore, clampPly } from './view.js';
import { ArbiterStore, isArbiterMessage } from './arbiter.js';
import { ArbiterPage } from './arbiter-ui.js';

const store = new Store();
const arb = new ArbiterStore();
const ui = {
  route: parseRoute(location.hash),
  notation: readPref('cr.notation', 'en'),
  conn: { state: 'connecting', info: {} },
  viewPly: null,          // null: follow the live position
  orientation: 'white',
  cards: new Map(),       // game id -> overview card
  gameView: null,         // the game page's elements
  renderQueued: false,
  lastError: null,
};

function readPref(key, dflt) {
  try {
    const v = localStorage.getItem(key);
    return v && NOTATIONS[v] ? v : dflt;
  } catch (e) {
    return dflt;
  }
}

function writePref(key, v) {
  try { localStorage.setItem(key, v); } catch (e) { /* private mode */ }
}

// --- tiny DOM helper ---------------------------------------------------------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Inline SVG icons: no icon font, no glyph the system fonts may lack.
const ICONS = {
  first: 'M6 5h2v14H6zM20 5v14L9 12z',
  prev: 'M17 5v14L6 12z',
  next: 'M7 5v14l11-7z',
  last: 'M16 5h2v14h-2zM4 5v14l11-7z',
  flip: 'M7 3 3 7h3v10h2V7h3zM17 21l4-4h-3V7h-2v10h-3z',
  clock: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zm-1 3v6.6l4.8 2.9 1-1.7-3.8-2.3V7z',
  download: 'M11 3h2v10l3.3-3.3 1.4 1.4L12 16.8l-5.7-5.7 1.4-1.4L11 13zM5 19h14v2H5z',
};
function icon(name) {
  const span = document.createElement('span');
  span.className = 'icon';
  span.innerHTML = `<svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true"><path fill="currentColor" d="${ICONS[name]}"/></svg>`;
  return span;
}

function setText(el, text) {
  const t = text === null || text === undefined ? '' : String(text);
  if (el.textContent !== t) el.textContent = t;
}

// SAN in the chosen notation; figurines get a span so they can be sized.
function sanNode(san) {
  const text = localizeSan(san, ui.notation);
  if (ui.notation !== 'figurine' || typeof text !== 'string') return document.createTextNode(text ?? '');
  const frag = document.createDocumentFragment();
  for (const part of text.split(/([♚♛♜♝♞])/)) {
    if (!part) continue;
    frag.append(/[♚♛♜♝♞]/.test(part) ? h('span', { class: 'fig' }, part) : document.createTextNode(part));
  }
  return frag;
}

// --- connection ----------------------------------------------------------------
// An arbiter opens the page once with ?token=...; it is kept for later visits.
function arbiterToken() {
  try {
    const q = new URLSearchParams(location.search).get('token');
    if (q !== null) {
      if (q) localStorage.setItem('cr.token', q); else localStorage.removeItem('cr.token');
    }
    return localStorage.getItem('cr.token') || null;
  } catch (e) {
    return null;
  }
}

const wsUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
const conn = new Connection({
  url: wsUrl,
  WebSocket: window.WebSocket,
  getSince: (sub) => store.sinceFor(sub),
  hello: () => {
    const token = arbiterToken();
    return token ? { op: 'hello', token } : { op: 'hello' };
  },
  onMessage: (msg) => {
    if (isArbiterMessage(msg)) {
      const a = arb.apply(msg);
      if (a.alerts.length) arbiterPage.onAlerts(a.alerts);
      if (a.changed) scheduleRender();
      return;
    }
    const r = store.apply(msg, Date.now());
    for (const id of r.resync) conn.resync(id);
    if (r.list) conn.requestList();
    if (r.error) {
      ui.lastError = { text: r.error.error || 'error', at: Date.now() };
      console.warn('relay error', r.error);
    }
    if (msg.type === 'games' && ui.route.page === 'round' && ui.route.round === null) pickDefaultRound();
    scheduleRender();
  },
  onState: (state, info) => {
    // The arbiter channel (incidents, counters, claims) for token holders.
    if (state === 'open' && arbiterToken()) conn.send({ op: 'arbiter' });
    ui.conn = { state, info };
    scheduleRender();
  },
});
const arbiterPage = new ArbiterPage({ store, arb, conn, token: arbiterToken, main: null, onChange: () => scheduleRender() });
window.__cr = { store, conn, ui, arb, arbiterPage }; // for tests and curious arbiters

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') conn.nudge();
});
window.addEventListener('online', () => conn.nudge());

// --- routing -------------------------------------------------------------------
function pickDefaultRound() {
  const rounds = store.rounds();
  if (!rounds.length) return;
  // The latest round with a game under way, else the latest round.
  let pick = rounds[rounds.length - 1];
  for (const r of rounds) {
    if (store.roundGames(r).some((g) => g.result === '*' && store.current(g).plies > 0)) pick = r;
  }
  history.replaceState(null, '', `#/round/${encodeURIComponent(pick)}`);
  onRoute();
}

function onRoute() {
  const prev = ui.route;
  ui.route = parseRoute(location.hash);
  if (ui.route.page === 'arbiter') {
    window.scrollTo(0, 0);
    scheduleRender();
    return;
  }
  if (ui.route.page === 'game') {
    if (prev.page !== 'game' || prev.id !== ui.route.id) {
      ui.viewPly = null;
      ui.orientation = 'white';
    }
    // The game's round covers it (and feeds the list of boards beside it);
    // a bare game link subscribes the game until its round is known.
    const known = store.games.get(ui.route.id);
    if (known && known.round !== null) conn.subscribe({ round: known.round });
    else conn.subscribe({ game: ui.route.id });
  } else if (ui.route.round !== null) {
    conn.subscribe({ round: ui.route.round });
  } else {
    pickDefaultRound();
  }
  window.scrollTo(0, 0);
  scheduleRender();
}
window.addEventListener('hashchange', onRoute);

// --- rendering -------------------------------------------------------------------
const root = document.getElementById('app');
const header = h('header', { class: 'topbar' });
const noticeBar = h('div', { class: 'notice-bar', role: 'status', 'aria-live': 'polite' });
const main = h('main', { class: 'main' });
root.append(header, noticeBar, main);
arbiterPage.main = main;

function scheduleRender() {
  if (ui.renderQueued) return;
  ui.renderQueued = true;
  requestAnimationFrame(() => {
    ui.renderQueued = false;
    render();
  });
}

function render() {
  renderHeader();
  renderNotice();
  if (ui.route.page === 'arbiter') {
    destroyOverview();
    destroyGame();
    arbiterPage.render(ui.route);
  } else if (ui.route.page === 'game') {
    arbiterPage.destroy();
    destroyOverview();
    renderGame();
  } else {
    arbiterPage.destroy();
    destroyGame();
    renderOverview();
  }
  tickClocks();
}

function currentRound() {
  if (ui.route.page === 'round') return ui.route.round;
  const g = store.games.get(ui.route.id);
  return g ? g.round : null;
}

function eventName() {
  const r = currentRound();
  for (const g of store.games.values()) {
    if ((r === null || g.round === r) && g.tags && g.tags.Event) return g.tags.Event;
  }
  return '';
}

let headerKey = '';
function renderHeader() {
  const rounds = store.rounds();
  const cur = currentRound();
  const { state, info } = ui.conn;
  const key = JSON.stringify([rounds, cur, state, eventName(), ui.route.page, store.welcome]);
  if (key === headerKey) return;
  headerKey = key;
  const pill = h('span', { class: `conn conn-${state}`, 'data-state': state, title: 'connection to the relay' },
    h('span', { class: 'dot' }), connLabel(state, info));
  header.replaceChildren(...[
    h('a', { class: 'brand', href: cur !== null ? `#/round/${encodeURIComponent(cur)}` : '#/' }, '♞ chessrelay'),
    eventName() ? h('span', { class: 'event' }, eventName()) : null,
    h('nav', { class: 'rounds', 'aria-label': 'rounds' },
      rounds.map((r) => h('a', {
        class: 'round-tab' + (r === cur ? ' active' : ''),
        href: `#/round/${encodeURIComponent(r)}`,
        'data-round': r,
      }, `Round ${r}`))),
    store.welcome && store.welcome.trusted ? h('span', { class: 'badge trusted', title: 'signed in with a token: no public delay' }, store.welcome.role || 'arbiter') : null,
    store.welcome && store.welcome.trusted && arbiterToken() ? h('a', { class: 'round-tab arb-link' + (ui.route.page === 'arbiter' ? ' active' : ''), href: '#/arbiter' }, 'Arbiter') : null,
    pill,
  ].filter(Boolean));
}

function connLabel(state) {
  if (state === 'open') return 'Live';
  if (state === 'connecting') return 'Connecting…';
  if (state === 'reconnecting') return 'Reconnecting…';
  return 'Offline';
}

function renderNotice() {
  const { state, info } = ui.conn;
  const parts = [];
  if (state === 'reconnecting') {
    const s = Math.max(0, Math.ceil(((info.at || Date.now()) - Date.now()) / 1000));
    parts.push(h('span', { class: 'warn' }, `Connection to the relay lost — retrying in ${s} s. Moves resume where they stopped.`));
  } else if (state === 'connecting' && store.lastSeq > 0) {
    parts.push(h('span', { class: 'warn' }, 'Reconnecting to the relay…'));
  }
  if (ui.lastError && Date.now() - ui.lastError.at < 8000) {
    parts.push(h('span', { class: 'warn' }, `Relay: ${ui.lastError.text}`));
  }
  let delay = 0;
  if (ui.route.page === 'game') {
    const g = store.games.get(ui.route.id);
    delay = g ? g.delay : 0;
  } else {
    for (const g of store.games.values()) if (String(g.round) === String(ui.route.round)) delay = Math.max(delay, g.delay || 0);
  }
  if (store.welcome && !store.welcome.trusted) delay = Math.max(delay, store.welcome.delay || 0);
  if (store.welcome && store.welcome.trusted) delay = 0;
  if (delay > 0) parts.push(h('span', { class: 'delay' }, icon('clock'), ` Public broadcast: moves and clocks are shown with a ${formatDelay(delay)} delay.`));
  noticeBar.replaceChildren(...parts);
  noticeBar.hidden = parts.length === 0;
}

function formatDelay(s) {
  if (s >= 60 && s % 60 === 0) return `${s / 60}-minute`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s}-second`;
}

// --- overview ----------------------------------------------------------------------
function destroyOverview() {
  for (const c of ui.cards.values()) c.cg.destroy();
  ui.cards.clear();
  overviewEl = null;
}

let overviewEl = null;
function renderOverview() {
  const round = ui.route.round;
  if (!overviewEl) {
    overviewEl = h('section', { class: 'overview' },
      h('div', { class: 'overview-head' },
        h('h1', { class: 'round-title' }),
        h('a', { class: 'pgn-link round-pgn', download: true }, icon('download'), ' Round PGN')),
      h('div', { class: 'boards' }));
    main.replaceChildren(overviewEl);
  }
  const title = overviewEl.querySelector('.round-title');
  const pgn = overviewEl.querySelector('.round-pgn');
  const grid = overviewEl.querySelector('.boards');
  if (round === null) {
    setText(title, ui.conn.state === 'open' && store.welcome ? 'No games yet: the boards appear here as soon as the relay has them.' : 'Waiting for the relay…');
    pgn.hidden = true;
    return;
  }
  const games = store.roundGames(round);
  const live = games.filter((g) => g.result === '*' && (g.moves.length || (g.summary && g.summary.plies))).length;
  document.title = `Round ${round}${eventName() ? ' · ' + eventName() : ''} · chessrelay`;
  setText(title, `Round ${round}` + (games.length ? ` · ${games.length} board${games.length > 1 ? 's' : ''}${live ? ` · ${live} live` : ''}` : ''));
  pgn.hidden = false;
  pgn.href = `/round/${encodeURIComponent(round)}.pgn`;
  if (!games.length) {
    if (!grid.firstChild || !grid.firstChild.classList.contains('empty')) {
      grid.replaceChildren(h('p', { class: 'empty' }, 'No boards in this round yet.'));
    }
    return;
  }
  grid.classList.toggle('few', games.length <= 3); // a small event gets bigger boards
  const wanted = new Set(games.map((g) => g.id));
  for (const [id, c] of ui.cards) {
    if (!wanted.has(id)) {
      c.cg.destroy();
      c.el.remove();
      ui.cards.delete(id);
    }
  }
  const empty = grid.querySelector('.empty');
  if (empty) empty.remove();
  let prev = null;
  for (const g of games) {
    let c = ui.cards.get(g.id);
    if (!c) {
      c = makeCard(g);
      ui.cards.set(g.id, c);
    }
    // Only games that changed since their card was drawn are touched.
    const sig = [g.seq, g.moves.length, g.loaded, g.summary && g.summary.plies, g.result, g.online, g.attention,
      g.statusReason, g.white, g.black, g.whiteElo, g.blackElo, g.whiteTitle, g.blackTitle, g.table, g.board, !!g.clock, ui.notation].join('|');
    if (sig !== c.sig) {
      c.sig = sig;
      updateCard(c, g);
    }
    // Keep DOM order equal to the stable board order without churning nodes.
    const want = prev ? prev.nextSibling : grid.firstChild;
    if (want !== c.el) grid.insertBefore(c.el, want);
    prev = c.el;
  }
}

function playerRow(cls) {
  return h('div', { class: `player ${cls}` },
    h('span', { class: 'score' }),
    h('span', { class: 'name' }),
    h('span', { class: 'elo' }),
    h('span', { class: 'clock' }));
}

function makeCard(g) {
  const box = h('div', { class: 'cgbox' });
  const top = playerRow('top');
  const bottom = playerRow('bottom');
  const el = h('a', { class: 'card', href: `#/game/${g.id}`, 'data-game': String(g.id) },
    h('div', { class: 'card-head' }, h('span', { class: 'board-no' }), h('span', { class: 'badges' })),
    top, h('div', { class: 'mini' }, box), bottom,
    h('div', { class: 'card-foot' }, h('span', { class: 'last' }), h('span', { class: 'result' })));
  const cg = Chessground(box, {
    viewOnly: true, coordinates: false, orientation: 'white',
    animation: { enabled: true, duration: 200 },
    drawable: { enabled: false, visible: false },
    highlight: { lastMove: true, check: true },
  });
  return { el, cg, box, top, bottom, key: '' };
}

function fillPlayer(row, g, side, showClock) {
  const name = side === 'white' ? g.white : g.black;
  const title = side === 'white' ? g.whiteTitle : g.blackTitle;
  const rating = side === 'white' ? g.whiteElo : g.blackElo;
  const shown = name || (side === 'white' ? 'White' : 'Black');
  setText(row.querySelector('.name'), title ? `${title} ${shown}` : shown);
  setText(row.querySelector('.elo'), rating || '');
  setText(row.querySelector('.score'), playerScore(g.result, side));
  const clk = row.querySelector('.clock');
  clk.dataset.game = String(g.id);
  clk.dataset.side = side;
  clk.hidden = !showClock;
  row.dataset.side = side;
}

function updateCard(c, g) {
  const cur = store.current(g);
  const started = cur.plies > 0;
  setText(c.el.querySelector('.board-no'), g.table !== null && g.table !== undefined ? `Board ${g.table}` : (g.board ? String(g.board) : `Game ${g.id}`));
  const badges = [];
  if (!g.online) badges.push(h('span', { class: 'badge offline', title: g.statusReason || 'the board is not connected' }, 'offline'));
  if (g.attention) badges.push(h('span', { class: 'badge attention', title: g.statusReason || 'an arbiter should look at this board' }, '⚠', h('span', { class: 'btxt' }, ' attention')));
  const badgeEl = c.el.querySelector('.badges');
  const badgeKey = `${g.online}|${g.attention}|${g.statusReason}`;
  if (badgeEl.dataset.key !== badgeKey) {
    badgeEl.replaceChildren(...badges);
    badgeEl.dataset.key = badgeKey;
  }
  c.el.classList.toggle('is-offline', !g.online);
  c.el.classList.toggle('is-attention', !!g.attention);
  c.el.classList.toggle('is-finished', g.result !== '*');
  c.el.classList.toggle('is-waiting', !started);
  fillPlayer(c.top, g, 'black', !!g.clock);
  fillPlayer(c.bottom, g, 'white', !!g.clock);
  const last = c.el.querySelector('.last');
  const lastKey = `${cur.plies}|${cur.san}|${ui.notation}`;
  if (last.dataset.key !== lastKey) {
    last.dataset.key = lastKey;
    if (started && cur.san) last.replaceChildren(moveNumberLabel(g.start, cur.plies - 1) + ' ', sanNode(cur.san));
    else last.replaceChildren(started ? '' : 'Pairing · not started');
  }
  const res = c.el.querySelector('.result');
  setText(res, g.result !== '*' ? resultText(g.result) : '');
  const key = `${cur.fen}|${cur.uci}|${cur.san}`;
  if (key !== c.key) {
    const first = c.key === '';
    c.key = key;
    const turn = sideToMove(cur.fen);
    setBoard(c.cg, first, {
      fen: cur.fen, turnColor: turn,
      lastMove: uciSquares(cur.uci),
      check: isCheck(cur.san) ? turn : false,
    });
    c.box.dataset.fen = cur.fen;
  }
}

// The first position a board shows appears at once; later ones slide in.
function setBoard(cg, first, config) {
  if (first) cg.set({ animation: { enabled: false } });
  cg.set(config);
  if (first) cg.set({ animation: { enabled: true } });
}

// --- game page ------------------------------------------------------------------------
function destroyGame() {
  if (ui.gameView) {
    ui.gameView.cg.destroy();
    ui.gameView = null;
  }
}

function makeGameView(id) {
  const box = h('div', { class: 'cgbox' });
  const top = playerRow('top');
  const bottom = playerRow('bottom');
  const btn = (cls, label, title, fn) => h('button', { class: `btn ${cls}`, type: 'button', title, 'aria-label': title, onclick: fn }, label);
  const controls = h('div', { class: 'controls' },
    btn('first', icon('first'), 'first move (Home)', () => goPly(0)),
    btn('prev', icon('prev'), 'previous move (←)', () => stepPly(-1)),
    btn('next', icon('next'), 'next move (→)', () => stepPly(1)),
    btn('last', icon('last'), 'latest move (End)', () => goPly(null)),
    btn('live', '● Live', 'jump to the live position', () => goPly(null)),
    btn('flip', icon('flip'), 'flip the board (f)', () => { ui.orientation = ui.orientation === 'white' ? 'black' : 'white'; scheduleRender(); }));
  const select = h('select', { class: 'notation', 'aria-label': 'move notation', onchange: (e) => {
    ui.notation = e.target.value;
    writePref('cr.notation', ui.notation);
    if (ui.gameView) ui.gameView.movesKey = '';
    for (const c of ui.cards.values()) c.el.querySelector('.last').dataset.key = '';
    scheduleRender();
  } }, Object.entries(NOTATIONS).map(([k, v]) => h('option', { value: k }, v.label)));
  select.value = ui.notation;
  const moves = h('div', { class: 'moves', role: 'list', 'aria-label': 'moves' });
  moves.addEventListener('click', (e) => {
    const m = e.target.closest('[data-ply]');
    if (m) goPly(Number(m.dataset.ply) + 1);
  });
  const el = h('section', { class: 'game-page' },
    h('div', { class: 'board-col' },
      top, h('div', { class: 'board-wrap' }, box), bottom),
    h('aside', { class: 'side' },
      h('div', { class: 'game-head' },
        h('a', { class: 'back' }, '← Round'),
        h('h1', { class: 'game-title' }),
        h('div', { class: 'game-sub' })),
      h('div', { class: 'game-status' }),
      controls,
      moves,
      h('div', { class: 'game-result' }),
      h('div', { class: 'tools' },
        h('label', { class: 'notation-label' }, 'Notation ', select),
        h('a', { class: 'pgn-link game-pgn', download: true }, icon('download'), ' Game PGN'),
        h('a', { class: 'pgn-link round-pgn', download: true }, icon('download'), ' Round PGN')),
      h('nav', { class: 'round-list', 'aria-label': 'other boards of the round' })));
  const cg = Chessground(box, {
    viewOnly: true, coordinates: true, orientation: ui.orientation,
    animation: { enabled: true, duration: 180 },
    drawable: { enabled: false, visible: true },
    highlight: { lastMove: true, check: true },
  });
  return { id, el, cg, box, top, bottom, moves, select, key: '', movesKey: '' };
}

function gameOf() {
  return ui.route.page === 'game' ? store.games.get(ui.route.id) : null;
}

function goPly(p) {
  const g = gameOf();
  if (!g) return;
  ui.viewPly = p === null ? null : clampPly(p, g.moves.length);
  if (ui.viewPly === g.moves.length) ui.viewPly = null;
  scheduleRender();
}

function stepPly(d) {
  const g = gameOf();
  if (!g) return;
  const cur = ui.viewPly === null ? g.moves.length : ui.viewPly;
  goPly(cur + d);
}

document.addEventListener('keydown', (e) => {
  if (ui.route.page !== 'game' || e.target.closest('select, input, textarea')) return;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const k = e.key;
  if (k === 'ArrowLeft') stepPly(-1);
  else if (k === 'ArrowRight') stepPly(1);
  else if (k === 'Home' || k === 'ArrowUp') goPly(0);
  else if (k === 'End' || k === 'ArrowDown') goPly(null);
  else if (k === 'f') { ui.orientation = ui.orientation === 'white' ? 'black' : 'white'; scheduleRender(); }
  else return;
  e.preventDefault();
});

function renderGame() {
  const id = ui.route.id;
  if (!ui.gameView || ui.gameView.id !== id) {
    destroyGame();
    ui.gameView = makeGameView(id);
    main.replaceChildren(ui.gameView.el);
  }
  const v = ui.gameView;
  const g = store.games.get(id);
  const title = v.el.querySelector('.game-title');
  if (!g) {
    setText(title, `Game ${id}`);
    setText(v.el.querySelector('.game-sub'), 'Waiting for the relay…');
    return;
  }
  const n = g.moves.length;
  if (ui.viewPly !== null && ui.viewPly > n) ui.viewPly = n; // a correction shortened the game
  if (ui.viewPly === n) ui.viewPly = null;
  const ply = ui.viewPly === null ? n : ui.viewPly;
  const isLive = ui.viewPly === null;

  document.title = `${g.white || 'White'} – ${g.black || 'Black'} · Round ${g.round ?? '?'} · chessrelay`;
  setText(title, `${g.white || 'White'} – ${g.black || 'Black'}`);
  const sub = [];
  if (g.round !== null) sub.push(`Round ${g.round}`);
  if (g.table !== null && g.table !== undefined) sub.push(`Board ${g.table}`);
  if (g.board) sub.push(String(g.board));
  if (g.tags && g.tags.Event) sub.push(g.tags.Event);
  setText(v.el.querySelector('.game-sub'), sub.join(' · '));
  const back = v.el.querySelector('.back');
  back.href = g.round !== null ? `#/round/${encodeURIComponent(g.round)}` : '#/';
  setText(back, g.round !== null ? `← Round ${g.round}` : '← Rounds');
  v.el.querySelector('.game-pgn').href = `/game/${g.id}.pgn`;
  const rp = v.el.querySelector('.round-pgn');
  rp.hidden = g.round === null;
  if (g.round !== null) rp.href = `/round/${encodeURIComponent(g.round)}.pgn`;

  const status = [];
  if (!g.online) status.push(h('span', { class: 'badge offline', title: g.statusReason || null }, 'board offline'));
  if (g.attention) status.push(h('span', { class: 'badge attention', title: g.statusReason || null }, '⚠ arbiter attention'));
  if (g.statusReason && (!g.online || g.attention)) status.push(h('span', { class: 'status-reason' }, g.statusReason));
  if (g.stale) status.push(h('span', { class: 'badge' }, 'resyncing…'));
  if (!isLive) {
    const at = ply ? `${moveNumberLabel(g.start, ply - 1)} ${localizeSan(g.moves[ply - 1].san, ui.notation)}` : 'the start';
    status.push(h('span', { class: 'badge browsing' }, `viewing ${at} — not live`));
  }
  const statusEl = v.el.querySelector('.game-status');
  const sk = status.map((s) => s.textContent).join('|');
  if (statusEl.dataset.key !== sk) {
    statusEl.replaceChildren(...status);
    statusEl.dataset.key = sk;
  }
  v.el.classList.toggle('browsing', !isLive);
  v.el.querySelector('.btn.live').classList.toggle('on', isLive);
  v.el.querySelector('.btn.prev').disabled = ply === 0;
  v.el.querySelector('.btn.first').disabled = ply === 0;
  v.el.querySelector('.btn.next').disabled = isLive;
  v.el.querySelector('.btn.last').disabled = isLive;

  // Players: the top bar is the side at the top of the board.
  const topSide = ui.orientation === 'white' ? 'black' : 'white';
  fillPlayer(v.top, g, topSide, !!g.clock || g.moves.some((m) => m.clock !== null));
  fillPlayer(v.bottom, g, topSide === 'white' ? 'black' : 'white', !!g.clock || g.moves.some((m) => m.clock !== null));
  v.top.querySelector('.clock').dataset.ply = isLive ? '' : String(ply);
  v.bottom.querySelector('.clock').dataset.ply = isLive ? '' : String(ply);

  // Board.
  const fen = store.fenAt(g, ply);
  const m = ply > 0 ? g.moves[ply - 1] : null;
  const key = `${fen}|${m ? m.uci : ''}|${ui.orientation}`;
  if (key !== v.key) {
    const first = v.key === '';
    v.key = key;
    const turn = sideToMove(fen);
    setBoard(v.cg, first, {
      fen, turnColor: turn, orientation: ui.orientation,
      lastMove: m ? uciSquares(m.uci) : undefined,
      check: m && isCheck(m.san) ? turn : false,
    });
    v.box.dataset.fen = fen;
    v.box.dataset.ply = String(ply);
  }

  // Move list.
  const mk = `${g.seq}|${n}|${ply}|${ui.notation}|${g.moves.map((x) => x.san).join(' ')}`;
  if (mk !== v.movesKey) {
    v.movesKey = mk;
    renderMoves(v, g, ply);
  }
  if (g.round !== null) {
    // The other boards of the round, kept live beside the game.
    conn.subscribe({ round: g.round });
    renderRoundList(v, g);
  }
  const res = v.el.querySelector('.game-result');
  if (g.result !== '*') {
    setText(res, resultLine(g.result, g.reason, n ? g.moves[n - 1].san : null));
    res.hidden = false;
  } else {
    res.hidden = true;
  }
}

function renderRoundList(v, g) {
  const list = v.el.querySelector('.round-list');
  const games = store.roundGames(g.round);
  const rows = games.map((o) => {
    const cur = store.current(o);
    const state = o.result !== '*' ? resultText(o.result)
      : cur.plies ? `${moveNumberLabel(o.start, cur.plies - 1)} ${localizeSan(cur.san || '', ui.notation)}` : 'not started';
    return [o.id, o.table ?? '', o.white, o.black, state, o.online, o.attention];
  });
  const key = JSON.stringify([g.id, g.round, rows]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    h('h2', {}, `Round ${g.round}`),
    ...rows.map(([id, table, white, black, state, online, attention]) => h('a', {
      class: 'rl-row' + (id === g.id ? ' current' : '') + (online ? '' : ' is-offline') + (attention ? ' is-attention' : ''),
      href: `#/game/${id}`, 'data-game': String(id),
    },
    h('span', { class: 'rl-board' }, table === '' ? '' : String(table)),
    h('span', { class: 'rl-players' }, h('span', {}, white || 'White'), h('span', {}, black || 'Black')),
    h('span', { class: 'rl-state' }, state))));
}

function renderMoves(v, g, ply) {
  const rows = [];
  const startBlack = sideToMove(g.start) === 'black';
  const cells = [];
  if (startBlack && g.moves.length) cells.push({ ph: true });
  g.moves.forEach((mv, i) => cells.push({ mv, i }));
  for (let k = 0; k < cells.length; k += 2) {
    const firstPly = cells[k].ph ? cells[k + 1].i : cells[k].i;
    const no = moveNumberLabel(g.start, firstPly).replace(/\.+$/, '');
    rows.push(h('span', { class: 'idx' }, `${no}.`));
    for (const c of [cells[k], cells[k + 1]]) {
      if (!c) { rows.push(h('span', { class: 'mv empty' })); continue; }
      if (c.ph) { rows.push(h('span', { class: 'mv empty' }, '…')); continue; }
      const flags = c.mv.flags || [];
      const cls = ['mv'];
      const titles = [];
      if (c.i === ply - 1) cls.push('current');
      if (flags.includes('reconstructed')) { cls.push('reconstructed'); titles.push('reconstructed: the board missed this move, it was worked out from the positions around it'); }
      if (flags.includes('illegal')) { cls.push('illegal'); titles.push('illegal move on the board'); }
      if (flags.includes('ambiguous')) { cls.push('ambiguous'); titles.push('ambiguous: more than one move fits what the board saw'); }
      rows.push(h('span', { class: cls.join(' '), 'data-ply': String(c.i), 'data-san': c.mv.san, role: 'listitem', title: titles.join('; ') || null },
        sanNode(c.mv.san),
        flags.includes('illegal') ? h('sup', { class: 'flag' }, '!') : null,
        flags.includes('reconstructed') ? h('sup', { class: 'flag' }, 'r') : null,
        flags.includes('draw-offer') ? h('span', { class: 'flag draw' }, ' (=)') : null));
    }
  }
  const legend = [];
  if (g.moves.some((x) => (x.flags || []).includes('reconstructed'))) legend.push('r = reconstructed from missed board updates');
  if (g.moves.some((x) => (x.flags || []).includes('illegal'))) legend.push('! = illegal move on the board');
  if (legend.length) rows.push(h('p', { class: 'legend' }, legend.join(' · ')));
  if (!g.moves.length) rows.push(h('p', { class: 'no-moves' }, g.loaded ? 'The game has not started yet.' : 'Loading moves…'));
  v.moves.replaceChildren(...rows);
  const cur = v.moves.querySelector('.mv.current');
  if (cur) {
    const top = cur.offsetTop - v.moves.offsetTop;
    if (top < v.moves.scrollTop || top > v.moves.scrollTop + v.moves.clientHeight - cur.offsetHeight) {
      v.moves.scrollTop = top - v.moves.clientHeight / 2;
    }
  } else if (ply === 0) {
    v.moves.scrollTop = 0;
  }
}

// --- clocks: counted down locally, only the side to move's -------------------------------
function clockAtPly(g, side, ply) {
  // The clock a player had after their last move at or before `ply`.
  for (let i = ply - 1; i >= 0; i--) {
    const mover = sideToMove(store.fenAt(g, i));
    if (mover === side && g.moves[i].clock !== null) return g.moves[i].clock;
  }
  return null;
}

function tickClocks() {
  const nowUs = store.time.relayNowUs(Date.now());
  for (const el of document.querySelectorAll('.clock[data-game]')) {
    const g = store.games.get(Number(el.dataset.game));
    const side = el.dataset.side;
    if (!g) continue;
    let ms;
    let running = false;
    if (el.dataset.ply) {
      ms = clockAtPly(g, side, Number(el.dataset.ply));
    } else {
      ms = clockRemaining(g.clock, side, nowUs);
      running = !!g.clock && g.clock.running === side[0] && g.result === '*';
    }
    setText(el, ms === null ? '' : formatClock(ms));
    el.classList.toggle('running', running);
    el.classList.toggle('low', ms !== null && ms < 60000);
    el.parentElement.classList.toggle('to-move', running);
  }
  if (ui.conn.state === 'reconnecting' || (ui.lastError && Date.now() - ui.lastError.at < 9000)) renderNotice();
}
setInterval(() => {
  if (ui.route.page === 'arbiter') arbiterPage.tick();
}, 200);
setInterval(tickClocks, 100);

// New rounds (and, before the first game, any game at all) reach a viewer
// only through the list: ask for it now and then, often while it is empty.
let lastListAt = 0;
setInterval(() => {
  if (conn.state !== 'open') return;
  const every = store.games.size ? 30000 : 2000;
  if (Date.now() - lastListAt >= every) {
    lastListAt = Date.now();
    conn.requestList();
  }
}, 1000);

onRoute();
conn.start();

// chessrelay viewer: round overview and game page, fed by the relay's
// WebSocket (docs/protocol.md). Plain DOM, chessground for the boards.

import './app.css';
import { Store, sideToMove } from './game-store.js';
import { Connection } from './conn.js';
import { NOTATIONS } from './san.js';
import { clockRemaining, formatClock, formatElapsed } from './clock.js';
import { parseRoute, parseEmbed, embedLayout } from './view.js';
import { evalShown } from './eval.js';
import { ArbiterStore, isArbiterMessage } from './arbiter-store.js';
import { h, setText, icon } from './dom.js';
import { OverviewPage } from './overview-page.js';
import { GamePage } from './game-page.js';
import { ArbiterPage } from './arbiter-page.js';
import { StandingsPage } from './standings-page.js';
import { roundStatus, mergeGames } from './standings.js';
import { pairings, refreshPairings } from './pairings.js';
import { Prefs } from './prefs.js';
import { pickLang, setLang, lang, t } from './i18n.js';
import { Extras } from './extras.js';

const store = new Store();
const arb = new ArbiterStore();
// /embed/game/<id>: the game page alone, for an iframe (view.js parseEmbed).
const embed = parseEmbed(location.pathname, location.search);
if (embed) {
  document.documentElement.classList.add('embed');
  for (const part of embed.hide) document.documentElement.classList.add(`hide-${part.replace(/[^a-z]/g, '')}`);
}
// The UI language: the stored choice, else the browser's (i18n.js).
setLang(pickLang(readRaw('cr.lang'), navigator.languages || [navigator.language]));
function chooseLang(l) {
  writePref('cr.lang', l);
  location.reload(); // every page's text is drawn again in the new language
}
const prefs = new Prefs(() => scheduleRender());
const routeOf = () => (embed ? { page: 'game', id: embed.id, ply: embed.ply } : parseRoute(location.hash));
const ui = {
  embed,
  lang: lang(),
  route: routeOf(),
  notation: readPref('cr.notation', 'en'),
  showEval: evalShown(location.search, readRaw('cr.eval')), // ?eval=0 for screens in the hall
  conn: { state: 'connecting', info: {} },
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

function readRaw(key) {
  try { return localStorage.getItem(key); } catch (e) { return null; }
}

function writePref(key, v) {
  try { localStorage.setItem(key, v); } catch (e) { /* private mode */ }
}

// --- connection ----------------------------------------------------------------
// An arbiter opens the page once with ?token=…: the token moves to this
// tab's sessionStorage and leaves the address bar (so it is in no history
// entry, bookmark or shared link, and is gone with the tab). Sign-out drops it.
const TOKEN_KEY = 'cr.token';
function takeToken() {
  try {
    // Earlier versions kept it in localStorage: moved, not left behind.
    const old = localStorage.getItem(TOKEN_KEY);
    if (old !== null) {
      if (!sessionStorage.getItem(TOKEN_KEY)) sessionStorage.setItem(TOKEN_KEY, old);
      localStorage.removeItem(TOKEN_KEY);
    }
    const params = new URLSearchParams(location.search);
    if (!params.has('token')) return;
    const q = params.get('token');
    if (q) sessionStorage.setItem(TOKEN_KEY, q); else sessionStorage.removeItem(TOKEN_KEY);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(history.state, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
  } catch (e) { /* storage refused: the page stays a viewer's */ }
}
takeToken();

function arbiterToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || null;
  } catch (e) {
    return null;
  }
}

// A fresh page without the token: a plain viewer's connection and state.
function signOut() {
  try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing kept */ }
  location.reload();
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
    extras.onChanged(r.changed); // followed players' notifications, spoken moves
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
  ui.route = routeOf();
  if (ui.route.page === 'arbiter' || ui.route.page === 'standings' || ui.route.page === 'followed') {
    window.scrollTo(0, 0);
    scheduleRender();
    return;
  }
  // A round is followed by its boards' summaries (what the overview shows);
  // only the game on screen is followed whole, its moves from a snapshot.
  const open = ui.route.page === 'game' ? ui.route.id : null;
  for (const id of conn.gameSubs()) if (id !== open) conn.unsubscribe({ game: id });
  if (ui.route.page === 'game') {
    const known = store.games.get(ui.route.id);
    if (known && known.round !== null) conn.subscribe({ round: known.round, summary: true });
    conn.subscribe({ game: ui.route.id });
  } else if (ui.route.round !== null) {
    conn.subscribe({ round: ui.route.round, summary: true });
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

// The pages, one per route kind (view.js parseRoute names them); each has
// render(route) and destroy(), the arbiter page also tick().
const app = {
  store, conn, ui, main, eventName, prefs,
  scheduleRender: () => scheduleRender(),
  setNotation: (v) => {
    ui.notation = v;
    writePref('cr.notation', v);
    scheduleRender();
  },
  setShowEval: (v) => {
    ui.showEval = !!v;
    writePref('cr.eval', v ? '1' : '0');
    scheduleRender();
  },
};
const extras = new Extras({ ...app, root });
app.extras = extras;
const arbiterPage = new ArbiterPage({ store, arb, conn, ui, token: arbiterToken, main, onChange: () => scheduleRender() });
const PAGES = {
  round: new OverviewPage(app),
  game: new GamePage(app),
  arbiter: arbiterPage,
  standings: new StandingsPage(app),
  followed: extras.followedPage,
};
window.__cr = { store, conn, ui, arb, arbiterPage, pages: PAGES, prefs }; // for tests and curious arbiters

function scheduleRender() {
  if (ui.renderQueued) return;
  ui.renderQueued = true;
  requestAnimationFrame(() => {
    ui.renderQueued = false;
    render();
  });
}

// The embed sizes its board from the frame, width and height (view.js).
let embedKey = '';
function fitEmbed() {
  const engine = ui.showEval && store.engineSeen;
  const key = `${innerWidth}x${innerHeight}|${engine}`;
  if (key === embedKey) return;
  embedKey = key;
  const l = embedLayout(innerWidth, innerHeight, { engine });
  const root = document.documentElement;
  root.style.setProperty('--eb', `${l.board}px`);
  root.style.setProperty('--ebar', engine ? '32px' : '0px');
  root.classList.toggle('embed-under', l.side === 'under');
  root.classList.toggle('embed-nomoves', !l.moves);
  root.classList.toggle('embed-noclocks', !l.clocks);
}
if (embed) window.addEventListener('resize', () => scheduleRender());

function render() {
  if (embed) fitEmbed();
  renderHeader();
  renderNotice();
  const shown = PAGES[ui.route.page];
  for (const p of Object.values(PAGES)) if (p !== shown) p.destroy();
  shown.render(ui.route);
  extras.render(ui.route);
  tickClocks();
}

function currentRound() {
  if (ui.route.page === 'round') return ui.route.round;
  const g = store.games.get(ui.route.id);
  return g ? g.round : null;
}

// The tournament's name: the pairings file's (the relay's /pairings.json),
// else the Event most of the round's games have (a spare board's feed may
// name another event; the tournament's games outnumber it). g: a game whose
// round is meant, else the page's round.
function eventName(g = null) {
  const p = pairings();
  if (p && typeof p.event === 'string' && p.event) return p.event;
  const r = g ? g.round : currentRound();
  const count = new Map();
  for (const o of store.games.values()) {
    const ev = o.tags && o.tags.Event;
    if (!ev || ev === '?' || (r !== null && r !== undefined && o.round !== r) || store.superseded(o)) continue;
    count.set(ev, (count.get(ev) || 0) + 1);
  }
  let best = '', n = 0;
  for (const [ev, k] of count) if (k > n) { best = ev; n = k; }
  if (!best && g && g.tags && g.tags.Event && g.tags.Event !== '?') return g.tags.Event;
  return best;
}

let headerKey = '';
// The rounds for the tabs: the relay's and the pairings file's (a round
// paired but not begun, or played before the relay started).
function tabRounds() {
  const rounds = store.rounds();
  const known = new Set(rounds.map(String));
  const extra = ((pairings() || {}).rounds || []).map((x) => x.round).filter((r) => !known.has(String(r)));
  if (!extra.length) return rounds;
  const num = (r) => (/^\d+$/.test(String(r)) ? Number(r) : Infinity);
  return [...rounds, ...extra].sort((a, b) => num(a) - num(b) || String(a).localeCompare(String(b)));
}

function renderHeader() {
  if (!embed) refreshPairings(render); // round dates and the file's rounds, at most once a minute
  const rounds = tabRounds();
  const cur = currentRound();
  const { state, info } = ui.conn;
  if (embed) {
    header.hidden = true; // an iframe has the host page's header
    return;
  }
  const info2 = rounds.map((r) => roundInfo(r));
  const key = JSON.stringify([rounds, info2, cur, state, eventName(), ui.route.page, store.welcome, extras.headerKey()]);
  if (key === headerKey) return;
  headerKey = key;
  const pill = h('span', { class: `conn conn-${state}`, 'data-state': state, title: t('connection to the relay') },
    h('span', { class: 'dot' }), connLabel(state, info));
  header.replaceChildren(...[
    h('a', { class: 'brand', href: cur !== null ? `#/round/${encodeURIComponent(cur)}` : '#/' }, '♞ chessrelay'),
    eventName() ? h('span', { class: 'event' }, eventName()) : null,
    h('div', { class: 'tabs' }, h('nav', { class: 'rounds', 'aria-label': t('Rounds') },
      rounds.map((r, i) => h('a', {
        class: `round-tab st-${info2[i].status}` + (r === cur && ui.route.page !== 'standings' ? ' active' : ''),
        href: `#/round/${encodeURIComponent(r)}`,
        'data-round': r, 'data-status': info2[i].status,
        title: info2[i].start ? `${statusLabel(info2[i].status)} · ${info2[i].start}` : statusLabel(info2[i].status),
      }, roundName(r), h('span', { class: 'rt-status' }, statusLabel(info2[i].status)),
      info2[i].start && info2[i].status === 'upcoming' ? h('span', { class: 'rt-start' }, info2[i].start) : null))),
    // Beside the tabs, not inside their scroller: never clipped or off-screen.
    rounds.length ? h('a', { class: 'standings-tab' + (ui.route.page === 'standings' ? ' active' : ''), href: '#/standings' }, t('Standings')) : null,
    extras.navTab(ui.route.page)),
    store.welcome && store.welcome.trusted ? h('span', { class: 'badge trusted', title: t('signed in with a token: no public delay') }, !store.welcome.role || store.welcome.role === 'arbiter' ? t('Arbiter') : store.welcome.role) : null,
    store.welcome && store.welcome.trusted && arbiterToken() ? h('a', { class: 'round-tab arb-link' + (ui.route.page === 'arbiter' ? ' active' : ''), href: '#/arbiter' }, t('Arbiter')) : null,
    arbiterToken() ? h('button', { class: 'abtn signout', type: 'button', title: t('forget the arbiter token in this tab'), onclick: signOut }, t('Sign out')) : null,
    prefsMenu(),
    pill,
  ].filter(Boolean));
  revealTabs(header.querySelector('.rounds'));
}

// "Round 5" with the word apart from the number: a phone shows the number
// alone (app.css), a screen reader still reads the whole.
function roundName(r) {
  const [pre, post] = t('Round {r}', { r: '\u0000' }).split('\u0000');
  return h('span', { class: 'rt-name' }, pre ? h('span', { class: 'rt-word' }, pre) : null, String(r), post ? h('span', { class: 'rt-word' }, post) : null);
}

// The round tabs scroll sideways on a narrow screen: the round shown and
// the latest live round are scrolled into it (the live one wins).
function revealTabs(nav) {
  if (!nav) return;
  const show = (el) => {
    if (!el) return;
    const r = el.getBoundingClientRect(), n = nav.getBoundingClientRect();
    if (r.left < n.left) nav.scrollLeft -= n.left - r.left + 8;
    else if (r.right > n.right) nav.scrollLeft += r.right - n.right + 8;
  };
  const live = nav.querySelectorAll('.round-tab.st-live');
  show(nav.querySelector('.round-tab.active'));
  show(live[live.length - 1]);
}

// The settings menu is kept across header redraws (an open menu stays open).
let prefsEl = null;
function prefsMenu() {
  if (!prefsEl) prefsEl = prefs.menu(lang(), chooseLang);
  return prefsEl;
}

// A round tab's status and start time (from the games' Date/Time or
// UTCDate/UTCTime tags, when the pairings or the tournament file give them,
// else the round's date in the pairings file, TRF 132). The status counts
// the file's boards and results too (mergeGames).
function roundInfo(r) {
  const games = store.roundGames(r);
  // A game whose board began a new one is not under way any more.
  // A game whose board began a new one counts as over (its result is the arbiter's to enter).
  const live = games.map((g) => {
    const gone = store.superseded(g);
    return { round: String(r), white: g.white, black: g.black, result: gone ? '-' : g.result, started: !gone && store.current(g).plies > 0 };
  });
  const status = roundStatus(mergeGames(live, pairings()).filter((g) => String(g.round) === String(r)));
  let start = '';
  for (const g of games) {
    const tg = g.tags || {};
    const date = tg.UTCDate || tg.Date;
    const time = tg.UTCTime || tg.Time;
    if (date && /^\d{4}\.\d\d\.\d\d$/.test(date) && time && /^\d\d:\d\d/.test(time)) {
      start = tg.UTCDate && tg.UTCTime
        ? new Date(`${date.replace(/\./g, '-')}T${time.slice(0, 5)}:00Z`).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' })
        : `${date} ${time.slice(0, 5)}`;
      break;
    }
  }
  const pr = ((pairings() || {}).rounds || []).find((x) => String(x.round) === String(r));
  if (!start && pr && pr.date) start = pr.date.replace(/-/g, '.');
  return { status, start };
}

function statusLabel(s) {
  return s === 'live' ? t('live') : s === 'finished' ? t('finished') : t('upcoming');
}

function connLabel(state) {
  if (state === 'open') return t('Live');
  if (state === 'connecting') return t('Connecting…');
  if (state === 'reconnecting') return t('Reconnecting…');
  return t('Offline');
}

function renderNotice() {
  const { state, info } = ui.conn;
  const parts = [];
  if (state === 'reconnecting') {
    const s = Math.max(0, Math.ceil(((info.at || Date.now()) - Date.now()) / 1000));
    parts.push(h('span', { class: 'warn' }, t('Connection to the relay lost — retrying in {s} s. Moves resume where they stopped.', { s })));
  } else if (state === 'connecting' && store.lastSeq > 0) {
    parts.push(h('span', { class: 'warn' }, t('Reconnecting to the relay…')));
  }
  if (ui.lastError && Date.now() - ui.lastError.at < 8000) {
    parts.push(h('span', { class: 'warn' }, t('Relay: {text}', { text: ui.lastError.text })));
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
  parts.push(...extras.notices(delay)); // the video ahead of the boards
  if (delay > 0) parts.push(h('span', { class: 'delay' }, icon('clock'), ' ' + t('Public broadcast: moves and clocks are shown with a {delay} delay.', { delay: formatDelay(delay) })));
  noticeBar.replaceChildren(...parts);
  noticeBar.hidden = parts.length === 0;
}

function formatDelay(s) {
  if (s >= 60 && s % 60 === 0) return t('{n}-minute', { n: s / 60 });
  if (s >= 60) return t('{m} min {s} s', { m: Math.floor(s / 60), s: s % 60 });
  return t('{n}-second', { n: s });
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
    el.closest('.player').classList.toggle('to-move', running);
    const think = el.parentElement.querySelector('.think');
    if (think) {
      // How long the side to move has been on this move, live only.
      const since = running && g.turnAt !== null ? nowUs - g.turnAt : null;
      setText(think, since === null ? '' : t('thinking for {time}', { time: formatElapsed(since / 1000) }));
    }
  }
  if (ui.conn.state === 'reconnecting' || (ui.lastError && Date.now() - ui.lastError.at < 9000)) renderNotice();
}
setInterval(() => {
  const page = PAGES[ui.route.page];
  if (page.tick) page.tick();
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

// Overlays for streaming software (an OBS browser source): a transparent
// page with one game (/overlay/game/<id>: board, names, federations,
// clocks, eval bar, last move) or a strip of a round's boards
// (/overlay/round/<r>). Parameters: view.js parseOverlay. They follow the
// relay live over the WebSocket (conn.js reconnects by itself and resumes),
// never reload, and flash a game whose latest move the engine marks as a
// blunder (?? NAG): class `blunder` for 4 s and a `cr-blunder` event on
// window ({game, ply, san, eval}) for a streamer's own scripts.

import './app.css';
import { Chessground } from 'chessground';
import { Store, uciSquares, isCheck, sideToMove } from './game-store.js';
import { Connection } from './conn.js';
import { h, setText } from './dom.js';
import { setBoard, nameSpans } from './widgets.js';
import { flagUrl, normTitle } from './feds.js';
import { evalBar, fillEvalBar } from './graphs.js';
import { evalText, nagMark } from './eval.js';
import { clockRemaining, formatClock } from './clock.js';
import { moveNumberLabel, resultText, parseOverlay } from './view.js';

const FLASH_MS = 4000;

// A player's line: who (flag image, title, surname first) and, beside it
// or on a second line in a narrow box (app.css), rating, score and clock.
function playerLine(side) {
  return h('div', { class: `ov-player ${side}` },
    h('span', { class: 'ov-who' }, h('span', { class: 'ov-fed' }), h('abbr', { class: 'ov-title' }), h('span', { class: 'ov-name' })),
    h('span', { class: 'ov-more' }, h('span', { class: 'ov-elo' }), h('span', { class: 'ov-score' }), h('span', { class: 'ov-clock', 'data-side': side })));
}

// A narrow box's name line: a surname too long for it is set smaller (down
// to 9 px) rather than cut or wrapped, so that a strip's boards stay in one
// row; longer still, it wraps.
function fitName(el) {
  const sur = el.querySelector('.sur');
  el.style.fontSize = '';
  el.classList.remove('wrap');
  if (!sur || !el.clientWidth) return;
  let px = parseFloat(getComputedStyle(el).fontSize);
  while (sur.scrollWidth > el.clientWidth + 0.5 && px > 9) {
    px -= 0.5;
    el.style.fontSize = `${px}px`;
  }
  if (sur.scrollWidth > el.clientWidth + 0.5) el.classList.add('wrap');
}

function fillLine(row, g, side, narrow) {
  const name = (side === 'white' ? g.white : g.black) || (side === 'white' ? 'White' : 'Black');
  const title = normTitle(side === 'white' ? g.whiteTitle : g.blackTitle);
  const fed = String((side === 'white' ? g.whiteFed : g.blackFed) || '').trim().toUpperCase();
  const elo = side === 'white' ? g.whiteElo : g.blackElo;
  const nameEl = row.querySelector('.ov-name');
  const key = JSON.stringify([name, title, fed]);
  if (nameEl.dataset.key !== key) {
    nameEl.dataset.key = key;
    nameEl.replaceChildren(...nameSpans(name));
    nameEl.dataset.fit = narrow ? '1' : '';
    const t = row.querySelector('.ov-title');
    setText(t, title || '');
    t.hidden = !title;
    const f = row.querySelector('.ov-fed');
    const url = flagUrl(fed);
    f.replaceChildren(fed ? (url ? h('img', { class: 'ov-flag', src: url, alt: fed, title: fed }) : h('span', { class: 'ov-fedtext' }, fed)) : '');
    f.hidden = !fed;
  }
  setText(row.querySelector('.ov-elo'), elo || '');
  if (nameEl.dataset.fit === '1' && nameEl.isConnected) {
    nameEl.dataset.fit = '';
    fitName(nameEl);
  }
  const score = g.result === '*' ? '' : g.result === '1/2-1/2' ? '½' : (g.result === '1-0') === (side === 'white') ? '1' : '0';
  setText(row.querySelector('.ov-score'), score);
}

// One game's block: the same for the game overlay and each card of a round.
class GameBlock {
  constructor(p, id, round) {
    this.p = p;
    this.id = id;
    this.key = '';
    this.flashUntil = 0;
    const box = h('div', { class: 'cgbox' });
    this.box = box;
    this.top = playerLine('top');
    this.bottom = playerLine('bottom');
    this.bar = evalBar(round ? 'horizontal' : '');
    this.last = h('div', { class: 'ov-last' });
    const board = h('div', { class: 'ov-board', style: `width:${p.size}px;height:${p.size}px` }, box);
    this.el = h('div', { class: `ov-block${round ? ' ov-card' : ''}`, 'data-game': String(id) },
      this.top,
      round ? h('div', { class: 'ov-col' }, board, this.bar) : h('div', { class: 'ov-row' }, this.bar, board),
      this.bottom, this.last);
    this.cg = Chessground(box, {
      viewOnly: true, coordinates: !round, orientation: p.orientation,
      animation: { enabled: true, duration: 200 },
      drawable: { enabled: false, visible: false },
      highlight: { lastMove: true, check: true },
    });
    for (const part of ['board', 'names', 'flags', 'clocks', 'eval', 'last']) {
      this.el.classList.toggle(`no-${part}`, !p.show.has(part));
    }
  }

  render(store) {
    const g = store.games.get(this.id);
    if (!g) return;
    const topSide = this.p.orientation === 'white' ? 'black' : 'white';
    const narrow = this.p.size < 200;
    fillLine(this.top, g, topSide, narrow);
    fillLine(this.bottom, g, topSide === 'white' ? 'black' : 'white', narrow);
    this.top.querySelector('.ov-clock').dataset.side = topSide;
    this.bottom.querySelector('.ov-clock').dataset.side = topSide === 'white' ? 'black' : 'white';
    const cur = store.current(g);
    const key = `${cur.fen}|${cur.uci}`;
    if (key !== this.key) {
      const first = this.key === '';
      this.key = key;
      const turn = sideToMove(cur.fen);
      setBoard(this.cg, first, { fen: cur.fen, turnColor: turn, lastMove: uciSquares(cur.uci), check: isCheck(cur.san) ? turn : false });
      this.box.dataset.fen = cur.fen;
      this.el.dataset.plies = String(cur.plies);
    }
    const near = store.evalNear(g, cur.plies);
    const e = near.exact ? near.e : null;
    fillEvalBar(this.bar, near.e, this.p.orientation, !near.exact);
    const mark = nagMark(e);
    const last = cur.plies && cur.san ? `${moveNumberLabel(g.start, cur.plies - 1)} ${cur.san}${mark}` : '';
    setText(this.last, g.result !== '*' ? `${last}${last ? '  ' : ''}${resultText(g.result)}` : last);
    this.last.dataset.nag = e && e.nag ? String(e.nag) : '';
    this.el.classList.toggle('blunder', Date.now() < this.flashUntil);
  }

  tick(store) {
    const g = store.games.get(this.id);
    if (!g) return;
    const now = store.time.relayNowUs(Date.now());
    for (const el of this.el.querySelectorAll('.ov-clock')) {
      const side = el.dataset.side;
      const ms = clockRemaining(g.clock, side, now);
      setText(el, ms === null ? '' : formatClock(ms));
      el.classList.toggle('running', !!g.clock && g.clock.running === side[0] && g.result === '*');
    }
    if (this.flashUntil && Date.now() >= this.flashUntil) {
      this.flashUntil = 0;
      this.el.classList.remove('blunder');
    }
  }

  flash() {
    this.flashUntil = Date.now() + FLASH_MS;
    this.el.classList.add('blunder');
  }

  destroy() {
    this.cg.destroy();
    this.el.remove();
  }
}

export function startOverlay() {
  const p = parseOverlay(location.pathname, location.search);
  document.documentElement.classList.add('overlay');
  // Transparent for the streaming software: no dark canvas either.
  document.documentElement.style.colorScheme = 'normal';
  const meta = document.querySelector('meta[name="color-scheme"]');
  if (meta) meta.content = 'normal';
  const root = document.getElementById('app');
  if (!p) {
    root.replaceChildren(h('p', { class: 'ov-error' }, 'Unknown overlay: use /overlay/game/<id> or /overlay/round/<round>'));
    return;
  }
  document.title = p.kind === 'game' ? `chessrelay overlay: game ${p.id}` : `chessrelay overlay: round ${p.round}`;
  const store = new Store();
  // Below about 200 px a player's line is two: who, then rating and clock.
  const strip = h('div', { class: `ov ov-${p.kind}${p.size < 200 ? ' ov-narrow' : ''}`, style: `--ov-size:${p.size}px` });
  root.replaceChildren(strip);
  const blocks = new Map();
  let queued = false;

  const render = () => {
    queued = false;
    const ids = p.kind === 'game' ? [p.id] : store.roundGames(p.round).map((g) => g.id);
    const want = (p.limit ? ids.slice(0, p.limit) : ids).filter((id) => store.games.has(id));
    for (const [id, b] of blocks) {
      if (!want.includes(id)) {
        b.destroy();
        blocks.delete(id);
      }
    }
    let prev = null;
    for (const id of want) {
      let b = blocks.get(id);
      if (!b) {
        b = new GameBlock(p, id, p.kind === 'round');
        blocks.set(id, b);
      }
      const at = prev ? prev.nextSibling : strip.firstChild;
      if (at !== b.el) strip.insertBefore(b.el, at);
      prev = b.el;
      b.render(store);
      b.tick(store);
    }
  };
  const schedule = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(render);
  };

  let retry = null;
  const conn = new Connection({
    url: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws',
    WebSocket: window.WebSocket,
    getSince: (sub) => store.sinceFor(sub),
    hello: () => ({ op: 'hello' }),
    onMessage: (msg) => {
      const r = store.apply(msg, Date.now());
      for (const id of r.resync) conn.resync(id);
      if (r.list) conn.requestList();
      if (r.error && r.error.where === 'game' && p.kind === 'game' && !retry) {
        // The game is not there yet: ask again a little later.
        retry = setTimeout(() => { retry = null; conn.resync(p.id); }, 3000);
      }
      if (msg.type === 'eval' && msg.eval && msg.eval.nag === 4) {
        const g = store.games.get(Number(msg.game));
        const b = blocks.get(Number(msg.game));
        if (g && b && Number(msg.ply) === g.moves.length - 1) {
          b.flash();
          window.dispatchEvent(new CustomEvent('cr-blunder', { detail: { game: g.id, ply: msg.ply, san: g.moves[msg.ply].san, eval: evalText(msg.eval) } }));
        }
      }
      schedule();
    },
    onState: (state) => {
      strip.dataset.conn = state;
    },
  });
  if (p.kind === 'game') conn.subscribe({ game: p.id });
  else conn.subscribe({ round: p.round });
  conn.start();
  setInterval(() => {
    for (const b of blocks.values()) b.tick(store);
  }, 200);
  window.__crOverlay = { store, conn, params: p };
}

// The round overview (#/round/<r>): every board of the round, live. A page
// of the shape main.js routes to: render(route), destroy().

import { Chessground } from 'chessground';
import { h, setText, icon } from './dom.js';
import { sanNode, playerRow, fillPlayer, setBoard } from './widgets.js';
import { uciSquares, isCheck, sideToMove } from './game-store.js';
import { moveNumberLabel, resultText, pgnFileName } from './view.js';
import { evalText, whiteShare } from './eval.js';
import { t } from './i18n.js';

// Above this many boards only the rows on screen have cards.
const VIRTUAL_MIN = 48;
const POOL_MAX = 64;

export class OverviewPage {
  // app: { store, ui, main, eventName() }
  constructor(app) {
    this.app = app;
    this.el = null;
    this.cards = new Map(); // game id -> card, of the games on screen
    this.pool = [];         // cards kept for reuse
    this.games = [];
    this.query = '';
    this.rowH = 0;
    this.frame = 0;
  }

  destroy() {
    for (const c of [...this.cards.values(), ...this.pool]) c.cg.destroy();
    this.cards.clear();
    this.pool = [];
    if (this.onScroll) {
      window.removeEventListener('scroll', this.onScroll);
      window.removeEventListener('resize', this.onScroll);
    }
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.el = null;
  }

  render(route) {
    const { store, ui, main } = this.app;
    const round = route.round;
    if (!this.el) {
      const search = h('input', {
        class: 'board-search', type: 'search', placeholder: t('Find a player, team or federation'),
        'aria-label': t('Find a player, team or federation'),
      });
      search.addEventListener('input', () => {
        this.query = search.value;
        this.place();
      });
      this.el = h('section', { class: 'overview' },
        h('div', { class: 'overview-head' },
          h('h1', { class: 'round-title' }),
          h('a', { class: 'pgn-link round-pgn', download: true }, icon('download'), ` ${t('Round PGN')}`),
          search),
        h('div', { class: 'boards' }));
      this.search = search;
      main.replaceChildren(this.el);
      // Only the cards on screen exist: scrolling and resizing place them.
      this.onScroll = () => {
        if (this.frame) return;
        this.frame = requestAnimationFrame(() => {
          this.frame = 0;
          if (this.el) this.place();
        });
      };
      window.addEventListener('scroll', this.onScroll, { passive: true });
      window.addEventListener('resize', this.onScroll);
    }
    const title = this.el.querySelector('.round-title');
    const pgn = this.el.querySelector('.round-pgn');
    const grid = this.el.querySelector('.boards');
    this.el.querySelector('.board-search').hidden = round === null;
    if (round === null) {
      setText(title, ui.conn.state === 'open' && store.welcome ? t('No games yet: the boards appear here as soon as the relay has them.') : t('Waiting for the relay…'));
      pgn.hidden = true;
      return;
    }
    const games = store.roundGames(round);
    const live = games.filter((g) => g.result === '*' && !store.superseded(g) && (g.moves.length || (g.summary && g.summary.plies))).length;
    const event = this.app.eventName();
    document.title = `${t('Round {r}', { r: round })}${event ? ' · ' + event : ''} · chessrelay`;
    setText(title, t('Round {r}', { r: round }) + (games.length ? ` · ${t(games.length > 1 ? '{n} boards' : '1 board', { n: games.length })}${live ? ` · ${t('{n} live', { n: live })}` : ''}` : ''));
    pgn.hidden = false;
    pgn.href = `/round/${encodeURIComponent(round)}.pgn`;
    pgn.download = pgnFileName({ event, round });
    this.games = games;
    if (!games.length) {
      this.clearCards(new Set());
      if (!grid.firstChild || !grid.firstChild.classList.contains('empty')) {
        grid.replaceChildren(h('p', { class: 'empty' }, t('No boards in this round yet.')));
      }
      return;
    }
    // Team matches above the boards; a pick shows that match's boards.
    this.app.extras.overviewHead(this.el, games, (q) => { this.search.value = q; this.query = q; this.place(); });
    grid.classList.toggle('few', games.length <= 3); // a small event gets bigger boards
    const empty = grid.querySelector('.empty');
    if (empty) empty.remove();
    this.place();
  }

  // The games matching the search box: followed players' first, then by
  // team match, else in board order (extras.arrange).
  shown() {
    const words = String(this.query || '').toLowerCase().split(/\s+/).filter(Boolean);
    const games = this.app.extras.arrange(this.games);
    if (!words.length) return games;
    return games.filter((g) => {
      const text = [g.white, g.black, g.whiteTeam, g.blackTeam, g.whiteFed, g.blackFed,
        g.whiteTitle, g.blackTitle].join(' ').toLowerCase();
      return words.every((w) => text.includes(w));
    });
  }

  // The rows of cards in the window (and one either side), the rest of the
  // grid's height kept by its padding: an 800-board round draws a few dozen.
  place() {
    const grid = this.el.querySelector('.boards');
    const list = this.shown();
    let from = 0, to = list.length;
    let padTop = 0, padBottom = 0;
    if (list.length > VIRTUAL_MIN) {
      const cols = Math.max(1, getComputedStyle(grid).gridTemplateColumns.split(' ').filter(Boolean).length);
      const sample = this.cards.values().next().value;
      const gap = parseFloat(getComputedStyle(grid).rowGap) || 0;
      if (sample && sample.el.offsetHeight) this.rowH = sample.el.offsetHeight + gap;
      const rowH = this.rowH || 320;
      const rows = Math.ceil(list.length / cols);
      const top = grid.getBoundingClientRect().top + (parseFloat(grid.style.paddingTop) || 0);
      const first = Math.max(0, Math.floor(-top / rowH) - 1);
      const last = Math.min(rows - 1, Math.ceil((window.innerHeight - top) / rowH) + 1);
      from = Math.min(list.length, first * cols);
      to = Math.min(list.length, (last + 1) * cols);
      padTop = first * rowH;
      padBottom = Math.max(0, (rows - last - 1) * rowH);
    }
    grid.style.paddingTop = padTop ? `${padTop}px` : '';
    grid.style.paddingBottom = padBottom ? `${padBottom}px` : '';
    grid.classList.toggle('no-match', !list.length);
    const visible = list.slice(from, to);
    this.clearCards(new Set(visible.map((g) => g.id)));
    let prev = null;
    for (const g of visible) {
      let c = this.cards.get(g.id);
      if (!c) {
        c = this.card(g);
        this.cards.set(g.id, c);
      }
      this.refresh(c, g);
      // Keep DOM order equal to the stable board order without churning nodes.
      const want = prev ? prev.nextSibling : grid.firstChild;
      if (want !== c.el) grid.insertBefore(c.el, want);
      prev = c.el;
    }
  }

  // Cards of games no longer on screen are kept for the next ones (a board
  // is costly to make: scrolling reuses them), a screenful or two at most.
  clearCards(wanted) {
    for (const [id, c] of this.cards) {
      if (!wanted.has(id)) {
        c.el.remove();
        this.cards.delete(id);
        if (this.pool.length < POOL_MAX) this.pool.push(c);
        else c.cg.destroy();
      }
    }
  }

  card(g) {
    const c = this.pool.pop();
    if (!c) return makeCard(g);
    c.el.href = `#/game/${g.id}`;
    c.el.dataset.game = String(g.id);
    c.sig = '';
    c.key = ''; // the next draw is a first one: no animation from another game
    for (const el of c.el.querySelectorAll('[data-key]')) delete el.dataset.key;
    return c;
  }

  // Only games that changed since their card was drawn are touched.
  refresh(c, g) {
    const { store, ui } = this.app;
    const sig = [g.seq, store.superseded(g), g.moves.length, g.loaded, g.summary && g.summary.plies, g.result, g.online, g.attention,
      g.statusReason, g.white, g.black, g.whiteElo, g.blackElo, g.whiteTitle, g.blackTitle, g.whiteFed, g.blackFed, g.table, g.board, !!g.clock, ui.notation,
      ui.showEval, JSON.stringify(store.evalNear(g, store.current(g).plies)), this.app.extras.cardKey(g)].join('|');
    if (sig !== c.sig) {
      c.sig = sig;
      this.updateCard(c, g);
    }
  }

  updateCard(c, g) {
    const { store, ui } = this.app;
    const cur = store.current(g);
    const started = cur.plies > 0;
    // A game whose board began a new one: not live, and the board's
    // offline/attention state is the new game's (no public alarm here).
    const gone = store.superseded(g);
    const online = g.online || gone;
    const attention = g.attention && !gone;
    setText(c.el.querySelector('.board-no'), g.table !== null && g.table !== undefined ? t('Board {n}', { n: g.table }) : (g.board ? String(g.board) : t('Game {n}', { n: g.id })));
    const badges = [];
    if (!online) badges.push(h('span', { class: 'badge offline', title: g.statusReason || t('the board is not connected') }, t('offline')));
    if (gone) badges.push(h('span', { class: 'badge superseded', title: t('the board began a new game; the arbiter enters the result') }, t('no result yet')));
    if (attention) badges.push(h('span', { class: 'badge attention', title: g.statusReason || t('an arbiter should look at this board') }, '⚠', h('span', { class: 'btxt' }, ` ${t('attention')}`)));
    const badgeEl = c.el.querySelector('.badges');
    const badgeKey = `${online}|${attention}|${gone}|${g.statusReason}`;
    if (badgeEl.dataset.key !== badgeKey) {
      badgeEl.replaceChildren(...badges);
      badgeEl.dataset.key = badgeKey;
    }
    c.el.classList.toggle('is-offline', !online);
    c.el.classList.toggle('is-attention', !!attention);
    c.el.classList.toggle('is-finished', g.result !== '*' || gone);
    c.el.classList.toggle('is-waiting', !started);
    this.app.extras.decorateCard(c.el, g);
    fillPlayer(c.top, g, 'black', !!g.clock);
    fillPlayer(c.bottom, g, 'white', !!g.clock);
    const last = c.el.querySelector('.last');
    const lastKey = `${cur.plies}|${cur.san}|${ui.notation}`;
    if (last.dataset.key !== lastKey) {
      last.dataset.key = lastKey;
      if (started && cur.san) last.replaceChildren(moveNumberLabel(g.start, cur.plies - 1) + ' ', sanNode(cur.san, ui.notation));
      else last.replaceChildren(started ? '' : t('Pairing · not started'));
    }
    // The small eval bar under the board (White's share, from the left).
    const near = ui.showEval ? store.evalNear(g, cur.plies) : { e: null, exact: false };
    const e = near.e;
    const bar = c.el.querySelector('.card-eval');
    bar.hidden = !e;
    bar.classList.toggle('pending', !near.exact);
    if (e) {
      bar.firstChild.style.width = `${Math.round(whiteShare(e) * 1000) / 10}%`;
      bar.title = `engine: ${evalText(e)}`;
      bar.dataset.eval = evalText(e);
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
}

function makeCard(g) {
  const box = h('div', { class: 'cgbox' });
  const top = playerRow('top');
  const bottom = playerRow('bottom');
  const el = h('a', { class: 'card', href: `#/game/${g.id}`, 'data-game': String(g.id) },
    h('div', { class: 'card-head' }, h('span', { class: 'board-no' }), h('span', { class: 'badges' })),
    top, h('div', { class: 'mini' }, box),
    h('div', { class: 'card-eval', hidden: true }, h('div', { class: 'card-eval-white' })), bottom,
    h('div', { class: 'card-foot' }, h('span', { class: 'last' }), h('span', { class: 'result' })));
  const cg = Chessground(box, {
    viewOnly: true, coordinates: false, orientation: 'white',
    animation: { enabled: true, duration: 200 },
    drawable: { enabled: false, visible: false },
    highlight: { lastMove: true, check: true },
  });
  return { el, cg, box, top, bottom, key: '' };
}

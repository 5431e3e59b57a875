// The game page (#/game/<id>): large board, clocks, move list, stepping,
// notation, PGN, and the round's other boards. A page of the shape main.js
// routes to: render(route), destroy(). For screen readers the board is an
// image named after the game and position, the latest move is announced in
// a live region, and the moves are buttons with one tab stop (the current
// move, aria-current).

import { Chessground } from 'chessground';
import { h, setText, icon } from './dom.js';
import { sanNode, playerRow, fillPlayer, setBoard } from './widgets.js';
import { uciSquares, isCheck, sideToMove } from './game-store.js';
import { NOTATIONS, localizeSan } from './san.js';
import { moveNumberLabel, resultText, resultLine, clampPly, pgnFileName, positionUrl, EMBED_SIZES } from './view.js';
import { copyText, embedCode } from './share.js';
import { t } from './i18n.js';
import { evalText, nagMark, timeUse } from './eval.js';
import { formatClock, formatUsed } from './clock.js';
import { evalBar, fillEvalBar, evalGraph, timeGraph, graphPly } from './graphs.js';

export class GamePage {
  // app: { store, conn, ui, main, scheduleRender(), setNotation(v) }
  constructor(app) {
    this.app = app;
    this.view = null;          // the page's elements while it is shown
    this.viewPly = null;       // null: follow the live position
    this.orientation = 'white';
    document.addEventListener('keydown', (e) => this.onKey(e));
  }

  destroy() {
    if (this.view) {
      this.view.cg.destroy();
      this.view = null;
    }
  }

  game() {
    const route = this.app.ui.route;
    return route.page === 'game' ? this.app.store.games.get(route.id) : null;
  }

  goPly(p) {
    const g = this.game();
    if (!g) return;
    this.viewPly = p === null ? null : clampPly(p, g.moves.length);
    if (this.viewPly === g.moves.length) this.viewPly = null;
    // The address bar names the shown position (#/game/7/41), ready to share.
    if (!this.app.ui.embed) {
      const hash = `#/game/${g.id}${this.viewPly === null ? '' : `/${this.viewPly}`}`;
      if (location.hash !== hash) history.replaceState(history.state, '', hash);
      this.app.ui.route = { ...this.app.ui.route, ply: this.viewPly };
      this.routeKey = `${g.id}/${this.viewPly}`;
    }
    this.app.scheduleRender();
  }

  shownPly(g) {
    return this.viewPly === null ? g.moves.length : this.viewPly;
  }

  // A share button: copies what `what()` gives and says so beside the buttons.
  async share(label, what) {
    const note = this.view && this.view.el.querySelector('.share-note');
    let text = null;
    try { text = await what(); } catch (e) { text = null; }
    const ok = text !== null && await copyText(text);
    if (!note) return;
    note.textContent = ok ? t('{what} copied', { what: label }) : t('{what}: copy failed', { what: label });
    note.dataset.copied = ok ? text : '';
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => { note.textContent = ''; }, 4000);
  }

  // The embed size chosen beside the Embed button, [width, height].
  embedSize() {
    const sel = this.view && this.view.el.querySelector('.embed-size');
    const m = sel ? /^(\d+)x(\d+)$/.exec(sel.value) : null;
    return m ? [Number(m[1]), Number(m[2])] : EMBED_SIZES[0];
  }

  stepPly(d) {
    const g = this.game();
    if (!g) return;
    const cur = this.viewPly === null ? g.moves.length : this.viewPly;
    this.goPly(cur + d);
  }

  flip() {
    this.orientation = this.orientation === 'white' ? 'black' : 'white';
    this.app.scheduleRender();
  }

  onKey(e) {
    if (this.app.ui.route.page !== 'game' || e.target.closest('select, input, textarea')) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const k = e.key;
    if (k === 'ArrowLeft') this.stepPly(-1);
    else if (k === 'ArrowRight') this.stepPly(1);
    else if (k === 'Home' || k === 'ArrowUp') this.goPly(0);
    else if (k === 'End' || k === 'ArrowDown') this.goPly(null);
    else if (k === 'f') this.flip();
    else return;
    e.preventDefault();
  }

  makeView(id) {
    const { ui } = this.app;
    const box = h('div', { class: 'cgbox' });
    const top = playerRow('top', { think: true });
    const bottom = playerRow('bottom', { think: true });
    const btn = (cls, label, title, fn) => h('button', { class: `btn ${cls}`, type: 'button', title, 'aria-label': title, onclick: fn }, label);
    const controls = h('div', { class: 'controls' },
      btn('first', icon('first'), t('first move (Home)'), () => this.goPly(0)),
      btn('prev', icon('prev'), t('previous move (←)'), () => this.stepPly(-1)),
      btn('next', icon('next'), t('next move (→)'), () => this.stepPly(1)),
      btn('last', icon('last'), t('latest move (End)'), () => this.goPly(null)),
      // Named by its text (in the UI's language), the jump told by its title.
      h('button', { class: 'btn live', type: 'button', title: t('jump to the live position'), onclick: () => this.goPly(null) }, liveLabel(t('Live'))),
      btn('flip', icon('flip'), t('flip the board (f)'), () => this.flip()));
    const select = h('select', { class: 'notation', 'aria-label': t('move notation'), onchange: (e) => this.app.setNotation(e.target.value) },
      Object.entries(NOTATIONS).map(([k, v]) => h('option', { value: k }, v.label)));
    select.value = ui.notation;
    const moves = h('div', { class: 'moves', role: 'group', 'aria-label': t('moves') });
    // The evaluation and time-use graphs: a click jumps to that ply.
    const graphs = h('div', { class: 'graphs' },
      h('div', { class: 'graph eval-graph', role: 'img', title: t('evaluation: click to go to a move') }),
      h('div', { class: 'graph time-graph', role: 'img', title: t('time used per move: click to go to a move') }));
    graphs.addEventListener('click', (e) => {
      const g = this.game();
      const p = g ? graphPly(e, g.moves.length) : -1;
      if (p >= 0) this.goPly(p + 1);
    });
    const engine = h('input', { type: 'checkbox', class: 'show-eval', onchange: (e) => this.app.setShowEval(e.target.checked) });
    engine.checked = ui.showEval;
    moves.addEventListener('click', (e) => {
      const m = e.target.closest('[data-ply]');
      if (m) this.goPly(Number(m.dataset.ply) + 1);
    });
    const el = h('section', { class: 'game-page' },
      h('div', { class: 'board-col' },
        top,
        h('div', { class: 'board-row' }, evalBar(), h('div', { class: 'board-wrap', role: 'img' }, box)),
        bottom,
        h('div', { class: 'bestline', 'aria-live': 'off' })),
      h('div', { class: 'sr-announce visually-hidden', role: 'status', 'aria-live': 'polite' }),
      h('aside', { class: 'side' },
        h('div', { class: 'game-head' },
          h('a', { class: 'back' }, `← ${t('Round')}`),
          h('h1', { class: 'game-title' }),
          h('div', { class: 'game-sub' })),
        h('div', { class: 'game-status' }),
        controls,
        moves,
        graphs,
        h('div', { class: 'game-result' }),
        h('div', { class: 'tools' },
          h('label', { class: 'notation-label' }, `${t('Notation')} `, select),
          h('label', { class: 'eval-label', title: t('engine evaluation: bar, best line, graph, ? and ?? marks') }, engine, ` ${t('Engine')}`),
          h('a', { class: 'pgn-link game-pgn', download: true }, icon('download'), ` ${t('Game PGN')}`),
          h('a', { class: 'pgn-link round-pgn', download: true }, icon('download'), ` ${t('Round PGN')}`)),
        h('div', { class: 'share' },
          h('button', { type: 'button', class: 'abtn copy-link', onclick: () => this.share(t('Link'), () => { const g = this.game(); return g ? positionUrl(location.origin, g.id, this.shownPly(g)) : null; }) }, t('Copy link')),
          h('button', { type: 'button', class: 'abtn copy-fen', onclick: () => this.share('FEN', () => { const g = this.game(); return g ? this.app.store.fenAt(g, this.shownPly(g)) : null; }) }, t('Copy FEN')),
          h('button', { type: 'button', class: 'abtn copy-pgn', onclick: () => this.share('PGN', async () => { const r = await fetch(`/game/${id}.pgn`); return r.ok ? r.text() : null; }) }, t('Copy PGN')),
          h('button', { type: 'button', class: 'abtn copy-embed', onclick: () => this.share(t('Embed code'), () => embedCode(location.origin, id, this.embedSize())) }, t('Embed')),
          h('select', { class: 'embed-size', 'aria-label': t('embed size') },
            EMBED_SIZES.map(([w, hh]) => h('option', { value: `${w}x${hh}` }, `${w}×${hh}`))),
          h('span', { class: 'share-note', role: 'status', 'aria-live': 'polite' })),
        h('nav', { class: 'round-list', 'aria-label': t('other boards of the round') })));
    const cg = Chessground(box, {
      viewOnly: true, coordinates: true, orientation: this.orientation,
      animation: { enabled: true, duration: 180 },
      drawable: { enabled: false, visible: true },
      highlight: { lastMove: true, check: true },
    });
    return { id, el, cg, box, top, bottom, moves, select, engine, key: '', movesKey: '', evalKey: '', graphKey: '', timeKey: '' };
  }

  render(route) {
    const { store, conn, ui, main } = this.app;
    const id = route.id;
    if (!this.view || this.view.id !== id) {
      // Another game (or back from another page): live, White at the bottom.
      this.destroy();
      this.viewPly = null;
      this.routeKey = null;
      this.orientation = 'white';
      this.view = this.makeView(id);
      main.replaceChildren(this.view.el);
    }
    const v = this.view;
    const g = store.games.get(id);
    const title = v.el.querySelector('.game-title');
    if (!g) {
      setText(title, t('Game {n}', { n: id }));
      setText(v.el.querySelector('.game-sub'), t('Waiting for the relay…'));
      return;
    }
    const n = g.moves.length;
    // A link to a position (#/game/7/41) is followed once its moves are here.
    const want = route.ply === null || route.ply === undefined ? null : route.ply;
    const routeKey = `${id}/${want}`;
    if (want !== null && this.routeKey !== routeKey && g.loaded) {
      this.routeKey = routeKey;
      this.viewPly = clampPly(want, n);
    }
    if (this.viewPly !== null && this.viewPly > n) this.viewPly = n; // a correction shortened the game
    if (this.viewPly === n) this.viewPly = null;
    const ply = this.viewPly === null ? n : this.viewPly;
    const isLive = this.viewPly === null;
    // A move sound (when chosen) for each new move seen while following live.
    if (v.lastN !== undefined && n > v.lastN && isLive && g.loaded) this.app.prefs.moveSound(/x/.test(g.moves[n - 1].san));
    if (g.loaded) v.lastN = n;

    document.title = `${g.white || t('White')} – ${g.black || t('Black')} · ${t('Round {r}', { r: g.round ?? '?' })} · chessrelay`;
    // The players, and a finished game's result beside them.
    if (!title.firstElementChild) {
      title.replaceChildren(ui.embed ? h('a', { class: 'title-players', href: `/#/game/${g.id}`, target: '_blank', rel: 'noopener' }) : h('span', { class: 'title-players' }),
        h('span', { class: 'title-result' }));
    }
    setText(title.querySelector('.title-players'), `${g.white || t('White')} – ${g.black || t('Black')}`);
    setText(title.querySelector('.title-result'), g.result !== '*' ? resultText(g.result) : '');
    const sub = [];
    if (g.round !== null) sub.push(t('Round {r}', { r: g.round }));
    if (g.table !== null && g.table !== undefined) sub.push(t('Board {n}', { n: g.table }));
    if (g.board) sub.push(String(g.board));
    const event = this.app.eventName(g);
    if (event) sub.push(event);
    setText(v.el.querySelector('.game-sub'), sub.join(' · '));
    const back = v.el.querySelector('.back');
    back.href = g.round !== null ? `#/round/${encodeURIComponent(g.round)}` : '#/';
    setText(back, g.round !== null ? `← ${t('Round {r}', { r: g.round })}` : `← ${t('Rounds')}`);
    const gp = v.el.querySelector('.game-pgn');
    gp.href = `/game/${g.id}.pgn`;
    gp.download = pgnFileName({ event, round: g.round, table: g.table, white: g.white, black: g.black, id: g.id });
    const rp = v.el.querySelector('.round-pgn');
    rp.hidden = g.round === null;
    if (g.round !== null) {
      rp.href = `/round/${encodeURIComponent(g.round)}.pgn`;
      rp.download = pgnFileName({ event, round: g.round });
    }

    const status = [];
    // A game whose board began a new one is over for the public: the
    // board's state (offline, attention) belongs to the new game.
    const gone = store.superseded(g);
    if (gone) status.push(h('span', { class: 'badge superseded', title: t('the board began a new game; the arbiter enters the result') }, t('no result yet')));
    if (!g.online && !gone) status.push(h('span', { class: 'badge offline', title: g.statusReason || null }, t('board offline')));
    if (g.attention && !gone) status.push(h('span', { class: 'badge attention', title: g.statusReason || null }, `⚠ ${t('arbiter attention')}`));
    if (g.statusReason && !gone && (!g.online || g.attention)) status.push(h('span', { class: 'status-reason' }, g.statusReason));
    if (g.stale) status.push(h('span', { class: 'badge' }, t('resyncing…')));
    if (!isLive) {
      const at = ply ? `${moveNumberLabel(g.start, ply - 1)} ${localizeSan(g.moves[ply - 1].san, ui.notation)}` : t('the start');
      status.push(h('span', { class: 'badge browsing' }, t('viewing {at} — not live', { at })));
    }
    const statusEl = v.el.querySelector('.game-status');
    const sk = status.map((s) => s.textContent).join('|');
    if (statusEl.dataset.key !== sk) {
      statusEl.replaceChildren(...status);
      statusEl.dataset.key = sk;
    }
    v.el.classList.toggle('browsing', !isLive);
    // A finished game has no live position to follow: its last is the final one.
    const over = g.result !== '*' || gone;
    const liveBtn = v.el.querySelector('.btn.live');
    liveBtn.classList.toggle('on', isLive && !over);
    const liveText = over ? t('Final') : t('Live');
    if (liveBtn.dataset.label !== liveText) {
      liveBtn.dataset.label = liveText;
      liveBtn.replaceChildren(over ? liveText : liveLabel(liveText));
    }
    const liveTitle = over ? t('jump to the final position') : t('jump to the live position');
    if (liveBtn.title !== liveTitle) liveBtn.title = liveTitle;
    v.el.querySelector('.btn.prev').disabled = ply === 0;
    v.el.querySelector('.btn.first').disabled = ply === 0;
    v.el.querySelector('.btn.next').disabled = isLive;
    v.el.querySelector('.btn.last').disabled = isLive;

    // Players: the top bar is the side at the top of the board.
    const topSide = this.orientation === 'white' ? 'black' : 'white';
    const clocks = !!g.clock || g.moves.some((m) => m.clock !== null);
    fillPlayer(v.top, g, topSide, clocks, { link: true });
    fillPlayer(v.bottom, g, topSide === 'white' ? 'black' : 'white', clocks, { link: true });
    v.top.querySelector('.clock').dataset.ply = isLive ? '' : String(ply);
    v.bottom.querySelector('.clock').dataset.ply = isLive ? '' : String(ply);

    // Board.
    const fen = store.fenAt(g, ply);
    const m = ply > 0 ? g.moves[ply - 1] : null;
    const key = `${fen}|${m ? m.uci : ''}|${this.orientation}`;
    if (key !== v.key) {
      const first = v.key === '';
      v.key = key;
      const turn = sideToMove(fen);
      setBoard(v.cg, first, {
        fen, turnColor: turn, orientation: this.orientation,
        lastMove: m ? uciSquares(m.uci) : undefined,
        check: m && isCheck(m.san) ? turn : false,
      });
      v.box.dataset.fen = fen;
      v.box.dataset.ply = String(ply);
    }
    v.el.querySelector('.board-wrap').setAttribute('aria-label', this.boardLabel(g, ply, fen));
    this.announce(g);

    this.renderEval(g, ply, fen);
    if (!ui.embed) this.app.extras.gamePage(v.el, g); // stars, player cards, spoken moves

    // Move list.
    const nags = ui.showEval ? g.evals.map((e) => nagMark(e)).join(',') : '';
    const times = g.moves.map((x) => `${x.clock},${x.emt}`).join(' ');
    const mk = `${g.seq}|${n}|${ply}|${ui.notation}|${g.moves.map((x) => x.san).join(' ')}|${nags}|${times}`;
    if (mk !== v.movesKey) {
      v.movesKey = mk;
      this.renderMoves(g, ply);
    }
    if (g.round !== null && !ui.embed) {
      // The other boards of the round, kept live beside the game.
      conn.subscribe({ round: g.round, summary: true });
      this.renderRoundList(g);
    }
    const res = v.el.querySelector('.game-result');
    if (g.result !== '*') {
      setText(res, resultLine(g.result, g.reason, n ? g.moves[n - 1].san : null));
      res.hidden = false;
    } else {
      res.hidden = true;
    }
  }

  // The eval bar beside the board, the best line under it, the graphs under
  // the moves; none of it when the viewer hides the engine.
  renderEval(g, ply, fen) {
    const { store, ui } = this.app;
    const v = this.view;
    // No evaluation from the relay yet: it runs no engine (or has not
    // started): no empty bar that reads as "equal", no graph, no ticked box.
    const engine = store.engineSeen;
    v.el.classList.toggle('no-eval', !ui.showEval || !engine);
    v.el.classList.toggle('no-engine', !engine);
    v.engine.checked = ui.showEval && engine;
    v.engine.disabled = !engine;
    const near = store.evalNear(g, ply);
    const e = near.exact ? near.e : null;
    const key = `${ui.showEval}|${engine}|${ply}|${this.orientation}|${JSON.stringify(near)}|${ui.notation}`;
    if (key !== v.evalKey) {
      v.evalKey = key;
      fillEvalBar(v.el.querySelector('.evalbar'), near.e, this.orientation, !near.exact);
      const best = v.el.querySelector('.bestline');
      if (e && e.pv && ui.showEval) {
        // multipv: every line the engine gave (the first is the eval's own)
        const lines = Array.isArray(e.lines) && e.lines.length > 1 ? e.lines : [e];
        best.replaceChildren(...lines.filter((l) => l && l.pv).map((l) => {
          const line = l.pv.split(' ').map((san, i) => {
            const no = moveNumberLabel(fen, i);
            return (i === 0 || !no.endsWith('...') ? `${no} ` : '') + localizeSan(san, ui.notation);
          }).join(' ');
          return h('div', { class: 'best-line' }, h('span', { class: 'best-eval' }, evalText(l)), ' ',
            h('span', { class: 'best-pv' }, line), ' ', h('span', { class: 'best-depth' }, t('depth {n}', { n: l.depth })));
        }));
      } else {
        best.replaceChildren();
      }
    }
    const n = g.moves.length;
    // The time-use chart is the clocks' own: shown with the engine off too.
    const tk = `${n}|${ply}|${g.moves.map((m) => `${m.clock},${m.emt}`).join(' ')}`;
    if (tk !== v.timeKey) {
      v.timeKey = tk;
      timeGraph(v.el.querySelector('.time-graph'), g, n, ply, (i) => sideToMove(store.fenAt(g, i)));
    }
    if (!ui.showEval || !engine) return;
    const gk = `${n}|${ply}|${JSON.stringify(g.evals)}`;
    if (gk !== v.graphKey) {
      v.graphKey = gk;
      evalGraph(v.el.querySelector('.eval-graph'), g.evals, n, ply);
    }
  }

  // Words a screen reader gives the board: the game and the shown position.
  boardLabel(g, ply, fen) {
    const at = ply ? t('after {move}', { move: this.spokenMove(g, ply - 1) }) : t('start position');
    const turn = sideToMove(fen) === 'white' ? t('White') : t('Black');
    const view = this.viewPly === null ? '' : ` (${t('not live')})`;
    return t('Board: {white} (White) against {black} (Black), {at}, {turn} to move', { white: g.white || t('White'), black: g.black || t('Black'), at, turn }) + view;
  }

  // "12... Nf6"; figurines read badly aloud, so they are spoken in English.
  spokenMove(g, i) {
    const notation = this.app.ui.notation === 'figurine' ? 'en' : this.app.ui.notation;
    return `${moveNumberLabel(g.start, i)} ${localizeSan(g.moves[i].san, notation)}`;
  }

  // The live region says the latest move (and the result), whatever is shown.
  announce(g) {
    const n = g.moves.length;
    const parts = [];
    if (n) parts.push(t('Last move: {move}', { move: this.spokenMove(g, n - 1) }));
    if (g.result !== '*') parts.push(resultLine(g.result, g.reason, n ? g.moves[n - 1].san : null));
    setText(this.view.el.querySelector('.sr-announce'), parts.join('. '));
  }

  renderRoundList(g) {
    const { store, ui } = this.app;
    const list = this.view.el.querySelector('.round-list');
    const games = store.roundGames(g.round);
    const rows = games.map((o) => {
      const cur = store.current(o);
      const state = o.result !== '*' ? resultText(o.result)
        : cur.plies ? `${moveNumberLabel(o.start, cur.plies - 1)} ${localizeSan(cur.san || '', ui.notation)}` : t('not started');
      const gone = store.superseded(o);
      return [o.id, o.table ?? '', o.white, o.black, state, o.online || gone, o.attention && !gone];
    });
    const key = JSON.stringify([g.id, g.round, rows]);
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.replaceChildren(
      h('h2', {}, t('Round {r}', { r: g.round })),
      ...rows.map(([id, table, white, black, state, online, attention]) => h('a', {
        class: 'rl-row' + (id === g.id ? ' current' : '') + (online ? '' : ' is-offline') + (attention ? ' is-attention' : ''),
        href: `#/game/${id}`, 'data-game': String(id),
      },
      h('span', { class: 'rl-board' }, table === '' ? '' : String(table)),
      h('span', { class: 'rl-players' }, h('span', {}, white || t('White')), h('span', {}, black || t('Black'))),
      h('span', { class: 'rl-state' }, state))));
  }

  renderMoves(g, ply) {
    const { ui } = this.app;
    const v = this.view;
    const rows = [];
    const startBlack = sideToMove(g.start) === 'black';
    const used = timeUse(g.moves, g.moves.map((_, i) => sideToMove(this.app.store.fenAt(g, i))));
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
        const current = c.i === ply - 1;
        if (current) cls.push('current');
        if (flags.includes('reconstructed')) { cls.push('reconstructed'); titles.push(t('reconstructed: the board missed this move, it was worked out from the positions around it')); }
        if (flags.includes('illegal')) { cls.push('illegal'); titles.push(t('illegal move on the board')); }
        if (flags.includes('ambiguous')) { cls.push('ambiguous'); titles.push(t('ambiguous: more than one move fits what the board saw')); }
        // A gap: plies nobody saw, exactly as many when the clock counted them.
        const gap = flags.includes('missing') && c.mv.missing > 0
          ? t(flags.includes('counted') ? 'gap: {n} plies not seen' : 'gap: at least {n} plies not seen', { n: c.mv.missing }) : null;
        if (gap) { cls.push('gap'); titles.push(gap); }
        // One tab stop: the current move, or the first before any is shown.
        const tabStop = current || (ply === 0 && c.i === 0);
        rows.push(h('button', { type: 'button', class: cls.join(' '), 'data-ply': String(c.i), 'data-san': c.mv.san,
          'aria-current': current ? 'true' : null, tabindex: tabStop ? '0' : '-1', title: titles.join('; ') || null },
          sanNode(c.mv.san, ui.notation),
          ui.showEval && nagMark(g.evals[c.i]) ? h('span', { class: `nag nag${g.evals[c.i].nag}` }, nagMark(g.evals[c.i])) : null,
          gap ? h('span', { class: 'flag gap-flag' }, ` ${gap}`)
            : flags.includes('illegal') ? h('span', { class: 'flag illegal-flag' }, ` ${t('illegal')}`) : null,
          flags.includes('reconstructed') ? h('sup', { class: 'flag' }, 'r') : null,
          flags.includes('draw-offer') ? h('span', { class: 'flag draw' }, ' (=)') : null,
          moveTimes(c.mv.clock, used[c.i])));
      }
    }
    const legend = [];
    if (g.moves.some((x) => (x.flags || []).includes('reconstructed'))) legend.push(t('r = reconstructed from missed board updates'));
    if (g.moves.some((x) => (x.flags || []).includes('illegal'))) legend.push(t('illegal = an illegal move was made on the board'));
    if (legend.length) rows.push(h('p', { class: 'legend' }, legend.join(' · ')));
    if (!g.moves.length) rows.push(h('p', { class: 'no-moves' }, g.loaded ? t('The game has not started yet.') : t('Loading moves…')));
    const hadFocus = v.moves.contains(document.activeElement);
    v.moves.replaceChildren(...rows);
    const cur = v.moves.querySelector('.mv.current');
    if (cur) {
      // The current move's place inside the list's scrolled content (the
      // list is the moves' offset parent, so offsetTop is already relative).
      const top = cur.offsetTop;
      if (top < v.moves.scrollTop || top + cur.offsetHeight > v.moves.scrollTop + v.moves.clientHeight) {
        v.moves.scrollTop = top - (v.moves.clientHeight - cur.offsetHeight) / 2;
      }
    } else if (ply === 0) {
      v.moves.scrollTop = 0;
    }
    // Stepping from a focused move keeps the focus on the shown move.
    if (hadFocus) {
      const stop = v.moves.querySelector('.mv[tabindex="0"]');
      if (stop) stop.focus({ preventScroll: true });
    }
  }
}

// "● Live": the dot is decoration, the word the button's name.
function liveLabel(text) {
  const f = document.createDocumentFragment();
  f.append(h('span', { class: 'live-dot', 'aria-hidden': 'true' }, '● '), text);
  return f;
}

// The time a move took and the mover's clock after it, beside the move.
function moveTimes(clock, used) {
  if (clock === null && used === null) return null;
  return h('span', { class: 'mv-times' },
    used === null ? null : h('span', { class: 'mv-used', title: t('time used for this move') }, formatUsed(used)),
    clock === null ? null : h('span', { class: 'mv-clk', title: t('clock after this move') }, formatClock(clock)));
}

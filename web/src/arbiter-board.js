// The board and the move list of the arbiter's game page (#/arbiter/game/N).
// The board is a chessground board as on the viewer's game page; a move
// picked in the list shows its position and the actions on it: take back to
// here, replace it (a select of the legal moves of the position before it),
// a draw offer at it. No ply number is typed anywhere; moves are named by
// number and colour ("23... Qd7"). While the board needs attention, the
// squares the relay names are marked on the live position.

import { Chessground } from 'chessground';
import { h, setText } from './dom.js';
import { sanNode, setBoard } from './widgets.js';
import { uciSquares, isCheck, sideToMove } from './game-store.js';
import { moveNumberLabel } from './view.js';
import { plyLabel, legalSans } from './arbiter-store.js';
import { t, lang } from './i18n.js';

// How a move stands in the record: 'illegal' (made on the board against the
// rules, and stood), 'reconstructed' (the board missed it: worked out from
// the positions around it) or ''.
export function moveMark(flags) {
  const f = flags || [];
  return f.includes('illegal') ? 'illegal' : f.includes('reconstructed') ? 'reconstructed' : '';
}

function markText(flags, label) {
  return moveMark(flags) === 'illegal' ? t('{move}: an illegal move that stood', { move: label })
    : t('{move}: reconstructed, the board missed it', { move: label });
}

// The squares of a marked move, for the board's highlight.
function markedSquares(m) {
  const mark = m ? moveMark(m.flags) : '';
  return mark ? (uciSquares(m.uci) || []).map((q) => [q, `mark-${mark}`]) : [];
}

export class ArbiterBoard {
  // page: the ArbiterPage (store, ask(), send()).
  constructor(page) {
    this.page = page;
    this.view = null;
    this.sel = null; // 0-based ply picked in the list; null: the live position
  }

  destroy() {
    if (this.view) this.view.cg.destroy();
    this.view = null;
    this.sel = null;
  }

  // The view of game `id`: made once, then moved into each new render of the
  // page (the board keeps its state and animations).
  element(id) {
    // Moving the list into the new render resets its scroll: kept here (the
    // old render is still in the document), put back by update().
    if (this.view && this.view.id === id) this.view.keepTop = this.view.moves.scrollTop;
    if (!this.view || this.view.id !== id) {
      this.destroy();
      const box = h('div', { class: 'cgbox' });
      const wrap = h('div', { class: 'board-wrap arb-cg', role: 'img' }, box);
      const moves = h('div', { class: 'arb-moves', role: 'group', 'aria-label': t('moves: pick one for its actions') });
      moves.addEventListener('click', (e) => {
        const b = e.target.closest('[data-ply]');
        if (b) this.pick(Number(b.dataset.ply));
      });
      const el = h('div', { class: 'arb-boardview', 'data-game': String(id) },
        h('div', { class: 'arb-attn', hidden: true }),
        wrap,
        h('p', { class: 'arb-board-at' }),
        h('p', { class: 'arb-move-mark', hidden: true }),
        moves,
        h('div', { class: 'arb-move-panel' }));
      const cg = Chessground(box, {
        viewOnly: true, coordinates: true,
        animation: { enabled: true, duration: 150 },
        drawable: { enabled: false, visible: true },
        highlight: { lastMove: true, check: true },
      });
      this.view = { id, el, cg, box, wrap, moves, boardKey: '', movesKey: '', panelKey: '' };
    }
    return this.view.el;
  }

  pick(i) {
    this.sel = this.sel === i ? null : i;
    this.update();
  }

  // Brings board, list and panel up to the store (cheap when nothing changed).
  update() {
    const v = this.view;
    if (!v) return;
    const { store } = this.page;
    const g = store.games.get(v.id);
    const s = this.page.arb.games.get(v.id);
    if (!g) {
      setText(v.el.querySelector('.arb-board-at'), t('Loading the moves…'));
      return;
    }
    const n = g.moves.length;
    if (this.sel !== null && this.sel >= n) this.sel = null; // a take-back shortened the game
    const live = this.sel === null;
    const ply = live ? n : this.sel + 1;
    const fen = store.fenAt(g, ply);
    const m = ply > 0 ? g.moves[ply - 1] : null;
    const squares = live && s && s.attention && Array.isArray(s.attention_squares) ? s.attention_squares : [];

    const mflags = m ? m.flags || [] : [];
    const bk = `${fen}|${m ? m.uci : ''}|${squares.join(',')}|${mflags.join(',')}`;
    if (bk !== v.boardKey) {
      const first = v.boardKey === '';
      v.boardKey = bk;
      const turn = sideToMove(fen);
      setBoard(v.cg, first, {
        fen, turnColor: turn,
        lastMove: m ? uciSquares(m.uci) : undefined,
        check: m && isCheck(m.san) ? turn : false,
        highlight: { lastMove: true, check: true, custom: new Map([...markedSquares(m), ...squares.map((q) => [q, 'attention'])]) },
      });
      v.cg.setAutoShapes(squares.map((q) => ({ orig: q, brush: 'red' })));
      v.box.dataset.fen = fen;
      v.box.dataset.ply = String(ply);
      v.box.dataset.attention = squares.join(' ');
      v.box.dataset.mark = moveMark(mflags);
      const mark = v.el.querySelector('.arb-move-mark');
      mark.hidden = !moveMark(mflags);
      mark.dataset.mark = moveMark(mflags);
      setText(mark, moveMark(mflags) ? markText(mflags, plyLabel(g.start, ply - 1, m.san)) : '');
      const at = m ? t('after {move}', { move: plyLabel(g.start, ply - 1, m.san) }) : t('start position');
      const where = t('Board {n}: {at}', { n: s && s.table ? s.table : v.id, at });
      v.wrap.setAttribute('aria-label', squares.length ? `${where}; ${t('squares in question {squares}', { squares: squares.join(', ') })}` : where);
    }
    const attn = v.el.querySelector('.arb-attn');
    const alert = this.page.arb.attentionAlert(s);
    attn.hidden = !alert;
    setText(attn, alert ? `⚠ ${alert.text}${live ? '' : ` ${t('(shown on the live position)')}`}` : '');
    setText(v.el.querySelector('.arb-board-at'), live ? t('Live: {at}', { at: m ? plyLabel(g.start, n - 1, m.san) : t('start position') })
      : t('Showing {move} (click it again for the live position)', { move: plyLabel(g.start, this.sel, m.san) }));

    const notation = this.page.notation();
    const mk = `${n}|${this.sel}|${notation}|${lang()}|${g.moves.map((x) => x.san + (x.flags || []).join('')).join(' ')}`;
    if (mk !== v.movesKey) {
      v.movesKey = mk;
      this.renderMoves(g, notation);
      this.follow();
    } else if (v.keepTop !== undefined) {
      v.moves.scrollTop = v.keepTop;
    }
    v.keepTop = undefined;
    const pk = `${mk}|${g.result}|${this.page.pendingKey()}`;
    if (pk !== v.panelKey) {
      v.panelKey = pk;
      this.renderPanel(g, s);
    }
  }

  renderMoves(g, notation) {
    const v = this.view;
    const rows = [];
    g.moves.forEach((mv, i) => {
      const no = moveNumberLabel(g.start, i);
      if (i === 0 || !no.endsWith('...')) rows.push(h('span', { class: 'idx' }, no.replace(/\.+$/, '.')));
      if (i === 0 && no.endsWith('...')) rows.push(h('span', {}, '…')); // Black began: White's cell stays empty
      const flags = mv.flags || [];
      const mark = moveMark(flags);
      rows.push(h('button', {
        type: 'button', class: 'arb-mv' + (i === this.sel ? ' picked' : '') + (flags.includes('draw-offer') ? ' offer' : '') + (mark ? ` ${mark}` : ''),
        'data-ply': String(i), 'data-label': plyLabel(g.start, i, mv.san), 'aria-pressed': String(i === this.sel),
        title: mark ? `${t('{move}: actions', { move: plyLabel(g.start, i, mv.san) })} · ${markText(flags, plyLabel(g.start, i, mv.san))}`
          : t('{move}: actions', { move: plyLabel(g.start, i, mv.san) }),
      }, sanNode(mv.san, notation), flags.includes('draw-offer') ? ' (=)' : '',
      // a gap names the plies nobody saw (exactly when the clock counted them)
      flags.includes('missing') && mv.missing > 0
        ? h('span', { class: 'arb-mv-flag' }, ` ${t(flags.includes('counted') ? 'gap: {n} plies not seen' : 'gap: at least {n} plies not seen', { n: mv.missing })}`)
        : flags.includes('illegal') ? h('span', { class: 'arb-mv-flag' }, ` ${t('illegal')}`) : null,
      flags.includes('reconstructed') ? h('span', { class: 'arb-mv-flag' }, ` ${t('reconstructed')}`) : null));
    });
    if (!g.moves.length) rows.push(h('p', { class: 'no-moves' }, t('No moves yet.')));
    v.moves.replaceChildren(...rows);
  }

  // The list follows the game: the picked move, else the latest, in view.
  follow() {
    const list = this.view.moves;
    const picked = list.querySelector('.arb-mv.picked') || list.lastElementChild;
    if (!picked || !list.isConnected) return;
    const box = list.getBoundingClientRect();
    const r = picked.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) list.scrollTop += r.top - box.top - (list.clientHeight - r.height) / 2;
  }

  // The actions on the picked move.
  renderPanel(g, s) {
    const panel = this.view.el.querySelector('.arb-move-panel');
    const i = this.sel;
    if (i === null) {
      panel.replaceChildren(h('p', { class: 'arb-hint' }, t('Pick a move in the list to take back to it, replace it or mark a draw offer at it.')));
      return;
    }
    const id = this.view.id;
    const n = g.moves.length;
    const mv = g.moves[i];
    const label = plyLabel(g.start, i, mv.san);
    const offered = (mv.flags || []).includes('draw-offer');
    const later = n - i - 1;
    const legal = legalSans(this.page.store.fenAt(g, i)).filter((x) => x !== mv.san);
    const reason = h('input', { name: 'reason', class: 'arb-mv-reason', placeholder: t('reason (for the log)') });
    const select = h('select', { name: 'move', class: 'arb-replace-move', 'aria-label': t('the move played instead of {move}', { move: label }) },
      h('option', { value: '' }, t('instead of {move}…', { move: mv.san })),
      legal.map((x) => h('option', { value: x }, x)));
    const open = g.result === '*' || (s && s.result === '*');
    panel.replaceChildren(
      h('h3', {}, t('Move {move}', { move: label })),
      h('div', { class: 'arb-mv-actions' },
        h('button', { class: 'abtn act-takeback-here', type: 'button', disabled: later === 0,
          title: later === 0 ? t('this is the last move') : t('keeps the game up to {move}', { move: label }),
          onclick: () => this.page.ask({
            action: 'take-back', game: id, fields: { plies: i + 1, reason: reason.value },
            label: later === 1 ? t('Take back to {move} (1 ply removed)', { move: label }) : t('Take back to {move} ({n} plies removed)', { move: label, n: later }), hold: true,
          }) }, later ? t('Take back to here (−{n})', { n: later }) : t('Take back to here')),
        h('button', { class: 'abtn act-offer-here', type: 'button',
          onclick: () => this.page.send('draw-offer', id, { ply: i, offered: !offered }) },
        offered ? t('Clear the draw offer at {move}', { move: label }) : t('Draw offer at {move}', { move: label }))),
      h('div', { class: 'arb-mv-replace' },
        select,
        h('button', { class: 'abtn act-replace-here', type: 'button', disabled: !legal.length,
          onclick: () => {
            if (!select.value) {
              this.page.fail(t('replace: pick the move played instead of {move}', { move: label }));
              return;
            }
            this.page.send('replace-move', id, { ply: i, move: select.value, reason: reason.value });
          } }, t('Replace {move}', { move: label }))),
      reason,
      open ? null : h('p', { class: 'arb-hint' }, t('The game has a result: a take-back or a replaced move clears it.')));
  }
}

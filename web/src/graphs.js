// What the game page and the overlays draw of the engine's evaluations:
// the eval bar, the evaluation graph and the time-use chart (inline SVG).

import { h } from './dom.js';
import { evalText, shortEvalText, whiteShare, evalPoints, timeUse, plyAt } from './eval.js';

const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
}

export function evalBar(cls = '') {
  return h('div', { class: `evalbar ${cls}`.trim(), role: 'meter', 'aria-label': 'engine evaluation',
    'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '50' },
  h('div', { class: 'evalbar-white' }), h('span', { class: 'evalbar-text' }));
}

// White's share of the bar from e (no eval: even, and marked empty); White
// is on the side of the board that is White's. pending: e is an earlier
// position's, shown dimmed while the engine works on this one.
export function fillEvalBar(bar, e, orientation = 'white', pending = false) {
  const share = whiteShare(e);
  const pct = Math.round(share * 1000) / 10;
  const fill = bar.querySelector('.evalbar-white');
  fill.style.height = `${pct}%`;
  fill.style.width = '';
  bar.classList.toggle('flipped', orientation === 'black');
  bar.classList.toggle('empty', !e);
  bar.classList.toggle('pending', !!e && pending);
  bar.dataset.share = String(pct);
  bar.dataset.eval = e ? evalText(e) : '';
  bar.setAttribute('aria-valuenow', String(Math.round(pct)));
  bar.setAttribute('aria-valuetext', e ? `${evalText(e)} (depth ${e.depth})` : 'no evaluation yet');
  const text = bar.querySelector('.evalbar-text');
  text.textContent = shortEvalText(e);
  text.classList.toggle('on-white', share >= 0.5);
}

const W = 600, H = 80;

// The evaluation graph of n plies: White's share after each ply, the shown
// ply marked, mistakes and blunders dotted.
export function evalGraph(el, evals, n, ply) {
  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', class: 'graph-svg' });
  s.append(svg('rect', { x: 0, y: 0, width: W, height: H, class: 'g-black' }));
  const pts = evalPoints(evals, n);
  const x = (i) => ((i + 0.5) / Math.max(n, 1)) * W;
  if (pts.length) {
    const line = pts.map((p) => `${x(p.ply).toFixed(1)},${((1 - p.y) * H).toFixed(1)}`);
    const area = `${x(pts[0].ply).toFixed(1)},${H} ${line.join(' ')} ${x(pts[pts.length - 1].ply).toFixed(1)},${H}`;
    s.append(svg('polygon', { points: area, class: 'g-white' }));
    s.append(svg('polyline', { points: line.join(' '), class: 'g-line' }));
  }
  s.append(svg('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'g-mid' }));
  for (const p of pts) {
    if (p.e.nag === 2 || p.e.nag === 4) {
      s.append(svg('circle', { cx: x(p.ply), cy: (1 - p.y) * H, r: 4, class: p.e.nag === 4 ? 'g-blunder' : 'g-mistake' }));
    }
  }
  if (ply > 0 && n > 0) s.append(svg('line', { x1: x(ply - 1), y1: 0, x2: x(ply - 1), y2: H, class: 'g-cur' }));
  el.replaceChildren(s);
  el.dataset.points = String(pts.length);
  el.setAttribute('aria-label', `evaluation graph, ${pts.length} of ${n} moves evaluated`);
}

// Time used per move: White's bars up, Black's down from the middle.
export function timeGraph(el, g, n, ply, moverOf) {
  const movers = g.moves.map((_, i) => moverOf(i));
  const used = timeUse(g.moves, movers);
  const max = Math.max(1, ...used.filter((t) => t !== null));
  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', class: 'graph-svg' });
  const bw = W / Math.max(n, 1);
  let bars = 0;
  used.forEach((t, i) => {
    if (t === null) return;
    const hgt = (t / max) * (H / 2 - 2);
    const white = movers[i] === 'white';
    s.append(svg('rect', { x: i * bw + bw * 0.1, y: white ? H / 2 - hgt : H / 2, width: Math.max(1, bw * 0.8), height: Math.max(0.5, hgt),
      class: white ? 't-white' : 't-black' }));
    bars++;
  });
  s.append(svg('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'g-mid' }));
  if (ply > 0 && n > 0) s.append(svg('line', { x1: (ply - 0.5) * bw, y1: 0, x2: (ply - 0.5) * bw, y2: H, class: 'g-cur' }));
  el.replaceChildren(s);
  el.dataset.bars = String(bars);
  el.setAttribute('aria-label', `time used per move, ${bars} moves`);
}

// The ply (0-based) a click on a graph points at, or -1.
export function graphPly(event, n) {
  const el = event.target.closest('.graph');
  if (!el) return -1;
  const r = el.getBoundingClientRect();
  return plyAt(event.clientX - r.left, r.width, n);
}

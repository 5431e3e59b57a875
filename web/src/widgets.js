// Pieces the overview and the game page both draw: player bars, SAN in the
// chosen notation, and chessground boards.

import { h, setText } from './dom.js';
import { localizeSan } from './san.js';
import { playerScore } from './view.js';

// SAN in the chosen notation; figurines get a span so they can be sized.
export function sanNode(san, notation) {
  const text = localizeSan(san, notation);
  if (notation !== 'figurine' || typeof text !== 'string') return document.createTextNode(text ?? '');
  const frag = document.createDocumentFragment();
  for (const part of text.split(/([♚♛♜♝♞])/)) {
    if (!part) continue;
    frag.append(/[♚♛♜♝♞]/.test(part) ? h('span', { class: 'fig' }, part) : document.createTextNode(part));
  }
  return frag;
}

export function playerRow(cls) {
  return h('div', { class: `player ${cls}` },
    h('span', { class: 'score' }),
    h('span', { class: 'name' }),
    h('span', { class: 'elo' }),
    h('span', { class: 'clock' }));
}

// The clock's data-game/data-side are what the page-wide clock ticker reads.
export function fillPlayer(row, g, side, showClock) {
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

// The first position a board shows appears at once; later ones slide in.
export function setBoard(cg, first, config) {
  if (first) cg.set({ animation: { enabled: false } });
  cg.set(config);
  if (first) cg.set({ animation: { enabled: true } });
}

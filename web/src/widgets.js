// Pieces the overview and the game page both draw: player bars, SAN in the
// chosen notation, and chessground boards.

import { h, setText } from './dom.js';
import { localizeSan } from './san.js';
import { playerScore } from './view.js';
import { flagUrl, normTitle, TITLES, fideProfileUrl } from './feds.js';
import { t } from './i18n.js';

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

// A player's name, surname first ("Lindqvist, Erik"): the surname in a
// span that never shrinks (a narrow box wraps the line instead, app.css),
// the given name after it, which may. Names without a comma stay whole.
export function nameSpans(name) {
  const s = String(name ?? '');
  const i = s.indexOf(',');
  if (i <= 0) return [h('span', { class: 'sur' }, s)];
  return [h('span', { class: 'sur' }, s.slice(0, i + 1)), h('span', { class: 'first' }, s.slice(i + 1))];
}

// think: a "thinking for m:ss" line under the clock (the game page's bars).
export function playerRow(cls, { think = false } = {}) {
  const clock = h('span', { class: 'clock' });
  return h('div', { class: `player ${cls}` },
    h('span', { class: 'score' }),
    h('span', { class: 'name' }),
    h('span', { class: 'elo' }),
    think ? h('span', { class: 'clockbox' }, clock, h('span', { class: 'think', 'aria-live': 'off' })) : clock);
}

// The clock's data-game/data-side are what the page-wide clock ticker reads.
// link: the name links to the player's FIDE profile when the id is known
// (not inside an overview card, which is a link itself).
export function fillPlayer(row, g, side, showClock, { link = false } = {}) {
  const w = side === 'white';
  const name = w ? g.white : g.black;
  const shown = name || (w ? t('White') : t('Black'));
  const title = normTitle(w ? g.whiteTitle : g.blackTitle);
  const fed = String((w ? g.whiteFed : g.blackFed) || '').trim().toUpperCase();
  const profile = link ? fideProfileUrl(w ? g.whiteFideId : g.blackFideId) : null;
  const rating = w ? g.whiteElo : g.blackElo;
  const el = row.querySelector('.name');
  const key = JSON.stringify([shown, title, fed, profile]);
  if (el.dataset.key !== key) {
    el.dataset.key = key;
    const flag = flagUrl(fed);
    el.replaceChildren(...[
      fed ? (flag ? h('img', { class: 'fed', src: flag, alt: fed, title: fed, width: 20, height: 15 })
        : h('span', { class: 'fed fed-text' }, fed)) : null,
      title ? h('abbr', { class: `ptitle t-${title}`, title: t(TITLES[title]) }, title) : null,
      profile ? h('a', { class: 'pname fide', href: profile, target: '_blank', rel: 'noopener', title: t('FIDE profile') }, ...nameSpans(shown))
        : h('span', { class: 'pname', title: shown }, ...nameSpans(shown))].filter(Boolean));
  }
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

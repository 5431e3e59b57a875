// Player cards (issue 30): photo (with its credit), title, rating,
// federation flag, FIDE profile, score in the event and the player's
// games, opened from any name on the pages. playerInfo() is pure (node
// tests it); PlayerCard draws it in a modal <dialog>.

import { h } from './dom.js';
import { computeStandings, pointsText } from './standings.js';
import { flagUrl, normTitle, TITLES, fideProfileUrl } from './feds.js';
import { resultText } from './view.js';
import { t } from './i18n.js';

// name: the player's name as the games write it. games: the viewer's games
// ({id, round, table, white, black, result, whiteElo, ..., whiteFideId});
// pairings: /pairings.json or null; tour: /tournament.json or null.
export function playerInfo(name, games, pairings = null, tour = null) {
  const info = { name, title: '', rating: null, fed: '', fideId: '', team: '', photo: '', credit: '', points: null, rank: null, of: 0, games: [] };
  const filePlayer = ((pairings && pairings.players) || []).find((p) => p.name === name);
  if (filePlayer) {
    info.title = filePlayer.title || '';
    info.rating = filePlayer.rating || null;
    info.fed = filePlayer.fed || '';
    info.fideId = filePlayer.fideId ? String(filePlayer.fideId) : '';
    info.team = filePlayer.team || '';
  }
  const mine = games.filter((g) => g.white === name || g.black === name);
  for (const g of mine) {
    const w = g.white === name;
    info.title = (w ? g.whiteTitle : g.blackTitle) || info.title;
    info.rating = (w ? g.whiteElo : g.blackElo) || info.rating;
    info.fed = (w ? g.whiteFed : g.blackFed) || info.fed;
    info.fideId = (w ? g.whiteFideId : g.blackFideId) || info.fideId;
    info.team = (w ? g.whiteTeam : g.blackTeam) || info.team;
  }
  const card = ((tour && tour.players) || []).find((p) => p.name === name);
  if (card) {
    info.photo = card.photo || '';
    info.credit = card.credit || '';
    info.fideId = info.fideId || card.fideId || '';
  }
  const live = new Set(mine.map((g) => `${g.round}|${g.white}|${g.black}`));
  const rows = mine.map((g) => ({ id: g.id, round: String(g.round ?? ''), table: g.table ?? null, color: g.white === name ? 'white' : 'black',
    opp: g.white === name ? g.black : g.white, result: g.result || '*' }));
  for (const pg of ((pairings && pairings.games) || [])) {
    if ((pg.white !== name && pg.black !== name) || live.has(`${pg.round}|${pg.white}|${pg.black}`)) continue;
    rows.push({ id: null, round: String(pg.round), table: pg.table ?? null, color: pg.white === name ? 'white' : 'black',
      opp: pg.white === name ? pg.black : pg.white, result: pg.result || '*' });
  }
  const num = (r) => (/^\d+$/.test(r) ? Number(r) : Infinity);
  rows.sort((a, b) => num(a.round) - num(b.round) || a.round.localeCompare(b.round));
  info.games = rows;
  const st = computeStandings(games, pairings);
  const me = st.players.find((p) => p.name === name);
  if (me) {
    info.points = me.points;
    info.rank = me.rank;
    info.of = st.players.length;
  }
  return info;
}

// The score of one game for the player: "1", "½", "0", "" (not over).
function myScore(row) {
  const r = row.result;
  if (r === '1/2-1/2') return '½';
  if (r === '1-0' || r === '+--') return row.color === 'white' ? '1' : '0';
  if (r === '0-1' || r === '--+') return row.color === 'black' ? '1' : '0';
  return '';
}

export class PlayerCard {
  // follow: a FollowStore; onFollow(): after a star changes.
  constructor({ follow, onFollow }) {
    this.follow = follow;
    this.onFollow = onFollow;
    this.dialog = null;
    this.name = null;
  }

  isOpen() {
    return !!(this.dialog && this.dialog.open);
  }

  open(info) {
    if (!this.dialog) {
      this.dialog = h('dialog', { class: 'player-card', 'aria-labelledby': 'pc-name' });
      this.dialog.addEventListener('click', (e) => { if (e.target === this.dialog) this.dialog.close(); });
      this.dialog.addEventListener('close', () => { this.name = null; });
      document.body.append(this.dialog);
    }
    this.name = info.name;
    this.fill(info);
    if (!this.dialog.open) this.dialog.showModal();
  }

  close() {
    if (this.isOpen()) this.dialog.close();
  }

  fill(info) {
    const title = normTitle(info.title);
    const flag = info.fed ? flagUrl(info.fed) : null;
    const profile = fideProfileUrl(info.fideId);
    const followed = this.follow.has(info.name);
    const star = h('button', { type: 'button', class: 'abtn follow-btn' + (followed ? ' on' : ''), 'aria-pressed': followed ? 'true' : 'false',
      onclick: () => {
        this.follow.toggle(info.name);
        if (this.onFollow) this.onFollow();
        this.fill(info);
      } }, followed ? `★ ${t('Following')}` : `☆ ${t('Follow')}`);
    const facts = [];
    if (info.rating) facts.push(h('div', { class: 'pc-fact' }, h('dt', {}, t('Rating')), h('dd', { class: 'pc-rating' }, String(info.rating))));
    if (info.fed) facts.push(h('div', { class: 'pc-fact' }, h('dt', {}, t('Federation')), h('dd', { class: 'pc-fed' },
      flag ? h('img', { class: 'fed', src: flag, alt: '', width: 20, height: 15 }) : null, ` ${info.fed}`)));
    if (info.team) facts.push(h('div', { class: 'pc-fact' }, h('dt', {}, t('Team')), h('dd', { class: 'pc-team' }, info.team)));
    if (info.points !== null) facts.push(h('div', { class: 'pc-fact' }, h('dt', {}, t('Score')),
      h('dd', { class: 'pc-score' }, t('{points} points, place {rank} of {of}', { points: pointsText(info.points), rank: info.rank, of: info.of }))));
    this.dialog.replaceChildren(
      h('div', { class: 'pc-head' },
        info.photo ? h('figure', { class: 'pc-photo' },
          h('img', { src: info.photo, alt: t('Photo of {name}', { name: info.name }), width: 120, height: 150, loading: 'lazy' }),
          info.credit ? h('figcaption', { class: 'pc-credit' }, info.credit) : null) : null,
        h('div', { class: 'pc-who' },
          h('h2', { id: 'pc-name', class: 'pc-name' }, title ? h('abbr', { class: `ptitle t-${title}`, title: t(TITLES[title]) }, title) : null, title ? ' ' : null, info.name),
          h('dl', { class: 'pc-facts' }, facts),
          profile ? h('a', { class: 'pc-fide', href: profile, target: '_blank', rel: 'noopener' }, t('FIDE profile')) : null,
          star)),
      h('h3', { class: 'pc-h3' }, t('Games')),
      info.games.length ? h('ol', { class: 'pc-games' }, info.games.map((r) => h('li', { class: 'pc-game', 'data-round': r.round },
        h('span', { class: 'pc-round' }, t('Round {r}', { r: r.round })), ' ',
        h('span', { class: `pc-color pc-${r.color}`, title: r.color === 'white' ? t('White') : t('Black') }, r.color === 'white' ? '○' : '●'), ' ',
        r.id !== null ? h('a', { href: `#/game/${r.id}`, class: 'pc-opp', onclick: () => this.close() }, r.opp) : h('span', { class: 'pc-opp' }, r.opp), ' ',
        h('span', { class: 'pc-res' }, r.result === '*' ? (r.id !== null ? t('live') : '') : `${myScore(r)} (${resultText(r.result)})`))))
        : h('p', { class: 'empty' }, t('No games yet.')),
      h('form', { method: 'dialog', class: 'pc-close' }, h('button', { class: 'abtn', type: 'submit' }, t('Close'))));
  }
}

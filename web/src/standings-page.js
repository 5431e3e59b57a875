// The event page (#/standings): standings, crosstable and, when the players
// have teams, team standings, computed from every game the relay lists and
// the pairings file it publishes (standings.js, pairings.js). A page of the shape main.js routes to: render(), destroy().

import { h } from './dom.js';
import { computeStandings, computeTeamStandings, pointsText } from './standings.js';
import { flagUrl, normTitle, TITLES } from './feds.js';
import { t } from './i18n.js';
import { pairings, refreshPairings } from './pairings.js';

function playerCell(p) {
  const flag = p.fed ? flagUrl(p.fed) : null;
  const title = normTitle(p.title);
  return h('td', { class: 'st-name' },
    p.fed ? (flag ? h('img', { class: 'fed', src: flag, alt: p.fed, title: p.fed, width: 20, height: 15 }) : h('span', { class: 'fed fed-text' }, p.fed)) : null,
    title ? h('abbr', { class: `ptitle t-${title}`, title: t(TITLES[title]) }, title) : null,
    h('button', { type: 'button', class: 'pname linklike', 'data-card': p.name }, p.name)); // opens the player's card (extras.js)
}

function cellText(c) {
  if (!c) return '';
  const score = c.score === null ? '*' : c.score === 0.5 ? '½' : String(c.score);
  if (c.bye) return `–${score}`;
  if (c.forfeit) return `${c.opp}${c.color}${c.score ? '+' : '−'}`;
  return `${c.opp}${c.color}${score}`;
}

function cellTitle(c) {
  if (!c) return null;
  if (c.bye) return c.score ? t('bye') : t('no game');
  return c.forfeit ? `${c.oppName} (${t('forfeit')})` : c.oppName;
}

export class StandingsPage {
  // app: { store, conn, main, eventName() }
  constructor(app) {
    this.app = app;
    this.el = null;
    this.key = '';
  }

  destroy() {
    this.el = null;
    this.key = '';
  }

  render() {
    const { store, main, conn } = this.app;
    if (!this.el) {
      this.el = h('section', { class: 'event-page' });
      main.replaceChildren(this.el);
      conn.requestList(); // every round's games and results
    }
    refreshPairings(() => { if (this.el) this.render(); }); // earlier rounds, byes
    const games = [...store.games.values()].map((g) => ({
      round: g.round, white: g.white, black: g.black, result: g.result,
      whiteElo: g.whiteElo, blackElo: g.blackElo, whiteFed: g.whiteFed, blackFed: g.blackFed,
      whiteTitle: g.whiteTitle, blackTitle: g.blackTitle, whiteTeam: g.whiteTeam, blackTeam: g.blackTeam,
    }));
    const key = JSON.stringify([games, pairings(), this.app.ui.lang]);
    if (key === this.key) return;
    this.key = key;
    const { rounds, players } = computeStandings(games, pairings());
    const teams = computeTeamStandings(games, pairings());
    document.title = `${t('Standings')}${this.app.eventName() ? ' · ' + this.app.eventName() : ''} · chessrelay`;
    const parts = [h('h1', { class: 'round-title' }, t('Standings'))];
    if (!players.length) {
      parts.push(h('p', { class: 'empty' }, t('No results yet.')));
      this.el.replaceChildren(...parts);
      return;
    }
    const side = []; // the team standings beside the players' on a wide screen
    if (teams.length) {
      // Each round's match: the team's game points and the opponent's; * while it is open.
      const teamRounds = [...new Set(teams.flatMap((x) => Object.keys(x.rounds)))].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
      const matchCell = (m) => (m ? `${pointsText(m.gp)}–${pointsText(m.oppGp)}${m.mp === null ? '*' : ''}` : '');
      side.push(h('section', { class: 'st-teams' }, h('h2', { class: 'st-h2' }, t('Teams')),
        h('div', { class: 'st-scroll' }, h('table', { class: 'st-table team-standings' },
          h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, t('Team')),
            teamRounds.map((r) => h('th', { 'data-round': r }, `${t('R')}${r}`)),
            h('th', { title: t('match points') }, t('MP')), h('th', { title: t('board points') }, t('BP')), h('th', {}, t('Matches')))),
          h('tbody', {}, teams.map((x) => h('tr', { 'data-team': x.name },
            h('td', { class: 'st-rank' }, String(x.rank)), h('td', { class: 'st-team' }, x.name),
            teamRounds.map((r) => {
              const m = x.rounds[r];
              return h('td', { class: 'tm-cell', 'data-round': r, 'data-mp': m && m.mp !== null ? String(m.mp) : null,
                title: m ? t('against {team}', { team: m.opp }) : null }, matchCell(m));
            }),
            h('td', { class: 'st-mp' }, String(x.mp)), h('td', { class: 'st-bp' }, pointsText(x.bp)), h('td', {}, String(x.played))))))),
        h('p', { class: 'legend' }, t('Match cells: game points of the team and of its opponent; * not over.'))));
    }
    side.push(h('section', { class: 'st-players' }, h('h2', { class: 'st-h2' }, t('Players')),
      h('div', { class: 'st-scroll' }, h('table', { class: 'st-table standings' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, t('Player')), h('th', {}, t('Rating')),
          teams.length ? h('th', {}, t('Team')) : null,
          h('th', {}, t('Points')), h('th', { title: t('Buchholz: the opponents\' points') }, t('Buch.')), h('th', {}, t('Games')))),
        h('tbody', {}, players.map((p) => h('tr', { 'data-player': p.name },
          h('td', { class: 'st-rank' }, String(p.rank)), playerCell(p), h('td', { class: 'st-elo' }, p.rating ? String(p.rating) : ''),
          teams.length ? h('td', { class: 'st-team' }, p.team) : null,
          h('td', { class: 'st-points' }, pointsText(p.points)), h('td', { class: 'st-buch' }, pointsText(p.buchholz)),
          h('td', {}, String(p.played)))))))));
    parts.push(h('div', { class: 'st-side' }, side));
    parts.push(h('h2', { class: 'st-h2' }, t('Crosstable')),
      h('div', { class: 'st-scroll' }, h('table', { class: 'st-table crosstable' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, t('Player')),
          rounds.map((r) => h('th', { 'data-round': r }, `${t('R')}${r}`)), h('th', {}, t('Points')))),
        h('tbody', {}, players.map((p) => h('tr', { 'data-player': p.name },
          h('td', { class: 'st-rank' }, String(p.rank)), playerCell(p),
          rounds.map((r) => h('td', { class: 'ct-cell', 'data-round': r, title: cellTitle(p.cells[r]) }, cellText(p.cells[r]))),
          h('td', { class: 'st-points' }, pointsText(p.points))))))),
      h('p', { class: 'legend' }, t('Crosstable cells: opponent\'s rank, colour (w/b), score; * not finished; + − forfeit; – bye.')));
    this.el.replaceChildren(...parts);
  }
}

// Team events on the overview (issue 30): a round's boards grouped by team
// match, with the match score in board points and match points. The
// matches come from the games' WhiteTeam/BlackTeam (the summaries'
// white_team/black_team) or the pairings file's teams (TRF 013, as
// /pairings.json gives them). roundMatches() and arrangeByMatch() are pure
// (node tests them); matchStrip() draws the list above the boards.

import { h } from './dom.js';
import { pointsText } from './standings.js';
import { t } from './i18n.js';

const SCORE = { '1-0': [1, 0], '0-1': [0, 1], '1/2-1/2': [0.5, 0.5], '+--': [1, 0], '--+': [0, 1], '---': [0, 0] };

// The pairings file's team of each player (name -> team).
export function teamsOf(pairings) {
  const m = new Map();
  for (const p of (pairings && Array.isArray(pairings.players) ? pairings.players : [])) if (p && p.name && p.team) m.set(p.name, p.team);
  return m;
}

// games: one round's games in board order ({id, white, black, whiteTeam,
// blackTeam, result, table}). Returns the matches in the order of their
// first board: {key, home, away (the first board's White's team is home),
// games, bp: [home, away] board points so far, mp: [home, away] match
// points (null while a game is open), open}. [] without teams.
export function roundMatches(games, teamOf = new Map()) {
  const byKey = new Map();
  const list = [];
  for (const g of games) {
    const wt = g.whiteTeam || teamOf.get(g.white) || '';
    const bt = g.blackTeam || teamOf.get(g.black) || '';
    if (!wt || !bt || wt === bt) continue;
    const key = [wt, bt].sort().join('\u0000');
    let m = byKey.get(key);
    if (!m) {
      m = { key, home: wt, away: bt, games: [], bp: [0, 0], mp: null, open: 0 };
      byKey.set(key, m);
      list.push(m);
    }
    m.games.push(g);
    const sc = SCORE[g.result];
    if (!sc) { m.open += 1; continue; }
    const homeWhite = wt === m.home;
    m.bp[0] += homeWhite ? sc[0] : sc[1];
    m.bp[1] += homeWhite ? sc[1] : sc[0];
  }
  for (const m of list) {
    if (m.open) continue;
    const a = m.bp[0] > m.bp[1] ? 2 : m.bp[0] < m.bp[1] ? 0 : 1;
    m.mp = [a, 2 - a];
  }
  return list;
}

// The games by match (each match's boards together, in match order), the
// games of no match after them.
export function arrangeByMatch(games, matches) {
  if (!matches.length) return games;
  const seen = new Set();
  const out = [];
  for (const m of matches) for (const g of m.games) { out.push(g); seen.add(g); }
  for (const g of games) if (!seen.has(g)) out.push(g);
  return out;
}

// "North 2½–1½ South".
export function matchScore(m) {
  return `${m.home} ${pointsText(m.bp[0])}–${pointsText(m.bp[1])} ${m.away}`;
}

// The matches of the round above its boards; a click shows one match's
// boards (the overview's search box gets both teams' names).
export function matchStrip(matches, onPick) {
  return h('nav', { class: 'match-strip', 'aria-label': t('team matches') },
    h('h2', { class: 'match-strip-title' }, t('Matches')),
    h('ol', { class: 'match-list' }, matches.map((m, i) => h('li', { class: 'match', 'data-match': String(i + 1) },
      h('button', { type: 'button', class: 'match-pick', title: t('show this match\'s boards'), onclick: () => onPick(m) },
        h('span', { class: 'match-home' }, m.home), ' ',
        h('span', { class: 'match-bp', title: t('board points') }, `${pointsText(m.bp[0])}–${pointsText(m.bp[1])}`), ' ',
        h('span', { class: 'match-away' }, m.away),
        h('span', { class: 'match-mp', title: t('match points') }, m.mp ? ` (${m.mp[0]}–${m.mp[1]})` : ` · ${t('live')}`))))));
}

// The Followed page (#/followed, issue 30): the players the viewer stars
// (follow-store.js), each with their games, live ones first; a switch for
// browser notifications of their moves, results and game starts; a field to
// follow a player by name. A page of the shape main.js routes to:
// render(route), destroy().

import { h } from './dom.js';
import { localizeSan } from './san.js';
import { moveNumberLabel, resultText } from './view.js';
import { pairings } from './pairings.js';
import { t } from './i18n.js';

export class FollowedPage {
  // app: { store, conn, ui, main, extras }
  constructor(app) {
    this.app = app;
    this.el = null;
    this.key = '';
  }

  destroy() {
    this.el = null;
    this.key = '';
  }

  allNames() {
    const names = new Set();
    for (const g of this.app.store.games.values()) { if (g.white) names.add(g.white); if (g.black) names.add(g.black); }
    for (const p of ((pairings() || {}).players || [])) if (p.name) names.add(p.name);
    return [...names].sort((a, b) => a.localeCompare(b));
  }

  render() {
    const { store, main, conn, ui } = this.app;
    const ex = this.app.extras;
    if (!this.el) {
      this.el = h('section', { class: 'followed-page' });
      main.replaceChildren(this.el);
      conn.requestList(); // every round's games
      document.title = `${t('Followed')} · chessrelay`;
    }
    const names = ex.follow.list();
    const rows = names.map((name) => {
      const games = [...store.games.values()].filter((g) => g.white === name || g.black === name)
        .sort((a, b) => (a.result === '*' ? 0 : 1) - (b.result === '*' ? 0 : 1) || String(b.round).localeCompare(String(a.round), undefined, { numeric: true }));
      return { name, games: games.map((g) => {
        const cur = store.current(g);
        const state = g.result !== '*' ? resultText(g.result)
          : cur.plies ? `${moveNumberLabel(g.start, cur.plies - 1)} ${localizeSan(cur.san || '', ui.notation)}` : t('not started');
        return [g.id, g.round, g.white, g.black, state, g.result === '*' && cur.plies > 0];
      }) };
    });
    const notifyOk = typeof Notification !== 'undefined';
    const key = JSON.stringify([rows, ex.follow.notify, notifyOk && Notification.permission, this.allNames().length, ui.lang]);
    if (key === this.key) return;
    this.key = key;
    const input = h('input', { type: 'text', class: 'follow-input', list: 'follow-names', 'aria-label': t('Player to follow'), placeholder: t('Player to follow'), autocomplete: 'off' });
    const add = h('form', { class: 'follow-add', onsubmit: (e) => {
      e.preventDefault();
      const n = input.value.trim();
      if (n && !ex.follow.has(n)) ex.follow.toggle(n);
      input.value = '';
      ex.followChanged();
    } }, input, h('datalist', { id: 'follow-names' }, this.allNames().map((n) => h('option', { value: n }))),
    h('button', { type: 'submit', class: 'abtn' }, t('Follow')));
    const notify = h('label', { class: 'follow-notify' },
      h('input', { type: 'checkbox', class: 'notify-toggle', checked: ex.follow.notify && notifyOk && Notification.permission === 'granted', disabled: !notifyOk,
        onchange: (e) => ex.enableNotify(e.target.checked) }),
      ` ${t('Notify me of their moves, results and game starts')}`);
    this.el.replaceChildren(
      h('h1', { class: 'round-title' }, t('Followed players')),
      h('p', { class: 'legend' }, t('Star a player on their card (a click on any name): their games come first on the round\'s page. Kept in this browser only.')),
      add, notify,
      rows.length ? h('ul', { class: 'followed-list' }, rows.map((r) => h('li', { class: 'followed-player', 'data-player': r.name },
        h('div', { class: 'fp-head' },
          h('button', { type: 'button', class: 'pname linklike', 'data-card': r.name }, r.name),
          h('button', { type: 'button', class: 'abtn unfollow', 'aria-label': t('Stop following {name}', { name: r.name }), onclick: () => { ex.follow.toggle(r.name); ex.followChanged(); } }, t('Unfollow'))),
        r.games.length ? h('ol', { class: 'fp-games' }, r.games.map(([id, round, white, black, state, live]) => h('li', {},
          h('a', { class: 'fp-game' + (live ? ' live' : ''), href: `#/game/${id}`, 'data-game': String(id) },
            `${t('Round {r}', { r: round })}: ${white || t('White')} – ${black || t('Black')} · ${state}`))))
          : h('p', { class: 'empty' }, t('No games yet.')))))
        : h('p', { class: 'empty' }, t('You follow no one yet.')));
  }
}

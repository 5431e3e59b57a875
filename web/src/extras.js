// Issue 30's viewer features, wired into the pages through a few hooks
// (main.js, overview-page.js, game-page.js call them): followed players
// (follow-store.js) with their games first and browser notifications, the
// Followed page (followed-page.js), the stream beside the boards
// (stream-panel.js), player cards (player-card.js), team matches on the
// overview (team-view.js) and spoken moves (speech.js).

import './extras.css';
import './i18n-extras.js';
import { h } from './dom.js';
import { FollowStore, followEvents } from './follow-store.js';
import { PlayerCard, playerInfo } from './player-card.js';
import { StreamPanel } from './stream-panel.js';
import { streamFor, streamAhead } from './stream.js';
import { tournament, refreshTournament } from './tournament.js';
import { pairings } from './pairings.js';
import { roundMatches, arrangeByMatch, matchStrip, matchScore, teamsOf } from './team-view.js';
import { Speaker, spokenMove, spokenResult } from './speech.js';
import { FollowedPage } from './followed-page.js';
import { moveNumberLabel, resultText } from './view.js';
import { sideToMove } from './game-store.js';
import { t, lang } from './i18n.js';

function storage() {
  try { return window.localStorage; } catch (e) { return null; }
}

const SPEAK_KEY = 'cr.speak'; // the boards whose moves are spoken (speakKey)

// A board's key for the spoken moves: its board id (a hall screen keeps its
// choice from round to round), else the game's.
function speakKey(g) {
  return g.board ? `b:${g.board}` : `g:${g.id}`;
}

export class Extras {
  // app: { store, conn, ui, root, main, scheduleRender() }
  constructor(app) {
    this.app = app;
    this.follow = new FollowStore(storage());
    this.seen = new Map(); // game id -> {plies, result, last}: what the notifier saw last
    this.card = new PlayerCard({ follow: this.follow, onFollow: () => this.followChanged() });
    this.stream = new StreamPanel({ storage: storage(), onChange: () => app.scheduleRender() });
    this.speaker = new Speaker(typeof window !== 'undefined' ? window : null, lang());
    this.speak = new Set(readList(SPEAK_KEY));
    this.followedPage = new FollowedPage({ ...app, extras: this });
    this.matchesKey = '';
    this.matches = [];
    if (!app.ui.embed) {
      refreshTournament(() => app.scheduleRender());
      document.addEventListener('click', (e) => this.onNameClick(e), true);
    }
  }

  followChanged() {
    this.app.ui.followKey = this.follow.list().join('|'); // pages redraw their cards
    this.app.scheduleRender();
  }

  // --- names open the player's card -----------------------------------------
  onNameClick(e) {
    const el = e.target.closest && e.target.closest('.pname, [data-card]');
    if (!el || el.closest('.player-card') || this.app.ui.route.page === 'arbiter') return;
    if (el.matches('a.fide')) return; // the FIDE link stays one; the card button beside it opens the card
    const name = el.dataset.card || el.textContent.trim();
    if (!name) return;
    e.preventDefault();
    e.stopPropagation();
    this.openCard(name);
  }

  openCard(name) {
    const { store } = this.app;
    this.card.open(playerInfo(name, [...store.games.values()], pairings(), tournament()));
    this.app.conn.requestList(); // every round's games, for the list and the score
  }

  // --- after each relay message: notifications and speech -------------------
  onChanged(ids) {
    const { store } = this.app;
    for (const id of ids) {
      const g = store.games.get(id);
      if (!g) continue;
      const cur = store.current(g);
      const now = { plies: cur.plies, result: g.result, last: cur.san || null };
      const prev = this.seen.get(id) || null;
      this.seen.set(id, now);
      const evs = followEvents(prev, now);
      if (!evs.length) continue;
      if (this.follow.follows(g)) this.notify(g, evs);
      if (this.speak.has(speakKey(g)) && this.app.ui.route.page === 'game' && this.app.ui.route.id === g.id) this.say(g, evs);
    }
    if (this.card.isOpen() && this.card.name) this.refreshCard();
  }

  refreshCard() {
    const { store } = this.app;
    this.card.fill(playerInfo(this.card.name, [...store.games.values()], pairings(), tournament()));
  }

  notify(g, evs) {
    if (!this.follow.notify || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    const who = `${g.white || t('White')} – ${g.black || t('Black')}`;
    for (const ev of evs) {
      let body;
      if (ev.kind === 'start') body = t('The game has begun.');
      else if (ev.kind === 'move') body = t('Move {move}', { move: `${moveNumberLabel(g.start, ev.ply - 1)} ${ev.san}` });
      else body = t('Result: {result}', { result: resultText(ev.result) });
      try {
        const n = new Notification(who, { body, tag: `cr-game-${g.id}-${ev.kind}`, lang: lang() });
        n.onclick = () => { window.focus(); location.hash = `#/game/${g.id}`; };
      } catch (e) { /* a browser that only notifies from a service worker */ }
    }
  }

  async enableNotify(on) {
    if (on && typeof Notification !== 'undefined' && Notification.permission !== 'granted') {
      const p = await Notification.requestPermission();
      on = p === 'granted';
    }
    this.follow.setNotify(on && typeof Notification !== 'undefined');
    this.app.scheduleRender();
    return this.follow.notify;
  }

  say(g, evs) {
    const l = lang();
    for (const ev of evs) {
      if (ev.kind === 'move') {
        const no = moveNumberLabel(g.start, ev.ply - 1).replace(/\.+$/, '');
        const side = sideToMove(this.app.store.fenAt(g, ev.ply - 1));
        this.speaker.say(spokenMove(no, side, ev.san, l));
      } else if (ev.kind === 'result') {
        this.speaker.say(spokenResult(ev.result, l));
      }
    }
  }

  setSpeak(g, on) {
    if (on) this.speak.add(speakKey(g)); else this.speak.delete(speakKey(g));
    writeList(SPEAK_KEY, [...this.speak]);
    if (on) this.speaker.say(t('Moves of this board will be read aloud.'));
    this.app.scheduleRender();
  }

  // --- the shell: header tab, notices, the stream ----------------------------
  navTab(page) {
    const n = this.follow.names.size;
    return h('a', { class: 'followed-tab' + (page === 'followed' ? ' active' : ''), href: '#/followed' },
      `★ ${t('Followed')}`, n ? h('span', { class: 'ft-count' }, String(n)) : null);
  }

  headerKey() {
    return this.follow.list().join('|');
  }

  currentRound() {
    const { ui, store } = this.app;
    if (ui.route.page === 'round') return ui.route.round;
    if (ui.route.page === 'game') {
      const g = store.games.get(ui.route.id);
      return g ? g.round : null;
    }
    return null;
  }

  // The notice bar's line when the video runs ahead of the boards.
  notices(delay) {
    const { ui } = this.app;
    if (ui.embed || !(ui.route.page === 'round' || ui.route.page === 'game') || this.stream.mode === 'hidden') return [];
    const s = streamFor(tournament(), this.currentRound());
    const ahead = streamAhead(delay, s);
    if (!ahead) return [];
    return [h('span', { class: 'stream-ahead' }, t('The video runs {time} ahead of the boards: it shows moves before they appear here.', { time: formatSpan(ahead) }))];
  }

  render() {
    const { ui, root, main } = this.app;
    if (ui.embed) return;
    const show = ui.route.page === 'round' || ui.route.page === 'game';
    const s = show ? streamFor(tournament(), this.currentRound()) : null;
    this.stream.render(s, location.hostname);
    if (this.stream.el.parentNode !== root) root.insertBefore(this.stream.el, main);
    root.classList.toggle('has-stream', !!s && this.stream.mode !== 'hidden');
  }

  // --- overview hooks ---------------------------------------------------------
  // The round's games in the order shown: followed players' first, then by
  // team match when the boards are team matches.
  arrange(games) {
    const ms = this.matchesOf(games);
    return this.follow.arrange(arrangeByMatch(games, ms));
  }

  matchesOf(games) {
    const key = games.length ? `${games[0].round}|${games.map((g) => `${g.id}:${g.result}:${g.whiteTeam}:${g.blackTeam}`).join(',')}|${JSON.stringify(pairings() && pairings().players ? pairings().players.length : 0)}` : '';
    if (key !== this.matchesKey) {
      this.matchesKey = key;
      this.matches = roundMatches(games, teamsOf(pairings()));
      this.matchOf = new Map();
      for (const m of this.matches) for (const g of m.games) this.matchOf.set(g.id, m);
    }
    return this.matches;
  }

  // The match list above the boards (none without teams).
  overviewHead(el, games, pick) {
    const ms = this.matchesOf(games);
    let strip = el.querySelector('.match-strip');
    const key = ms.map((m) => `${matchScore(m)}|${m.mp}`).join(';') + lang();
    if (!ms.length) {
      if (strip) strip.remove();
      return;
    }
    if (strip && strip.dataset.key === key) return;
    const next = matchStrip(ms, (m) => pick(`${m.home} ${m.away}`));
    next.dataset.key = key;
    if (strip) strip.replaceWith(next); else el.querySelector('.boards').before(next);
  }

  cardKey(g) {
    const m = this.matchOf && this.matchOf.get(g.id);
    return `${this.follow.follows(g)}|${m ? matchScore(m) : ''}`;
  }

  // A card's star (a followed player's game) and its match with the score.
  decorateCard(el, g) {
    const head = el.querySelector('.card-head');
    let tag = head.querySelector('.card-extra');
    if (!tag) {
      tag = h('span', { class: 'card-extra' });
      head.querySelector('.board-no').after(tag);
    }
    const m = this.matchOf && this.matchOf.get(g.id);
    const followed = this.follow.follows(g);
    tag.replaceChildren(...[
      followed ? h('span', { class: 'followed-star', title: t('a player you follow') }, '★') : null,
      m ? h('span', { class: 'match-tag' }, matchScore(m)) : null].filter(Boolean));
    el.classList.toggle('is-followed', followed);
  }

  // --- game page hook: stars, cards and the speech switch ---------------------
  gamePage(pageEl, g) {
    for (const row of pageEl.querySelectorAll('.board-col .player')) {
      const name = row.dataset.side === 'white' ? g.white : g.black;
      let box = row.querySelector('.player-extra');
      if (!box) {
        box = h('span', { class: 'player-extra' });
        row.querySelector('.name').after(box);
      }
      const followed = this.follow.has(name);
      const key = `${name}|${followed}|${lang()}`;
      if (!name || box.dataset.key === key) {
        box.hidden = !name;
        continue;
      }
      box.hidden = false;
      box.dataset.key = key;
      box.replaceChildren(
        h('button', { type: 'button', class: 'star-btn' + (followed ? ' on' : ''), 'aria-pressed': followed ? 'true' : 'false',
          'aria-label': t('Follow {name}', { name }), title: followed ? t('Stop following {name}', { name }) : t('Follow {name}', { name }),
          onclick: () => { this.follow.toggle(name); this.followChanged(); } }, followed ? '★' : '☆'),
        h('button', { type: 'button', class: 'card-btn', 'data-card': name, 'aria-label': t('Player card: {name}', { name }), title: t('Player card: {name}', { name }) }, 'ⓘ'));
    }
    const tools = pageEl.querySelector('.tools');
    let sp = tools.querySelector('.speak-label');
    if (!sp) {
      const box = h('input', { type: 'checkbox', class: 'speak-moves', onchange: (e) => { const cur = this.app.store.games.get(this.app.ui.route.id); if (cur) this.setSpeak(cur, e.target.checked); } });
      sp = h('label', { class: 'speak-label', title: t('read this board\'s moves and result aloud') }, box, ` ${t('Speak moves')}`);
      tools.append(sp);
    }
    sp.hidden = !this.speaker.available();
    sp.querySelector('input').checked = this.speak.has(speakKey(g));
  }
}

function formatSpan(s) {
  if (s >= 60 && s % 60 === 0) return t('{n} min', { n: s / 60 });
  if (s >= 60) return t('{m} min {s} s', { m: Math.floor(s / 60), s: s % 60 });
  return t('{n} s', { n: s });
}

function readList(key) {
  try {
    const v = JSON.parse(localStorage.getItem(key) || '[]');
    return Array.isArray(v) ? v.map(String) : [];
  } catch (e) {
    return [];
  }
}

function writeList(key, list) {
  try { localStorage.setItem(key, JSON.stringify(list)); } catch (e) { /* private mode */ }
}

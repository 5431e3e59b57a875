// The viewer's look, kept in localStorage: light or dark theme (or the
// system's, prefers-color-scheme), the board's colours, and move sounds.
// Applied as attributes on <html> (data-theme, data-board) that app.css keys on.

import { h } from './dom.js';
import { t, LANGS } from './i18n.js';

export const THEMES = ['auto', 'light', 'dark'];
// Board colours: chessground's own brown board image, and plain two-colour
// boards drawn by app.css (chessground bundles one board and one piece set).
export const BOARDS = ['brown', 'blue', 'green', 'grey'];

function read(key, allowed, dflt) {
  try {
    const v = localStorage.getItem(key);
    return allowed.includes(v) ? v : dflt;
  } catch (e) {
    return dflt;
  }
}

function write(key, v) {
  try { localStorage.setItem(key, v); } catch (e) { /* private mode */ }
}

export class Prefs {
  constructor(onChange) {
    this.onChange = onChange;
    this.theme = read('cr.theme', THEMES, 'auto');
    this.board = read('cr.board', BOARDS, 'brown');
    this.sound = read('cr.sound', ['on', 'off'], 'off') === 'on';
    this.audio = null;
    this.played = 0; // move sounds played (tests read it)
    this.media = window.matchMedia ? window.matchMedia('(prefers-color-scheme: light)') : null;
    if (this.media && this.media.addEventListener) this.media.addEventListener('change', () => this.apply());
    this.apply();
  }

  // The theme shown: the choice, or the system's when "auto".
  shownTheme() {
    if (this.theme !== 'auto') return this.theme;
    return this.media && this.media.matches ? 'light' : 'dark';
  }

  apply() {
    const root = document.documentElement;
    root.dataset.theme = this.shownTheme();
    root.dataset.board = this.board;
  }

  set(key, v) {
    this[key] = v;
    write(`cr.${key}`, key === 'sound' ? (v ? 'on' : 'off') : v);
    if (key === 'sound' && v) this.unlock();
    this.apply();
    this.onChange();
  }

  // Browsers start audio only after a click: the click that turns sounds on.
  unlock() {
    try {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!this.audio && AC) this.audio = new AC();
      if (this.audio && this.audio.state === 'suspended') this.audio.resume();
    } catch (e) { this.audio = null; }
  }

  // A short click for a new move (a lower one for a capture).
  moveSound(capture) {
    if (!this.sound) return;
    this.played++;
    const ctx = this.audio;
    if (!ctx || ctx.state !== 'running') return;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = capture ? 420 : 660;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.09);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.1);
  }

  // The settings menu of the header: theme, board, sounds, language.
  menu(langNow, setLang) {
    const sel = (cls, label, values, now, names, fn) => h('label', { class: `pref ${cls}` }, label, ' ',
      h('select', { onchange: (e) => fn(e.target.value) },
        values.map((v) => h('option', { value: v, selected: v === now ? true : null }, names[v]))));
    return h('details', { class: 'prefs' },
      h('summary', { title: t('Settings') }, '⚙', h('span', { class: 'prefs-label' }, ` ${t('Settings')}`)),
      h('div', { class: 'prefs-body' },
        sel('pref-theme', t('Theme'), THEMES, this.theme, { auto: t('System'), light: t('Light'), dark: t('Dark') }, (v) => this.set('theme', v)),
        sel('pref-board', t('Board'), BOARDS, this.board, { brown: t('Brown'), blue: t('Blue'), green: t('Green'), grey: t('Grey') }, (v) => this.set('board', v)),
        h('label', { class: 'pref pref-sound' },
          h('input', { type: 'checkbox', checked: this.sound ? true : null, onchange: (e) => this.set('sound', e.target.checked) }), ` ${t('Move sounds')}`),
        sel('pref-lang', t('Language'), Object.keys(LANGS), langNow, LANGS, setLang)));
  }
}

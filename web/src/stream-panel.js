// The stream beside the boards (issue 30): the tournament file's video for
// the round on screen (stream.js picks it and makes the player's URL) in a
// panel the viewer shows, pins (it stays in view while the page scrolls)
// or hides; the choice is kept (localStorage "cr.stream").

import { h } from './dom.js';
import { embedSrc, streamMode } from './stream.js';
import { t } from './i18n.js';

const KEY = 'cr.stream';

export class StreamPanel {
  constructor({ storage, onChange }) {
    this.storage = storage;
    this.onChange = onChange;
    let raw = null;
    try { raw = storage ? storage.getItem(KEY) : null; } catch (e) { raw = null; }
    this.mode = streamMode(raw);
    this.key = '';
    this.el = h('aside', { class: 'stream-panel', 'aria-label': t('Video'), hidden: true });
  }

  setMode(m) {
    this.mode = streamMode(m);
    try { if (this.storage) this.storage.setItem(KEY, this.mode); } catch (e) { /* private mode */ }
    this.key = '';
    if (this.onChange) this.onChange();
  }

  // stream: the round's entry of /tournament.json or null (no panel).
  render(stream, host) {
    const src = embedSrc(stream, host);
    this.el.hidden = !src;
    if (!src) {
      this.key = '';
      this.el.replaceChildren();
      return;
    }
    const key = JSON.stringify([src, this.mode, stream.title || '']);
    if (key === this.key) return;
    this.key = key;
    this.el.className = `stream-panel mode-${this.mode}`;
    this.el.dataset.kind = src.kind;
    const label = stream.title || t('Video');
    const btn = (cls, text, title, mode, pressed) => h('button', { type: 'button', class: `abtn ${cls}`, title, 'aria-pressed': pressed === undefined ? null : String(pressed), onclick: () => this.setMode(mode) }, text);
    const bar = h('div', { class: 'stream-bar' },
      h('h2', { class: 'stream-title' }, label),
      this.mode === 'hidden'
        ? btn('stream-show', t('Show video'), t('show the video beside the boards'), 'shown')
        : [btn('stream-pin', this.mode === 'pinned' ? t('Unpin') : t('Pin'), t('keep the video in view while the page scrolls'), this.mode === 'pinned' ? 'shown' : 'pinned', this.mode === 'pinned'),
          btn('stream-hide', t('Hide'), t('hide the video'), 'hidden')]);
    if (this.mode === 'hidden') {
      this.el.replaceChildren(bar);
      return;
    }
    // Only what the page asks for loads: no autoplay, the viewer presses play.
    const player = src.tag === 'iframe'
      ? h('iframe', { class: 'stream-frame', src: src.src, title: label, allow: 'encrypted-media; picture-in-picture; fullscreen', allowfullscreen: true, loading: 'lazy', referrerpolicy: 'strict-origin-when-cross-origin' })
      : h('video', { class: 'stream-video', src: src.src, controls: true, playsinline: true, preload: 'none', title: label });
    this.el.replaceChildren(bar, h('div', { class: 'stream-box' }, player));
  }
}

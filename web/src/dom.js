// DOM helpers shared by every page: an element builder, a text setter that
// leaves unchanged text alone, and inline SVG icons.

// h('a', { class: 'x', href, onclick: fn }, child, [children], 'text').
// Attributes that are null, undefined or false are left out; `on*` ones are
// listeners; true is an empty attribute.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Writes only on change: no layout work and no lost selection for equal text.
export function setText(el, text) {
  const t = text === null || text === undefined ? '' : String(text);
  if (el.textContent !== t) el.textContent = t;
}

// Inline SVG icons: no icon font, no glyph the system fonts may lack.
const ICONS = {
  first: 'M6 5h2v14H6zM20 5v14L9 12z',
  prev: 'M17 5v14L6 12z',
  next: 'M7 5v14l11-7z',
  last: 'M16 5h2v14h-2zM4 5v14l11-7z',
  flip: 'M7 3 3 7h3v10h2V7h3zM17 21l4-4h-3V7h-2v10h-3z',
  clock: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zm-1 3v6.6l4.8 2.9 1-1.7-3.8-2.3V7z',
  download: 'M11 3h2v10l3.3-3.3 1.4 1.4L12 16.8l-5.7-5.7 1.4-1.4L11 13zM5 19h14v2H5z',
};

export function icon(name) {
  const span = document.createElement('span');
  span.className = 'icon';
  span.innerHTML = `<svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true"><path fill="currentColor" d="${ICONS[name]}"/></svg>`;
  return span;
}

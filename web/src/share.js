// Sharing from the game page: copy a position link, the FEN, the PGN or
// the embed code. The async clipboard needs a secure context (https or
// localhost); a relay on a hall's LAN is plain http, so a hidden textarea
// and execCommand('copy') stand in there.

import { h } from './dom.js';

export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (e) { /* refused: try the old way */ }
  }
  const ta = h('textarea', { readonly: true, 'aria-hidden': 'true', style: 'position:fixed;top:0;left:0;opacity:0;' });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
  ta.remove();
  return ok;
}

// The iframe a site pastes to show game `id` live, at one of the sizes
// the Embed button offers (view.js EMBED_SIZES: the page fits each).
export function embedCode(origin, id, [width, height] = [720, 460]) {
  return `<iframe src="${origin}/embed/game/${id}" width="${width}" height="${height}" style="border:0" allowfullscreen title="chessrelay game ${id}"></iframe>`;
}

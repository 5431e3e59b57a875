// Engine evaluations (docs/protocol.md, "Engine evaluations"): text, the
// bar's share, NAG marks and the points of the evaluation and time-use
// graphs. Pure functions, tested with node.

// "+0.35", "−1.20", "0.00", "#3", "#−2" (White's point of view).
export function evalText(e) {
  if (!e) return '';
  if (typeof e.mate === 'number') return e.mate < 0 ? `#−${-e.mate}` : `#${e.mate}`;
  const cp = Number(e.cp) || 0;
  const s = (Math.abs(cp) / 100).toFixed(2);
  return cp > 0 ? `+${s}` : cp < 0 ? `−${s}` : s;
}

// The bar's short text: one decimal, whole pawns from 10 on, "#3" / "#−2".
export function shortEvalText(e) {
  if (!e) return '';
  if (typeof e.mate === 'number') return evalText(e);
  const cp = Number(e.cp) || 0;
  const p = Math.abs(cp) / 100;
  const s = p >= 10 ? p.toFixed(0) : p.toFixed(1);
  return cp < 0 && s !== '0.0' ? `−${s}` : s;
}

// White's share of the bar, 0..1: a win chance from the centipawns (the
// logistic curve lichess uses), a mate all of it.
export function whiteShare(e) {
  if (!e) return 0.5;
  if (typeof e.mate === 'number') return e.mate > 0 ? 1 : e.mate < 0 ? 0 : 0.5;
  const cp = Math.max(-1000, Math.min(1000, Number(e.cp) || 0));
  return 1 / (1 + Math.exp(-0.00368208 * cp));
}

// "?" for NAG 2, "??" for NAG 4, "" otherwise.
export function nagMark(e) {
  if (!e) return '';
  return e.nag === 4 ? '??' : e.nag === 2 ? '?' : '';
}

// Which parts to show: the URL's ?eval=0 (screens in the playing hall),
// else the viewer's choice (localStorage "cr.eval", "0" hides).
export function evalShown(search, stored) {
  const q = new URLSearchParams(search || '').get('eval');
  if (q !== null) return !(q === '0' || q === 'off' || q === 'false');
  return stored !== '0';
}

// The evaluation graph: one point per ply that has an eval, x the ply
// (0-based), y White's share (0..1). Plies without one are left out.
export function evalPoints(evals, n) {
  const pts = [];
  for (let i = 0; i < n; i++) {
    const e = evals[i];
    if (e) pts.push({ ply: i, y: whiteShare(e), e });
  }
  return pts;
}

// Time each ply took its mover, in ms, from the clocks after each move:
// the mover's clock after its previous move minus after this one (an
// increment makes it smaller; never below 0). null where unknown.
// movers[i]: 'white' or 'black', the side that played ply i.
export function timeUse(moves, movers) {
  const last = { white: null, black: null };
  return moves.map((m, i) => {
    const side = movers[i];
    const before = last[side];
    const now = typeof m.clock === 'number' ? m.clock : null;
    if (now !== null) last[side] = now;
    // The relay's %emt when it has it (it knows the increment), else the
    // drop of the mover's clock since their previous move.
    if (typeof m.emt === 'number') return m.emt;
    if (before === null || now === null) return null;
    return Math.max(0, before - now);
  });
}

// The ply under x (0..width) of a graph of n plies.
export function plyAt(x, width, n) {
  if (n <= 0 || width <= 0) return -1;
  const i = Math.floor((x / width) * n);
  return Math.max(0, Math.min(n - 1, i));
}

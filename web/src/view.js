// Small pure helpers of the pages, kept apart so node can test them.

import { t } from './i18n.js';

// The route table: a hash pattern and what its groups mean. The first match
// names the page (main.js has one page object per name).
const ROUTES = [
  { re: /^\/arbiter(?:\/game\/(\d+))?\/?$/, route: (m) => ({ page: 'arbiter', game: m[1] ? Number(m[1]) : null }) },
  // #/game/7/41: game 7 at ply 41 (the position after 41 half-moves).
  { re: /^\/game\/(\d+)(?:\/(\d+))?\/?$/, route: (m) => ({ page: 'game', id: Number(m[1]), ply: m[2] !== undefined ? Number(m[2]) : null }) },
  { re: /^\/round\/([^/]+)\/?$/, route: (m) => ({ page: 'round', round: decodeOr(m[1]) }) },
  { re: /^\/standings\/?$/, route: () => ({ page: 'standings' }) },
  { re: /^\/followed\/?$/, route: () => ({ page: 'followed' }) },
];
const DEFAULT_ROUTE = { page: 'round', round: null };

function decodeOr(s) {
  try { return decodeURIComponent(s); } catch (e) { return s; }
}

export function parseRoute(hash) {
  const path = String(hash || '').replace(/^#/, '');
  for (const r of ROUTES) {
    const m = r.re.exec(path);
    if (m) return r.route(m);
  }
  return { ...DEFAULT_ROUTE };
}

// "12." before White's move at 0-based ply index i, "12..." before Black's,
// counting from the start position's side to move and move number.
export function moveNumberLabel(startFen, i) {
  const parts = String(startFen || '').split(' ');
  const blackFirst = parts[1] === 'b';
  const full = Math.max(1, parseInt(parts[5], 10) || 1);
  const k = i + (blackFirst ? 1 : 0);
  const no = full + Math.floor(k / 2);
  return k % 2 === 0 ? `${no}.` : `${no}...`;
}

export function resultText(result) {
  if (result === '1/2-1/2') return '½–½';
  if (result === '1-0') return '1–0';
  if (result === '0-1') return '0–1';
  return result || '*';
}

export function playerScore(result, side) {
  if (result === '1/2-1/2') return '½';
  if (result === '1-0') return side === 'white' ? '1' : '0';
  if (result === '0-1') return side === 'black' ? '1' : '0';
  return '';
}

export function clampPly(p, n) {
  if (!Number.isFinite(p)) return n;
  return Math.max(0, Math.min(n, Math.trunc(p)));
}

// "1–0 · White wins · checkmate" for the game page.
export function resultLine(result, reason, lastSan) {
  const who = result === '1-0' ? t('White wins') : result === '0-1' ? t('Black wins') : result === '1/2-1/2' ? t('Draw') : '';
  let why = reason || '';
  if (!why && typeof lastSan === 'string' && lastSan.endsWith('#')) why = 'checkmate';
  why = t(why); // the relay's reasons are English; the known ones are translated
  return [resultText(result), who, why].filter(Boolean).join(' · ');
}

// A file-name part: letters, digits, '.', '_' and '-' kept, anything else
// (spaces, commas, slashes) one '_'.
function filePart(s) {
  return String(s ?? '').normalize('NFC').replace(/[^\p{L}\p{N}._-]+/gu, '_').replace(/^[_.-]+|[_.-]+$/g, '');
}

// A player's surname: "Carlsen, Magnus" -> "Carlsen".
function surname(name) {
  return String(name ?? '').split(',')[0];
}

// The download name of a game's or a round's PGN:
// "Event-R1-B2-White-Black.pgn" for a game, "Event-R1.pgn" for a round;
// unknown parts are left out, "game-<id>.pgn" when nothing is known.
export function pgnFileName({ event, round, table, white, black, id } = {}) {
  const parts = [filePart(event)];
  if (round !== null && round !== undefined && filePart(round)) parts.push(`R${filePart(round)}`);
  if (table !== null && table !== undefined && filePart(table)) parts.push(`B${filePart(table)}`);
  if (white || black) parts.push(filePart(surname(white)) || 'White', filePart(surname(black)) || 'Black');
  const name = parts.filter(Boolean).join('-');
  if (name) return `${name}.pgn`;
  return id !== null && id !== undefined ? `game-${id}.pgn` : 'games.pgn';
}

// An overlay's route and parameters (overlay.js): /overlay/game/<id> or
// /overlay/round/<r>, and ?size=PX&orientation=white|black&show=a,b&hide=c
// &limit=N&eval=0. Parts: board, names, flags, clocks, eval, last (all by
// default). null for another path.
export const OVERLAY_PARTS = ['board', 'names', 'flags', 'clocks', 'eval', 'last'];

export function parseOverlay(pathname, search) {
  const m = /^\/overlay\/(game|round)\/([^/]+)\/?$/.exec(String(pathname || ''));
  if (!m) return null;
  const q = new URLSearchParams(search || '');
  const kind = m[1];
  if (kind === 'game' && !/^\d+$/.test(m[2])) return null;
  const size = Number(q.get('size'));
  const limit = Number(q.get('limit'));
  let show = new Set(OVERLAY_PARTS);
  if (q.get('show')) show = new Set(q.get('show').split(',').map((s) => s.trim()).filter((s) => OVERLAY_PARTS.includes(s)));
  for (const p of (q.get('hide') || '').split(',')) show.delete(p.trim());
  const ev = q.get('eval');
  if (ev === '0' || ev === 'off' || ev === 'false') show.delete('eval');
  return {
    kind,
    id: kind === 'game' ? Number(m[2]) : null,
    round: kind === 'round' ? decodeOr(m[2]) : null,
    size: Number.isFinite(size) && size >= 80 && size <= 2000 ? Math.round(size) : (kind === 'game' ? 360 : 160),
    orientation: q.get('orientation') === 'black' ? 'black' : 'white',
    limit: Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : 0,
    show,
  };
}

// The embed mode (/embed/game/<id>, for an iframe on another site): the
// game page alone, without the header and the round's boards;
// ?hide=clocks leaves the clocks and move times out. null for another path.
export function parseEmbed(pathname, search) {
  const m = /^\/embed\/game\/(\d+)\/?$/.exec(String(pathname || ''));
  if (!m) return null;
  const q = new URLSearchParams(search || '');
  const hide = new Set((q.get('hide') || '').split(',').map((x) => x.trim()).filter(Boolean));
  const ply = Number(q.get('ply'));
  return { id: Number(m[1]), hide, ply: q.has('ply') && Number.isInteger(ply) && ply >= 0 ? ply : null };
}

// The embed's layout in a frame of W x H CSS pixels (issue 30): the board
// as large as the frame's width and height allow, with the moves beside it
// when there is room for them, else the board alone with its controls
// under it (the moves hidden); in a frame too short for both players'
// clocks the clocks go and the name bars shrink. Nothing is ever cut.
// engine: the eval bar takes width beside the board and its best line
// height under it. Returns {board, side: 'beside'|'under', moves, clocks}.
export const EMBED_BOX = { pad: 12, gap: 6, player: 40, small: 26, controls: 50, side: 230, colGap: 10, evalW: 32, best: 24 };

export function embedLayout(W, H, { engine = false } = {}) {
  const B = EMBED_BOX;
  const evalW = engine ? B.evalW : 0;
  const clocks = H >= 320;
  const player = clocks ? B.player : B.small;
  const column = 2 * player + 2 * B.gap + (engine ? B.best : 0);
  const beside = Math.min(H - B.pad - column, W - B.pad - evalW - B.colGap - B.side);
  const under = Math.min(W - B.pad - evalW, H - B.pad - column - B.gap - B.controls);
  const useBeside = beside >= 160 && beside >= under * 0.75;
  const board = Math.max(60, Math.floor(useBeside ? beside : under));
  // Under the board: the controls, and the moves only where 100 px are left.
  const moves = useBeside || H - B.pad - column - board - B.gap - B.controls >= 100;
  return { board, side: useBeside ? 'beside' : 'under', moves, clocks };
}

// The iframe sizes the game page's Embed offers (each one checked by the
// browser tests: the whole board, both players and the controls fit).
export const EMBED_SIZES = [[720, 460], [600, 400], [360, 520]];

// The link to a position: /#/game/<id>/<ply> on this relay.
export function positionUrl(origin, id, ply) {
  return `${origin}/#/game/${id}/${ply}`;
}

// Video beside the boards (issue 30): the tournament file's streams
// (/tournament.json, docs/protocol.md) as the player the page shows.
// Pure: node tests it.

// The stream of a round: its own entry, else the one for every round ("*").
export function streamFor(tournament, round) {
  const list = tournament && Array.isArray(tournament.streams) ? tournament.streams : [];
  const r = round === null || round === undefined ? null : String(round);
  return (r !== null && list.find((s) => String(s.round) === r)) || list.find((s) => s.round === '*' || !s.round) || null;
}

function youtubeId(u) {
  if (u.hostname === 'youtu.be') return u.pathname.slice(1).split('/')[0];
  const m = /^\/(?:embed|live|shorts|v)\/([\w-]+)/.exec(u.pathname);
  if (m) return m[1];
  return u.searchParams.get('v');
}

// What the page puts in: {tag: 'iframe'|'video', src} or null for a URL it
// cannot show. host: this page's host name (Twitch's player wants it).
export function embedSrc(stream, host) {
  if (!stream || !stream.url) return null;
  let u;
  try { u = new URL(stream.url); } catch (e) { return null; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  const kind = stream.kind || (/\.m3u8$/i.test(u.pathname) ? 'hls' : /youtu\.?be/.test(u.hostname) ? 'youtube' : /twitch\.tv$/.test(u.hostname) ? 'twitch' : '');
  if (kind === 'hls') return { tag: 'video', src: u.href, kind };
  if (kind === 'youtube') {
    const id = youtubeId(u);
    return id && /^[\w-]+$/.test(id) ? { tag: 'iframe', src: `https://www.youtube-nocookie.com/embed/${id}?rel=0`, kind } : null;
  }
  if (kind === 'twitch') {
    const parent = encodeURIComponent(host || 'localhost');
    const video = /^\/videos\/(\d+)/.exec(u.pathname);
    if (video) return { tag: 'iframe', src: `https://player.twitch.tv/?video=${video[1]}&parent=${parent}&autoplay=false`, kind };
    const channel = u.pathname.split('/')[1];
    return channel && /^\w+$/.test(channel) ? { tag: 'iframe', src: `https://player.twitch.tv/?channel=${channel}&parent=${parent}&autoplay=false`, kind } : null;
  }
  return null;
}

// How many seconds the stream runs ahead of the boards: the boards' public
// delay less the stream's own (0 when the stream is not ahead).
export function streamAhead(publicDelayS, stream) {
  if (!stream) return 0;
  const d = Number(publicDelayS) || 0;
  const own = Number(stream.delay_s) || 0;
  return Math.max(0, d - own);
}

// The viewer's choice for the panel: 'shown', 'pinned' (stays in view while
// the page scrolls) or 'hidden'.
export const STREAM_MODES = ['shown', 'pinned', 'hidden'];
export function streamMode(raw) {
  return STREAM_MODES.includes(raw) ? raw : 'shown';
}

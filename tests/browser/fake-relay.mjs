// A small stand-in for the relay's HTTP + WebSocket side (docs/protocol.md):
// serves web/dist, /game/<id>.pgn, /round/<r>.pgn, /games.json, and plays
// protocol messages on /ws. Tests drive it move by move; run it by itself
// (`node fake-relay.mjs --port 8099`) for a scripted demo round to look at.

import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { Chess } from 'chess.js';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_WEB_DIR = resolve(here, '../../web/dist');
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8' };

const nowUs = () => Date.now() * 1000;

export class FakeRelay {
  constructor({ webDir = DEFAULT_WEB_DIR, port = 0, host = '127.0.0.1', delay = 0 } = {}) {
    this.webDir = webDir;
    this.port = port;
    this.host = host;
    this.delay = delay;
    this.token = 's3cret';   // hello with it: a trusted (arbiter) connection
    this.seq = 100;          // not 0: a viewer must not assume seqs start at 1
    this.games = new Map();
    this.log = [];           // {seq, game, msg}: events a `since` can resume from
    this.clients = new Set();
    this.received = [];      // every client message, for the tests to inspect
    this.httpRequests = [];
    this.server = null;
    this.wss = null;
    // The arbiter channel (docs/protocol.md, "Arbiters").
    this.aseq = 0;
    this.arbGames = new Map();  // game id -> arbiter-state
    this.incidents = [];        // every incident, in order
    this.claims = new Map();    // claim id -> claim
    this.acks = [];             // {game, alert, who, wall}: acknowledged alerts, as the relay keeps them
    this.relayAlerts = [];      // the relay's standing alerts (a tampered state file), acked with game 0
    this.boardsHealth = [];     // what /boards.json answers
    this.pairingsJson = null;   // what /pairings.json answers (null: no pairings file)
    this.tournamentJson = null; // what /tournament.json answers (streams, players' photos)
    this.photos = new Map();    // /media/photo/<n> -> {type, body}
  }

  // --- lifecycle ---------------------------------------------------------------
  async start() {
    this.server = http.createServer((req, res) => this.onHttp(req, res));
    this.wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
    this.server.on('upgrade', (req, sock, head) => {
      if (req.url !== '/ws') { sock.destroy(); return; }
      this.wss.handleUpgrade(req, sock, head, (ws) => this.onClient(ws));
    });
    await new Promise((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(this.port, this.host, ok);
    });
    this.port = this.server.address().port;
    return this;
  }

  // Drops every connection and stops listening, keeping the games and the log
  // (a network cut or a relay restart as a viewer sees it).
  async stop() {
    for (const c of this.clients) c.ws.terminate();
    this.clients.clear();
    if (this.wss) this.wss.close();
    if (this.server) {
      this.server.closeAllConnections();
      await new Promise((ok) => this.server.close(ok));
    }
    this.server = null;
    this.wss = null;
  }

  get url() { return `http://${this.host}:${this.port}`; }

  // --- game model ---------------------------------------------------------------
  addGame({ id, round = '1', board, table, white, black, whiteElo, blackElo, event = 'chessrelay test open', start = START, moves = [], clock = null, result = '*', online = true, attention = false, announce = false, tags = {} }) {
    const g = { id, round: String(round), board: board || `DGT${1000 + id}`, table: table ?? null, start, moves: [], clock: null, result, reason: null, online, attention,
      tags: { Event: event, Site: 'Test hall', Round: String(round), White: white, Black: black, WhiteElo: String(whiteElo || ''), BlackElo: String(blackElo || ''), Board: String(table ?? ''), ...tags } };
    this.games.set(id, g);
    const chess = new Chess(start);
    for (const mv of moves) {
      const spec = typeof mv === 'string' ? { san: mv } : mv;
      g.moves.push(this.makeMove(chess, spec));
    }
    g.clock = clock ? { ...clock, at: nowUs() } : null;
    if (announce) this.emit(g, { type: 'game', game: this.summary(g) });
    return g;
  }

  makeMove(chess, { san, clock = null, emt = null, flags = [] }) {
    const m = chess.move(san);
    return { san: m.san, uci: m.from + m.to + (m.promotion || ''), fen: chess.fen(), clock, emt, flags };
  }

  chessAt(g, plies = g.moves.length) {
    const chess = new Chess(g.start);
    for (const m of g.moves.slice(0, plies)) chess.move(m.san);
    return chess;
  }

  fen(id, plies) {
    const g = this.games.get(id);
    return plies === 0 ? g.start : (plies === undefined ? (g.moves.length ? g.moves[g.moves.length - 1].fen : g.start) : g.moves[plies - 1].fen);
  }

  summary(g) {
    const last = g.moves[g.moves.length - 1];
    return { id: g.id, round: g.round, board: g.board, table: g.table, white: g.tags.White, black: g.tags.Black,
      white_elo: Number(g.tags.WhiteElo) || 0, black_elo: Number(g.tags.BlackElo) || 0, result: g.result,
      plies: g.moves.length, fen: last ? last.fen : g.start, last: last ? last.san : null, online: g.online, attention: g.attention,
      ...(last && last.eval ? { eval: last.eval } : {}),
      // As the relay: titles, federations and teams when the tags have them.
      ...Object.fromEntries([['WhiteTitle', 'white_title'], ['BlackTitle', 'black_title'], ['WhiteFed', 'white_fed'], ['BlackFed', 'black_fed'],
        ['WhiteTeam', 'white_team'], ['BlackTeam', 'black_team']].filter(([t]) => g.tags[t]).map(([t, k]) => [k, g.tags[t]])) };
  }

  snapshot(g) {
    return { type: 'snapshot', seq: this.seq, ts: nowUs(), game: {
      id: g.id, round: g.round, board: g.board, table: g.table, tags: g.tags, start: g.start,
      moves: g.moves.map((m) => ({ ...m })), clock: g.clock ? { ...g.clock } : null, result: g.result, reason: g.reason,
      delay: this.delay, online: g.online, attention: g.attention } };
  }

  // --- scripted events (each returns the message it sent) -----------------------
  // opts.hold: record the event but deliver it to no one (a lost frame).
  move(id, san, { clock = null, emt = null, flags = [], hold = false } = {}) {
    const g = this.games.get(id);
    const m = this.makeMove(this.chessAt(g), { san, clock, emt, flags });
    const ply = g.moves.length;
    g.moves.push(m);
    const mover = ply % 2 === 0 ? 'white' : 'black';
    if (g.clock) {
      if (clock !== null) g.clock[mover] = clock;
      g.clock.running = mover === 'white' ? 'b' : 'w';
      g.clock.at = nowUs();
    }
    return this.emit(g, { type: 'move', game: id, ply, ...m }, { hold });
  }

  clock(id, white, black, running) {
    const g = this.games.get(id);
    g.clock = { white, black, running, at: nowUs() };
    return this.emit(g, { type: 'clock', game: id, white, black, running });
  }

  // An engine evaluation of the position after ply `ply` (docs/protocol.md,
  // "Engine evaluations"): no seq; kept for snapshots, games.json and PGN.
  evaluate(id, ply, e) {
    const g = this.games.get(id);
    g.moves[ply].eval = e;
    const msg = { type: 'eval', game: id, ply, eval: e };
    for (const c of this.clients) if (this.wants(c, g)) this.send(c, msg);
    return msg;
  }

  correction(id, ply) {
    const g = this.games.get(id);
    const retracted = g.moves.length - ply;
    g.moves.length = ply;
    return this.emit(g, { type: 'correction', game: id, ply, retracted });
  }

  result(id, result, reason) {
    const g = this.games.get(id);
    g.result = result;
    g.reason = reason;
    if (g.clock) g.clock.running = '-';
    return this.emit(g, { type: 'result', game: id, result, reason });
  }

  status(id, online, attention) {
    const g = this.games.get(id);
    g.online = online;
    g.attention = attention;
    return this.emit(g, { type: 'status', game: id, online, attention });
  }

  // Keep only the events after `seq` (a relay that no longer holds old ones).
  forgetUpTo(seq) {
    this.log = this.log.filter((e) => e.seq > seq);
    this.forgotten = Math.max(this.forgotten || 0, seq);
  }

  emit(g, body, { hold = false } = {}) {
    this.seq += 1;
    const msg = { ...body, seq: this.seq, ts: nowUs() };
    if (body.type === 'clock') g.clock.at = msg.ts; // the snapshot's clock matches the event
    this.log.push({ seq: msg.seq, game: g.id, round: g.round, msg });
    if (!hold) for (const c of this.clients) if (this.wants(c, g)) this.send(c, msg);
    return msg;
  }

  wants(c, g) {
    return c.games.has(g.id) || c.rounds.has(g.round);
  }

  // --- WebSocket -----------------------------------------------------------------
  onClient(ws) {
    const c = { ws, rounds: new Set(), games: new Set(), sentSeq: new Set() };
    this.clients.add(c);
    ws.on('message', (data) => this.onClientMessage(c, String(data)));
    ws.on('close', () => this.clients.delete(c));
    ws.on('error', () => this.clients.delete(c));
  }

  send(c, msg) {
    if (c.ws.readyState !== 1) return;
    c.ws.send(JSON.stringify(msg));
  }

  onClientMessage(c, text) {
    let m;
    try {
      m = JSON.parse(text);
    } catch (e) {
      this.send(c, { type: 'error', error: 'bad JSON', where: 'frame' });
      return;
    }
    this.received.push({ at: Date.now(), ...m });
    switch (m.op) {
      case 'ping': this.send(c, { type: 'pong' }); break;
      case 'list': this.send(c, { type: 'games', games: [...this.games.values()].map((g) => this.summary(g)) }); break;
      case 'hello':
        if (m.token !== undefined && m.token !== this.token) {
          this.send(c, { type: 'error', error: 'wrong token', where: 'token' });
        } else {
          c.trusted = m.token !== undefined;
          this.send(c, { type: 'welcome', trusted: c.trusted, role: c.trusted ? 'arbiter' : undefined, delay: c.trusted ? 0 : this.delay, seq: this.seq });
        }
        break;
      case 'arbiter':
        if (!c.trusted) {
          this.send(c, { type: 'error', error: 'not allowed without a valid token', where: 'op' });
          break;
        }
        c.arbiter = true;
        this.send(c, this.arbSnapshot());
        break;
      case 'arbiter-action':
        if (!c.trusted) {
          this.send(c, { type: 'error', error: 'not allowed without a valid token', where: 'op' });
          break;
        }
        this.arbAction(m);
        break;
      case 'unsubscribe': c.games.delete(Number(m.game)); break;
      case 'subscribe': {
        const games = m.game !== undefined ? [this.games.get(Number(m.game))].filter(Boolean)
          : [...this.games.values()].filter((g) => g.round === String(m.round));
        if (m.game !== undefined && !games.length) {
          this.send(c, { type: 'error', error: 'unknown game', where: 'game' });
          break;
        }
        if (m.game !== undefined) c.games.add(Number(m.game)); else c.rounds.add(String(m.round));
        const since = typeof m.since === 'number' ? m.since : null;
        if (since !== null && since >= (this.forgotten || 0)) {
          for (const e of this.log) if (e.seq > since && games.some((g) => g.id === e.game)) this.send(c, e.msg);
        } else {
          for (const g of games) this.send(c, this.snapshot(g));
        }
        break;
      }
      default:
        this.send(c, { type: 'error', error: `unknown op '${m.op}'`, where: 'op' });
    }
  }

  // --- arbiter channel ------------------------------------------------------------------
  arbSnapshot() {
    const open = this.relayAlerts.filter((a) => !this.acks.some((k) => k.game === 0 && k.alert === a.alert));
    return { type: 'arbiter', aseq: this.aseq, games: [...this.arbGames.values()], incidents: [...this.incidents], claims: [...this.claims.values()], acks: [...this.acks], alerts: open };
  }

  arbPublish(msg) {
    const out = { ...msg, aseq: ++this.aseq };
    for (const c of this.clients) if (c.arbiter) this.send(c, out);
    return out;
  }

  // Sets (merges) a board's arbiter state and publishes it.
  arbState(id, patch = {}) {
    const g = this.games.get(id);
    const base = this.arbGames.get(id) || {
      game: id, board: g.board, round: g.round, table: g.table, white: g.tags.White, black: g.tags.Black, result: g.result,
      plies: g.moves.length, fen: this.fen(id), side: g.moves.length % 2 ? 'b' : 'w', repetitions: 1, halfmove: 0,
      threefold: false, fifty_moves: false, fivefold: false, seventy_five: false, dead: false,
      under_two_minutes: { w: false, b: false }, running: g.clock ? g.clock.running : '-', flagged: '-', online: g.online,
      illegal: { w: 0, b: 0 }, pending_illegal: -1, last_draw_offer: -1, claim_pending: false, claim_window: false,
      clock_mode: 'none', bonus_ms: 0, incidents: 0, claims: 0,
      white_ms: g.clock ? g.clock.white : null, black_ms: g.clock ? g.clock.black : null, t: 0 };
    const s = { ...base, ...patch, game: id };
    this.arbGames.set(id, s);
    this.arbPublish({ type: 'arbiter-state', game: id, state: s });
    return s;
  }

  incident(id, { kind, urgency = 'notice', text = kind, color = '-', ply } = {}) {
    const g = this.games.get(id);
    const seq = this.incidents.filter((i) => i.game === id).length + 1;
    const inc = { game: id, board: g.board, round: g.round, seq, kind, urgency, ply: ply ?? g.moves.length, color,
      white_ms: g.clock ? g.clock.white : null, black_ms: g.clock ? g.clock.black : null, t: Date.now(), wall: Date.now(), text };
    this.incidents.push(inc);
    this.arbPublish({ type: 'incident', game: id, incident: inc });
    return inc;
  }

  // What the real relay does with an action, in short.
  arbAction(m) {
    const id = Number(m.game);
    const g = this.games.get(id);
    const err = (error) => this.arbPublish({ type: 'arbiter-error', game: id, action: m.action, error, who: 'ws' });
    if (id === 0 && m.action === 'ack') { // the relay's own standing alerts
      if (!this.relayAlerts.some((a) => a.alert === m.alert)) return err(`no relay alert ${m.alert}`);
      if (this.acks.some((a) => a.game === 0 && a.alert === m.alert)) return null;
      const ack = { game: 0, alert: m.alert, who: 'chief-arbiter', wall: Date.now() };
      this.acks.push(ack);
      this.arbPublish({ type: 'ack', game: 0, ack });
      return null;
    }
    if (!g) return err(`unknown game ${id}`);
    const st = this.arbGames.get(id) || this.arbState(id);
    switch (m.action) {
      case 'ack': {
        if (this.acks.some((a) => a.game === id && a.alert === m.alert)) return null;
        const ack = { game: id, alert: m.alert, who: 'chief-arbiter', wall: Date.now() };
        this.acks.push(ack);
        this.arbPublish({ type: 'ack', game: id, ack });
        return null;
      }
      case 'claim': {
        const side = m.claimant;
        if (!st.under_two_minutes[side]) return err(`${side === 'w' ? 'White' : 'Black'} has two minutes or more: a claim needs less than two minutes`);
        const id2 = this.claims.size + 1;
        const claim = { id: id2, game: id, board: g.board, number: id2, claimant: side, basis: m.basis, ply: g.moves.length,
          white_ms: g.clock ? g.clock.white : null, black_ms: g.clock ? g.clock.black : null, wall: Date.now(),
          fen: this.fen(id), start: g.start, scoresheet: g.moves.map((mv, i) => ({ ply: i, san: mv.san, clock: mv.clock })),
          recent: [], evidence: { white_material: { p: 3, n: 0, b: 0, r: 1, q: 0, k: 1, points: 8 }, black_material: { p: 3, n: 0, b: 0, r: 1, q: 0, k: 1, points: 8 },
            moves: 10, captures: 0, pawn_moves: 0, plies_since_irreversible: g.moves.length, last_irreversible_ply: -1, repetitions: 1, max_repetitions: 2, opponent_can_mate: true, recent_count: 0 },
          decision: 'pending', added_ms: null, note: '', report: `/arbiter/claim/${id2}.html`, pgn: `/arbiter/claim/${id2}.pgn` };
        this.claims.set(id2, claim);
        this.incident(id, { kind: 'claim', urgency: 'warning', color: side, text: `claim ${id2}: ${side === 'w' ? 'White' : 'Black'} claims a draw (D1 ${m.basis})` });
        this.arbPublish({ type: 'claim', game: id, claim });
        this.arbState(id, { claim_pending: true, claims: st.claims + 1 });
        return null;
      }
      case 'decide': {
        const claim = [...this.claims.values()].reverse().find((c) => c.game === id && (c.decision === 'pending' || c.decision === 'postponed'));
        if (!claim) return err('no claim awaits a decision');
        claim.decision = m.decision;
        claim.note = m.note || '';
        claim.added_ms = m.decision === 'rejected' ? (m.added_ms ?? 120000) : null;
        this.incident(id, { kind: 'decision', urgency: 'info', text: `claim ${claim.id}: ${m.decision}` });
        this.arbPublish({ type: 'claim', game: id, claim: { ...claim } });
        if (m.decision === 'draw') {
          this.result(id, '1/2-1/2', 'claim upheld');
          this.incident(id, { kind: 'result', urgency: 'info', text: '1/2-1/2: claim upheld' });
        }
        this.arbState(id, { claim_pending: m.decision === 'postponed', result: g.result });
        return null;
      }
      case 'result':
        this.result(id, m.result, m.reason || 'arbiter');
        this.incident(id, { kind: 'result', urgency: 'info', text: `${m.result}: ${m.reason || 'arbiter'}` });
        this.arbState(id, { result: m.result });
        return null;
      case 'confirm-flag': {
        // As the relay: the flag falls, the opponent wins (6.9), the flag check closes.
        const r = m.color === 'w' ? '0-1' : '1-0';
        const who = m.color === 'w' ? 'White' : 'Black';
        this.incident(id, { kind: 'flag', urgency: 'critical', color: m.color, text: `${who}'s flag fell, confirmed by the arbiter: ${m.reason || 'seen'}: the opponent wins (6.9)` });
        this.result(id, r, 'flag fall');
        this.incident(id, { kind: 'result', urgency: 'info', text: `${r}: flag fall confirmed by the arbiter` });
        this.arbState(id, { result: r, flagged: m.color, flag_check: '-' });
        return null;
      }
      default:
        this.incident(id, { kind: m.action === 'draw-offer' ? 'draw-offer' : 'correction', urgency: m.action === 'draw-offer' ? 'notice' : 'info', text: `${m.action} by the arbiter` });
        return null;
    }
  }

  // --- HTTP ------------------------------------------------------------------------
  async onHttp(req, res) {
    const url = new URL(req.url, 'http://x');
    this.httpRequests.push(url.pathname);
    let m;
    if (url.pathname.startsWith('/arbiter/')) {
      if (req.headers.authorization !== `Bearer ${this.token}`) return this.reply(res, 401, 'text/plain', 'arbiter token required\n');
      if (url.pathname === '/arbiter/results.trf') {
        return this.resultsTrf ? this.reply(res, 200, 'text/plain', this.resultsTrf) : this.reply(res, 404, 'text/plain', 'no round played from a TRF pairings file\n');
      }
      if (url.pathname === '/arbiter/incidents.json') return this.reply(res, 200, 'application/json', JSON.stringify({ incidents: this.incidents, games: [...this.arbGames.values()] }));
      if ((m = /^\/arbiter\/claim\/(\d+)\.(html|pgn)$/.exec(url.pathname)) && this.claims.has(Number(m[1]))) {
        const c = this.claims.get(Number(m[1]));
        return m[2] === 'html'
          ? this.reply(res, 200, 'text/html; charset=utf-8', `<!doctype html><html><body><h1>Claim ${c.id}</h1><p>FEN ${c.fen}</p><p>${c.scoresheet.map((x) => x.san).join(' ')}</p><p>${c.decision}</p></body></html>`)
          : this.reply(res, 200, 'application/x-chess-pgn', this.pgn(this.games.get(c.game)));
      }
      return this.reply(res, 404, 'text/plain', 'not found\n');
    }
    if ((m = /^\/game\/(\d+)\.pgn$/.exec(url.pathname))) {
      const g = this.games.get(Number(m[1]));
      if (!g) return this.reply(res, 404, 'text/plain', 'no such game\n');
      return this.reply(res, 200, 'application/x-chess-pgn', this.pgn(g));
    }
    if ((m = /^\/round\/([^/]+)\.pgn$/.exec(url.pathname))) {
      const r = decodeURIComponent(m[1]);
      const list = [...this.games.values()].filter((g) => g.round === r);
      return this.reply(res, 200, 'application/x-chess-pgn', list.map((g) => this.pgn(g)).join('\n'));
    }
    if (url.pathname === '/tournament.json') return this.reply(res, 200, 'application/json', JSON.stringify(this.tournamentJson));
    if ((m = /^\/media\/photo\/(\d+)$/.exec(url.pathname)) && this.photos.has(Number(m[1]))) {
      const p = this.photos.get(Number(m[1]));
      return this.reply(res, 200, p.type, p.body);
    }
    if (url.pathname === '/pairings.json') return this.reply(res, 200, 'application/json', JSON.stringify(this.pairingsJson));
    if (url.pathname === '/boards.json') return this.reply(res, 200, 'application/json', JSON.stringify(this.boardsHealth));
    if (url.pathname === '/games.json') return this.reply(res, 200, 'application/json', JSON.stringify([...this.games.values()].map((g) => this.summary(g))));
    if (url.pathname === '/healthz') return this.reply(res, 200, 'text/plain', 'ok\n');
    // As the relay: a path without an extension is a client route (the
    // overlays' /overlay/game/<id> too) and gets index.html.
    const path = decodeURIComponent(url.pathname);
    const rel = url.pathname === '/' || !extname(path) ? 'index.html' : path.replace(/^\/+/, '');
    const file = normalize(join(this.webDir, rel));
    if (!file.startsWith(this.webDir)) return this.reply(res, 403, 'text/plain', 'forbidden\n');
    try {
      const body = await readFile(file);
      return this.reply(res, 200, MIME[extname(file)] || 'application/octet-stream', body);
    } catch (e) {
      return this.reply(res, 404, 'text/plain', 'not found\n');
    }
  }

  reply(res, code, type, body) {
    res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
    res.end(body);
  }

  pgn(g) {
    const tags = { ...g.tags, Result: g.result };
    const head = Object.entries(tags).filter(([, v]) => v !== '').map(([k, v]) => `[${k} "${String(v).replace(/"/g, '\\"')}"]`).join('\n');
    const parts = [];
    g.moves.forEach((m, i) => {
      if (i % 2 === 0) parts.push(`${i / 2 + 1}.`);
      parts.push(m.san);
    });
    parts.push(g.result);
    return `${head}\n\n${parts.join(' ')}\n`;
  }
}

// --- the fixture round used by the tests and the demo ---------------------------------
export const RUY = ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Ba4', 'Nf6', 'O-O', 'Be7'];
export const RUY_MORE = ['Re1', 'b5', 'Bb3', 'd6', 'c3', 'O-O', 'h3', 'Nb8', 'd4', 'Nbd7'];

export function seedRound(relay) {
  const H = 3600000;
  relay.addGame({ id: 1, round: '1', table: 1, board: 'DGT23164', white: 'Carlsen, Magnus', black: 'Nepomniachtchi, Ian', whiteElo: 2830, blackElo: 2795,
    moves: RUY.map((san, i) => ({ san, clock: 1.5 * H - (i + 1) * 20000 })),
    clock: { white: 1.5 * H - 100000, black: 1.5 * H - 120000, running: 'w' } });
  relay.addGame({ id: 2, round: '1', table: 2, board: 'T16.2', white: 'Ding, Liren', black: 'Caruana, Fabiano', whiteElo: 2780, blackElo: 2805,
    moves: ['e4', 'e5', 'Bc4', 'Nc6', 'Qh5', 'Nf6', 'Qxf7#'], result: '1-0',
    clock: { white: 1.3 * H, black: 1.4 * H, running: '-' } });
  relay.addGame({ id: 3, round: '1', table: 3, board: 'Board_109', white: 'Firouzja, Alireza', black: 'So, Wesley', whiteElo: 2760, blackElo: 2757,
    clock: { white: 1.5 * H, black: 1.5 * H, running: '-' } });
  relay.addGame({ id: 4, round: '1', table: 4, board: '98', white: 'Giri, Anish', black: 'Gukesh, D', whiteElo: 2745, blackElo: 2790,
    moves: [{ san: 'd4' }, { san: 'Nf6' }, { san: 'c4' }, { san: 'e6', flags: ['reconstructed'] }, { san: 'Nc3' }, { san: 'Bb4', flags: ['illegal'] }],
    clock: { white: 1.45 * H, black: 1.42 * H, running: 'w' }, online: false, attention: true });
  relay.addGame({ id: 5, round: '2', table: 1, board: 'DGT23164', white: 'Nepomniachtchi, Ian', black: 'Ding, Liren', whiteElo: 2795, blackElo: 2780,
    clock: { white: 1.5 * H, black: 1.5 * H, running: '-' } });
}

// --- standalone demo ------------------------------------------------------------------------
async function demo() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  const relay = new FakeRelay({ port: Number(opt('--port', '8099')), webDir: resolve(opt('--web', DEFAULT_WEB_DIR)), delay: Number(opt('--delay', '0')) });
  seedRound(relay);
  await relay.start();
  console.log(`fake relay on ${relay.url}/ (Ctrl-C to stop)`);
  const every = Number(opt('--every', '3000'));
  let i = 0;
  const timer = setInterval(() => {
    const g = relay.games.get(1);
    if (i < RUY_MORE.length) {
      const side = g.moves.length % 2 === 0 ? 'white' : 'black';
      relay.move(1, RUY_MORE[i++], { clock: Math.round(g.clock[side] - 1000) });
    } else {
      clearInterval(timer);
    }
  }, every);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) demo();

// The viewer's game store: applies relay messages (docs/protocol.md) in seq
// order, never twice, and says which games changed or need a fresh snapshot.

import { TimeBase, clockRemaining } from './clock.js';

const EVENT_TYPES = new Set(['move', 'clock', 'correction', 'result', 'status', 'game', 'tag']);

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function newGame(id) {
  return {
    id, round: null, board: null, table: null, tags: {},
    white: '', black: '', whiteElo: null, blackElo: null, whiteTitle: '', blackTitle: '',
    whiteFed: '', blackFed: '', whiteFideId: '', blackFideId: '', whiteTeam: '', blackTeam: '',
    evals: [], summaryEval: null,               // engine evaluations by ply; the list's last one
    start: START_FEN, moves: [], loaded: false, // loaded: a snapshot gave the moves
    summary: null,                              // {fen,last,uci,plies} from a games list or summary
    clock: null, result: '*', reason: null, delay: 0,
    turnAt: null,                               // relay µs the side to move began thinking
    online: true, attention: false, statusReason: null,
    seq: 0, stale: false,
  };
}

function sideToMove(fen) {
  const parts = String(fen || '').split(' ');
  return parts[1] === 'b' ? 'black' : 'white';
}

function elo(v) {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : null;
}

export class Store {
  constructor() {
    this.games = new Map();
    this.lastSeq = 0;
    this.time = new TimeBase();
    this.errors = [];
    this.welcome = null;
    this.listed = new Set(); // rounds whose list of summaries came (a summary subscription)
    this.engineSeen = false; // an evaluation came: the relay runs an engine
    this.boardsKey = '';     // what latestOnBoard was worked out from
    this.latestOnBoard = new Map();
  }

  // A game the relay left without a result because its board began a new
  // one (a game of the same board with a larger id and a move or a result;
  // a game paired for a later round waits on its board without either):
  // not live any more, and its board's status (online, attention) is the
  // new game's, not its own.
  superseded(g) {
    if (!g || g.result !== '*' || g.board === null || g.board === undefined || g.board === '') return false;
    const key = `${this.games.size}|${this.lastSeq}`;
    if (key !== this.boardsKey) {
      this.boardsKey = key;
      this.latestOnBoard = new Map();
      for (const o of this.games.values()) {
        if (o.board === null || o.board === undefined || o.board === '') continue;
        if (o.result === '*' && !(this.current(o).plies > 0)) continue; // not begun
        const k = String(o.board);
        if (!(this.latestOnBoard.get(k) > o.id)) this.latestOnBoard.set(k, o.id);
      }
    }
    return this.latestOnBoard.get(String(g.board)) > g.id;
  }

  game(id) {
    let g = this.games.get(id);
    if (!g) {
      g = newGame(id);
      this.games.set(id, g);
    }
    return g;
  }

  // Sorted list of round names (numeric order when they are numbers).
  rounds() {
    const set = new Set();
    for (const g of this.games.values()) if (g.round !== null && g.round !== undefined) set.add(String(g.round));
    return [...set].sort((a, b) => {
      const na = Number(a), nb = Number(b);
      if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
      return a.localeCompare(b);
    });
  }

  // Games of a round in a stable board order: table, then board id, then id.
  roundGames(round) {
    const list = [...this.games.values()].filter((g) => String(g.round) === String(round));
    list.sort((a, b) => {
      const ta = a.table ?? Infinity, tb = b.table ?? Infinity;
      if (ta !== tb) return ta - tb;
      const ba = String(a.board ?? ''), bb = String(b.board ?? '');
      if (ba !== bb) return ba.localeCompare(bb, undefined, { numeric: true });
      return a.id - b.id;
    });
    return list;
  }

  // Apply one relay message. localNowMs: the viewer's clock at arrival.
  // Returns {changed:Set<id>, resync:[id], list:bool, error:obj|null}.
  apply(msg, localNowMs = Date.now()) {
    const out = { changed: new Set(), resync: [], list: false, error: null };
    if (!msg || typeof msg !== 'object') return out;
    // The resume point moves with events only: they arrive in seq order on a
    // connection, while a snapshot's or welcome's seq may run ahead of events
    // still on their way (resuming from it would skip them).
    // A round's summaries come in the same order as events (docs/protocol.md).
    if (typeof msg.seq === 'number' && msg.seq > this.lastSeq && (EVENT_TYPES.has(msg.type) || msg.type === 'summary')) this.lastSeq = msg.seq;
    // A snapshot's ts is its game's last event, maybe long ago: only events
    // tell how far behind the relay's clock this viewer is.
    if (typeof msg.ts === 'number' && msg.type !== 'snapshot') this.time.observe(msg.ts, localNowMs);

    switch (msg.type) {
      case 'games':
        // A round's list (the answer to a summary subscription) replaces
        // what was held of its games not followed whole.
        if (msg.round !== undefined && typeof msg.seq === 'number') {
          this.listed.add(String(msg.round));
          // An entry's own seq is its game's (clock readings aside): a game
          // held whole and as new is kept.
          for (const s of msg.games || []) this.applyLiveSummary(s, typeof s.seq === 'number' ? s.seq : msg.seq, out, true);
        } else {
          for (const s of msg.games || []) this.applySummary(s, out);
        }
        return out;
      case 'summary':
        if (msg.game && typeof msg.seq === 'number') this.applyLiveSummary(msg.game, msg.seq, out);
        return out;
      case 'snapshot':
        this.applySnapshot(msg, out);
        return out;
      case 'game':
        this.applyNewGame(msg, out);
        return out;
      case 'welcome':
        // The answer to hello: whether we are trusted, and the public delay.
        this.welcome = { trusted: !!msg.trusted, role: msg.role || null, delay: Number(msg.delay) || 0 };
        this.time.setDelay(this.welcome.delay);
        return out;
      case 'error':
        out.error = msg;
        this.errors.push(msg);
        return out;
      case 'move': case 'clock': case 'correction': case 'result': case 'status': case 'tag':
        this.applyEvent(msg, out);
        return out;
      case 'eval': case 'evals':
        this.applyEval(msg, out);
        return out;
      default:
        return out;
    }
  }

  applySummary(s, out) {
    const id = Number(s.id);
    if (!Number.isFinite(id)) return;
    const g = this.game(id);
    if (s.round !== undefined) g.round = String(s.round);
    if (s.board !== undefined) g.board = s.board;
    if (s.table !== undefined) g.table = s.table;
    if (s.white !== undefined) g.white = s.white;
    if (s.black !== undefined) g.black = s.black;
    if (s.white_elo !== undefined) g.whiteElo = elo(s.white_elo);
    if (s.black_elo !== undefined) g.blackElo = elo(s.black_elo);
    if (typeof s.white_title === 'string') g.whiteTitle = s.white_title;
    if (typeof s.black_title === 'string') g.blackTitle = s.black_title;
    if (typeof s.white_fed === 'string') g.whiteFed = s.white_fed;
    if (typeof s.black_fed === 'string') g.blackFed = s.black_fed;
    if (typeof s.white_team === 'string') g.whiteTeam = s.white_team;
    if (typeof s.black_team === 'string') g.blackTeam = s.black_team;
    if (s.eval !== undefined) g.summaryEval = s.eval || null;
    if (g.summaryEval) this.engineSeen = true;
    if (s.online !== undefined) g.online = !!s.online;
    if (s.attention !== undefined) g.attention = !!s.attention;
    // The list's position only stands in until a snapshot brings the moves.
    if (!g.loaded) {
      if (s.result !== undefined) g.result = s.result;
      if (s.fen !== undefined || s.plies !== undefined) {
        g.summary = { fen: s.fen || null, last: s.last || null, uci: s.uci || null, plies: Number(s.plies) || 0 };
      }
      if (s.clock && typeof s.clock === 'object') {
        g.clock = { white: s.clock.white, black: s.clock.black, running: s.clock.running || '-', at: s.clock.at };
        g.turnAt = g.clock.running !== '-' ? g.clock.at : null;
      }
      if (s.reason !== undefined) g.reason = s.reason;
    }
    out.changed.add(id);
  }

  // A game's summary from a round followed by summaries (a "summary"
  // message, or an entry of the round's list) as of event seq: newer than
  // what is held, it is the game now; the moves held (a game no longer
  // followed whole) are dropped, a later subscription brings them again.
  applyLiveSummary(s, seq, out, fromList = false) {
    const id = Number(s.id);
    if (!Number.isFinite(id)) return;
    const g = this.game(id);
    // The same seq again (not held whole) is the same event with more to
    // say: an engine's evaluation of its move.
    if (g.loaded ? seq <= g.seq : (!fromList && seq < g.seq)) return;
    if (g.loaded) {
      g.loaded = false;
      g.moves = [];
      g.evals = [];
    }
    g.stale = false;
    g.seq = Math.max(g.seq, seq);
    g.clock = null;
    g.squares = Array.isArray(s.squares) ? s.squares : null;
    this.applySummary(unbrief(s), out);
  }

  // A game starts: it has no moves yet, so the viewer holds all of it.
  applyNewGame(msg, out) {
    const s = msg.game;
    if (!s || s.id === undefined || !Number.isFinite(Number(s.id))) return;
    const g = this.game(Number(s.id));
    if (typeof msg.seq === 'number' && msg.seq <= g.seq) return;
    this.applySummary(s, out);
    if (s.tags && typeof s.tags === 'object') this.applyTags(g, s.tags);
    if (!g.loaded && !(g.summary && g.summary.plies > 0)) {
      g.start = s.start || START_FEN;
      g.moves = [];
      g.loaded = true;
      g.summary = null;
      g.stale = false;
    }
    if (typeof msg.seq === 'number') g.seq = msg.seq;
    if (!s.tags && s.white === undefined) out.list = true; // names come with the list
  }

  applyTags(g, tags) {
    g.tags = { ...g.tags, ...tags };
    if (tags.White !== undefined) g.white = tags.White;
    if (tags.Black !== undefined) g.black = tags.Black;
    if (tags.WhiteElo !== undefined) g.whiteElo = elo(tags.WhiteElo);
    if (tags.BlackElo !== undefined) g.blackElo = elo(tags.BlackElo);
    if (tags.WhiteTitle !== undefined) g.whiteTitle = String(tags.WhiteTitle || '');
    if (tags.BlackTitle !== undefined) g.blackTitle = String(tags.BlackTitle || '');
    if (tags.WhiteFed !== undefined) g.whiteFed = String(tags.WhiteFed || '');
    if (tags.BlackFed !== undefined) g.blackFed = String(tags.BlackFed || '');
    if (tags.WhiteTeam !== undefined) g.whiteTeam = String(tags.WhiteTeam || '');
    if (tags.BlackTeam !== undefined) g.blackTeam = String(tags.BlackTeam || '');
    if (tags.WhiteFideId !== undefined) g.whiteFideId = String(tags.WhiteFideId || '');
    if (tags.BlackFideId !== undefined) g.blackFideId = String(tags.BlackFideId || '');
    if ((g.table === null || g.table === undefined) && tags.Board !== undefined && Number.isFinite(Number(tags.Board)) && Number(tags.Board) > 0) g.table = Number(tags.Board);
  }

  applySnapshot(msg, out) {
    const s = msg.game;
    if (!s || s.id === undefined) return;
    const id = Number(s.id);
    const g = this.game(id);
    // A snapshot is always the relay's latest word on the game (it answers a
    // subscribe), even when the relay restarted and its seq went back.
    g.seq = typeof msg.seq === 'number' ? msg.seq : 0;
    g.stale = false;
    g.loaded = true;
    g.summary = null;
    if (s.round !== undefined) g.round = String(s.round);
    if (s.board !== undefined) g.board = s.board;
    if (s.table !== undefined) g.table = s.table;
    g.tags = {};
    this.applyTags(g, s.tags && typeof s.tags === 'object' ? s.tags : {});
    g.start = s.start || START_FEN;
    g.moves = (s.moves || []).map((m) => ({
      san: m.san, uci: m.uci, fen: m.fen,
      clock: typeof m.clock === 'number' ? m.clock : null,
      emt: typeof m.emt === 'number' ? m.emt : null,
      flags: Array.isArray(m.flags) ? m.flags : [],
    }));
    g.evals = (s.moves || []).map((m) => (m.eval && typeof m.eval === 'object' ? m.eval : null));
    if (g.evals.some(Boolean)) this.engineSeen = true;
    g.clock = s.clock ? {
      white: s.clock.white, black: s.clock.black,
      running: s.clock.running || '-',
      at: typeof s.clock.at === 'number' ? s.clock.at : msg.ts,
    } : null;
    // The side to move has been thinking since its clock last started.
    g.turnAt = g.clock && g.clock.running !== '-' ? g.clock.at : null;
    g.result = s.result || '*';
    if (s.reason !== undefined) g.reason = s.reason;
    if (s.online !== undefined) g.online = !!s.online;
    if (s.attention !== undefined) g.attention = !!s.attention;
    g.squares = Array.isArray(s.squares) ? s.squares : null;
    if (typeof s.delay === 'number') {
      g.delay = s.delay;
      this.time.setDelay(s.delay);
    }
    out.changed.add(id);
  }

  applyEvent(msg, out) {
    const id = Number(msg.game);
    if (!Number.isFinite(id)) return;
    const g = this.game(id);
    // Events for a game waiting for its snapshot would apply to the wrong base.
    if (g.stale) return;
    if (typeof msg.seq === 'number') {
      if (msg.seq <= g.seq) return; // already seen: never apply twice
    }
    const markStale = () => {
      g.stale = true;
      out.resync.push(id);
      out.changed.add(id);
    };
    switch (msg.type) {
      case 'move': {
        if (!g.loaded && g.summary && g.summary.plies > 0) { markStale(); return; }
        if (msg.ply !== g.moves.length) { markStale(); return; }
        const mover = sideToMove(this.fenAt(g, g.moves.length));
        g.moves.push({
          san: msg.san, uci: msg.uci, fen: msg.fen,
          clock: typeof msg.clock === 'number' ? msg.clock : null,
          emt: typeof msg.emt === 'number' ? msg.emt : null,
          flags: Array.isArray(msg.flags) ? msg.flags : [],
        });
        g.loaded = true;
        g.summary = null;
        const other = mover === 'white' ? 'black' : 'white';
        const c = g.clock || { white: null, black: null, running: '-', at: msg.ts };
        if (typeof msg.clock === 'number') c[mover] = msg.clock;
        if (g.result === '*') {
          // The mover's clock stops and the opponent's starts with the move.
          c.running = other[0];
          c.at = msg.ts;
        }
        g.turnAt = msg.ts; // the opponent starts thinking
        g.clock = c;
        break;
      }
      case 'clock': {
        // The press after a move tells the mover's time, as the relay does
        // for its snapshots and PGN (docs/protocol.md).
        const n = g.moves.length;
        if (n && g.moves[n - 1].clock === null && msg.running === sideToMove(this.fenAt(g, n))[0]) {
          const mover = sideToMove(this.fenAt(g, n - 1));
          if (typeof msg[mover] === 'number') g.moves[n - 1].clock = msg[mover];
        }
        // A reading that hands the move to the other side starts its thinking time.
        const before = g.clock ? g.clock.running : '-';
        if ((msg.running || '-') !== before || g.turnAt === null) g.turnAt = msg.ts;
        g.clock = { white: msg.white, black: msg.black, running: msg.running || '-', at: msg.ts };
        // A press timed a ply whose move came first: the move takes its clock.
        if (typeof msg.ply === 'number' && g.moves[msg.ply]) {
          g.moves[msg.ply].clock = msg.ply_clock === undefined ? null : msg.ply_clock;
          g.moves[msg.ply].emt = typeof msg.emt === 'number' ? msg.emt : null;
        }
        break;
      }
      case 'correction': {
        if (!g.loaded || typeof msg.ply !== 'number' || msg.ply < 0 || msg.ply > g.moves.length) {
          markStale();
          return;
        }
        g.moves.length = msg.ply;
        if (g.evals.length > msg.ply) g.evals.length = msg.ply; // retracted with their plies
        break;
      }
      case 'result':
        g.result = msg.result || '*';
        g.reason = msg.reason || null;
        if (g.clock && g.clock.running !== '-' && g.result !== '*') {
          // Freeze the clock at the moment the game ended.
          const side = g.clock.running === 'w' ? 'white' : 'black';
          g.clock[side] = clockRemaining(g.clock, side, msg.ts);
          g.clock.running = '-';
          g.clock.at = msg.ts;
        }
        break;
      case 'status':
        if (msg.online !== undefined) g.online = !!msg.online;
        if (msg.attention !== undefined) g.attention = !!msg.attention;
        g.squares = g.attention && Array.isArray(msg.squares) ? msg.squares : null;
        g.statusReason = msg.reason || null;
        break;
      case 'tag':
        // Not in protocol v1's list, but the relay sends it when an arbiter
        // sets a tag (names, ratings, round).
        if (typeof msg.name === 'string') this.applyTags(g, { [msg.name]: msg.value });
        break;
      default:
        return;
    }
    if (typeof msg.seq === 'number') g.seq = msg.seq;
    out.changed.add(id);
  }

  // An engine evaluation ("eval": one ply; "evals": every ply of a game, as
  // sent on a resume). No seq: it may come before its move, so it is kept
  // by ply; the last one for a ply holds.
  applyEval(msg, out) {
    const id = Number(msg.game);
    const g = Number.isFinite(id) ? this.games.get(id) : null;
    if (!g) return;
    if (msg.type === 'evals') {
      if (!Array.isArray(msg.evals)) return;
      g.evals = msg.evals.map((e) => (e && typeof e === 'object' ? e : null));
      if (g.evals.some(Boolean)) this.engineSeen = true;
    } else {
      const ply = Number(msg.ply);
      if (!Number.isInteger(ply) || ply < 0 || !msg.eval || typeof msg.eval !== 'object') return;
      while (g.evals.length < ply) g.evals.push(null);
      g.evals[ply] = msg.eval;
      this.engineSeen = true;
      if (!g.loaded && g.summary && ply === g.summary.plies - 1) g.summaryEval = msg.eval;
    }
    out.changed.add(id);
  }

  // The evaluation of the position after `plies` half-moves of g (null:
  // none; the list's when the moves are not loaded).
  evalAt(g, plies) {
    if (!g.loaded) return g.summaryEval || null;
    return plies > 0 && plies <= g.moves.length ? g.evals[plies - 1] || null : null;
  }

  // The latest evaluation at or before `plies` half-moves: {e, exact}
  // (exact: of that very position); e null when there is none.
  evalNear(g, plies) {
    const e = this.evalAt(g, plies);
    if (e || !g.loaded) return { e, exact: !!e };
    for (let i = Math.min(plies, g.evals.length) - 1; i >= 0; i--) {
      if (g.evals[i]) return { e: g.evals[i], exact: false };
    }
    return { e: null, exact: false };
  }

  // The `since` to resume a subscription with after a reconnect, or 0 for
  // fresh snapshots: a game (or a round with a game) not held whole.
  sinceFor(sub) {
    if (sub.game !== undefined) {
      const g = this.games.get(Number(sub.game));
      if (!g || g.stale || !g.loaded) return 0;
    } else if (!(sub.summary && this.listed.has(String(sub.round)))) {
      // Summaries of the games changed since lastSeq need the round's list
      // held; else (a relay that sends the games whole) every game whole.
      const games = this.roundGames(sub.round);
      if (!games.length || games.some((g) => g.stale || !g.loaded)) return 0;
    }
    return this.lastSeq;
  }

  // Position after `plies` half-moves of game g (0 = start).
  fenAt(g, plies) {
    if (plies <= 0) return g.start || START_FEN;
    const m = g.moves[Math.min(plies, g.moves.length) - 1];
    return m ? m.fen : g.start;
  }

  // What a board should show for game g at its latest ply.
  current(g) {
    if (!g.loaded && g.summary && g.summary.fen) {
      return { fen: g.summary.fen, plies: g.summary.plies, san: g.summary.last, uci: g.summary.uci || null };
    }
    const n = g.moves.length;
    const m = n ? g.moves[n - 1] : null;
    return { fen: this.fenAt(g, n), plies: n, san: m ? m.san : null, uci: m ? m.uci : null };
  }
}

// A game in brief (a round followed by summaries, docs/protocol.md) as a
// games list entry: players as [name, elo, title, fed, team], the clock as
// [white, black, running, at], defaults left out.
export function unbrief(s) {
  const o = {
    id: s.id, round: s.round, board: s.board, result: s.result || '*', plies: s.plies, fen: s.fen,
    last: s.last ?? null, uci: s.uci ?? null, online: s.online !== false, attention: !!s.attention,
    eval: s.eval || null, reason: s.reason ?? null,
  };
  if (s.table !== undefined) o.table = s.table;
  for (const [k, side] of [['w', 'white'], ['b', 'black']]) {
    const p = s[k];
    if (!Array.isArray(p)) continue;
    o[side] = p[0] ?? '?';
    o[`${side}_elo`] = p[1] ?? null;
    o[`${side}_title`] = p[2] || '';
    o[`${side}_fed`] = p[3] || '';
    o[`${side}_team`] = p[4] || '';
  }
  if (Array.isArray(s.clock)) o.clock = { white: s.clock[0], black: s.clock[1], running: s.clock[2] || '-', at: s.clock[3] };
  return o;
}

export function uciSquares(uci) {
  if (typeof uci !== 'string' || uci.length < 4) return undefined;
  const a = uci.slice(0, 2), b = uci.slice(2, 4);
  if (!/^[a-h][1-8]$/.test(a) || !/^[a-h][1-8]$/.test(b)) return undefined;
  return [a, b];
}

export function isCheck(san) {
  return typeof san === 'string' && /[+#]$/.test(san);
}

export { sideToMove };

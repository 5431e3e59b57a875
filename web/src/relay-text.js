// Texts the relay writes (incidents, refusals of an arbiter's action, claim
// notes) in the page's language. The relay writes English only: each text is
// matched against the templates below (the relay's own formats, with
// {names} for what varies), and the template's translation in i18n.js is
// filled with the values, themselves translated when they are relay texts
// or side names. A text no template matches stays as the relay wrote it.

import { t, lang } from './i18n.js';

export const RELAY_TEXTS = [
  // Flags and clocks (src/monitor.c).
  '{who}\'s flag fell: {rest}',
  '{who}\'s flag fell after the game ended ({result}): the result stands',
  '{who}\'s flag fell, confirmed by the arbiter: {reason}: {rest}',
  '{who}\'s flag fell, confirmed by the arbiter: {rest}',
  'White wins (6.9)',
  'Black wins (6.9)',
  'the opponent wins (6.9)',
  '{who} cannot checkmate by any legal sequence: draw (6.9)',
  '{who}\'s clock should be at 0:00 ({how}), check it: confirm the flag fall as the result, or let play go on',
  'extrapolated from a reading the relay cannot vouch for',
  'by the move times and the time control',
  '{who} has less than two minutes ({left}): draw claim window open (D1)',
  '{who} has less than two minutes ({left})',
  '{result}: flag fall confirmed by the arbiter',
  '{who} pressed the clock without a move (after {move})',
  '{who} did not press the clock after {move}',
  '{who}\'s clock went from {from} to {to} after {move}: time added or the clock reset, not by the time control',
  // The board's link.
  'board back online',
  'board offline: moves and clock times are not being received',
  'board offline',
  // Positions and rules.
  'position stands for the {n}rd time: a draw claim (9.2) would be correct',
  'position stands for the {n}th time: a draw claim (9.2) would be correct',
  '50 moves by each side without a capture or pawn move: a draw claim (9.3) would be correct',
  'dead position: neither side can checkmate (5.2.2)',
  'position repeated {n} times (9.6.1)',
  '75 moves by each side without a capture or pawn move (9.6.2)',
  '{rule}: the game is drawn',
  '{who} completed an illegal move {move} (illegal move no. {n} of {whose}): penalties apply, arbiter decides',
  '{who} offers a draw after {move} (entered by the arbiter)',
  '{who} offers a draw after {move}',
  'draw offer after {move} removed by the arbiter',
  // Results.
  '{result} (from the game record)',
  '{result} set by the arbiter: {reason}',
  '{result} set by the arbiter',
  'result changed from {was} to {result} by the arbiter: {reason}',
  'result changed from {was} to {result} by the arbiter',
  '{result}: {why}',
  'checkmate',
  'stalemate',
  'dead position',
  'fivefold repetition',
  '75-move rule',
  // Claims (src/claims.c) and their refusals.
  'claim {n}: {text}',
  'draw claim by {who} refused: {why}',
  'this event has no quickplay finish: D1 claims are not allowed',
  'no clock: the claimant\'s time is unknown',
  'the clock has an increment of {n} s: no quickplay finish',
  'the clock has a delay of {n} s: no quickplay finish',
  'the game is over ({result})',
  '{who}\'s flag has fallen',
  'the claimant\'s time is unknown',
  '{who} has {left} left: a claim needs less than two minutes',
  'claim {n} awaits a decision',
  'a D1 claim is made without a move',
  '{who} is not to move: only the player to move claims under {rule}',
];

// What a {name} may hold: side names, results and numbers exactly; anything
// else lazily.
const SLOT = {
  who: '(White|Black)', whose: '(White|Black)', result: '(1-0|0-1|1/2-1/2|\\*)', was: '(1-0|0-1|1/2-1/2|\\*)', n: '(\\d+)',
};

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const COMPILED = RELAY_TEXTS.map((tpl) => {
  const names = [];
  const src = tpl.split(/(\{\w+\})/).map((part) => {
    const m = /^\{(\w+)\}$/.exec(part);
    if (!m) return escape(part);
    names.push(m[1]);
    return SLOT[m[1]] || '(.+?)';
  }).join('');
  return { tpl, names, re: new RegExp(`^${src}$`) };
});

function value(name, v, depth) {
  if (name === 'who' || name === 'whose') return t(v);
  if (SLOT[name]) return v;
  return translate(v, depth + 1);
}

function translate(text, depth) {
  if (depth > 4) return text;
  for (const { tpl, names, re } of COMPILED) {
    const m = re.exec(text);
    if (!m) continue;
    const vars = {};
    names.forEach((name, i) => { vars[name] = value(name, m[i + 1], depth); });
    return t(tpl, vars);
  }
  return text;
}

// The relay's text in the page's language (as it is in English).
export function relayText(text) {
  const s = String(text ?? '');
  return lang() === 'en' || !s ? s : translate(s, 0);
}

// A standard reader (chess.js) reads the PGN chessrelay writes by default:
// every guessed ply carries the word "reconstructed" (and "ambiguous: also
// ...") in its comment, and a stretch the arbiter accepted without its moves
// is a [%missing FEN] comment. tests/data/pgn/uncertainty.pgn is the writer's
// output (test_pgn checks that it still is): a replay of
// tests/data/feeds-gaps/g13-24-8.feed, and a short game with a missing stretch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Chess } from 'chess.js';

const text = readFileSync(new URL('../../data/pgn/uncertainty.pgn', import.meta.url), 'utf8');
const games = text.split(/\n\n(?=\[Event)/).filter((g) => g.trim());

function plyOfFen(c, fen) {
  const probe = new Chess();
  const moves = c.history();
  for (let i = 0; i < moves.length; i++) {
    probe.move(moves[i]);
    if (probe.fen() === fen) return i + 1;
  }
  return -1;
}

test('chess.js reads a game with a silent gap, and the marks sit on the guessed plies', () => {
  const c = new Chess();
  c.loadPgn(games[0]);
  assert.equal(c.history().length, 121);
  const marked = c.getComments().filter((x) => x.comment.includes('reconstructed')).map((x) => plyOfFen(c, x.fen));
  assert.deepEqual(marked.sort((a, b) => a - b), [25, 26, 27, 28, 29, 30, 31, 32]);
});

test('chess.js reads the alternatives and a missing stretch as comments', () => {
  const c = new Chess();
  c.loadPgn(games[1]);
  assert.deepEqual(c.history(), ['e4', 'e5', 'Nf3', 'Nc6', 'Nc3', 'Nf6', 'Bb5']);
  const comments = c.getComments().map((x) => x.comment);
  assert.ok(comments.includes('reconstructed, ambiguous: also Nc3 Nc6 Nf3 Nf6'));
  assert.ok(comments.some((x) => x.includes('[%missing r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq')));
});

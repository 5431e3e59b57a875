import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localizeSan, NOTATIONS } from '../../../web/src/san.js';

test('English SAN is returned unchanged', () => {
  for (const san of ['e4', 'Nf3', 'O-O', 'O-O-O+', 'exd8=Q#', 'Qxf7#', 'R1e2']) assert.equal(localizeSan(san, 'en'), san);
});

test('every language maps the five piece letters', () => {
  const cases = {
    ru: ['Кр', 'Ф', 'Л', 'С', 'К'],
    de: ['K', 'D', 'T', 'L', 'S'],
    fr: ['R', 'D', 'T', 'F', 'C'],
    es: ['R', 'D', 'T', 'A', 'C'],
    it: ['R', 'D', 'T', 'A', 'C'],
    nl: ['K', 'D', 'T', 'L', 'P'],
  };
  for (const [lang, [k, q, r, b, n]] of Object.entries(cases)) {
    assert.equal(localizeSan('Kxe2', lang), `${k}xe2`, lang);
    assert.equal(localizeSan('Qh5+', lang), `${q}h5+`, lang);
    assert.equal(localizeSan('Rad1', lang), `${r}ad1`, lang);
    assert.equal(localizeSan('Bb5', lang), `${b}b5`, lang);
    assert.equal(localizeSan('Nbd7', lang), `${n}bd7`, lang);
  }
});

test('files, castling and promotion are handled', () => {
  assert.equal(localizeSan('bxc8=N+', 'de'), 'bxc8=S+');
  assert.equal(localizeSan('e8=Q#', 'ru'), 'e8=Ф#');
  assert.equal(localizeSan('O-O-O', 'ru'), 'O-O-O');
  assert.equal(localizeSan('Bxb5', 'fr'), 'Fxb5'); // the b file stays lowercase
  assert.equal(localizeSan('Nf3', 'figurine'), '♞f3');
  assert.equal(localizeSan('a8=Q', 'figurine'), 'a8=♛');
});

test('unknown notations and odd input are passed through', () => {
  assert.equal(localizeSan('Nf3', 'xx'), 'Nf3');
  assert.equal(localizeSan(undefined, 'de'), undefined);
  assert.ok(Object.keys(NOTATIONS).length >= 8);
});

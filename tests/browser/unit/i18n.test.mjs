import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { t, setLang, pickLang, tableOf, LANGS } from '../../../web/src/i18n.js';
import { TITLES } from '../../../web/src/feds.js';

const SRC = fileURLToPath(new URL('../../../web/src/', import.meta.url));
// The viewer pages' files and the arbiter page's translated so far
// (arbiter-ui.js and arbiter.js are not yet).
const FILES = ['main.js', 'overview.js', 'game.js', 'view.js', 'widgets.js', 'event.js', 'prefs.js', 'arbiter-board.js'];

test('the language: a stored choice, else the browser\'s first known one, else English', () => {
  assert.equal(pickLang(null, ['ru-RU', 'en']), 'ru');
  assert.equal(pickLang(null, ['de-DE', 'ru']), 'ru');
  assert.equal(pickLang(null, ['de-DE']), 'en');
  assert.equal(pickLang('en', ['ru-RU']), 'en');
  assert.equal(pickLang('xx', ['ru-RU']), 'ru');
  assert.equal(pickLang(null, []), 'en');
  assert.deepEqual(Object.keys(LANGS), ['en', 'ru']);
});

test('t(): the key in English, the table\'s text in Russian, {names} filled', () => {
  setLang('en');
  assert.equal(t('Round {r}', { r: 3 }), 'Round 3');
  setLang('ru');
  assert.equal(t('Round {r}', { r: 3 }), 'Тур 3');
  assert.equal(t('not a key'), 'not a key');
  setLang('xx');
  assert.equal(t('Standings'), 'Standings');
  setLang('en');
});

test('every viewer string has its Russian text, with the same {names}', () => {
  const keys = new Set(['{n} boards', '1 board', ...Object.values(TITLES)]); // passed through variables
  for (const f of FILES) {
    const src = readFileSync(SRC + f, 'utf8');
    for (const m of src.matchAll(/\bt\(\s*'((?:[^'\\]|\\.)*)'/g)) keys.add(m[1].replace(/\\'/g, "'"));
  }
  assert.ok(keys.size > 100, `only ${keys.size} strings found`);
  // The arbiter's board panel goes through t() (a file of plain literals would pass the check below).
  const board = readFileSync(SRC + 'arbiter-board.js', 'utf8');
  assert.ok([...board.matchAll(/\bt\(\s*'/g)].length >= 25, 'arbiter-board.js: its strings are not translated');
  const ru = tableOf('ru');
  const names = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
  const missing = [...keys].filter((k) => !ru[k]);
  assert.deepEqual(missing, []);
  for (const k of keys) assert.equal(names(ru[k]), names(k), `placeholders of "${k}"`);
});

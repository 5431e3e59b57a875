import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { t, setLang, pickLang, tableOf, LANGS } from '../../../web/src/i18n.js';
import { TITLES } from '../../../web/src/feds.js';
import { KIND_LABEL, BASIS_TEXT, ACTION_LABEL, kindLabel, basisText, actionLabel, actionMessage, counters } from '../../../web/src/arbiter-store.js';
import { RELAY_TEXTS, relayText } from '../../../web/src/relay-text.js';

const SRC = fileURLToPath(new URL('../../../web/src/', import.meta.url));
// The viewer pages' files and the arbiter page's.
const FILES = ['main.js', 'overview-page.js', 'game-page.js', 'view.js', 'widgets.js', 'standings-page.js', 'prefs.js',
  'arbiter-board.js', 'arbiter-page.js', 'arbiter-store.js'];

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

test('every viewer and arbiter string has its Russian text, with the same {names}', () => {
  // Texts passed through variables or tables.
  const keys = new Set(['{n} boards', '1 board', ...Object.values(TITLES),
    ...Object.values(KIND_LABEL), ...Object.values(BASIS_TEXT), ...Object.values(ACTION_LABEL), ...RELAY_TEXTS]);
  for (const f of FILES) {
    const src = readFileSync(SRC + f, 'utf8');
    for (const m of src.matchAll(/\bt\(\s*'((?:[^'\\]|\\.)*)'/g)) keys.add(m[1].replace(/\\'/g, "'"));
  }
  assert.ok(keys.size > 300, `only ${keys.size} strings found`);
  // The arbiter's files go through t() (a file of plain literals would pass the check below).
  for (const [f, least] of [['arbiter-board.js', 25], ['arbiter-page.js', 100], ['arbiter-store.js', 25]]) {
    const src = readFileSync(SRC + f, 'utf8');
    assert.ok([...src.matchAll(/\bt\(\s*'/g)].length >= least, `${f}: its strings are not translated`);
  }
  const ru = tableOf('ru');
  const names = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
  const missing = [...keys].filter((k) => !ru[k]);
  assert.deepEqual(missing, []);
  for (const k of keys) assert.equal(names(ru[k]), names(k), `placeholders of "${k}"`);
});

test('the arbiter\'s tables, validation messages and counters follow the language', () => {
  setLang('ru');
  try {
    assert.equal(kindLabel('flag'), 'Флажок упал');
    assert.equal(kindLabel('not-a-kind'), 'not-a-kind');
    assert.equal(basisText('threefold'), 'троекратное повторение позиции (9.2)');
    assert.equal(actionLabel('take-back'), 'Возврат ходов');
    assert.throws(() => actionMessage('claim', 3, { claimant: 'x', basis: 'a' }), /^Error: заявитель: белые или чёрные$/);
    const c = Object.fromEntries(counters({ repetitions: 2, halfmove: 10, claim_window: true, under_two_minutes: { w: true } }).map((x) => [x.key, x]));
    assert.equal(c.repetitions.label, 'Повторения');
    assert.equal(c.claim.value, 'открыто (Белые)');
    setLang('en');
    assert.equal(kindLabel('flag'), 'Flag fall');
    assert.equal(c.repetitions.label, 'Повторения', 'made in Russian, kept');
    assert.equal(counters({}).find((x) => x.key === 'dead').label, 'Dead position');
  } finally {
    setLang('en');
  }
});

test('texts made by the relay (alerts, incidents, refusals) in Russian, the values filled in', () => {
  setLang('ru');
  try {
    assert.equal(relayText("White's flag fell: Black wins (6.9)"), 'Упал флажок (Белые): Чёрные выиграли (6.9)');
    assert.equal(relayText('board offline: moves and clock times are not being received'), 'доска не на связи: ходы и время часов не поступают');
    assert.equal(relayText('position stands for the 3rd time: a draw claim (9.2) would be correct'),
      'позиция повторилась в 3-й раз: заявление о ничьей (9.2) было бы правильным');
    assert.equal(relayText('draw claim by Black refused: the clock has an increment of 30 s: no quickplay finish'),
      'заявление о ничьей (Чёрные) отклонено: на часах добавление 30 с: быстрого завершения нет');
    assert.equal(relayText('1-0: checkmate'), '1-0: мат');
    assert.equal(relayText("White's clock went from 1:28:30 to 1:38:13 after 2... Nc6: time added or the clock reset, not by the time control"),
      'Белые: на часах было 1:28:30, стало 1:38:13 после хода 2... Nc6: время добавлено или часы переставлены, не по контролю времени');
    assert.equal(relayText('White has less than two minutes (0:01:55): draw claim window open (D1)'),
      'Белые: меньше двух минут (0:01:55): можно заявить о ничьей (D1)');
    assert.equal(relayText('a text the relay never writes'), 'a text the relay never writes');
    setLang('en');
    assert.equal(relayText("White's flag fell: Black wins (6.9)"), "White's flag fell: Black wins (6.9)");
  } finally {
    setLang('en');
  }
});

test('every relay text template is the relay\'s: its fixed words are in src/ or relay/', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const c = ['src/monitor.c', 'src/claims.c'].map((f) => readFileSync(root + f, 'utf8')).join('\n').replace(/"\s*\n\s*"/g, '');
  for (const tpl of RELAY_TEXTS) {
    for (const part of tpl.split(/\{\w+\}/).map((x) => x.trim()).filter((x) => x.length > 6)) {
      // "{n}rd time": the relay writes the number and its suffix with "%d%s".
      // "the clock has %s of %d s" with "an increment" or "a delay".
      const fixed = part.replace(/^(rd|th) /, '').replace(/^[:,.() ]+|[:,.() ]+$/g, '')
        .replace(/^the clock has (an increment|a delay) of$/, 'the clock has %s of');
      if (fixed.length > 6 && !['board offline'].includes(tpl)) assert.ok(c.includes(fixed), `"${fixed}" of "${tpl}" is not in the relay's sources`);
    }
  }
});

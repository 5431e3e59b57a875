// The viewer's UI text in English and Russian: t('English text') gives the
// text in the chosen language (English is the key, so a missing translation
// shows English). The language comes from a stored choice, else the
// browser's languages; setLang() switches it. {name} in a text is filled
// from t()'s second argument.

export const LANGS = { en: 'English', ru: 'Русский' };

const RU = {};

const TABLES = { ru: RU };
let current = 'en';

// The stored choice if it is one of LANGS, else the first of the browser's
// languages that is, else English.
export function pickLang(stored, navLangs = []) {
  if (stored && LANGS[stored]) return stored;
  for (const l of navLangs || []) {
    const base = String(l || '').toLowerCase().split('-')[0];
    if (LANGS[base]) return base;
  }
  return 'en';
}

export function setLang(l) {
  current = LANGS[l] ? l : 'en';
  if (typeof document !== 'undefined') document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

export function t(key, vars) {
  const table = TABLES[current];
  let s = (table && table[key]) || key;
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? String(vars[k]) : m));
  return s;
}

// For the tests: every key of a language's table, to check none is missing.
export function tableOf(l) {
  return TABLES[l] || {};
}

// Spoken moves (issue 30): a board's moves and result read aloud with the
// Web Speech API, in English or Russian, for hall screens and blind
// spectators. spokenSan() and spokenResult() are pure (node tests them);
// Speaker talks to window.speechSynthesis.

const WORDS = {
  en: {
    K: 'King', Q: 'Queen', R: 'Rook', B: 'Bishop', N: 'Knight', takes: 'takes', check: 'check', mate: 'checkmate',
    short: 'castles kingside', long: 'castles queenside', promotes: 'promotes to', white: 'White', black: 'Black',
    '1-0': 'White wins', '0-1': 'Black wins', '1/2-1/2': 'Draw', voice: 'en-GB',
  },
  ru: {
    K: 'Король', Q: 'Ферзь', R: 'Ладья', B: 'Слон', N: 'Конь', takes: 'бьёт', check: 'шах', mate: 'мат',
    short: 'короткая рокировка', long: 'длинная рокировка', promotes: 'превращается в', white: 'Белые', black: 'Чёрные',
    '1-0': 'Белые выиграли', '0-1': 'Чёрные выиграли', '1/2-1/2': 'Ничья', voice: 'ru-RU',
  },
};
const PROMO = { en: { Q: 'Queen', R: 'Rook', B: 'Bishop', N: 'Knight' }, ru: { Q: 'ферзя', R: 'ладью', B: 'слона', N: 'коня' } };

function words(lang) {
  return WORDS[lang] || WORDS.en;
}

export function voiceLang(lang) {
  return words(lang).voice;
}

// "Nxf3+" -> "Knight takes f3, check"; squares letter by letter ("e 4")
// read better than "e4" in both languages' voices.
export function spokenSan(san, lang = 'en') {
  const w = words(lang);
  let s = String(san || '').replace(/[!?]+$/, '');
  let tail = '';
  if (s.endsWith('#')) { tail = w.mate; s = s.slice(0, -1); } else if (s.endsWith('+')) { tail = w.check; s = s.slice(0, -1); }
  let body;
  if (/^O-O-O/.test(s)) body = w.long;
  else if (/^O-O/.test(s)) body = w.short;
  else {
    const m = /^([KQRBN])?([a-h]?[1-8]?)(x)?([a-h][1-8])(?:=([QRBN]))?$/.exec(s);
    if (!m) return [s, tail].filter(Boolean).join(', ');
    const sq = (x) => x.split('').join(' ');
    const parts = [];
    if (m[1]) parts.push(w[m[1]]);
    if (m[2]) parts.push(sq(m[2]));
    if (m[3]) parts.push(w.takes);
    parts.push(sq(m[4]));
    if (m[5]) parts.push(w.promotes, (PROMO[lang] || PROMO.en)[m[5]]);
    body = parts.join(' ');
  }
  return [body, tail].filter(Boolean).join(', ');
}

// "12... Knight f 3": the move number and who moved.
export function spokenMove(no, side, san, lang = 'en') {
  const w = words(lang);
  return `${no} ${side === 'black' ? w.black : w.white}: ${spokenSan(san, lang)}`;
}

export function spokenResult(result, lang = 'en') {
  return words(lang)[result] || '';
}

// The speech engine: say(text) queues an utterance in the page's language.
export class Speaker {
  constructor(win, lang) {
    this.win = win;
    this.lang = lang;
  }

  available() {
    return !!(this.win && this.win.speechSynthesis && this.win.SpeechSynthesisUtterance);
  }

  say(text) {
    if (!text || !this.available()) return false;
    const u = new this.win.SpeechSynthesisUtterance(text);
    u.lang = voiceLang(this.lang);
    this.win.speechSynthesis.speak(u);
    return true;
  }
}

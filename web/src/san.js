// SAN localisation: the relay always sends English SAN; the viewer swaps the
// piece letters (always uppercase K Q R B N in SAN; files are lowercase and
// castling uses the letter O, so a plain letter map is exact).

export const NOTATIONS = {
  en: { label: 'English', K: 'K', Q: 'Q', R: 'R', B: 'B', N: 'N' },
  figurine: { label: 'Figurine ♞', K: '♚', Q: '♛', R: '♜', B: '♝', N: '♞' },
  ru: { label: 'Русский', K: 'Кр', Q: 'Ф', R: 'Л', B: 'С', N: 'К' },
  de: { label: 'Deutsch', K: 'K', Q: 'D', R: 'T', B: 'L', N: 'S' },
  fr: { label: 'Français', K: 'R', Q: 'D', R: 'T', B: 'F', N: 'C' },
  es: { label: 'Español', K: 'R', Q: 'D', R: 'T', B: 'A', N: 'C' },
  it: { label: 'Italiano', K: 'R', Q: 'D', R: 'T', B: 'A', N: 'C' },
  nl: { label: 'Nederlands', K: 'K', Q: 'D', R: 'T', B: 'L', N: 'P' },
};

export function localizeSan(san, notation) {
  const map = NOTATIONS[notation];
  if (!map || notation === 'en' || typeof san !== 'string') return san;
  return san.replace(/[KQRBN]/g, (c) => map[c]);
}

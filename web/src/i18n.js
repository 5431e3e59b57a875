// The viewer's UI text in English and Russian: t('English text') gives the
// text in the chosen language (English is the key, so a missing translation
// shows English). The language comes from a stored choice, else the
// browser's languages; setLang() switches it. {name} in a text is filled
// from t()'s second argument.

export const LANGS = { en: 'English', ru: 'Русский' };

// Russian: the viewer pages (the arbiter page may add its strings here).
const RU = {
  // The arbiter page (arbiter-board.js).
  'moves: pick one for its actions': 'ходы: выберите ход для действий с ним',
  'Loading the moves…': 'Загрузка ходов…',
  'Board {n}: {at}': 'Доска {n}: {at}',
  'squares in question {squares}': 'спорные поля {squares}',
  '(shown on the live position)': '(показано на текущей позиции)',
  'Live: {at}': 'Сейчас: {at}',
  'Showing {move} (click it again for the live position)': 'Показан {move} (нажмите ещё раз, чтобы вернуться к текущей позиции)',
  '{move}: actions': '{move}: действия',
  'Pick a move in the list to take back to it, replace it or mark a draw offer at it.': 'Выберите ход в списке, чтобы вернуться к нему, заменить его или отметить на нём предложение ничьей.',
  'reason (for the log)': 'причина (для журнала)',
  'the move played instead of {move}': 'ход, сделанный вместо {move}',
  'instead of {move}…': 'вместо {move}…',
  'Move {move}': 'Ход {move}',
  'this is the last move': 'это последний ход',
  'keeps the game up to {move}': 'оставляет партию до хода {move}',
  'Take back to {move} (1 ply removed)': 'Вернуть к ходу {move} (снят 1 полуход)',
  'Take back to {move} ({n} plies removed)': 'Вернуть к ходу {move} (снято полуходов: {n})',
  'Take back to here (−{n})': 'Вернуть сюда (−{n})',
  'Take back to here': 'Вернуть сюда',
  'Clear the draw offer at {move}': 'Снять предложение ничьей на ходу {move}',
  'Draw offer at {move}': 'Предложение ничьей на ходу {move}',
  'replace: pick the move played instead of {move}': 'замена: выберите ход, сделанный вместо {move}',
  'Replace {move}': 'Заменить {move}',
  'The game has a result: a take-back or a replaced move clears it.': 'У партии есть результат: возврат хода или замена хода его снимет.',
  'No moves yet.': 'Ходов пока нет.',
  'connection to the relay': 'соединение с ретранслятором',
  'Round {r}': 'Тур {r}',
  'Round': 'Тур',
  'Rounds': 'Туры',
  'Standings': 'Таблица',
  'live': 'идёт',
  'finished': 'завершён',
  'upcoming': 'впереди',
  'Live': 'Эфир',
  'Connecting…': 'Подключение…',
  'Reconnecting…': 'Переподключение…',
  'Offline': 'Нет связи',
  'Connection to the relay lost — retrying in {s} s. Moves resume where they stopped.': 'Связь с ретранслятором потеряна — новая попытка через {s} с. Ходы продолжатся с того же места.',
  'Reconnecting to the relay…': 'Переподключение к ретранслятору…',
  'Relay: {text}': 'Ретранслятор: {text}',
  'Public broadcast: moves and clocks are shown with a {delay} delay.': 'Публичная трансляция: ходы и часы показываются с задержкой {delay}.',
  '{n}-minute': '{n} мин',
  '{m} min {s} s': '{m} мин {s} с',
  '{n}-second': '{n} с',
  'thinking for {time}': 'думает {time}',
  'Round PGN': 'PGN тура',
  'Game PGN': 'PGN партии',
  'No games yet: the boards appear here as soon as the relay has them.': 'Партий пока нет: доски появятся здесь, как только их получит ретранслятор.',
  'Waiting for the relay…': 'Ожидание ретранслятора…',
  '{n} boards': 'досок: {n}',
  '1 board': '1 доска',
  '{n} live': 'идёт: {n}',
  'No boards in this round yet.': 'В этом туре пока нет досок.',
  'Board {n}': 'Доска {n}',
  'Game {n}': 'Партия {n}',
  'the board is not connected': 'доска не подключена',
  'offline': 'нет связи',
  'an arbiter should look at this board': 'арбитру следует взглянуть на эту доску',
  'attention': 'внимание',
  'Pairing · not started': 'Пара · не начата',
  '{what} copied': '{what}: скопировано',
  '{what}: copy failed': '{what}: не удалось скопировать',
  'first move (Home)': 'первый ход (Home)',
  'previous move (←)': 'предыдущий ход (←)',
  'next move (→)': 'следующий ход (→)',
  'latest move (End)': 'последний ход (End)',
  'jump to the live position': 'к текущей позиции',
  'jump to the final position': 'к финальной позиции',
  'flip the board (f)': 'перевернуть доску (f)',
  'move notation': 'нотация ходов',
  'moves': 'ходы',
  'evaluation: click to go to a move': 'оценка: щёлкните, чтобы перейти к ходу',
  'time used per move: click to go to a move': 'время на каждый ход: щёлкните, чтобы перейти к ходу',
  'Notation': 'Нотация',
  'engine evaluation: bar, best line, graph, ? and ?? marks': 'оценка движка: шкала, лучший вариант, график, отметки ? и ??',
  'Engine': 'Движок',
  'Link': 'Ссылка',
  'Copy link': 'Копировать ссылку',
  'Copy FEN': 'Копировать FEN',
  'Copy PGN': 'Копировать PGN',
  'Embed code': 'Код для вставки',
  'Embed': 'Вставить на сайт',
  'other boards of the round': 'другие доски тура',
  'White': 'Белые',
  'Black': 'Чёрные',
  'board offline': 'доска не в сети',
  'arbiter attention': 'нужен арбитр',
  'resyncing…': 'синхронизация…',
  'the start': 'начала',
  'viewing {at} — not live': 'просмотр: {at} — не в эфире',
  'Final': 'Финал',
  'depth {n}': 'глубина {n}',
  'after {move}': 'после {move}',
  'start position': 'начальная позиция',
  'not live': 'не в эфире',
  'Board: {white} (White) against {black} (Black), {at}, {turn} to move': 'Доска: {white} (белые) против {black} (чёрные), {at}, ход: {turn}',
  'Last move: {move}': 'Последний ход: {move}',
  'not started': 'не начата',
  'reconstructed: the board missed this move, it was worked out from the positions around it': 'восстановлен: доска пропустила этот ход, он выведен из соседних позиций',
  'illegal move on the board': 'на доске сделан невозможный ход',
  'ambiguous: more than one move fits what the board saw': 'неоднозначно: увиденному доской подходит больше одного хода',
  'illegal': 'невозможный ход',
  'r = reconstructed from missed board updates': 'r = восстановлен по пропущенным данным доски',
  'illegal = an illegal move was made on the board': 'невозможный ход = на доске был сделан невозможный ход',
  'The game has not started yet.': 'Партия ещё не началась.',
  'Loading moves…': 'Загрузка ходов…',
  'time used for this move': 'время, затраченное на ход',
  'clock after this move': 'часы после хода',
  'White wins': 'Победа белых',
  'Black wins': 'Победа чёрных',
  'Draw': 'Ничья',
  'checkmate': 'мат',
  'stalemate': 'пат',
  'resignation': 'сдача',
  'arbiter': 'решение арбитра',
  'agreement': 'по соглашению',
  'time forfeit': 'просрочка времени',
  'insufficient material': 'недостаточно материала',
  'threefold repetition': 'троекратное повторение',
  'fivefold repetition': 'пятикратное повторение',
  'FIDE profile': 'профиль ФИДЕ',
  'Grandmaster': 'Гроссмейстер',
  'International Master': 'Международный мастер',
  'FIDE Master': 'Мастер ФИДЕ',
  'Candidate Master': 'Кандидат в мастера',
  'Woman Grandmaster': 'Гроссмейстер среди женщин',
  'Woman International Master': 'Международный мастер среди женщин',
  'Woman FIDE Master': 'Мастер ФИДЕ среди женщин',
  'Woman Candidate Master': 'Кандидат в мастера среди женщин',
  'Arena Grandmaster': 'Гроссмейстер Арены',
  'Arena International Master': 'Международный мастер Арены',
  'Arena FIDE Master': 'Мастер ФИДЕ Арены',
  'Arena Candidate Master': 'Кандидат в мастера Арены',
  'No results yet.': 'Результатов пока нет.',
  'Teams': 'Команды',
  'Team': 'Команда',
  'match points': 'командные очки',
  'MP': 'КО',
  'board points': 'очки на досках',
  'BP': 'ЛО',
  'Matches': 'Матчи',
  'Players': 'Участники',
  'Player': 'Участник',
  'Rating': 'Рейтинг',
  'Points': 'Очки',
  "Buchholz: the opponents' points": 'Бухгольц: сумма очков соперников',
  'Buch.': 'Бух.',
  'Games': 'Партии',
  'Crosstable': 'Турнирная таблица',
  'R': 'Т',
  "Crosstable cells: opponent's rank, colour (w/b), score; * not finished; + − forfeit; – bye.": 'Клетки таблицы: место соперника, цвет (w — белые, b — чёрные), результат; * — не завершена; + − — неявка; – — без партии (bye).',
  bye: 'свободен от игры',
  'no game': 'без партии',
  forfeit: 'неявка',
  'Settings': 'Настройки',
  'Theme': 'Тема',
  'System': 'Как в системе',
  'Light': 'Светлая',
  'Dark': 'Тёмная',
  'Board': 'Доска',
  'Brown': 'Коричневая',
  'Blue': 'Синяя',
  'Green': 'Зелёная',
  'Grey': 'Серая',
  'Move sounds': 'Звук ходов',
  'Language': 'Язык',
};

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

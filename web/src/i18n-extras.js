// Russian texts of issue 30's features (extras.js and the modules it
// wires); i18n.js's own table keeps its texts where both have a key.

import { addTexts } from './i18n.js';

export const RU_EXTRAS = {
  'Close': 'Закрыть',
  'Federation': 'Федерация',
  'Follow': 'Следить',
  'Follow {name}': 'Следить за игроком {name}',
  'Followed': 'Избранное',
  'Followed players': 'Избранные игроки',
  'Following': 'Вы следите',
  'Hide': 'Скрыть',
  'Moves of this board will be read aloud.': 'Ходы этой доски будут зачитываться вслух.',
  'No games yet.': 'Партий пока нет.',
  'Notify me of their moves, results and game starts': 'Уведомлять о ходах, результатах и начале их партий',
  'Photo of {name}': 'Фото: {name}',
  'Pin': 'Закрепить',
  'Player card: {name}': 'Карточка игрока: {name}',
  'Player to follow': 'Игрок, за которым следить',
  'Result: {result}': 'Результат: {result}',
  'Score': 'Очки',
  'Show video': 'Показать видео',
  'Speak moves': 'Озвучивать ходы',
  "Star a player on their card (a click on any name): their games come first on the round's page. Kept in this browser only.":
    'Отметьте игрока звёздочкой в его карточке (щелчок по любому имени): его партии будут первыми на странице тура. Хранится только в этом браузере.',
  'Stop following {name}': 'Не следить за игроком {name}',
  'The game has begun.': 'Партия началась.',
  'The video runs {time} ahead of the boards: it shows moves before they appear here.':
    'Видео опережает доски на {time}: ходы видны в нём раньше, чем здесь.',
  'Unfollow': 'Не следить',
  'Unpin': 'Открепить',
  'Video': 'Видео',
  'You follow no one yet.': 'Вы пока ни за кем не следите.',
  'a player you follow': 'игрок из избранного',
  'hide the video': 'скрыть видео',
  'keep the video in view while the page scrolls': 'оставлять видео на экране при прокрутке',
  "read this board's moves and result aloud": 'зачитывать вслух ходы и результат этой доски',
  'show the video beside the boards': 'показать видео рядом с досками',
  "show this match's boards": 'показать доски этого матча',
  'team matches': 'командные матчи',
  'Matches': 'Матчи',
  'Team': 'Команда',
  'Rating': 'Рейтинг',
  'Games': 'Партии',
  'FIDE profile': 'Профиль FIDE',
  'board points': 'очки на досках',
  'match points': 'матчевые очки',
  'live': 'идёт',
  'not started': 'не началась',
  'Move {move}': 'Ход {move}',
  '{n} min': '{n} мин',
  '{n} s': '{n} с',
  '{m} min {s} s': '{m} мин {s} с',
  '{points} points, place {rank} of {of}': 'очков: {points}, место {rank} из {of}',
};

addTexts('ru', RU_EXTRAS);

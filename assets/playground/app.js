// The linkpath playground: a game held by the server, played through the
// public API only. This module is the page around the board: it opens on
// a game (the one kept from the last visit, or a new deal), shows the
// clock, score and buttons beside the board, says what happened in one
// place in words, covers the board when the game is won, out of time,
// stuck, paused or gone, and deals new games from the form folded behind
// "New game". The board is board.js, the game and its stream game.js,
// the guest player the page plays as player.js.
import { player, rename, setup, signIn } from '/playground/player.js';
import { cellsOf, clearBoard, drawGame, flash, focusBoard, setPicked, settle, setupBoard } from '/playground/board.js';
import {
  FINISHED, act, canRedo, canUndo, checkLimit, connectionLost, deal, elapsed, follow, idInAddress, load, running, setupGame,
  state, storedId,
} from '/playground/game.js';

const $ = (id) => document.getElementById(id);
const page = { picked: null };

// The most segments a path may have, by preset; null for any.
const SEGMENTS = { 'shisen-sho': 3, lianliankan: 3, mahjong: null };
const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five'];

// m:ss, whole seconds shown as they passed.
function clockText(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function segments(rules) {
  if (rules && typeof rules === 'object') {
    if (rules.max_segments !== undefined) return rules.max_segments;
    return SEGMENTS[rules.preset || 'mahjong'] ?? null;
  }
  return SEGMENTS[rules || 'mahjong'] ?? null;
}

function turnsText(rules) {
  const n = segments(rules);
  if (n === null) return null;
  const turns = n - 1;
  return `${NUMBERS[turns] || turns} turn${turns === 1 ? '' : 's'}`;
}

// ---- what is said ----------------------------------------------------------------

// The one place for messages: the latest replaces the one before, so
// nothing stale stays, and its box keeps its size.
function say(text, kind = 'info') {
  const box = $('message');
  box.textContent = text;
  box.dataset.kind = kind;
  delete box.dataset.reason;
}

function nameAt(game, at) {
  if (!game || !game.board || !at) return null;
  const row = cellsOf([game.board[at[1]]])[0];
  const tile = row && row[at[0]];
  return tile ? tile.name : null;
}

function howToPlay(rules) {
  const turns = turnsText(rules);
  return turns
    ? `Pick two matching tiles that a line with ${turns} or fewer can join.`
    : 'Pick two tiles that a free line can join.';
}

// What the change to `game` was, in words; its status comes first.
function describe(game, previous) {
  const last = game.last && game.last.version === game.version ? game.last : { action: 'create' };
  switch (game.status) {
    case 'won': return `Cleared in ${clockText(game.elapsed_ms)} with ${game.score} points.`;
    case 'out_of_time': return `Out of time with ${game.tiles_left} tiles left; ${game.score} points.`;
    case 'resigned': return `Resigned with ${game.tiles_left} tiles left; ${game.score} points.`;
    case 'paused': return 'Paused: the clock is stopped and the board hidden.';
    case 'stuck': return 'No pair can be removed now: shuffle to play on, or undo.';
    default: break;
  }
  switch (last.action) {
    case 'move': {
      const name = nameAt(previous, last.from);
      return `${name ? `Removed a pair: ${name}.` : 'Removed a pair.'} ${game.tiles_left} tiles left.`;
    }
    case 'hint': {
      const name = last.hint && nameAt(game, last.hint.from);
      return name ? `Hint: a pair lights up (${name}).` : 'Hint: a pair lights up.';
    }
    case 'undo': return last.from ? 'Took back the last move.' : 'Took back the shuffle.';
    case 'redo': return last.from ? 'Made the move again.' : 'Made the shuffle again.';
    case 'shuffle': return 'Shuffled the tiles left.';
    case 'resume': return 'Resumed: the clock runs again.';
    default: return howToPlay(game.settings.rules);
  }
}

// An illegal move's reason, from the API's `reason`, in words.
function reasonText(reason, rules) {
  switch (reason) {
    case 'type_mismatch': return 'These two are different tiles.';
    case 'no_path': {
      const turns = turnsText(rules);
      return turns ? `No path with ${turns} or fewer joins these two.` : 'No free path joins these two.';
    }
    case 'not_a_tile': return 'One of the two cells is empty.';
    case 'same_cell': return 'That is the same tile twice.';
    case 'blocked': return 'One of the two is blocked.';
    case 'off_board': return 'One of the two is off the board.';
    default: return 'These two cannot be removed.';
  }
}

const REFUSED = {
  undo: 'Nothing to undo.',
  redo: 'Nothing to redo.',
  hint: 'No pair to hint: no move is open.',
  shuffle: 'These tiles cannot be shuffled into a board that can be cleared.',
  pause: 'The game cannot be paused now.',
  resume: 'The game is not paused.',
  resign: 'The game cannot be resigned now.',
  moves: 'That move cannot be made now.',
};

// An API error in words for a player: no codes, no coordinates. The
// server's own message is used only where it is about what was typed
// (a deal's settings, a name), without its code quotes.
function errorText(e, action) {
  const plain = (e.detail || '').replace(/`/g, '');
  switch (e.code) {
    case 'action_refused': return REFUSED[action] || 'That cannot be done now.';
    case 'game_over': return 'This game is over.';
    case 'version_mismatch': return 'The game changed elsewhere; here it is as it stands now.';
    case 'not_your_game': return 'This game is another player\'s: only they may play it.';
    case 'unauthorized': return 'The server did not accept this player.';
    case 'rate_limited': return 'Too many requests: wait a moment and try again.';
    case 'quota_exceeded': return 'You hold as many games as a player may: finish or resign one first.';
    case 'invalid_request':
    case 'invalid_rules':
    case 'invalid_board':
    case 'too_large': return `Refused: ${plain}.`;
    default:
      if (e.status >= 500 || e.status === 0) return 'The server could not do that just now: try again in a moment.';
      return `Refused: ${plain}.`;
  }
}

function refused(e, action, body) {
  if (e.code === 'illegal_move') {
    if (body) flash([body.from, body.to]);
    say(reasonText(e.reason, state.game && state.game.settings.rules), 'warn');
    $('message').dataset.reason = e.reason || '';
    return;
  }
  say(errorText(e, action), 'warn');
}

// ---- the panel beside the board ---------------------------------------------------

const UNRANKED = {
  assists: 'Not ranked: a hint, an undo or a shuffle was used.',
  too_fast: 'Not ranked: the moves came faster than a person plays.',
};

function rankedText(game) {
  if (!game.owner) return 'Not ranked: played without a player.';
  if (game.ranked) return 'Ranked on this deal\'s leaderboard.';
  return UNRANKED[game.unranked] || 'Not ranked.';
}

const BUTTONS = ['hint', 'undo', 'redo', 'shuffle', 'pause', 'resign'];

// The buttons that can act now: none on a finished game, only resume on a
// paused one, undo and redo when there is something to take.
function enable(game) {
  const live = game && !FINISHED.has(game.status);
  const playing = live && game.status !== 'paused';
  $('hint').disabled = !playing || game.moves_open === 0;
  $('undo').disabled = !playing || !canUndo();
  $('redo').disabled = !playing || !canRedo();
  $('shuffle').disabled = !playing || game.tiles_left === 0;
  $('pause').disabled = !live;
  $('pause').textContent = game && game.status === 'paused' ? 'Resume' : 'Pause';
  $('resign').disabled = !live;
}

const STATUS_TEXT = {
  playing: 'playing', paused: 'paused', stuck: 'stuck', won: 'won', out_of_time: 'out of time', resigned: 'resigned',
};

function rulesName(rules) {
  if (rules === undefined || rules === null) return 'mahjong';
  if (typeof rules === 'string') return rules;
  return `${rules.preset || 'mahjong'}, changed`;
}

function renderPanel() {
  const game = state.game;
  const box = $('game');
  box.dataset.id = game ? game.id : '';
  box.dataset.version = game ? String(game.version) : '';
  box.dataset.status = game ? game.status : 'none';
  $('game-status').textContent = game ? STATUS_TEXT[game.status] || game.status : 'no game';
  $('score').textContent = game ? String(game.score) : '0';
  $('tiles-left').textContent = game ? String(game.tiles_left) : '0';
  $('moves-open').textContent = game ? String(game.moves_open) : '0';
  const a = game ? game.assists : { hints: 0, undos: 0, shuffles: 0 };
  $('assists').textContent = `hints ${a.hints}, undos ${a.undos}, shuffles ${a.shuffles}`;
  $('ranked').textContent = !game || game.ranked ? 'yes' : 'no';
  if (game) {
    const s = game.settings;
    const dealt = s.types ? `, ${s.types} types${s.difficulty ? `, ${s.difficulty}` : ''}${s.seed !== undefined ? `, seed ${s.seed}` : ''}` : '';
    $('game-line').textContent = `Game ${game.id}, version ${game.version}: ${s.width} × ${s.height}${dealt}, `
      + `${rulesName(s.rules)}, gravity ${s.gravity}. ${whose(game)}`;
  } else {
    $('game-line').textContent = '';
  }
  enable(game);
  tick();
}

// Whose game it is: the player's own are ranked when won without assists.
function whose(game) {
  const me = player();
  if (!game.owner) return 'Anyone\'s: created without a player, so a win enters no leaderboard.';
  return me && game.owner === me.id ? `${me.name}'s.` : 'Another player\'s: only they may play it.';
}

function tick() {
  const game = state.game;
  if (!game) { $('clock').textContent = clockText(0); return; }
  const ms = elapsed();
  $('clock').textContent = game.time_limit_ms ? `${clockText(ms)} of ${clockText(game.time_limit_ms)}` : clockText(ms);
  checkLimit();
}

// ---- the cover over the board ---------------------------------------------------

function button(id, text, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = id;
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

// Covers the board with what the game's state asks of the player; none
// while it plays.
function cover(kind, game) {
  const overlay = $('overlay');
  const hadFocus = overlay.contains(document.activeElement);
  const boardFocus = $('board').contains(document.activeElement) || BUTTONS.some((id) => document.activeElement === $(id));
  if (!kind) {
    overlay.hidden = true;
    overlay.dataset.kind = '';
    if (hadFocus) focusBoard();
    return;
  }
  const again = () => button('play-again', 'Play again', () => { dealFromForm(); });
  let title;
  let text;
  let detail = '';
  let buttons;
  switch (kind) {
    case 'won':
      title = 'Cleared!';
      text = `Time ${clockText(game.elapsed_ms)} · Score ${game.score}`;
      detail = rankedText(game);
      buttons = [again()];
      break;
    case 'out_of_time':
      title = 'Out of time';
      text = `${game.tiles_left} tiles left · Score ${game.score}`;
      buttons = [again()];
      break;
    case 'resigned':
      title = 'Resigned';
      text = `${game.tiles_left} tiles left · Score ${game.score}`;
      buttons = [again()];
      break;
    case 'stuck':
      title = 'No moves left';
      text = 'No pair of tiles can be removed.';
      detail = 'A shuffle deals the tiles left anew; it counts as an assist.';
      buttons = [button('overlay-shuffle', 'Shuffle', () => act('shuffle'))];
      if (canUndo()) buttons.push(button('overlay-undo', 'Undo', () => act('undo')));
      break;
    case 'paused':
      title = 'Paused';
      text = 'The clock is stopped and the board hidden.';
      buttons = [button('overlay-resume', 'Resume', () => act('resume'))];
      break;
    default: // gone
      title = 'This game is gone';
      text = 'The server no longer has it: a game expires after a day without play, or the server\'s store was emptied.';
      buttons = [button('overlay-new', 'Deal a new game', () => { dealFromForm(); })];
      break;
  }
  overlay.dataset.kind = kind;
  $('overlay-title').textContent = title;
  $('overlay-text').textContent = text;
  $('overlay-detail').textContent = detail;
  $('overlay-buttons').replaceChildren(...buttons);
  overlay.hidden = false;
  if (hadFocus || boardFocus) buttons[0].focus();
}

function coverFor(game) {
  if (!game) return null;
  if (FINISHED.has(game.status) || game.status === 'stuck' || game.status === 'paused') return game.status;
  return null;
}

// ---- showing a game --------------------------------------------------------------

function shown(game, { previous }) {
  page.picked = null;
  setPicked(null);
  renderPanel();
  say(describe(game, previous), game.status === 'won' ? 'win' : 'info');
  const kind = coverFor(game);
  // The board lands first, then the cover: a win shows its last pair go.
  drawGame(game).then(() => {
    if (state.game === game) cover(kind, game);
  }, () => {});
  if (!kind) cover(null);
}

function gone() {
  page.picked = null;
  renderPanel();
  clearBoard();
  say('This game is gone.', 'warn');
  cover('gone');
}

// The server not answering, said once; when it answers again, a page
// that could not start starts.
function connection(lost) {
  const banner = $('connection');
  banner.textContent = lost ? 'Lost the connection to the server; trying again.' : '';
  banner.hidden = !lost;
  if (!lost && !state.game && $('overlay').dataset.kind !== 'gone') start();
}

// A cell picked on the board, by click or by keyboard: the first tile of
// a move, or the second, which sends the move.
function pick(at) {
  const game = state.game;
  if (!game || !game.board || !running(game)) return;
  settle();
  const name = nameAt(game, at);
  if (!page.picked) {
    if (!name) { say('That cell is empty: pick a tile.'); return; }
    page.picked = at;
    setPicked(at);
    say(`Picked ${name}: now pick its match.`);
    return;
  }
  const from = page.picked;
  page.picked = null;
  setPicked(null);
  if (from[0] === at[0] && from[1] === at[1]) {
    say(`Put back ${name}.`);
    return;
  }
  act('moves', { from, to: at });
}

// ---- the deal form ---------------------------------------------------------------

// The layouts shipped with the server (assets/layouts/), by name.
const layouts = new Map();

async function loadLayouts() {
  try {
    const response = await fetch('/playground/layouts.json');
    for (const { name, rows } of await response.json()) {
      layouts.set(name, rows);
      const option = document.createElement('option');
      option.value = name;
      option.textContent = `${name} (${rows.join('').split('#').length - 1} cells)`;
      $('layout').insertBefore(option, $('layout').lastElementChild);
    }
  } catch (_) { /* the shapes typed in still deal */ }
}

// The rows typed, as /v1/deal takes them: blank lines at the end dropped.
function layoutRows() {
  const rows = $('layout-rows').value.replace(/\r/g, '').split('\n');
  while (rows.length > 0 && rows[rows.length - 1].trim() === '') rows.pop();
  return rows;
}

// Shows the fields of the shape picked: width and height, or rows.
function showShape() {
  const shaped = $('layout').value !== '';
  for (const label of document.querySelectorAll('#new-game .rectangle')) label.hidden = shaped;
  for (const label of document.querySelectorAll('#new-game .shaped')) label.hidden = !shaped;
  $('width').required = !shaped;
  $('height').required = !shaped;
}

// A shipped layout picked: its rows, and a count of types its cells share
// in copies of 4 (or of 2).
function pickLayout() {
  const rows = layouts.get($('layout').value);
  if (rows) {
    $('layout-rows').value = rows.join('\n');
    const cells = rows.join('').split('#').length - 1;
    $('types').value = cells % 4 === 0 ? cells / 4 : Math.max(1, Math.floor(cells / 2));
    $('copies').value = '';
  }
  showShape();
}

// The form deals the next game as this one was dealt, a seed of its own
// aside.
function fillForm(settings) {
  if (!settings.types) return;
  if (settings.layout) {
    const rows = settings.layout.join('\n');
    const shipped = [...layouts].find(([, r]) => r.join('\n') === rows);
    $('layout').value = shipped ? shipped[0] : 'own';
    $('layout-rows').value = rows;
  } else {
    $('layout').value = '';
    $('width').value = settings.width;
    $('height').value = settings.height;
  }
  showShape();
  $('types').value = settings.types;
  $('copies').value = settings.copies || (settings.layout ? '' : 4);
  $('difficulty').value = settings.difficulty || 'easy';
  if (typeof settings.rules === 'string') $('rules').value = settings.rules;
  $('gravity').value = settings.gravity;
  $('time-limit').value = settings.time_limit_ms ? settings.time_limit_ms / 60000 : '';
}

function formBody() {
  const number = (id) => Number($(id).value);
  const minutes = $('time-limit').value.trim();
  const seed = $('seed').value.trim();
  const body = {
    types: number('types'),
    difficulty: $('difficulty').value, rules: $('rules').value, gravity: $('gravity').value,
    // The server deals seed 0 when none is sent: a new game each time
    // needs a seed of its own.
    seed: seed === '' ? Math.floor(Math.random() * 2 ** 32) : Number(seed),
  };
  if ($('layout').value === '') {
    body.width = number('width');
    body.height = number('height');
  } else {
    body.layout = layoutRows();
  }
  // No copies: 4 on width × height, the cells shared out on a layout.
  if ($('copies').value.trim() !== '') body.copies = number('copies');
  if (minutes !== '') body.time_limit_ms = Math.max(1, Math.round(Number(minutes) * 60000));
  return body;
}

// Deals a game as the form says, then folds the form away and puts the
// board, whole, in view with the keyboard on it.
async function dealFromForm() {
  $('deal').disabled = true;
  say('Dealing…');
  try {
    await deal(formBody());
    $('new-game-box').open = false;
    window.scrollTo(0, 0);
    focusBoard();
    return true;
  } catch (e) {
    say(errorText(e, 'deal'), 'warn');
    return false;
  } finally {
    $('deal').disabled = false;
  }
}

// ---- the player --------------------------------------------------------------------

// Shows who the page plays as and, when given, `note`: a quiet line about
// what the page did about the player by itself ('' for none).
function showPlayer(note) {
  const me = player();
  $('player-name').textContent = me ? me.name : 'no player';
  $('new-name').disabled = !me;
  $('rename-button').disabled = !me;
  if (note !== undefined) $('player-note').textContent = note;
  if (state.game) renderPanel();
}

// The player of an earlier visit, or a new guest. Without one the page
// still plays, and its games are anyone's and unranked.
async function startPlayer() {
  try {
    await signIn();
    showPlayer();
  } catch (e) {
    if (player()) {
      showPlayer(errorText(e));
    } else if (e.status === 0) {
      connectionLost();
      showPlayer('Not signed in yet: the server did not answer.');
    } else {
      showPlayer(`Not signed in: ${errorText(e)} Games dealt now are anyone's, and a win enters no leaderboard.`);
    }
  }
}

async function renamePlayer(event) {
  event.preventDefault();
  $('rename-button').disabled = true;
  try {
    const name = await rename($('new-name').value.trim());
    $('new-name').value = '';
    showPlayer(`Renamed: you play as ${name} now.`);
    say(`You play as ${name} now.`);
  } catch (e) {
    say(`That name was refused: ${(e.detail || '').replace(/`/g, '')}.`, 'warn');
    showPlayer();
  }
}

// ---- start -----------------------------------------------------------------------------

async function start() {
  await Promise.all([loadLayouts(), startPlayer()]);
  const id = storedId();
  if (id) {
    try {
      if (await load(id)) fillForm(state.game.settings);
    } catch (e) {
      say(errorText(e), 'warn');
    }
  } else {
    await dealFromForm();
  }
}

document.addEventListener('DOMContentLoaded', () => {
  setupBoard({ box: $('board-box'), pick });
  setupGame({
    shown,
    counted: () => {
      renderPanel();
      // A stuck game's cover offers undo once there is something to undo.
      if ($('overlay').dataset.kind === 'stuck') cover('stuck', state.game);
    },
    refused,
    gone,
    connection,
    streaming: (s) => { $('game').dataset.stream = s; },
    key: () => $('api-key').value.trim(),
  });
  setup({ key: () => $('api-key').value.trim(), changed: showPlayer });
  $('new-game').addEventListener('submit', (e) => { e.preventDefault(); dealFromForm(); });
  $('layout').addEventListener('change', pickLayout);
  // Rows edited are one's own, whatever they started from.
  $('layout-rows').addEventListener('input', () => {
    if (layouts.has($('layout').value)) $('layout').value = 'own';
  });
  for (const action of ['hint', 'undo', 'redo', 'shuffle']) $(action).addEventListener('click', () => act(action));
  $('pause').addEventListener('click', () => act(state.game && state.game.status === 'paused' ? 'resume' : 'pause'));
  $('resign').addEventListener('click', () => {
    if (window.confirm('Resign this game? It ends here.')) act('resign');
  });
  $('rename').addEventListener('submit', renamePlayer);
  $('server-key').addEventListener('submit', (e) => e.preventDefault());
  $('api-key').addEventListener('change', () => {
    // A server whose guests need a key: the key typed in signs one up.
    if (!player()) startPlayer();
    if (state.game) follow(state.game.id);
  });
  window.addEventListener('hashchange', () => {
    const id = idInAddress();
    if (id && (!state.game || state.game.id !== id)) load(id).catch((e) => say(errorText(e), 'warn'));
  });
  setInterval(tick, 250);
  renderPanel();
  start().finally(() => { document.body.dataset.ready = 'true'; });
});

// The linkpath playground: a game held by the server, played through the
// public API only. This module is the page around the board: it opens on
// a game (the one kept from the last visit, or a new deal), shows the
// clock, score and buttons beside the board, says what happened in one
// place in words, covers the board when the game is won, out of time,
// stuck, paused or gone, and deals new games from the form folded behind
// "New game". It also runs a race against another player (the "Race"
// button, docs/matches.md) from the match's event stream. The board is
// board.js, the game and its stream game.js, the guest player the page
// plays as player.js.
import { api, authorization, player, rename, setup, signIn } from '/playground/player.js';
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
    // The game's stop and the match's result come on two streams, in
    // either order: once the result is here, the stop says it too.
    case 'race_over': return race.match && race.match.status === 'finished' && inRace(game)
      ? `${clearedLine(race.match)}${resultLine(race.match)}`
      : `The race is over with ${game.tiles_left} tiles left; ${game.score} points.`;
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
  // A race's game: the others race on, so no pause; hints and undo only
  // when the match allows assists.
  if (inRace(game)) {
    $('pause').disabled = true;
    if (!race.match.assists) {
      for (const id of ['hint', 'undo', 'redo']) $(id).disabled = true;
    }
  }
  $('race').disabled = racing() || !player();
  // The race over, its result stands: the seat's game plays no more.
  if (raceOver()) {
    for (const id of BUTTONS) $(id).disabled = true;
  }
}

const STATUS_TEXT = {
  playing: 'playing', paused: 'paused', stuck: 'stuck', won: 'won', out_of_time: 'out of time', resigned: 'resigned',
  race_over: 'race over',
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
  const mine = raceOver() && (race.match.result || []).find((r) => r.game === game.id);
  if (mine) { $('clock').textContent = clockText(mine.elapsed_ms); return; }
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
function cover(requested, game, count) {
  // Once a race is over, its result stays over the seat's game.
  const kind = raceOver() && requested !== 'gone' ? 'race-result' : requested;
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
  let list = [];
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
    case 'race_over':
      title = 'The race is over';
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
    case 'race-open':
      title = 'Waiting for a second player';
      text = 'Send the link beside the board: the race starts when they open it.';
      buttons = [button('overlay-copy', 'Copy link', copyLink)];
      break;
    case 'countdown':
      title = 'Get ready';
      text = String(count);
      detail = `Racing ${othersNames()}.`;
      buttons = [];
      break;
    case 'race-result': {
      const place = placeOf(race.match);
      title = place === 1 ? 'You won the race!' : `You placed ${ORDINALS[place] || place}`;
      text = 'Places, times, tiles and ratings:';
      list = places(race.match);
      buttons = [button('race-again', 'Race again', raceAgain), again()];
      break;
    }
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
  $('overlay-places').replaceChildren(...list);
  $('overlay-buttons').replaceChildren(...buttons);
  overlay.hidden = false;
  if ((hadFocus || boardFocus) && buttons.length > 0) buttons[0].focus();
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
  // A race waiting for its start keeps its own cover.
  drawGame(game).then(() => {
    if (state.game === game && !raceStarting()) cover(kind, game);
  }, () => {});
  if (!kind && !raceStarting()) cover(null);
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
  if (!game || !game.board || !running(game) || raceStarting() || raceOver()) return;
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

// ---- the race ------------------------------------------------------------------------

// A race (docs/matches.md): two players on one deal, each on a game of
// their own. The match's stream drives the page: the seats taken, the
// countdown, the seat's game played as any other, the others' progress
// beside the board, and the result as a cover.
const race = {
  match: null, // the match followed, as its stream last said
  others: new Map(), // player id -> their last progress event
  abort: null, // stops the match's stream
  ticker: null, // the countdown's interval
  loading: null, // the seat's game being read
  total: 0, // tiles on the deal, for the bars
  announced: new Set(), // players whose clear was said
};

const LIVE_MATCH = new Set(['open', 'countdown', 'playing']);
const racing = () => Boolean(race.match && LIVE_MATCH.has(race.match.status));
// Whether `game` is the page's seat in the race followed.
const inRace = (game) => Boolean(race.match && game && race.match.players.some((s) => s.game === game.id));
const raceStarting = () => Boolean(race.match && (race.match.status === 'open' || race.match.status === 'countdown'));
const raceOver = () => Boolean(race.match && race.match.status === 'finished' && inRace(state.game));

function mySeat(match) {
  const me = player();
  return me ? match.players.find((s) => s.player === me.id) : undefined;
}

function matchInAddress() {
  const found = /^#match=([0-9A-Za-z_-]+)$/.exec(location.hash);
  return found ? found[1] : null;
}

const ORDINALS = ['', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth'];

function raceErrorText(e) {
  switch (e.code) {
    case 'not_found': return 'That race is gone: a race waits ten minutes for its players, and is kept an hour after.';
    case 'forbidden': return 'That race is for the players invited to it.';
    case 'action_refused': return 'That race has started or is full.';
    case 'unauthorized': return 'A race needs a player, and the page could not sign one up.';
    default: return errorText(e);
  }
}

// Makes a race for two on `game` (the deal "New game" would make) and
// waits for the other player.
async function createRace(game) {
  $('race').disabled = true;
  say('Making a race…');
  try {
    const match = await api('POST', '/v1/matches', { body: { game: game || formBody(), seats: 2 } });
    $('new-game-box').open = false;
    followRace(match);
  } catch (e) {
    say(raceErrorText(e), 'warn');
  } finally {
    enable(state.game);
  }
}

// Follows the race a link named: again if the player is seated in it (a
// reload), else taking a seat while it is open.
async function joinRace(id) {
  const path = `/v1/matches/${encodeURIComponent(id)}`;
  try {
    const match = await api('GET', path);
    if (mySeat(match)) followRace(match);
    else if (match.status === 'open') followRace(await api('POST', `${path}/join`));
    else say(match.status === 'finished' ? 'That race is over.' : 'That race has started without you.', 'warn');
  } catch (e) {
    say(raceErrorText(e), 'warn');
  }
}

function stopRace() {
  if (race.abort) race.abort.abort();
  clearInterval(race.ticker);
  Object.assign(race, { match: null, others: new Map(), abort: null, ticker: null, loading: null, total: 0, announced: new Set() });
  if (matchInAddress()) history.replaceState(null, '', state.game ? `#game=${state.game.id}` : location.pathname);
  renderRace();
  if (state.game) shown(state.game, { previous: null }); else cover(null);
}

function followRace(match) {
  if (race.abort) race.abort.abort();
  clearInterval(race.ticker);
  Object.assign(race, { match: null, others: new Map(), ticker: null, loading: null, total: 0, announced: new Set() });
  history.replaceState(null, '', `#match=${match.id}`);
  const abort = new AbortController();
  race.abort = abort;
  showRace(match);
  readEvents(`/v1/matches/${match.id}/events`, abort.signal, (event, data) => {
    if (race.abort !== abort) return;
    if (event === 'match') showRace(data);
    else if (event === 'progress') progressed(data);
  });
}

// Reads a stream of Server-Sent Events, again after a break, until the
// match is over or `signal` stops it.
async function readEvents(path, signal, onEvent) {
  let seen = null;
  while (!signal.aborted) {
    try {
      const headers = { Accept: 'text/event-stream' };
      const bearer = authorization(path);
      if (bearer) headers.Authorization = `Bearer ${bearer}`;
      if (seen !== null) headers['Last-Event-ID'] = seen;
      const response = await fetch(path, { headers, signal });
      if (response.status === 204 || response.status === 404) return;
      if (response.ok) {
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, '\n');
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = 'message';
            const data = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('id:')) seen = line.slice(3).trim();
              else if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length) onEvent(event, JSON.parse(data.join('\n')));
          }
        }
      }
    } catch (_) {
      if (signal.aborted) return;
    }
    // The stream ends with the finished match: nothing more will come.
    if (!racing()) return;
    await new Promise((resolve) => { setTimeout(resolve, 3000); });
  }
}

// The match as its stream says it now.
function showRace(match) {
  const before = race.match;
  if (before && before.id === match.id && match.version < before.version) return;
  const seat = mySeat(match);
  if (!seat) {
    // Only leaving gives up a seat of a race the page followed.
    const left = Boolean(before && before.id === match.id);
    stopRace();
    if (left) say('You left the race.'); else say('That race has started or is full.', 'warn');
    return;
  }
  race.match = match;
  for (const s of match.players) {
    if (s.player !== seat.player && !race.others.has(s.player)) race.others.set(s.player, null);
  }
  const changed = !before || before.status !== match.status;
  if (match.status !== 'countdown') { clearInterval(race.ticker); race.ticker = null; }
  switch (match.status) {
    case 'open':
      if (changed) say('Waiting for a second player: send them the link beside the board.');
      cover('race-open');
      break;
    case 'countdown':
      if (changed) say(`Racing ${othersNames()}: the race starts in a moment.`);
      countdown();
      break;
    case 'playing':
      if (changed) say(`Go! First to clear the board wins.`);
      playSeat(seat);
      break;
    default:
      if (changed) say(`${clearedLine(match)}${resultLine(match)}`, placeOf(match) === 1 ? 'win' : 'info');
      cover('race-result');
      break;
  }
  renderRace();
  if (state.game) renderPanel();
}

function othersNames() {
  const me = player();
  return race.match.players.filter((s) => !me || s.player !== me.id).map((s) => s.name).join(' and ');
}

// The seconds left before the race, shown each tenth of a second.
function countdown() {
  const draw = () => {
    const left = Math.max(1, Math.ceil((Date.parse(race.match.starts_at) - Date.now()) / 1000));
    if ($('overlay').dataset.kind !== 'countdown' || $('overlay-text').textContent !== String(left)) cover('countdown', null, left);
  };
  draw();
  if (!race.ticker) race.ticker = setInterval(draw, 100);
}

// The seat's own game, read once, then played as any game.
async function playSeat(seat) {
  if (!seat.game || race.loading === seat.game || (state.game && state.game.id === seat.game)) return;
  race.loading = seat.game;
  const id = race.match.id;
  try {
    await load(seat.game);
    if (race.match && race.match.id === id) {
      history.replaceState(null, '', `#match=${id}`);
      focusBoard();
    }
  } catch (e) {
    say(errorText(e), 'warn');
  }
}

function progressed(progress) {
  const me = player();
  race.total = Math.max(race.total, progress.tiles_left);
  if (me && progress.player === me.id) return;
  race.others.set(progress.player, progress);
  if (progress.status === 'won' && !race.announced.has(progress.player)) {
    race.announced.add(progress.player);
    say(`${nameOf(progress.player)} cleared the board.`);
  }
  renderRace();
}

const nameOf = (id) => (race.match.players.find((s) => s.player === id) || { name: 'A player' }).name;
const placeOf = (match) => {
  const me = player();
  const mine = match.result && me && match.result.find((r) => r.player === me.id);
  return mine ? mine.place : null;
};

// Who cleared the board, said again with the result: the two may come
// in one read of the stream, and the later message replaces the earlier.
function clearedLine(match) {
  const me = player();
  return (match.result || [])
    .filter((r) => r.finish === 'cleared' && (!me || r.player !== me.id))
    .map((r) => `${r.name} cleared the board. `).join('');
}

function resultLine(match) {
  const place = placeOf(match);
  if (place === 1) return 'You won the race.';
  if (place) return `The race is over: you placed ${ORDINALS[place] || place}.`;
  return 'The race is over.';
}

const RACE_STATUS = {
  open: 'Waiting for a second player: send them this link.',
  countdown: 'Get ready: the race starts in a moment.',
  playing: 'Racing: the first to clear the board wins.',
  finished: 'The race is over.',
};

// The race box beside the board: what the race waits for, the link to
// send, and each other player's tiles left, score and bar.
function renderRace() {
  const match = race.match;
  $('race-box').hidden = !match;
  $('race').disabled = racing() || !player();
  if (!match) return;
  $('race-status').textContent = RACE_STATUS[match.status] || '';
  $('race-invite').hidden = match.status !== 'open';
  $('race-link').value = `${location.origin}/#match=${match.id}`;
  const seat = mySeat(match);
  $('race-leave').disabled = !racing() || !seat || Boolean(seat.quit_at);
  if (state.game && inRace(state.game)) race.total = Math.max(race.total, state.game.tiles_left);
  const rows = [];
  for (const s of match.players) {
    if (seat && s.player === seat.player) continue;
    const progress = race.others.get(s.player);
    const li = document.createElement('li');
    li.dataset.player = s.player;
    const name = document.createElement('strong');
    name.textContent = s.name;
    const line = document.createElement('span');
    line.className = 'racer-line';
    const bar = document.createElement('progress');
    bar.setAttribute('aria-label', `${s.name}: tiles cleared`);
    bar.max = Math.max(1, race.total);
    if (s.quit_at) {
      line.textContent = 'left the race';
    } else if (progress) {
      const combo = progress.combo > 1 ? ` · combo ×${progress.combo}` : '';
      line.textContent = `${progress.tiles_left} tiles left · ${progress.score} points${combo}`;
      li.dataset.tilesLeft = String(progress.tiles_left);
      bar.value = Math.max(0, race.total - progress.tiles_left);
    } else {
      line.textContent = match.status === 'playing' ? 'starting' : 'seated';
      bar.value = 0;
    }
    li.append(name, ' ', line, bar);
    rows.push(li);
  }
  if (seat && match.players.length < match.seats) {
    const li = document.createElement('li');
    li.className = 'racer-empty';
    li.textContent = `${match.seats - match.players.length} seat${match.seats - match.players.length === 1 ? '' : 's'} free`;
    rows.push(li);
  }
  $('racers').replaceChildren(...rows);
}

function finishText(r) {
  switch (r.finish) {
    case 'cleared': return `cleared in ${clockText(r.elapsed_ms)}`;
    case 'quit': return `left after ${clockText(r.elapsed_ms)}`;
    default: return `stopped at ${clockText(r.elapsed_ms)}`;
  }
}

const ratingText = (r) => (r.rating_before && r.rating_after
  ? `, rating ${Math.round(r.rating_before.rating)} → ${Math.round(r.rating_after.rating)}` : '');

// The places, one line each.
function places(match) {
  return [...(match.result || [])].sort((a, b) => a.place - b.place).map((r) => {
    const li = document.createElement('li');
    li.dataset.player = r.player;
    li.textContent = `${ORDINALS[r.place] ? ORDINALS[r.place][0].toUpperCase() + ORDINALS[r.place].slice(1) : r.place}: ${r.name}, `
      + `${finishText(r)}, ${r.tiles} tiles, ${r.score} points${ratingText(r)}`;
    return li;
  });
}

// The next race with the same players and settings, a new deal: the
// rematch the first to ask makes and the others join
// (POST /v1/matches/{id}/rematch).
async function raceAgain() {
  $('race-again').disabled = true;
  say('Asking for a rematch…');
  try {
    followRace(await api('POST', `/v1/matches/${encodeURIComponent(race.match.id)}/rematch`));
  } catch (e) {
    say(raceErrorText(e), 'warn');
    $('race-again').disabled = false;
  }
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText($('race-link').value);
    say('Copied the link: send it to the other player.');
  } catch (_) {
    $('race-link').select();
    say('Select the link and copy it: this browser did not let the page copy it.');
  }
}

async function leaveRace() {
  if (!racing()) return;
  const under = race.match.status === 'playing';
  if (!window.confirm(under ? 'Leave the race? Your game is resigned and you place last.' : 'Leave the race?')) return;
  $('race-leave').disabled = true;
  try {
    const match = await api('POST', `/v1/matches/${encodeURIComponent(race.match.id)}/leave`);
    if (under) {
      showRace(match);
    } else {
      stopRace();
      say('You left the race.');
    }
  } catch (e) {
    say(raceErrorText(e), 'warn');
    renderRace();
  }
}

// ---- start -----------------------------------------------------------------------------

async function start() {
  await Promise.all([loadLayouts(), startPlayer()]);
  renderRace();
  const match = matchInAddress();
  if (match) {
    await joinRace(match);
    return;
  }
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
  $('race').addEventListener('click', () => { createRace(); });
  $('race-copy').addEventListener('click', copyLink);
  $('race-leave').addEventListener('click', leaveRace);
  window.addEventListener('hashchange', () => {
    const match = matchInAddress();
    if (match) {
      if (!race.match || race.match.id !== match) joinRace(match);
      return;
    }
    const id = idInAddress();
    if (id && (!state.game || state.game.id !== id)) load(id).catch((e) => say(errorText(e), 'warn'));
  });
  setInterval(tick, 250);
  renderPanel();
  start().finally(() => { document.body.dataset.ready = 'true'; });
});

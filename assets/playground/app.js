// The linkpath playground: a game held by the server (/v1/games), played
// through the public API only. The page keeps no game of its own: it keeps
// the game's id (in the address, #game=ID, and in localStorage, so a reload
// resumes it) and the tile picked, and draws the newest game the server
// answered, to its own actions or on the game's event stream. It plays as
// a guest player it signs up by itself (player.js), shown with its name.
import { api, authorization, player, rename, setup, signIn } from '/playground/player.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
// The layout of /v1/render: cells of CELL units with a one-cell margin that
// holds the ring around the board, so a point [x, y] (-1 and width/height
// on the ring) is drawn at centre([x, y]).
const CELL = 40;
const centre = ([x, y]) => [CELL + (x + 0.5) * CELL, CELL + (y + 0.5) * CELL];
const OUTSIDE = { mahjong: true, 'shisen-sho': true, lianliankan: false, curling: false };
const FINISHED = new Set(['won', 'out_of_time', 'resigned']);
const STATUS_TEXT = {
  playing: 'playing', paused: 'paused', stuck: 'stuck', won: 'won', out_of_time: 'out of time', resigned: 'resigned',
};
const REASONS = {
  no_path: 'no path the rules allow joins them',
  type_mismatch: 'the two tiles are not of one type',
  not_a_tile: 'a cell picked holds no tile',
  same_cell: 'the same cell twice',
  off_board: 'a cell off the board',
};
const STORED = 'linkpath.game';

const $ = (id) => document.getElementById(id);
const state = {
  game: null, // the newest game answered
  at: 0, // performance.now() when `game` came, to run its clock
  picked: null, // the first tile of a move
  stream: null, // the event stream followed: { close() }
  queue: Promise.resolve(), // actions one at a time, each pinned to the version shown
  expiring: false, // the game's time limit is being asked about
};

function apiKey() { return $('api-key').value.trim(); }

// ---- what is shown --------------------------------------------------------

function say(...parts) { $('message').replaceChildren(...parts); }

function showError(...parts) {
  const box = $('error');
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0 || (parts.length === 1 && parts[0] === '');
}

function strong(id, text) { return Object.assign(document.createElement('strong'), { id, textContent: text }); }

const point = ([x, y]) => `[${x}, ${y}]`;

// m:ss, whole seconds shown as they passed.
function clockText(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function running(game) { return game.status === 'playing' || game.status === 'stuck'; }

// The play time now: the server's, moved on by the time since it answered
// while the clock runs; never past the time limit.
function elapsed() {
  const game = state.game;
  if (!game) return 0;
  let ms = game.elapsed_ms;
  if (running(game)) ms += performance.now() - state.at;
  return game.time_limit_ms ? Math.min(ms, game.time_limit_ms) : ms;
}

function tick() {
  const game = state.game;
  if (!game) { $('clock').textContent = clockText(0); return; }
  const ms = elapsed();
  $('clock').textContent = game.time_limit_ms ? `${clockText(ms)} of ${clockText(game.time_limit_ms)}` : clockText(ms);
  // The server ends the game when its limit passes and sends it on the
  // stream; a read makes sure of it when no stream is followed.
  if (running(game) && game.time_limit_ms && ms >= game.time_limit_ms && !state.expiring) {
    state.expiring = true;
    setTimeout(() => refresh(game.id).finally(() => { state.expiring = false; }), state.stream ? 1000 : 0);
  }
}

function rulesName(rules) {
  if (rules === undefined || rules === null) return 'mahjong';
  if (typeof rules === 'string') return rules;
  return `${rules.preset || 'mahjong'}, changed`;
}

function outside(rules) {
  if (rules && typeof rules === 'object') {
    if (typeof rules.outside === 'boolean') return rules.outside;
    return OUTSIDE[rules.preset || 'mahjong'];
  }
  return OUTSIDE[rules || 'mahjong'];
}

// What the last change was, in words; the game's status comes first.
function describe(game) {
  const last = game.last || { action: 'create' };
  switch (game.status) {
    case 'won': return `Won: cleared in ${clockText(game.elapsed_ms)}, score ${game.score}${game.ranked ? '' : ', unranked (assists used)'}.`;
    case 'out_of_time': return `Out of time: ${game.tiles_left} tiles left, score ${game.score}.`;
    case 'resigned': return `Resigned with ${game.tiles_left} tiles left, score ${game.score}.`;
    case 'paused': return 'Paused: the clock is stopped and the board hidden.';
    case 'stuck': return 'Stuck: tiles are left and no pair can be removed. Shuffle, or undo.';
    default: break;
  }
  switch (last.action) {
    case 'move': return `Removed ${point(last.from)} and ${point(last.to)}.`;
    case 'hint': return last.hint ? `Hint: ${point(last.hint.from)} and ${point(last.hint.to)}.` : 'Hint.';
    case 'undo': return 'Took back the last change.';
    case 'redo': return 'Made the change again.';
    case 'shuffle': return 'Shuffled the tiles left.';
    case 'resume': return 'Resumed: the clock runs again.';
    default: return 'Click two tiles of a pair to remove them.';
  }
}

// Whose game it is: the player's own are ranked when won without assists.
function whose(game) {
  const me = player();
  if (!game.owner) return 'Anyone\'s: created without a player, so a win enters no leaderboard.';
  return me && game.owner === me.id ? `${me.name}'s.` : 'Another player\'s: only they may play it.';
}

function render() {
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
  const finished = !game || FINISHED.has(game.status);
  const paused = game && game.status === 'paused';
  for (const id of ['hint', 'undo', 'redo', 'shuffle']) $(id).disabled = finished || paused;
  $('pause').disabled = finished;
  $('pause').textContent = paused ? 'Resume' : 'Pause';
  $('resign').disabled = finished;
  tick();
  draw();
}

function el(name, attributes = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Dark colours far apart, so that types next to each other (A, B, C) do
// not look alike; the letter tells types of one colour apart.
const INKS = ['#c62828', '#1565c0', '#2e7d32', '#6a1b9a', '#e65100', '#00838f',
  '#ad1457', '#4e342e', '#558b2f', '#283593', '#9e7700', '#37474f'];

function ink(tile) {
  let h = 0;
  for (const c of tile) h = (h * 31 + c.codePointAt(0)) % INKS.length;
  return INKS[h];
}

// A board's rows as cells: a tile's type as text, or null when empty;
// text rows and number rows alike.
function cellsOf(board) {
  return board.map((row) => (typeof row === 'string'
    ? [...row].map((c) => (c === '.' || c === ' ' ? null : c))
    : row.map((n) => (n === 0 ? null : String(n)))));
}

const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];

function draw() {
  const svg = $('board-view');
  const game = state.game;
  const board = game && game.board;
  $('paused-cover').hidden = !(game && game.status === 'paused');
  // An SVG element has no `hidden` property: the attribute, and style.css.
  svg.toggleAttribute('hidden', !board);
  svg.replaceChildren();
  if (!board) return;
  const rows = cellsOf(board);
  const h = rows.length;
  const w = h ? rows[0].length : 0;
  svg.setAttribute('viewBox', `0 0 ${(w + 2) * CELL} ${(h + 2) * CELL}`);
  if (outside(game.settings.rules)) {
    svg.append(el('rect', { class: 'ring', x: 1, y: 1, width: (w + 2) * CELL - 2, height: (h + 2) * CELL - 2 }));
  }
  const last = game.last && game.last.version === game.version ? game.last : null;
  const hint = last && last.action === 'hint' && last.hint ? last.hint : null;
  const moved = last && ['move', 'undo', 'redo', 'shuffle'].includes(last.action) ? last.moved.map((m) => m.to) : [];
  const back = last && last.action === 'undo' && last.from ? [last.from, last.to] : [];
  const play = !FINISHED.has(game.status);
  rows.forEach((row, y) => row.forEach((tile, x) => {
    const at = [x, y];
    const classes = ['cell', tile === null ? 'empty' : 'tile'];
    if (same(state.picked, at)) classes.push('picked');
    if (hint && (same(hint.from, at) || same(hint.to, at))) classes.push('hinted');
    if (moved.some((m) => same(m, at)) || back.some((m) => same(m, at))) classes.push('moved');
    const [cx, cy] = centre(at);
    const g = el('g', { class: classes.join(' '), 'data-x': x, 'data-y': y });
    if (tile !== null && play) {
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.setAttribute('aria-label', `tile ${tile} at ${x}, ${y}`);
      g.setAttribute('aria-pressed', same(state.picked, at) ? 'true' : 'false');
    }
    g.append(el('rect', {
      x: cx - CELL * 0.44, y: cy - CELL * 0.44, width: CELL * 0.88, height: CELL * 0.88,
      rx: CELL * 0.12, 'stroke-width': CELL * 0.04,
    }));
    if (tile !== null) {
      g.append(el('text', {
        x: cx, y: cy, 'font-size': CELL * (tile.length > 1 ? 0.4 : 0.55), 'text-anchor': 'middle',
        'dominant-baseline': 'central', fill: ink(tile),
      }, tile));
    }
    g.addEventListener('click', () => pick(at, tile !== null));
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(at, tile !== null); }
    });
    svg.append(g);
  }));
  const path = last && (last.action === 'move' || last.action === 'redo') && last.path ? last.path : null;
  for (const [points, kind] of [[path, 'path move'], [hint && hint.path, 'path hint']]) {
    if (!points) continue;
    const line = el('polyline', {
      class: kind,
      points: points.map((p) => centre(p).join(',')).join(' '),
      'stroke-width': CELL * 0.12,
    });
    // The move's path is drawn from end to end (style.css), in units of
    // its length.
    if (kind === 'path move') line.setAttribute('pathLength', 100);
    svg.append(line);
  }
}

// Shows `game` unless a newer version is shown already. The same version
// again (the stream repeating an answer, or a read) only sets the clock.
function show(game) {
  const current = state.game;
  if (current && current.id === game.id) {
    if (game.version < current.version) return;
    if (game.version === current.version) {
      if (game.elapsed_ms > current.elapsed_ms) {
        state.game = game;
        state.at = performance.now();
        tick();
      }
      return;
    }
  }
  state.game = game;
  state.at = performance.now();
  state.picked = null;
  render();
  say(describe(game));
  if (FINISHED.has(game.status)) closeStream();
}

// ---- the game's life -------------------------------------------------------

function remember(id) {
  try {
    if (id) localStorage.setItem(STORED, id); else localStorage.removeItem(STORED);
  } catch (_) { /* storage refused: the address still holds the id */ }
  history.replaceState(null, '', id ? `#game=${id}` : location.pathname);
}

function idInAddress() {
  const match = /^#(?:game=)?([0-9A-Za-z_-]+)$/.exec(location.hash);
  return match ? match[1] : null;
}

// ---- the shape dealt onto ---------------------------------------------------

// The layouts shipped with the server (assets/layouts/), by name.
const layouts = new Map();

async function loadLayouts() {
  try {
    for (const { name, rows } of await api('GET', '/playground/layouts.json')) {
      layouts.set(name, rows);
      const option = document.createElement('option');
      option.value = name;
      option.textContent = `${name} (${rows.join('').split('#').length - 1} cells)`;
      $('layout').insertBefore(option, $('layout').lastElementChild);
    }
  } catch (e) {
    showError(e.message);
  }
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

function open(game) {
  closeStream();
  state.game = null;
  remember(game.id);
  fillForm(game.settings);
  show(game);
  follow(game.id);
}

async function load(id) {
  closeStream();
  state.game = null;
  state.picked = null;
  render();
  say('Loading the game…');
  try {
    open(await api('GET', `/v1/games/${encodeURIComponent(id)}`));
  } catch (e) {
    if (e.code === 'game_not_found') gone(id);
    else { say(''); showError(e.message); }
  }
}

// The game is not on this server (never was, or expired): start afresh.
function gone(id) {
  if (state.game && state.game.id !== id) return;
  closeStream();
  state.game = null;
  state.picked = null;
  remember(null);
  render();
  say(strong('gone', `Game ${id} is gone`),
    ': this server has no such game (it expired after a day without play, or the server\'s store was emptied). Deal a new game.');
}

// Reads the game again, as the server has it now.
async function refresh(id) {
  try {
    const game = await api('GET', `/v1/games/${id}`);
    if (state.game && state.game.id === id) show(game);
  } catch (e) {
    if (e.code === 'game_not_found') gone(id);
  }
}

// Queues an action on the game shown, pinned to the version shown when it
// is sent, after the actions before it.
function act(action, body) {
  const id = state.game && state.game.id;
  if (!id) return state.queue;
  state.queue = state.queue.then(async () => {
    if (!state.game || state.game.id !== id) return;
    const shown = state.game.version;
    try {
      const game = await api('POST', `/v1/games/${id}/${action}`, { body, version: shown });
      showError('');
      show(game);
    } catch (e) {
      await refused(e, id, shown);
    }
  });
  return state.queue;
}

async function refused(e, id, shown) {
  switch (e.code) {
    case 'illegal_move':
      // Nothing changed on the server; the board stays as shown.
      showError('Not removed: ', strong('reason', e.reason || 'illegal'), ` (${REASONS[e.reason] || e.detail}).`);
      draw();
      break;
    case 'version_mismatch':
      await refresh(id);
      showError(`The game changed elsewhere after version ${shown}, so nothing was done: look again.`);
      break;
    case 'game_not_found':
      gone(id);
      break;
    case 'game_over':
    case 'action_refused':
      showError(strong('refused', e.detail));
      await refresh(id);
      break;
    default:
      showError(e.message);
  }
}

function pick(at, isTile) {
  const game = state.game;
  if (!game || !game.board || FINISHED.has(game.status)) return;
  showError('');
  if (!state.picked) {
    if (!isTile) return;
    state.picked = at;
    draw();
    say(`Picked ${point(at)}: now the tile to remove it with.`);
    return;
  }
  const from = state.picked;
  state.picked = null;
  draw();
  if (same(from, at)) {
    say(`Put back ${point(at)}.`);
    return;
  }
  act('moves', { from, to: at });
}

async function deal(event) {
  event.preventDefault();
  showError('');
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
  $('deal').disabled = true;
  say('Dealing…');
  try {
    open(await api('POST', '/v1/games', { body }));
  } catch (e) {
    say('');
    showError(e.message);
  } finally {
    $('deal').disabled = false;
  }
}

// ---- the event stream -------------------------------------------------------

function closeStream() {
  if (state.stream) state.stream.close();
  state.stream = null;
  $('game').dataset.stream = 'closed';
}

// Follows the game's events until it finishes: changes made elsewhere
// (another tab, the API) show up as they happen.
function follow(id) {
  closeStream();
  if (!state.game || FINISHED.has(state.game.status)) return;
  // EventSource sends no Authorization header, and the events of a game
  // are open to read unless API keys gate the server: then the stream is
  // read with fetch, with the player's token (or the key).
  state.stream = apiKey() ? fetchStream(id) : eventSource(id);
}

function onEvent(id, data) {
  if (!state.game || state.game.id !== id) return;
  let game;
  try { game = JSON.parse(data); } catch (_) { return; }
  show(game);
}

function eventSource(id) {
  const source = new EventSource(`/v1/games/${id}/events`);
  const stream = { close: () => source.close() };
  source.addEventListener('open', () => { if (state.stream === stream) $('game').dataset.stream = 'open'; });
  source.addEventListener('game', (e) => onEvent(id, e.data));
  // A stream that ended is opened again by EventSource itself, with
  // Last-Event-ID; an answer that is no stream (a 404, a 503) ends it.
  source.addEventListener('error', () => {
    if (state.stream !== stream || source.readyState !== EventSource.CLOSED) return;
    $('game').dataset.stream = 'closed';
    setTimeout(async () => {
      if (state.stream !== stream) return;
      await refresh(id);
      if (state.stream === stream) follow(id);
    }, 3000);
  });
  return stream;
}

function fetchStream(id) {
  const abort = new AbortController();
  const stream = { close: () => abort.abort() };
  let seen = null;
  (async () => {
    while (!abort.signal.aborted) {
      try {
        const path = `/v1/games/${id}/events`;
        const headers = { Accept: 'text/event-stream' };
        const bearer = authorization(path);
        if (bearer) headers.Authorization = `Bearer ${bearer}`;
        if (seen !== null) headers['Last-Event-ID'] = seen;
        const response = await fetch(path, { headers, signal: abort.signal });
        if (response.status === 404) { gone(id); return; }
        if (response.ok) {
          $('game').dataset.stream = 'open';
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
              const data = [];
              for (const line of block.split('\n')) {
                if (line.startsWith('id:')) seen = line.slice(3).trim();
                else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
              }
              if (data.length) onEvent(id, data.join('\n'));
            }
          }
        }
      } catch (_) {
        if (abort.signal.aborted) return;
      }
      if (state.stream === stream) $('game').dataset.stream = 'closed';
      await new Promise((resolve) => { setTimeout(resolve, 3000); });
    }
  })();
  return stream;
}

// ---- the player --------------------------------------------------------------

// Shows who the page plays as and, when given, `note`: a quiet line about
// what the page did about the player by itself ('' for none).
function showPlayer(note) {
  const me = player();
  $('player-name').textContent = me ? me.name : 'no player';
  $('new-name').disabled = !me;
  $('rename-button').disabled = !me;
  if (note !== undefined) $('player-note').textContent = note;
  if (state.game) render();
}

// The player of an earlier visit, or a new guest. Without one the page
// still plays, and its games are anyone's and unranked.
async function startPlayer() {
  try {
    await signIn();
    showPlayer();
  } catch (e) {
    if (player()) {
      showPlayer();
      showError(e.message);
    } else {
      showPlayer(`Not signed in (${e.detail}): games dealt now are anyone's, and a win enters no leaderboard.`);
    }
  }
}

async function renamePlayer(event) {
  event.preventDefault();
  showError('');
  $('rename-button').disabled = true;
  try {
    const name = await rename($('new-name').value.trim());
    $('new-name').value = '';
    showPlayer(`Renamed: you play as ${name} now.`);
  } catch (e) {
    showError(e.message);
    showPlayer();
  }
}

// ---- start -----------------------------------------------------------------

document.addEventListener('DOMContentLoaded', () => {
  $('new-game').addEventListener('submit', deal);
  $('layout').addEventListener('change', pickLayout);
  // Rows edited are one's own, whatever they started from.
  $('layout-rows').addEventListener('input', () => {
    if (layouts.has($('layout').value)) $('layout').value = 'own';
  });
  $('hint').addEventListener('click', () => act('hint'));
  $('undo').addEventListener('click', () => act('undo'));
  $('redo').addEventListener('click', () => act('redo'));
  $('shuffle').addEventListener('click', () => act('shuffle'));
  $('pause').addEventListener('click', () => act(state.game && state.game.status === 'paused' ? 'resume' : 'pause'));
  $('resign').addEventListener('click', () => {
    if (window.confirm('Resign this game? It ends here.')) act('resign');
  });
  $('rename').addEventListener('submit', renamePlayer);
  $('api-key').addEventListener('change', () => {
    // A server whose guests need a key: the key typed in signs one up.
    if (!player()) startPlayer();
    if (state.game) follow(state.game.id);
  });
  setup({ key: apiKey, changed: showPlayer });
  window.addEventListener('hashchange', () => {
    const id = idInAddress();
    if (id && (!state.game || state.game.id !== id)) load(id);
  });
  setInterval(tick, 250);
  render();
  let id = idInAddress();
  if (!id) {
    try { id = localStorage.getItem(STORED); } catch (_) { id = null; }
  }
  // The shipped layouts first, so that a game resumed names its own.
  // The player before the game, so that the game is read as the player.
  const ready = loadLayouts().then(startPlayer).then(() => (id ? load(id) : say('Deal a game to start: pick its size or shape, rules and gravity.')));
  ready.finally(() => { document.body.dataset.ready = 'true'; });
});

// The game the playground shows, as the server holds it (/v1/games): the
// page keeps no game of its own, only the game's id (in the address,
// #game=ID, and in localStorage, so a reload resumes it) and the newest
// version the server answered, to the page's own actions or on the game's
// event stream. It also keeps what the answers leave out: whether an undo
// or a redo has anything to take (counted from the game's replay, then
// from each change), and whether the server answers at all.
import { api, authorization } from '/playground/player.js';

const STORED = 'linkpath.game';
export const FINISHED = new Set(['won', 'out_of_time', 'resigned', 'race_over']);

export const state = {
  game: null, // the newest game answered
  at: 0, // performance.now() when `game` came, to run its clock
  stream: null, // the event stream followed: { close() }
  queue: Promise.resolve(), // actions one at a time, each pinned to the version shown
  expiring: false, // the game's time limit is being asked about
  // Changes undo and redo can take, as of `version`; null while unknown.
  stacks: null, // { version, done, undone }
  lost: false, // a request found no server; probing until one answers
};

// What the page is told: a game to show, an action refused, a game gone,
// the connection lost or back, the stream's state.
const hooks = {
  shown: () => {},
  counted: () => {}, // undo and redo known anew
  refused: () => {},
  gone: () => {},
  connection: () => {},
  streaming: () => {},
  key: () => '',
};

export function setupGame(given) { Object.assign(hooks, given); }

export function running(game) { return game.status === 'playing' || game.status === 'stuck'; }

// The play time now: the server's, moved on by the time since it answered
// while the clock runs; never past the time limit.
export function elapsed() {
  const game = state.game;
  if (!game) return 0;
  let ms = game.elapsed_ms;
  if (running(game)) ms += performance.now() - state.at;
  return game.time_limit_ms ? Math.min(ms, game.time_limit_ms) : ms;
}

// The server ends a game when its limit passes and sends it on the
// stream; a read makes sure of it when no stream is followed.
export function checkLimit() {
  const game = state.game;
  if (!game || !running(game) || !game.time_limit_ms || state.expiring) return;
  if (elapsed() < game.time_limit_ms) return;
  state.expiring = true;
  setTimeout(() => refresh(game.id).finally(() => { state.expiring = false; }), state.stream ? 1000 : 0);
}

// ---- undo and redo ------------------------------------------------------------

// The stacks after one change, as the server keeps them: a move or a
// shuffle is pushed and empties what redo takes; undo and redo trade.
function stacked({ done, undone }, action) {
  switch (action) {
    case 'move':
    case 'shuffle': return { done: done + 1, undone: 0 };
    case 'undo': return { done: done - 1, undone: undone + 1 };
    case 'redo': return { done: done + 1, undone: undone - 1 };
    default: return { done, undone };
  }
}

// Counts the stacks from the game's replay: every action since the deal.
async function countStacks(game) {
  if (game.status === 'paused' || FINISHED.has(game.status)) return;
  try {
    const replay = await api('GET', `/v1/games/${encodeURIComponent(game.id)}/replay`);
    let stacks = { done: 0, undone: 0 };
    for (const { action } of replay.actions) stacks = stacked(stacks, action);
    const current = state.game;
    // A change made meanwhile is counted when it is shown.
    if (current && current.id === game.id && current.version === replay.actions.length) {
      state.stacks = { version: current.version, ...stacks };
      hooks.counted();
    }
  } catch (_) { /* unknown: undo and redo stay offered */ }
}

function followStacks(game) {
  const s = state.stacks;
  const last = game.last && game.last.version === game.version ? game.last : null;
  if (game.version === 0) state.stacks = { version: 0, done: 0, undone: 0 };
  else if (s && last && s.version === game.version - 1) state.stacks = { version: game.version, ...stacked(s, last.action) };
  else if (!s || s.version !== game.version) {
    state.stacks = null;
    countStacks(game);
  }
}

export const canUndo = () => !state.stacks || state.stacks.done > 0;
export const canRedo = () => !state.stacks || state.stacks.undone > 0;

// ---- showing the game -------------------------------------------------------------

// Shows `game` unless a newer version is shown already. The same version
// again (the stream repeating an answer, or a read) only sets the clock.
export function show(game) {
  const current = state.game;
  if (current && current.id === game.id) {
    if (game.version < current.version) return;
    if (game.version === current.version) {
      if (game.elapsed_ms > current.elapsed_ms) {
        state.game = game;
        state.at = performance.now();
      }
      return;
    }
  }
  state.game = game;
  state.at = performance.now();
  followStacks(game);
  hooks.shown(game, { previous: current && current.id === game.id ? current : null });
  if (FINISHED.has(game.status)) closeStream();
}

function remember(id) {
  try {
    if (id) localStorage.setItem(STORED, id); else localStorage.removeItem(STORED);
  } catch (_) { /* storage refused: the address still holds the id */ }
  history.replaceState(null, '', id ? `#game=${id}` : location.pathname);
}

export function idInAddress() {
  const match = /^#(?:game=)?([0-9A-Za-z_-]+)$/.exec(location.hash);
  return match ? match[1] : null;
}

// The game to resume: the address's, else the one kept by the last visit.
export function storedId() {
  const id = idInAddress();
  if (id) return id;
  try { return localStorage.getItem(STORED); } catch (_) { return null; }
}

function open(game) {
  closeStream();
  state.game = null;
  state.stacks = null;
  remember(game.id);
  show(game);
  follow(game.id);
}

// Reads the game `id` and shows it; false when the server has no such game.
export async function load(id) {
  closeStream();
  state.game = null;
  try {
    open(await api('GET', `/v1/games/${encodeURIComponent(id)}`));
    return true;
  } catch (e) {
    if (e.code === 'game_not_found') { forget(id); return false; }
    if (e.status === 0) connectionLost();
    throw e;
  }
}

// Deals a new game with `body` (POST /v1/games) and shows it.
export async function deal(body) {
  try {
    open(await api('POST', '/v1/games', { body }));
  } catch (e) {
    if (e.status === 0) connectionLost();
    throw e;
  }
}

// The game is not on this server (never was, or expired): forgotten.
function forget(id) {
  if (state.game && state.game.id !== id) return;
  closeStream();
  state.game = null;
  state.stacks = null;
  remember(null);
  hooks.gone(id);
}

// Reads the game again, as the server has it now.
export async function refresh(id) {
  try {
    const game = await api('GET', `/v1/games/${id}`);
    if (state.game && state.game.id === id) show(game);
  } catch (e) {
    if (e.code === 'game_not_found') forget(id);
    else if (e.status === 0) connectionLost();
  }
}

// Queues an action on the game shown, pinned to the version shown when it
// is sent, after the actions before it.
export function act(action, body) {
  const id = state.game && state.game.id;
  if (!id) return state.queue;
  state.queue = state.queue.then(async () => {
    if (!state.game || state.game.id !== id) return;
    const shown = state.game.version;
    try {
      show(await api('POST', `/v1/games/${id}/${action}`, { body, version: shown }));
    } catch (e) {
      if (e.status === 0) { connectionLost(); return; }
      if (e.code === 'game_not_found') { forget(id); return; }
      if (e.code === 'version_mismatch' || e.code === 'game_over' || e.code === 'action_refused') await refresh(id);
      hooks.refused(e, action, body);
    }
  });
  return state.queue;
}

// ---- the connection -----------------------------------------------------------------

// A request found no server: said once, then the server is asked every
// two seconds until it answers, and the game read again.
export function connectionLost() {
  if (state.lost) return;
  state.lost = true;
  hooks.connection(true);
  const probe = async () => {
    try {
      const response = await fetch('/healthz', { cache: 'no-store' });
      if (!response.ok) throw new Error(String(response.status));
    } catch (_) {
      setTimeout(probe, 2000);
      return;
    }
    state.lost = false;
    hooks.connection(false);
    const game = state.game;
    if (game) {
      await refresh(game.id);
      if (!FINISHED.has(game.status) && !state.stream) follow(game.id);
    }
  };
  setTimeout(probe, 2000);
}

// Asks the server whether it is there, once; a lost connection if not.
async function checkConnection() {
  if (state.lost) return;
  try {
    await fetch('/healthz', { cache: 'no-store' });
  } catch (_) {
    connectionLost();
  }
}

// ---- the event stream -------------------------------------------------------------

export function closeStream() {
  if (state.stream) state.stream.close();
  state.stream = null;
  hooks.streaming('closed');
}

// Follows the game's events until it finishes: changes made elsewhere
// (another tab, the API) show up as they happen.
export function follow(id) {
  closeStream();
  if (!state.game || FINISHED.has(state.game.status)) return;
  // EventSource sends no Authorization header, and the events of a game
  // are open to read unless API keys gate the server: then the stream is
  // read with fetch, with the player's token (or the key).
  state.stream = hooks.key() ? fetchStream(id) : eventSource(id);
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
  source.addEventListener('open', () => { if (state.stream === stream) hooks.streaming('open'); });
  source.addEventListener('game', (e) => onEvent(id, e.data));
  // A stream that ended is opened again by EventSource itself, with
  // Last-Event-ID; an answer that is no stream (a 404, a 503) ends it.
  source.addEventListener('error', () => {
    if (state.stream !== stream) return;
    // Reconnecting by itself: a server that does not answer is said so.
    if (source.readyState !== EventSource.CLOSED) { checkConnection(); return; }
    hooks.streaming('closed');
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
        if (response.status === 404) { forget(id); return; }
        if (response.ok) {
          hooks.streaming('open');
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
      if (state.stream === stream) hooks.streaming('closed');
      await new Promise((resolve) => { setTimeout(resolve, 3000); });
    }
  })();
  return stream;
}

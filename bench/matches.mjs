// Races over HTTP, driven by one Node process (bench/matches.sh starts
// the server and runs this): MATCHES two-player matches at once, every
// player playing their own game of the match's deal as fast as its answers
// come, each match's stream read all along; against the baseline of the
// same players each playing a lone held game of the same deal, the same
// way, with the same number of game streams read.
//
// Reports, for each phase: moves acknowledged a second (200 only), and
// the stream's delay from a move's request to its event (the match's
// `progress`, or the lone game's `game` event), p50 and p99 in ms. Every
// answer's status is counted; the run fails on any status it does not
// expect (a race's loser may get `409 game_over` once the winner cleared).
//
//   BASE=http://127.0.0.1:PORT MATCHES=1000 node bench/matches.mjs
//
// Requests go through node:http's keep-alive pool, most recently used
// connection first so that few sit idle; fetch (undici) spent the one
// core the driver has at about 700 requests a second, less than the
// server answers.
//
// Every change is sent with an `Idempotency-Key` and sent again, under the
// same key, when its connection is lost before its answer: the server
// closes a keep-alive connection idle for its header timeout, and a
// request sent on it as it closes sees a reset. The server answers such a
// resend as it answered the first try, so nothing applies twice; resends
// are counted with the statuses.
//
// Loopback only. Every request and the whole run are bounded in time.

import { randomUUID } from 'node:crypto';
import http from 'node:http';

const base = process.env.BASE;
const MATCHES = Number(process.env.MATCHES || 1000);
// One deal for every game: its clearing sequence is asked for once.
const DEAL = { width: 14, height: 6, types: 21, rules: 'shisen-sho', seed: 20261206 };
const LIMIT_MS = 600_000;
const REQUEST_MS = 30_000;
const deadline = AbortSignal.timeout(LIMIT_MS);
const statuses = new Map();
// A connection idle 4 s is closed here, before the server's 5 s.
const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo', timeout: 4_000 });
// Each stream holds a connection of its own to its end.
const streamAgent = new http.Agent({ keepAlive: false });

function count(what, status) {
  const key = `${what} ${status}`;
  statuses.set(key, (statuses.get(key) || 0) + 1);
}

// The codes of a request whose connection closed before its answer came.
const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE']);
// Resends of one request at most.
const RESENDS = 5;

function lostConnection(e) {
  return CONNECTION_LOST.has(e.code) && !deadline.aborted;
}

// One exchange: the status and the body as text, or the error that ended
// it; bounded by REQUEST_MS.
function exchange(method, path, payload, headers) {
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}${path}`, { method, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => { chunks.push(chunk); });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() });
      });
      response.on('error', fail);
    });
    const timer = setTimeout(() => { request.destroy(new Error(`no answer to ${method} ${path} in ${REQUEST_MS} ms`)); }, REQUEST_MS);
    function fail(e) {
      clearTimeout(timer);
      reject(e);
    }
    request.on('error', fail);
    request.end(payload);
  });
}

// One request; with an `Idempotency-Key` among `headers` it is sent again
// when its connection is lost, at most RESENDS times.
async function call(what, method, path, body, token, headers = {}) {
  const all = { ...headers };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) {
    all['Content-Type'] = 'application/json';
    all['Content-Length'] = Buffer.byteLength(payload);
  }
  if (token) all.Authorization = `Bearer ${token}`;
  for (let resends = 0; ; resends += 1) {
    try {
      const { status, text } = await exchange(method, path, payload, all);
      count(what, status);
      return { status, json: text ? JSON.parse(text) : null };
    } catch (e) {
      if (!all['Idempotency-Key'] || !lostConnection(e) || resends === RESENDS) throw e;
      count(what, `resent (${e.code})`);
    }
  }
}

// Runs `work(i)` for i in 0..n, at most `width` at once.
async function pool(n, width, work) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      const i = next;
      next += 1;
      await work(i);
    }
  });
  await Promise.all(lanes);
}

// A setting-up call, sent again while the server is busy (503: its
// solver slots are dealing), at most for a minute; under a new key each
// time, since a 503 applied nothing.
async function setUp(what, method, path, body, token, status) {
  const until = performance.now() + 60_000;
  for (;;) {
    const reply = await call(what, method, path, body, token, { 'Idempotency-Key': randomUUID() });
    if (reply.status !== 503 || performance.now() > until) return must(reply, status, what);
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
}

function must(reply, status, what) {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json;
}

// The answer to `GET path` on a connection of its own, until `signal`.
function open(path, signal) {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${path}`, { agent: streamAgent, signal }, resolve);
    request.on('error', reject);
  });
}

// Reads the Server-Sent Events of `path`, calling `event(name, data, at)`
// with each as it arrives, until the stream ends or `stop` aborts it.
async function follow(path, event, stop) {
  const signal = AbortSignal.any([deadline, stop]);
  const until = performance.now() + 60_000;
  let response;
  for (let resends = 0; ; resends += 1) {
    try {
      response = await open(path, signal);
    } catch (e) {
      if (signal.aborted) return;
      // A GET changes nothing: sent again on a connection lost before
      // its answer.
      if (!lostConnection(e) || resends === RESENDS) throw e;
      count('stream', `resent (${e.code})`);
      continue;
    }
    count('stream', response.statusCode);
    // 503 (the streams' bound reached, or the store away a moment):
    // opened again after its Retry-After, as an EventSource does, for a
    // minute.
    if (response.statusCode !== 503 || performance.now() > until) break;
    response.resume();
    const seconds = Number(response.headers['retry-after']) || 1;
    await new Promise((resolve) => { setTimeout(resolve, seconds * 1000); });
    resends = -1;
  }
  if (response.statusCode !== 200) {
    response.resume();
    return;
  }
  response.setEncoding('utf8');
  let buffered = '';
  try {
    for await (const chunk of response) {
      const at = performance.now();
      buffered += chunk;
      let end;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        let name = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data += line.slice(5).trim();
        }
        if (data) event(name, JSON.parse(data), at);
      }
    }
  } catch (e) {
    // A stream the server ended by closing its connection (a race over
    // while its last event was on its way) is counted, not a failure.
    if (!signal.aborted) count('stream', `cut (${e.code || e.message})`);
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// Plays `moves` on game `id` as `token`, recording each move's start under
// `${id} ${version}`; stops at the first refusal (a race already won).
async function play(id, token, moves, sent) {
  let made = 0;
  for (const { from, to } of moves) {
    const started = performance.now();
    const reply = await call('move', 'POST', `/v1/games/${id}/moves`, { from, to }, token, { 'Idempotency-Key': randomUUID() });
    if (reply.status !== 200) {
      if (reply.status === 409 && reply.json?.error?.code === 'game_over') return made;
      throw new Error(`move: ${reply.status} ${JSON.stringify(reply.json)}`);
    }
    sent.set(`${id} ${reply.json.version}`, started);
    made += 1;
  }
  return made;
}

function report(phase, moves, ms, sent, arrived) {
  const delays = [];
  for (const [key, at] of arrived) {
    const started = sent.get(key);
    if (started !== undefined) delays.push(at - started);
  }
  delays.sort((a, b) => a - b);
  const rate = moves / (ms / 1000);
  console.log(JSON.stringify({
    phase, moves, seconds: +(ms / 1000).toFixed(2), moves_per_second: Math.round(rate),
    stream_events_timed: delays.length, delay_p50_ms: +percentile(delays, 50).toFixed(2), delay_p99_ms: +percentile(delays, 99).toFixed(2),
  }));
  return rate;
}

let baseline;

async function main() {
  const players = [];
  await pool(2 * MATCHES, 64, async (i) => {
    players[i] = must(await call('sign-up', 'POST', '/v1/players', { name: `Bench ${i}` }), 201, 'sign-up').token;
  });
  const dealt = must(await call('deal', 'POST', '/v1/deal', DEAL), 200, 'deal');
  const clear = must(await call('clear', 'POST', '/v1/clear', { board: dealt.board, rules: DEAL.rules }), 200, 'clear');
  const moves = clear.moves;
  if (clear.outcome !== 'solvable' || !moves?.length) throw new Error(`the deal does not clear: ${JSON.stringify(clear.outcome)}`);

  // The baseline: every player a lone game, half of them streamed.
  {
    const games = [];
    await pool(players.length, 64, async (i) => {
      // On the deal's board: dealing it again for each game would time
      // the dealing.
      const body = { board: dealt.board, rules: DEAL.rules };
      games[i] = (await setUp('game', 'POST', '/v1/games', body, players[i], 201)).id;
    });
    const sent = new Map();
    const arrived = new Map();
    const stop = new AbortController();
    const streams = games.slice(0, MATCHES).map((id) => follow(`/v1/games/${id}/events`, (name, game, at) => {
      if (name === 'game') arrived.set(`${id} ${game.version}`, at);
    }, stop.signal));
    const started = performance.now();
    const made = await Promise.all(games.map((id, i) => play(id, players[i], moves, sent)));
    const ms = performance.now() - started;
    stop.abort();
    await Promise.allSettled(streams);
    baseline = report('lone games', made.reduce((a, b) => a + b, 0), ms, sent, arrived);
  }

  // The races.
  const matches = [];
  await pool(MATCHES, 64, async (m) => {
    const body = { game: DEAL, seats: 2 };
    const id = (await setUp('match', 'POST', '/v1/matches', body, players[2 * m], 201)).id;
    must(await call('join', 'POST', `/v1/matches/${id}/join`, {}, players[2 * m + 1], { 'Idempotency-Key': randomUUID() }), 200, 'join');
    matches[m] = id;
  });
  const sent = new Map();
  const arrived = new Map();
  const seats = new Map(); // match id -> [game of seat 0, game of seat 1]
  let racing = 0;
  let allRacing;
  const begun = new Promise((resolve) => { allRacing = resolve; });
  const stop = new AbortController();
  const streams = matches.map((id) => follow(`/v1/matches/${id}/events`, (name, data, at) => {
    if (name === 'match' && data.status === 'playing' && !seats.has(id)) {
      seats.set(id, data.players.map((p) => p.game));
      racing += 1;
      if (racing === MATCHES) allRacing();
    } else if (name === 'progress') {
      arrived.set(`${data.game} ${data.version}`, at);
    }
  }, stop.signal));
  await begun;
  const started = performance.now();
  const made = await Promise.all(matches.flatMap((id, m) => seats.get(id).map((game, s) => play(game, players[2 * m + s], moves, sent))));
  const ms = performance.now() - started;
  // The last events are on their way: wait for the streams to end with
  // their matches, as each does.
  await Promise.race([Promise.allSettled(streams), new Promise((resolve) => { setTimeout(resolve, 10_000); })]);
  stop.abort();
  const rate = report('races', made.reduce((a, b) => a + b, 0), ms, sent, arrived);
  console.log(JSON.stringify({ races_over_lone_games: +(rate / baseline).toFixed(3) }));
  console.log(JSON.stringify({ statuses: Object.fromEntries([...statuses].sort()) }));
}

main().catch((e) => { console.error(e); process.exit(1); });

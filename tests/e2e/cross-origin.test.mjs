// A browser game on another origin plays a held game through the API:
// `node --test tests/e2e/`.
//
// A page served from a second loopback origin (this file's own small
// server) signs up a player, creates a game with an `Idempotency-Key` and
// retries it, moves with `If-Match` (a stale one refused with 412),
// revalidates with `If-None-Match` (304), reads `ETag`, `Location`,
// `Idempotent-Replayed`, follows the game's event stream
// with `EventSource` to its end, and resumes it with `Last-Event-ID`
// through `fetch`, then reads past its rate to see `Retry-After` and the
// `RateLimit` fields. Chromium enforces CORS: every header sent or read here
// is one the API's CORS answer must allow or expose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launchChromium, startServer } from './support.mjs';

const BOUND = { timeout: 60000 };

// The game's page: plays, and leaves what it saw in `window.seen`.
function script(api) {
  return `
const api = ${JSON.stringify(api)};
const seen = { events: [] };
const headers = (response, names) => Object.fromEntries(names.map((n) => [n, response.headers.get(n)]));
async function play() {
  const player = await fetch(api + '/v1/players', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"Far Away"}' });
  seen.signUp = player.status;
  const { token } = await player.json();
  const auth = { Authorization: 'Bearer ' + token };
  const create = () => fetch(api + '/v1/games', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'deal-1' },
    body: JSON.stringify({ board: ['A.A', 'B.B'], rules: 'lianliankan' }),
  });
  const first = await create();
  const game = await first.json();
  seen.created = { status: first.status, ...headers(first, ['etag', 'location', 'idempotent-replayed']) };
  const again = await create();
  seen.retried = { status: again.status, id: (await again.json()).id === game.id, ...headers(again, ['etag', 'idempotent-replayed']) };

  const stream = new EventSource(api + '/v1/games/' + game.id + '/events');
  let opened;
  const streaming = new Promise((resolve) => { opened = resolve; });
  const closed = new Promise((resolve) => {
    stream.addEventListener('game', (e) => {
      seen.events.push([e.lastEventId, JSON.parse(e.data).status]);
      opened();
    });
    // The stream ends with the won game; reconnecting with its version as
    // Last-Event-ID is answered 204, which closes the EventSource.
    stream.onerror = () => { if (stream.readyState === EventSource.CLOSED) resolve(); };
  });
  // The stream is read from the game as created: its first event.
  await streaming;

  const move = (from, to, version, key) => fetch(api + '/v1/games/' + game.id + '/moves', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json', 'If-Match': '"' + version + '"', 'Idempotency-Key': key },
    body: JSON.stringify({ from, to }),
  });
  const one = await move([0, 0], [2, 0], 0, 'move-1');
  seen.moved = { status: one.status, ...headers(one, ['etag']) };
  const stale = await move([0, 1], [2, 1], 0, 'move-2');
  seen.stale = { status: stale.status, code: (await stale.json()).error.code };
  const kept = await fetch(api + '/v1/games/' + game.id, { headers: { ...auth, 'If-None-Match': '"1"' } });
  seen.revalidated = { status: kept.status, ...headers(kept, ['etag']) };
  const won = await move([0, 1], [2, 1], 1, 'move-3');
  seen.won = { status: won.status, etag: won.headers.get('etag'), state: (await won.json()).status };

  await closed;
  const resumed = await fetch(api + '/v1/games/' + game.id + '/events', { headers: { 'Last-Event-ID': '1' } });
  const text = await resumed.text();
  seen.resumed = { status: resumed.status, ids: [...text.matchAll(/^id: ?(.*)$/gm)].map((m) => m[1]) };
  const ended = await fetch(api + '/v1/games/' + game.id + '/events', { headers: { 'Last-Event-ID': '2' } });
  seen.ended = ended.status;

  // Past its burst a client is told when to come back.
  for (let i = 0; i < 100; i += 1) {
    const read = await fetch(api + '/v1/games/' + game.id, { headers: auth });
    if (read.status === 429) {
      seen.limited = headers(read, ['retry-after', 'ratelimit', 'ratelimit-policy']);
      break;
    }
  }
}
play().then(() => { window.seen = seen; }, (e) => { window.seen = { failed: String(e) }; });
`;
}

let api;
let server;
let pages;
let browser;

before(async () => {
  // The game's origin first: the API is told to allow it.
  pages = createServer((request, response) => {
    if (request.url === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>a game elsewhere</title><script src="/game.js"></script>');
    } else if (request.url === '/game.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' });
      response.end(script(api));
    } else {
      // The browser's own favicon request among them.
      response.writeHead(204);
      response.end();
    }
  });
  await new Promise((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const gameOrigin = `http://127.0.0.1:${pages.address().port}`;
  ({ child: server, base: api } = await startServer({
    LINKPATH_CORS_ORIGINS: gameOrigin,
    // The game's requests fit in the burst; the page then spends it.
    LINKPATH_RATE_LIMIT_PER_SECOND: '1',
    LINKPATH_RATE_LIMIT_BURST: '40',
  }));
  assert.notEqual(new URL(api).origin, gameOrigin);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  pages?.close();
});

test('a page on another origin plays a game with keys, versions and the stream', BOUND, async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(20000);
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // The stale move's 412 and the last read's 429 are the refusals asked for.
    if (m.type() === 'error' && !/ (412|429) \(/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.goto(`http://127.0.0.1:${pages.address().port}/`);
  // A script that cannot run says so at once rather than at the timeout.
  await Promise.race([
    page.waitForFunction(() => window.seen !== undefined),
    new Promise((_, reject) => { page.once('pageerror', reject); }),
  ]);
  const seen = await page.evaluate(() => window.seen);
  // A request the browser blocked is a TypeError in the page.
  assert.equal(seen.failed, undefined);
  const gameId = seen.created.location?.split('/').pop();

  assert.equal(seen.signUp, 201);
  assert.match(gameId ?? '', /^[0-9a-f]{32}$/);
  assert.deepEqual(seen.created, {
    status: 201,
    etag: '"0"',
    location: `/v1/games/${gameId}`,
    'idempotent-replayed': null,
  });
  assert.deepEqual(seen.retried, { status: 201, id: true, etag: '"0"', 'idempotent-replayed': 'true' });
  assert.deepEqual(seen.moved, { status: 200, etag: '"1"' });
  assert.deepEqual(seen.stale, { status: 412, code: 'version_mismatch' });
  assert.deepEqual(seen.revalidated, { status: 304, etag: '"1"' });
  assert.deepEqual(seen.won, { status: 200, etag: '"2"', state: 'won' });
  // The game as created, then each change; the refused move made none.
  assert.deepEqual(seen.events, [['0', 'playing'], ['1', 'playing'], ['2', 'won']]);
  assert.deepEqual(seen.resumed, { status: 200, ids: ['2'] });
  assert.equal(seen.ended, 204);
  const wait = seen.limited?.['retry-after'];
  assert.match(wait ?? '', /^[1-9][0-9]*$/, JSON.stringify(seen.limited));
  assert.deepEqual(seen.limited, {
    'retry-after': wait,
    ratelimit: `"per-client";r=0;t=${wait}`,
    'ratelimit-policy': '"per-client";q=40;w=40;linkpath-rate=1',
  });
  assert.deepEqual(problems, []);
});

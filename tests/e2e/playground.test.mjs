// The playground page in headless Chromium: `node --test tests/e2e/`.
//
// Starts the release binary (or $LINKPATH_BIN) on a free loopback port with
// games in memory, drives Debian's /usr/bin/chromium (or $CHROMIUM) with
// playwright-core, and plays games the server holds through the page: signs
// up a guest once (kept across a reload), deals a game as that player, shows an illegal move's reason, plays the sequence `/v1/clear`
// answers with undo, redo, a hint, a pause and a reload on the way, to
// `won`, and checks the clock, score and `ranked` shown against
// `GET /v1/games/{id}`; then changes made through the API arriving on the
// event stream, a time limit running out, a stuck game shuffled, a game
// that is gone, and games dealt onto a shipped layout and onto rows typed
// in; a ranked win on the deal's leaderboard under the player's name, a
// rename with the keyboard, and a token the server refuses replaced by a
// new guest, once. Screenshots go under tests/artifacts/; the README's picture,
// docs/playground.png, is taken anew on each run, of the game mid-play.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const binary = process.env.LINKPATH_BIN || join(root, 'target', 'release', 'linkpath');
const artifacts = join(root, 'tests', 'artifacts');
const CELL = 40;
// No test may hang: each is cut off well past what it needs.
const BOUND = { timeout: 60000 };

let server;
let base;
let browser;
let page;
// Failed requests and page errors; each test says which it expects.
let problems = [];
// Sign-ups the page asked for (POST /v1/players).
let signUps = 0;

// Starts linkpath on 127.0.0.1:0 and reads the bound address from its
// first JSON log line.
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve'], {
      env: { ...process.env, LINKPATH_LISTEN: '127.0.0.1:0', LINKPATH_LOG_FORMAT: 'json', LINKPATH_STORE: 'memory', RUST_LOG: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const timer = setTimeout(() => reject(new Error('linkpath did not start within 10 s')), 10000);
    let buffered = '';
    child.stderr.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const event = JSON.parse(line);
          if (event.message === 'linkpath serving') {
            clearTimeout(timer);
            resolve({ child, base: `http://${event.listen}` });
          }
        } catch (_) { /* not a JSON line */ }
      }
    });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`linkpath exited with ${code}`)); });
  });
}

// The API itself, beside the page: what the page shows is checked against it.
// `token` is a player's, for the player's own games and account.
async function call(method, path, body, token) {
  const headers = body === undefined ? {} : { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10000),
  });
  const json = await response.json();
  assert.ok(response.ok, `${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

const game = (id) => call('GET', `/v1/games/${id}`);

// The player the page keeps in localStorage: { id, name, token }.
const storedPlayer = () => page.evaluate(() => JSON.parse(localStorage.getItem('linkpath.player')));

// A `points` attribute back to cells: the centre of [x, y] is at
// (CELL + (x + 0.5) CELL, CELL + (y + 0.5) CELL).
function cells(points) {
  return points.trim().split(/\s+/).map((pair) => pair.split(',').map((v) => {
    const cell = Number(v) / CELL - 1.5;
    assert.ok(Number.isInteger(cell), `${v} is not a cell centre`);
    return cell;
  }));
}

// The page's clock: m:ss of whole seconds.
function clockText(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const cell = (x, y) => `#board-view g.cell[data-x="${x}"][data-y="${y}"]`;
const atVersion = (version) => page.waitForSelector(`#game[data-version="${version}"]`, { state: 'attached' });
const text = (id) => page.textContent(`#${id}`);

async function shownGame() {
  return page.$eval('#game', (g) => ({ id: g.dataset.id, version: Number(g.dataset.version), status: g.dataset.status }));
}

async function picked() {
  return page.$$eval('#board-view g.picked', (gs) => gs.map((g) => [Number(g.dataset.x), Number(g.dataset.y)]));
}

// Clicks the two tiles of a move and waits for the version it makes.
async function clickMove({ from, to }, version) {
  await page.click(cell(...from));
  assert.deepEqual(await picked(), [from]);
  await page.click(cell(...to));
  await atVersion(version);
}

async function dealOnPage(fields) {
  for (const [id, value] of Object.entries(fields)) {
    if (['difficulty', 'rules', 'gravity'].includes(id)) await page.selectOption(`#${id}`, value);
    else await page.fill(`#${id}`, String(value));
  }
  await page.click('#deal');
  await page.waitForSelector('#game[data-version="0"]', { state: 'attached' });
  const { id } = await shownGame();
  assert.match(id, /^[0-9a-f]{32}$/);
  return id;
}

before(async () => {
  ({ child: server, base } = await startServer());
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(10000);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // A refused request is reported by `response` below, with its URL.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
  });
  // The browser's own favicon request is the only 404 not asked for.
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/players') signUps += 1;
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
  });
  // An event stream the page closes (the game ended, or the page went) is
  // an aborted request, as it should be.
  page.on('requestfailed', (r) => {
    if (!(new URL(r.url()).pathname.endsWith('/events') && r.failure()?.errorText === 'net::ERR_ABORTED')) {
      problems.push(`request failed: ${r.url()}`);
    }
  });
  mkdirSync(artifacts, { recursive: true });
});

afterEach(() => { problems = []; });

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('the page loads with a CSP that allows only this origin, signs up a guest once, and has no game', BOUND, async () => {
  const response = await page.goto(`${base}/`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'], /^default-src 'self'/);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal((await shownGame()).status, 'none');
  assert.equal(await text('game-status'), 'no game');
  for (const id of ['hint', 'undo', 'redo', 'shuffle', 'pause', 'resign']) {
    assert.equal(await page.isDisabled(`#${id}`), true, id);
  }

  // The first visit signs up a guest and keeps it; the server knows it.
  const guest = await storedPlayer();
  assert.deepEqual(Object.keys(guest).sort(), ['id', 'name', 'token']);
  assert.match(guest.id, /^[0-9a-f]{32}$/);
  assert.match(guest.name, /^Guest [0-9]{4}$/);
  assert.match(guest.token, /^lpp_[0-9a-f]{64}$/);
  assert.equal(await text('player-name'), guest.name);
  assert.equal(await page.isEnabled('#rename-button'), true);
  const me = await call('GET', '/v1/players/me', undefined, guest.token);
  assert.deepEqual([me.id, me.name], [guest.id, guest.name]);
  assert.equal(signUps, 1);

  // A reload is the same player: no sign-up, the same name shown.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(await storedPlayer(), guest);
  assert.equal(await text('player-name'), guest.name);
  assert.equal(signUps, 1);
  assert.deepEqual(problems, []);
});

test('a game dealt on the page is played to the end, with an illegal move, undo, redo, a hint, a pause and a reload', BOUND, async () => {
  const id = await dealOnPage({ width: 6, height: 4, types: 6, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'down', seed: 42 });
  assert.equal(new URL(page.url()).hash, `#game=${id}`);
  const dealt = await game(id);
  assert.equal(dealt.status, 'playing');
  // Dealt as the player signed in: the game is theirs.
  const guest = await storedPlayer();
  assert.equal(dealt.owner, guest.id);
  assert.ok((await text('game-line')).endsWith(`. ${guest.name}'s.`), await text('game-line'));
  assert.deepEqual(dealt.settings, {
    width: 6, height: 4, encoding: 'text', types: 6, copies: 4, difficulty: 'easy', seed: 42, rules: 'shisen-sho', gravity: 'down', settle: false,
  });
  assert.equal(await page.locator('#board-view g.tile').count(), 24);
  assert.equal(await text('game-status'), 'playing');
  assert.equal(await text('ranked'), 'yes');
  assert.equal(await page.locator('#board-view rect.ring').count(), 1);

  const clear = await call('POST', '/v1/clear', { board: dealt.board, rules: 'shisen-sho', gravity: 'down' });
  assert.equal(clear.outcome, 'solvable');
  const { moves } = clear;
  assert.equal(moves.length, 12);

  // Two tiles of different types: refused with its reason, nothing changed.
  const rows = dealt.board.map((r) => [...r]);
  const first = [0, 0];
  const other = [rows[0].findIndex((t) => t !== rows[0][0]), 0];
  await page.click(cell(...first));
  await page.click(cell(...other));
  await page.waitForSelector('#reason');
  assert.equal(await text('reason'), 'type_mismatch');
  assert.equal((await shownGame()).version, 0);
  assert.equal((await game(id)).version, 0);
  assert.equal(await page.locator('#board-view g.tile').count(), 24);
  assert.deepEqual(await picked(), []);

  // The first move: the path drawn is the one the server answered.
  await clickMove(moves[0], 1);
  assert.equal(await page.isHidden('#error'), true);
  const moved = await game(id);
  assert.equal(moved.last.action, 'move');
  assert.deepEqual(cells(await page.getAttribute('#board-view polyline.path.move', 'points')), moved.last.path);
  assert.equal(await page.locator('#board-view g.tile').count(), 22);
  assert.equal(await text('tiles-left'), '22');
  assert.equal(await text('score'), String(moved.score));

  // Undo puts the pair back and unranks the game; redo makes the move again.
  await page.click('#undo');
  await atVersion(2);
  assert.equal(await page.locator('#board-view g.tile').count(), 24);
  assert.equal(await text('ranked'), 'no');
  assert.equal(await text('assists'), 'hints 0, undos 1, shuffles 0');
  await page.click('#redo');
  await atVersion(3);
  assert.equal(await page.locator('#board-view g.tile').count(), 22);

  await clickMove(moves[1], 4);

  // A hint: the pair lit up and its path, as the server gave them.
  await page.click('#hint');
  await atVersion(5);
  const hinted = await game(id);
  assert.equal(hinted.last.action, 'hint');
  const lit = await page.$$eval('#board-view g.hinted', (gs) => gs.map((g) => [Number(g.dataset.x), Number(g.dataset.y)]));
  const byReading = (a, b) => a[1] - b[1] || a[0] - b[0];
  assert.deepEqual(lit, [hinted.last.hint.from, hinted.last.hint.to].sort(byReading));
  assert.deepEqual(cells(await page.getAttribute('#board-view polyline.path.hint', 'points')), hinted.last.hint.path);
  assert.equal(await text('assists'), 'hints 1, undos 1, shuffles 0');
  await page.screenshot({ path: join(artifacts, 'playground-hint.png'), animations: 'disabled' });

  // A reload resumes the same game at the same version.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await atVersion(5);
  assert.deepEqual(await shownGame(), { id, version: 5, status: 'playing' });
  assert.equal(new URL(page.url()).hash, `#game=${id}`);
  assert.equal(await page.locator('#board-view g.tile').count(), 20);
  assert.equal(await page.locator('#board-view g.hinted').count(), 2);
  assert.equal(await text('score'), String(hinted.score));
  // The form deals the next game as this one was dealt.
  assert.deepEqual([await page.inputValue('#width'), await page.inputValue('#height'), await page.inputValue('#gravity')], ['6', '4', 'down']);

  // Paused: the board hidden, the clock stopped where the server stopped it.
  await page.click('#pause');
  await atVersion(6);
  assert.equal(await page.isHidden('#board-view'), true);
  assert.equal(await page.isVisible('#paused-cover'), true);
  assert.equal(await text('pause'), 'Resume');
  const paused = await game(id);
  assert.equal(paused.status, 'paused');
  assert.equal(paused.board, undefined);
  assert.equal(await text('clock'), clockText(paused.elapsed_ms));
  assert.equal(await page.isDisabled('#hint'), true);
  await page.click('#pause');
  await atVersion(7);
  assert.equal(await text('game-status'), 'playing');

  await clickMove(moves[2], 8);
  await page.screenshot({ path: join(artifacts, 'playground.png'), animations: 'disabled' });
  await page.screenshot({ path: join(root, 'docs', 'playground.png'), animations: 'disabled' });
  for (let i = 3; i < moves.length; i += 1) await clickMove(moves[i], 6 + i);

  // Won: what the page shows is what the server holds.
  await page.waitForSelector('#game[data-status="won"]', { state: 'attached' });
  const won = await game(id);
  assert.equal(won.status, 'won');
  assert.equal(won.version, 6 + moves.length - 1);
  assert.equal(won.tiles_left, 0);
  assert.equal(won.ranked, false);
  assert.deepEqual(won.assists, { hints: 1, undos: 1, shuffles: 0 });
  assert.ok(won.score > 0);
  assert.equal(await text('game-status'), 'won');
  assert.equal(await text('score'), String(won.score));
  assert.equal(await text('ranked'), 'no');
  assert.equal(await text('tiles-left'), '0');
  assert.equal(await text('clock'), clockText(won.elapsed_ms));
  assert.equal(await text('message'), `Won: cleared in ${clockText(won.elapsed_ms)}, score ${won.score}, unranked (assists used).`);
  assert.equal(await page.locator('#board-view g.tile').count(), 0);
  assert.equal(await page.getAttribute('#game', 'data-stream'), 'closed');
  for (const button of ['hint', 'undo', 'redo', 'shuffle', 'pause', 'resign']) {
    assert.equal(await page.isDisabled(`#${button}`), true, button);
  }
  await page.screenshot({ path: join(artifacts, 'playground-won.png') });
  assert.deepEqual(problems, [`409 ${base}/v1/games/${id}/moves`]);
});

test('changes made through the API arrive on the event stream', BOUND, async () => {
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'lianliankan', gravity: 'none', seed: 7 });
  await page.waitForSelector('#game[data-stream="open"]', { state: 'attached' });
  assert.equal(await page.locator('#board-view rect.ring').count(), 0);
  // The game is the page's player's: only their token acts on it.
  const { token } = await storedPlayer();

  await call('POST', `/v1/games/${id}/hint`, undefined, token);
  await atVersion(1);
  assert.equal(await page.locator('#board-view g.hinted').count(), 2);
  assert.equal(await text('ranked'), 'no');

  const { moves } = await call('POST', '/v1/clear', { board: (await game(id)).board, rules: 'lianliankan' });
  const after = await call('POST', `/v1/games/${id}/moves`, moves[0], token);
  await atVersion(2);
  assert.equal(await page.locator('#board-view g.tile').count(), 6);
  assert.deepEqual(cells(await page.getAttribute('#board-view polyline.path.move', 'points')), after.last.path);
  assert.equal(await text('score'), String(after.score));

  await call('POST', `/v1/games/${id}/resign`, undefined, token);
  await atVersion(3);
  assert.equal(await text('game-status'), 'resigned');
  assert.equal(await text('message'), `Resigned with 6 tiles left, score ${after.score}.`);
  assert.equal(await page.getAttribute('#game', 'data-stream'), 'closed');
  assert.deepEqual(problems, []);
});

test('a win without assists is ranked under the player, who renames with the keyboard', BOUND, async () => {
  const guest = await storedPlayer();
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'none', seed: 3 });
  const dealt = await game(id);
  assert.equal(dealt.owner, guest.id);
  const clear = await call('POST', '/v1/clear', { board: dealt.board, rules: 'shisen-sho' });
  assert.equal(clear.outcome, 'solvable');
  for (let i = 0; i < clear.moves.length; i += 1) await clickMove(clear.moves[i], i + 1);
  await page.waitForSelector('#game[data-status="won"]', { state: 'attached' });
  const won = await game(id);
  assert.deepEqual([won.status, won.ranked, won.owner], ['won', true, guest.id]);
  assert.equal(await text('ranked'), 'yes');

  // The deal's leaderboard holds the win, under the player's name.
  const entry = async () => {
    const board = await call('GET', `/v1/leaderboards/${won.leaderboard}`);
    assert.equal(board.entries.length, 1);
    const { rank, player, player_id: playerId, game: entered } = board.entries[0];
    return { rank, player, playerId, entered };
  };
  assert.deepEqual(await entry(), { rank: 1, player: guest.name, playerId: guest.id, entered: id });

  // A name the server refuses: its error is shown as the page shows errors.
  const field = page.getByLabel('New name');
  await field.fill('Ann!');
  await field.press('Enter');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await text('error'), /^PATCH \/v1\/players\/me answered 422\ninvalid_request: .+ \(field name\)$/);
  assert.equal(await text('player-name'), guest.name);
  assert.deepEqual(problems, [`422 ${base}/v1/players/me`]);
  problems = [];

  // Renamed with the keyboard alone: type, Tab to the button, Enter.
  await field.fill('Ann Lee');
  await field.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'rename-button');
  assert.equal(await page.getByRole('button', { name: 'Rename' }).count(), 1);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('player-name').textContent === 'Ann Lee');
  assert.equal(await page.isHidden('#error'), true);
  assert.equal(await text('player-note'), 'Renamed: you play as Ann Lee now.');
  assert.ok((await text('game-line')).endsWith('. Ann Lee\'s.'), await text('game-line'));
  assert.equal(await page.inputValue('#new-name'), '');
  assert.deepEqual(await storedPlayer(), { ...guest, name: 'Ann Lee' });
  assert.equal((await call('GET', '/v1/players/me', undefined, guest.token)).name, 'Ann Lee');
  assert.deepEqual(await entry(), { rank: 1, player: 'Ann Lee', playerId: guest.id, entered: id });

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await text('player-name'), 'Ann Lee');
  assert.equal(await text('player-note'), '');
  assert.deepEqual(problems, []);
});

test('a time limit runs out while the page watches', BOUND, async () => {
  // 0.02 minutes: 1.2 s of play.
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'shisen-sho', 'time-limit': '0.02', seed: 1 });
  await page.waitForSelector('#game[data-status="out_of_time"]', { state: 'attached', timeout: 15000 });
  const ended = await game(id);
  assert.equal(ended.status, 'out_of_time');
  assert.equal(ended.time_limit_ms, 1200);
  assert.equal(ended.elapsed_ms, 1200);
  assert.equal(await text('game-status'), 'out of time');
  assert.equal(await text('clock'), '0:01 of 0:01');
  assert.equal(await text('message'), 'Out of time: 8 tiles left, score 0.');
  assert.deepEqual(problems, []);
  await page.fill('#time-limit', '');
});

test('a stuck game is said so, and a shuffle plays on', BOUND, async () => {
  // Under Lianliankan no path leaves the board: no pair of this one meets.
  const created = await call('POST', '/v1/games', { board: ['AB', 'BA'], rules: 'lianliankan' });
  assert.equal(created.status, 'stuck');
  await page.goto(`${base}/#game=${created.id}`);
  await page.waitForSelector(`#game[data-id="${created.id}"]`, { state: 'attached' });
  assert.equal(await text('game-status'), 'stuck');
  assert.equal(await text('message'), 'Stuck: tiles are left and no pair can be removed. Shuffle, or undo.');
  await page.click('#shuffle');
  await atVersion(1);
  const shuffled = await game(created.id);
  assert.equal(shuffled.status, 'playing');
  assert.equal(await text('game-status'), 'playing');
  assert.equal(await text('assists'), 'hints 0, undos 0, shuffles 1');
  assert.deepEqual(problems, []);
});

test('a game the server does not have is said so, and forgotten', BOUND, async () => {
  const id = '0'.repeat(32);
  await page.goto(`${base}/#game=${id}`);
  await page.waitForSelector('#gone');
  assert.equal(await text('gone'), `Game ${id} is gone`);
  assert.equal((await shownGame()).status, 'none');
  assert.equal(new URL(page.url()).hash, '');
  assert.equal(await page.evaluate(() => localStorage.getItem('linkpath.game')), null);
  assert.deepEqual(problems, [`404 ${base}/v1/games/${id}`]);
});

test('a game is dealt onto a shipped layout and onto rows typed in', BOUND, async () => {
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  const marks = (rows) => rows.map((row) => [...row].map((c) => (c === '.' ? '.' : '#')).join(''));
  const shipped = await call('GET', '/playground/layouts.json');
  assert.deepEqual(shipped.map((l) => l.name), ['rectangle', 'pyramid', 'islands', 'pillars', 'ring', 'checkerboard']);
  const pyramid = shipped.find((l) => l.name === 'pyramid').rows;
  await page.selectOption('#layout', 'pyramid');
  assert.equal(await page.inputValue('#layout-rows'), pyramid.join('\n'));
  assert.deepEqual([await page.inputValue('#types'), await page.inputValue('#copies')], ['10', '']);
  const id = await dealOnPage({ rules: 'shisen-sho', gravity: 'none', seed: 5 });
  const dealt = await game(id);
  assert.deepEqual(marks(dealt.board), pyramid);
  assert.deepEqual(dealt.settings.layout, pyramid);
  assert.equal(dealt.tiles_left, 40);
  assert.equal(await page.$$eval('#board-view g.cell.tile', (gs) => gs.length), 40);
  // One's own rows: an odd count is the server's 422, shown as it came.
  await page.fill('#layout-rows', '#.#\n###');
  assert.equal(await page.inputValue('#layout'), 'own');
  await page.fill('#types', '2');
  await page.click('#deal');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await text('error'), /the layout has 5 marked cells; tiles are removed in pairs, so a deal needs an even count \(4 or 6\) \(field layout\)/);
  problems = problems.filter((p) => !p.startsWith('422 '));
  await page.fill('#layout-rows', '#..#\n####');
  const own = await dealOnPage({ types: 3 });
  assert.deepEqual(marks((await game(own)).board), ['#..#', '####']);
  assert.deepEqual(problems, []);
  await page.selectOption('#layout', '');
});

test('a token the server refuses is replaced by a new guest, once a visit', BOUND, async () => {
  const lost = await storedPlayer();
  // A token of the right form that no player has: what a server that lost
  // its players sees.
  await page.evaluate((p) => localStorage.setItem('linkpath.player', JSON.stringify(p)), { ...lost, token: `lpp_${'0'.repeat(64)}` });
  signUps = 0;
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]');
  const guest = await storedPlayer();
  assert.notEqual(guest.id, lost.id);
  assert.match(guest.name, /^Guest [0-9]{4}$/);
  assert.equal(await text('player-name'), guest.name);
  assert.equal(await text('player-note'), `This server no longer knew ${lost.name}, so the page signed up a new guest, ${guest.name}.`);
  assert.equal(await page.isHidden('#error'), true);
  assert.equal(signUps, 1);
  assert.deepEqual(problems, [`401 ${base}/v1/players/me`]);
  problems = [];

  // A server that refuses every token gets one sign-up more, not one a
  // request: the refusal after it is shown as an error.
  const refusal = { error: { code: 'unauthorized', message: 'the player\'s token is not known' } };
  await page.route('**/v1/players/me', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify(refusal) }));
  signUps = 0;
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(signUps, 1);
  assert.match(await text('error'), /^GET \/v1\/players\/me answered 401\nunauthorized: /);
  assert.deepEqual(problems, [`401 ${base}/v1/players/me`, `401 ${base}/v1/players/me`]);
  await page.unroute('**/v1/players/me');
  problems = [];
  // The game routes take the new guest's token. (The game resumed was dealt
  // onto a layout: back to width × height.)
  await page.selectOption('#layout', '');
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'shisen-sho', gravity: 'none', seed: 9 });
  assert.equal((await game(id)).owner, (await storedPlayer()).id);
  assert.equal(signUps, 1);
  assert.deepEqual(problems, []);
});

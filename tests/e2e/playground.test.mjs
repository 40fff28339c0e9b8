// The playground page in headless Chromium: `node --test tests/e2e/`.
//
// Starts the release binary (or $LINKPATH_BIN) on a free loopback port with
// games in memory, drives Debian's /usr/bin/chromium (or $CHROMIUM) with
// playwright-core, and plays games the server holds through the page, at
// 1280 × 800 and on a phone's 390 × 844: the page opens on a 14 × 6 game
// whose board is whole in the window (its box and tile sizes measured,
// the phone's turned upright); a game won with the keyboard alone (arrow
// keys, Enter and Space) with two refusals said in words, undo, redo, a
// hint, a pause and a reload on the way; a move's path gone before the
// tiles gravity moves land, and every animation near-instant under
// prefers-reduced-motion; the won, out-of-time, stuck, paused and gone
// covers and their buttons; changes made through the API arriving on the
// event stream; a ranked win on the deal's leaderboard under the player's
// name and a rename with the keyboard; games dealt onto a shipped layout
// and rows typed in; a token the server refuses replaced by a new guest,
// once; and a lost connection said once and cleared. axe-core audits the
// page playing, under each cover and on the phone (no serious or critical
// violation). Screenshots go under tests/artifacts/, with the figures
// measured (measurements.json); docs/playground.png and
// docs/playground-phone.png, mid-game, are taken anew on each run.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, root, startServer } from './support.mjs';

const artifacts = join(root, 'tests', 'artifacts');
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
// No test may hang: each is cut off well past what it needs.
const BOUND = { timeout: 60000 };
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let server;
let base;
let browser;
let context;
let page;
// Failed requests and page errors; each test says which it expects.
let problems = [];
// Sign-ups the page asked for (POST /v1/players).
let signUps = 0;
// What the run measured, written to tests/artifacts/measurements.json.
const measured = { board: {}, axe: {} };

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

// Watches a page: its errors, its failed requests, its sign-ups.
function watch(p) {
  p.setDefaultTimeout(10000);
  p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // A refused request is reported by `response` below, with its URL.
  p.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
  });
  p.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/players') signUps += 1;
    // The tiles are drawn by the page: no font, no picture is fetched.
    if (['font', 'image'].includes(r.resourceType()) && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`fetched ${r.url()}`);
  });
  // The browser's own favicon request is the only 404 not asked for.
  p.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
  });
  // An event stream the page closes (the game ended, or the page went) is
  // an aborted request, as it should be.
  p.on('requestfailed', (r) => {
    if (!(new URL(r.url()).pathname.endsWith('/events') && r.failure()?.errorText === 'net::ERR_ABORTED')) {
      problems.push(`request failed: ${r.url()}`);
    }
  });
}

// The player the page keeps in localStorage: { id, name, token }.
const storedPlayer = (p = page) => p.evaluate(() => JSON.parse(localStorage.getItem('linkpath.player')));

// The page's clock: m:ss of whole seconds.
function clockText(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const cell = (x, y) => `#board .cell[data-x="${x}"][data-y="${y}"]`;
const text = (id, p = page) => p.textContent(`#${id}`);
// The board drawn at `version`, every animation ended.
const landed = (version, p = page) => p.waitForSelector(`#board[data-version="${version}"][data-phase="idle"]`, { state: 'attached' });
const tiles = (p = page) => p.locator('#board .cell.tile').count();

async function shownGame(p = page) {
  return p.$eval('#game', (g) => ({ id: g.dataset.id, version: Number(g.dataset.version), status: g.dataset.status }));
}

async function marked(kind, p = page) {
  return p.$$eval(`#board .cell.${kind}`, (cs) => cs.map((c) => [Number(c.dataset.x), Number(c.dataset.y)]));
}

const byReading = (a, b) => a[1] - b[1] || a[0] - b[0];

// The game cell the keyboard's focus is on, or null off the board.
function focused(p = page) {
  return p.evaluate(() => {
    const c = document.activeElement;
    return c && c.matches('#board .cell') ? { at: [Number(c.dataset.x), Number(c.dataset.y)], drawn: [Number(c.dataset.col), Number(c.dataset.row)] } : null;
  });
}

// Moves the focus to the game cell `target` with arrow keys alone, in the
// drawn orientation.
async function arrowTo(target, p = page) {
  const want = await p.$eval(cell(...target), (c) => [Number(c.dataset.col), Number(c.dataset.row)]);
  for (let i = 0; i < 64; i += 1) {
    const now = await focused(p);
    assert.ok(now, 'the focus is on the board');
    const [c, r] = now.drawn;
    if (c === want[0] && r === want[1]) {
      assert.deepEqual(now.at, target);
      return;
    }
    let key = 'ArrowUp';
    if (c < want[0]) key = 'ArrowRight';
    else if (c > want[0]) key = 'ArrowLeft';
    else if (r < want[1]) key = 'ArrowDown';
    await p.keyboard.press(key);
  }
  assert.fail(`arrow keys did not reach ${target}`);
}

// Back to the board from a button with Shift+Tab alone.
async function tabToBoard(p = page) {
  for (let i = 0; i < 16 && !(await focused(p)); i += 1) await p.keyboard.press('Shift+Tab');
  assert.ok(await focused(p), 'Shift+Tab reaches the board');
}

// Plays a move with the keyboard alone and waits for the version it makes
// to land; the focus stays on the board.
async function keyMove({ from, to }, version, p = page) {
  await arrowTo(from, p);
  await p.keyboard.press('Enter');
  assert.deepEqual(await marked('picked', p), [from]);
  await arrowTo(to, p);
  await p.keyboard.press(' ');
  await landed(version, p);
  const now = await focused(p);
  if ((await shownGame(p)).status === 'playing') assert.deepEqual(now && now.at, to, 'the focus stays where the move ended');
}

// Clicks (or taps) the two tiles of a move and waits for it to land.
async function clickMove({ from, to }, version, p = page) {
  await p.click(cell(...from));
  assert.deepEqual(await marked('picked', p), [from]);
  await p.click(cell(...to));
  await landed(version, p);
}

// Deals from the form folded behind "New game".
async function dealOnPage(fields, p = page) {
  if (!(await p.$eval('#new-game-box', (d) => d.open))) await p.click('#new-game-box summary');
  for (const [id, value] of Object.entries(fields)) {
    if (['difficulty', 'rules', 'gravity', 'layout'].includes(id)) await p.selectOption(`#${id}`, value);
    else await p.fill(`#${id}`, String(value));
  }
  const before = (await shownGame(p)).id;
  await p.click('#deal');
  await p.waitForFunction((old) => {
    const g = document.getElementById('game');
    return g.dataset.id !== old && g.dataset.version === '0';
  }, before);
  await landed(0, p);
  const { id } = await shownGame(p);
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.equal(await p.$eval('#new-game-box', (d) => d.open), false, 'the form folds away after a deal');
  return id;
}

// The board's box and a tile's size; the box must be inside the window
// with the page scrolled nowhere.
async function boardBox(p = page) {
  const { box, tile, scroll, view } = await p.evaluate(() => {
    const r = document.getElementById('board-frame').getBoundingClientRect();
    const t = document.querySelector('#board .cell').getBoundingClientRect();
    return {
      box: { x: r.x, y: r.y, width: r.width, height: r.height },
      tile: { width: t.width, height: t.height },
      scroll: [window.scrollX, window.scrollY],
      view: [window.innerWidth, window.innerHeight],
    };
  });
  assert.deepEqual(scroll, [0, 0]);
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= view[0] && box.y + box.height <= view[1], JSON.stringify({ box, view }));
  return { box, tile };
}

// axe-core on the page as it is: no serious or critical violation. Its
// source is evaluated, since the page's CSP refuses an injected script.
async function audit(name, p = page) {
  if (!(await p.evaluate(() => typeof window.axe === 'object'))) await p.evaluate(AXE);
  const violations = await p.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  measured.axe[name] = violations.map((v) => `${v.impact} ${v.id}`);
  assert.deepEqual(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), [], name);
}

// Records, from now on, each phase the board enters with whether a
// move's path is drawn then, and each tile set moving likewise.
function recordPhases(p = page) {
  return p.evaluate(() => {
    window.phases = [];
    if (window.phaseObserver) window.phaseObserver.disconnect();
    const board = document.getElementById('board');
    const path = () => document.querySelector('#paths .path.move') !== null;
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.attributeName === 'data-phase' && r.target === board) {
          window.phases.push({
            phase: board.dataset.phase,
            path: path(),
            longest: Math.max(0, ...document.getAnimations().map((a) => a.effect.getComputedTiming().duration)),
          });
        } else if (r.attributeName === 'class' && r.target.classList.contains('moving') && !(r.oldValue || '').includes('moving')) {
          window.phases.push({ moving: [Number(r.target.dataset.x), Number(r.target.dataset.y)], path: path() });
        }
      }
    });
    observer.observe(board, { attributes: true, attributeOldValue: true, subtree: true, attributeFilter: ['data-phase', 'class'] });
    window.phaseObserver = observer;
  });
}

before(async () => {
  ({ child: server, base } = await startServer());
  browser = await launchChromium();
  context = await browser.newContext({ viewport: DESKTOP });
  page = await context.newPage();
  watch(page);
  mkdirSync(artifacts, { recursive: true });
});

afterEach(() => { problems = []; });

after(async () => {
  writeFileSync(join(artifacts, 'measurements.json'), `${JSON.stringify(measured, null, 2)}\n`);
  await browser?.close();
  server?.kill('SIGTERM');
});

test('the page opens on a new 14 × 6 game that fills the window, signs up a guest once, and resumes the game', BOUND, async () => {
  const response = await page.goto(`${base}/`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'], /^default-src 'self'/);
  await page.waitForSelector('body[data-ready="true"]');
  await landed(0);
  const { id, status } = await shownGame();
  assert.equal(status, 'playing');
  const dealt = await game(id);
  assert.deepEqual([dealt.settings.width, dealt.settings.height, dealt.settings.types, dealt.settings.copies], [14, 6, 21, 4]);
  assert.equal(await tiles(), 84);
  assert.equal(await page.getAttribute('#board', 'data-turned'), 'false');
  // The first visit signs up a guest and keeps it; the server knows it.
  const guest = await storedPlayer();
  assert.deepEqual(Object.keys(guest).sort(), ['id', 'name', 'token']);
  assert.match(guest.name, /^Guest [0-9]{4}$/);
  assert.match(guest.token, /^lpp_[0-9a-f]{64}$/);
  assert.equal(dealt.owner, guest.id);
  assert.equal(await text('player-name'), guest.name);
  const me = await call('GET', '/v1/players/me', undefined, guest.token);
  assert.deepEqual([me.id, me.name], [guest.id, guest.name]);
  assert.equal(signUps, 1);

  // The whole board in the window, beside the panel; nothing to undo yet.
  const { box, tile } = await boardBox();
  measured.board.desktop = { viewport: DESKTOP, deal: '14 x 6', box, tile };
  assert.ok(tile.width >= 40, JSON.stringify(tile));
  const panel = await page.$eval('#panel', (p) => p.getBoundingClientRect().x);
  assert.ok(box.x + box.width <= panel, 'the board is beside the panel');
  for (const [button, disabled] of [['hint', false], ['undo', true], ['redo', true], ['shuffle', false], ['pause', false], ['resign', false]]) {
    assert.equal(await page.isDisabled(`#${button}`), disabled, button);
  }
  assert.equal(await text('message'), 'Pick two matching tiles that a line with two turns or fewer can join.');
  assert.equal(await page.isVisible('#deal'), false, 'the deal options are folded away');
  // The grid: 6 rows of 14 cells, each named by its tile and its place.
  assert.equal(await page.locator('#board [role="row"]').count(), 6);
  assert.equal(await page.locator('#board [role="row"]').first().locator('[role="gridcell"]').count(), 14);
  assert.match(await page.getAttribute(cell(4, 1), 'aria-label'), /^(Red|Blue|Green|Purple) [a-z]+, row 2, column 5$/);
  // 21 types, each its own face; none is drawn from a font or a picture.
  const faces = await page.$$eval('#board .face', (fs) => new Set(fs.map((f) => f.dataset.face)).size);
  assert.equal(faces, 21);
  const names = await page.$$eval('#board .cell.tile', (cs) => new Set(cs.map((c) => c.getAttribute('aria-label').split(',')[0])).size);
  assert.equal(names, 21);
  // 36 faces differ by shape and fill (each fill has its colour), and 36
  // more by two small shapes.
  const faceNames = await page.evaluate(async () => {
    const { nameOf } = await import('/playground/tiles.js');
    return Array.from({ length: 72 }, (_, i) => nameOf(i));
  });
  assert.equal(new Set(faceNames).size, 72);
  assert.equal(new Set(faceNames.slice(0, 36).map((n) => n.split(' ')[0])).size, 4);
  assert.equal(new Set(faceNames.slice(0, 36).map((n) => n.split(' ')[1])).size, 9);
  assert.equal(await page.locator('#board [tabindex="0"]').count(), 1);
  await audit('playing (1280 x 800)');

  // A reload is the same player and the same game: no sign-up, no deal.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await landed(0);
  assert.equal((await shownGame()).id, id);
  assert.deepEqual(await storedPlayer(), guest);
  assert.equal(await text('player-name'), guest.name);
  assert.equal(signUps, 1);

  // Mid-game for the README's picture: four pairs taken, then a hint.
  const { moves } = await call('POST', '/v1/clear', { board: dealt.board, rules: dealt.settings.rules, gravity: dealt.settings.gravity });
  for (let i = 0; i < 4; i += 1) await clickMove(moves[i], i + 1);
  await page.click('#hint');
  await landed(5);
  assert.equal(await page.locator('#paths .path.hint').count(), 1);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(root, 'docs', 'playground.png'), animations: 'disabled' });
  assert.deepEqual(problems, []);
});

test('a game is won with the keyboard alone, with refusals in words, undo, redo, a hint, a pause and a reload', BOUND, async () => {
  const id = await dealOnPage({ width: 6, height: 4, types: 6, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'down', seed: 42 });
  assert.equal(new URL(page.url()).hash, `#game=${id}`);
  const dealt = await game(id);
  assert.deepEqual(dealt.settings, {
    width: 6, height: 4, encoding: 'text', types: 6, copies: 4, difficulty: 'easy', seed: 42, rules: 'shisen-sho', gravity: 'down', settle: false,
  });
  assert.equal(await tiles(), 24);
  assert.ok(await focused(), 'a deal puts the keyboard on the board');
  const clear = await call('POST', '/v1/clear', { board: dealt.board, rules: 'shisen-sho', gravity: 'down' });
  assert.equal(clear.outcome, 'solvable');
  const { moves } = clear;
  assert.equal(moves.length, 12);

  // Two tiles of two types: refused in words, both flashed, nothing changed.
  const rows = dealt.board.map((r) => [...r]);
  const other = [rows[0].findIndex((t) => t !== rows[0][0]), 0];
  await arrowTo([0, 0]);
  await page.keyboard.press('Enter');
  await arrowTo(other);
  await page.keyboard.press(' ');
  await page.waitForSelector('#message[data-reason="type_mismatch"]');
  assert.equal(await text('message'), 'These two are different tiles.');
  assert.deepEqual(await marked('refused'), [[0, 0], other].sort(byReading));
  assert.equal((await game(id)).version, 0);
  assert.equal(await tiles(), 24);

  // Two tiles of a type that no path of two turns joins.
  const open = (await call('POST', '/v1/moves', { board: dealt.board, rules: 'shisen-sho' })).moves;
  const joined = new Set(open.map((m) => JSON.stringify([m.from, m.to].sort(byReading))));
  const cells = rows.flatMap((row, y) => row.map((t, x) => ({ t, at: [x, y] })));
  const blocked = cells.flatMap((a, i) => cells.slice(i + 1).filter((b) => b.t === a.t && !joined.has(JSON.stringify([a.at, b.at].sort(byReading))))
    .map((b) => ({ from: a.at, to: b.at })))[0];
  await arrowTo(blocked.from);
  await page.keyboard.press('Enter');
  await arrowTo(blocked.to);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#message[data-reason="no_path"]');
  assert.equal(await text('message'), 'No path with two turns or fewer joins these two.');
  assert.equal(await page.locator('#board .cell.refused').count(), 2);
  assert.deepEqual(problems, [`409 ${base}/v1/games/${id}/moves`, `409 ${base}/v1/games/${id}/moves`]);
  problems = [];

  // The first move: the path drawn is the one the server answered, and
  // the keyboard stays on the board.
  await keyMove(moves[0], 1);
  const moved = await game(id);
  assert.equal(moved.last.action, 'move');
  assert.deepEqual(JSON.parse(await page.getAttribute('#board', 'data-path')), moved.last.path);
  assert.equal(await page.locator('#paths .path').count(), 0, 'the path is gone once the move has landed');
  assert.equal(await tiles(), 22);
  assert.equal(await text('tiles-left'), '22');
  assert.equal(await text('score'), String(moved.score));
  assert.equal(await page.locator('#board .cell.refused').count(), 0);
  assert.equal(await page.isEnabled('#undo'), true);
  assert.equal(await page.isDisabled('#redo'), true);

  // Undo puts the pair back and unranks the game; redo makes the move
  // again without drawing its path anew.
  await page.click('#undo');
  await landed(2);
  assert.equal(await tiles(), 24);
  assert.equal(await text('ranked'), 'no');
  assert.equal(await text('assists'), 'hints 0, undos 1, shuffles 0');
  assert.equal(await page.isDisabled('#undo'), true, 'nothing left to undo');
  assert.equal(await page.isEnabled('#redo'), true);
  await recordPhases();
  await page.click('#redo');
  await landed(3);
  assert.equal(await tiles(), 22);
  assert.ok((await page.evaluate(() => window.phases)).every((p) => !p.path), 'a redo draws no path');
  assert.equal(await page.isDisabled('#redo'), true);
  await tabToBoard();
  await keyMove(moves[1], 4);

  // A hint: the pair lit up and its path, as the server gave them.
  await page.click('#hint');
  await landed(5);
  const hinted = await game(id);
  assert.equal(hinted.last.action, 'hint');
  assert.deepEqual(await marked('hinted'), [hinted.last.hint.from, hinted.last.hint.to].sort(byReading));
  assert.deepEqual(JSON.parse(await page.getAttribute('#paths .path.hint', 'data-path')), hinted.last.hint.path);
  assert.equal(await text('assists'), 'hints 1, undos 1, shuffles 0');
  assert.match(await text('message'), /^Hint: a pair lights up \((Red|Blue|Green|Purple) [a-z]+\)\.$/);
  await page.screenshot({ path: join(artifacts, 'playground-hint.png'), animations: 'disabled' });

  // A reload resumes the same game at the same version, with no old path.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await landed(5);
  assert.deepEqual(await shownGame(), { id, version: 5, status: 'playing' });
  assert.equal(await tiles(), 20);
  assert.equal(await page.locator('#board .cell.hinted').count(), 2);
  assert.equal(await page.locator('#paths .path.move').count(), 0);
  assert.equal(await page.getAttribute('#board', 'data-path'), null);
  assert.equal(await text('score'), String(hinted.score));
  // The stacks counted from the replay: two moves to undo, none to redo.
  await page.waitForFunction(() => !document.getElementById('undo').disabled && document.getElementById('redo').disabled);
  // The form deals the next game as this one was dealt.
  assert.deepEqual([await page.inputValue('#width'), await page.inputValue('#height'), await page.inputValue('#gravity')], ['6', '4', 'down']);

  // Paused: the board hidden under a cover, the clock stopped where the
  // server stopped it; the cover's button resumes.
  await page.click('#pause');
  await landed(6);
  assert.equal(await page.isHidden('#board-frame'), true);
  await page.waitForSelector('#overlay[data-kind="paused"]:not([hidden])');
  assert.equal(await text('overlay-title'), 'Paused');
  assert.equal(await text('pause'), 'Resume');
  const paused = await game(id);
  assert.equal(paused.status, 'paused');
  assert.equal(await text('clock'), clockText(paused.elapsed_ms));
  for (const button of ['hint', 'undo', 'redo', 'shuffle']) assert.equal(await page.isDisabled(`#${button}`), true, button);
  await audit('paused cover');
  await page.click('#overlay-resume');
  await landed(7);
  assert.equal(await page.isHidden('#overlay'), true);
  assert.equal(await text('game-status'), 'playing');

  // The cover gone, the keyboard is back on the board.
  assert.ok(await focused());
  await keyMove(moves[2], 8);
  await page.screenshot({ path: join(artifacts, 'playground.png'), animations: 'disabled' });
  for (let i = 3; i < moves.length; i += 1) await keyMove(moves[i], 6 + i);

  // Won: the cover says the time, the score and why it is not ranked, and
  // takes the keyboard; what it shows is what the server holds.
  await page.waitForSelector('#overlay[data-kind="won"]:not([hidden])');
  const won = await game(id);
  assert.equal(won.status, 'won');
  assert.equal(won.version, 6 + moves.length - 1);
  assert.deepEqual(won.assists, { hints: 1, undos: 1, shuffles: 0 });
  assert.equal(await text('overlay-title'), 'Cleared!');
  assert.equal(await text('overlay-text'), `Time ${clockText(won.elapsed_ms)} · Score ${won.score}`);
  assert.equal(await text('overlay-detail'), 'Not ranked: a hint, an undo or a shuffle was used.');
  assert.equal(await text('message'), `Cleared in ${clockText(won.elapsed_ms)} with ${won.score} points.`);
  assert.equal(await text('score'), String(won.score));
  assert.equal(await text('clock'), clockText(won.elapsed_ms));
  assert.equal(await tiles(), 0);
  assert.equal(await page.getAttribute('#game', 'data-stream'), 'closed');
  for (const button of ['hint', 'undo', 'redo', 'shuffle', 'pause', 'resign']) {
    assert.equal(await page.isDisabled(`#${button}`), true, button);
  }
  assert.equal(await page.evaluate(() => document.activeElement.id), 'play-again');
  await page.screenshot({ path: join(artifacts, 'playground-won.png') });
  await audit('won cover');

  // Play again: the same deal's settings, a game of its own.
  await page.keyboard.press('Enter');
  await page.waitForFunction((old) => document.getElementById('game').dataset.id !== old, id);
  await landed(0);
  const again = await game((await shownGame()).id);
  assert.deepEqual([again.status, again.settings.width, again.settings.height, again.settings.gravity], ['playing', 6, 4, 'down']);
  assert.equal(await page.isHidden('#overlay'), true);
  assert.deepEqual(problems, []);
});

test('with gravity, a move\'s path is gone before the tiles it moves land; reduced motion makes it all near-instant', BOUND, async () => {
  const id = await dealOnPage({ width: 6, height: 4, types: 6, copies: 4, rules: 'shisen-sho', gravity: 'down', seed: 42 });
  const { moves } = await call('POST', '/v1/clear', { board: (await game(id)).board, rules: 'shisen-sho', gravity: 'down' });
  let version = 0;
  const falls = [];
  for (const reduce of [false, true]) {
    await page.emulateMedia({ reducedMotion: reduce ? 'reduce' : 'no-preference' });
    // Moves until one makes tiles fall.
    for (;;) {
      await recordPhases();
      version += 1;
      await clickMove(moves[version - 1], version);
      const { last } = await game(id);
      if (last.moved.length === 0) continue;
      const phases = await page.evaluate(() => window.phases);
      const order = phases.filter((p) => p.phase).map((p) => p.phase);
      assert.deepEqual(order, ['path', 'fall', 'idle']);
      assert.equal(phases.find((p) => p.phase === 'path').path, true, 'the path is drawn first');
      assert.equal(phases.find((p) => p.phase === 'fall').path, false, 'the path is gone when the tiles start to fall');
      // A cell's class may change more than once in one batch of records.
      const moving = phases.filter((p) => p.moving);
      const landedOn = [...new Set(moving.map((p) => JSON.stringify(p.moving)))].map((m) => JSON.parse(m));
      assert.deepEqual(landedOn.sort(byReading), last.moved.map((m) => m.to).sort(byReading));
      assert.ok(moving.every((p) => !p.path), 'no path is drawn while a tile falls');
      const longest = Math.max(...phases.filter((p) => p.phase).map((p) => p.longest));
      falls.push({ reduce, moved: last.moved.length, longest });
      if (reduce) assert.ok(longest <= 1, `reduced motion: the longest animation is ${longest} ms`);
      else assert.ok(longest >= 100, `the longest animation is ${longest} ms`);
      break;
    }
  }
  measured.fall = falls;
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  assert.deepEqual(problems, []);
});

test('the phone shows a 14 × 6 deal upright and whole, with tiles at least 40 px wide', BOUND, async () => {
  const phone = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  const p = await phone.newPage();
  watch(p);
  try {
    await p.goto(`${base}/`);
    await p.waitForSelector('body[data-ready="true"]');
    await landed(0, p);
    assert.equal(await p.getAttribute('#board', 'data-turned'), 'true');
    // Drawn 6 wide and 14 tall; each cell still names the game's place.
    assert.equal(await p.locator('#board [role="row"]').count(), 14);
    assert.equal(await p.locator('#board [role="row"]').first().locator('[role="gridcell"]').count(), 6);
    const first = await p.$eval('#board [role="row"] [role="gridcell"]', (c) => [c.dataset.x, c.dataset.y, c.getAttribute('aria-label')]);
    assert.deepEqual(first.slice(0, 2), ['0', '5']);
    assert.match(first[2], /, row 6, column 1$/);
    const opened = await boardBox(p);
    assert.ok(opened.tile.width >= 40, JSON.stringify(opened.tile));

    // Dealt from the form below the board: the board whole in view again.
    const id = await dealOnPage({ width: 14, height: 6, types: 21, copies: 4, rules: 'shisen-sho', gravity: 'none', seed: 11 }, p);
    const { box, tile } = await boardBox(p);
    measured.board.phone = { viewport: PHONE, deal: '14 x 6, turned upright', box, tile };
    assert.ok(tile.width >= 40, JSON.stringify(tile));
    for (const id2 of ['clock', 'score', 'hint', 'undo', 'resign', 'message']) {
      const r = await p.$eval(`#${id2}`, (e) => e.getBoundingClientRect().bottom);
      assert.ok(r <= PHONE.height, `${id2} is in view`);
    }

    // Arrow keys move as drawn: right is the next drawn column, which is
    // the row above in the game.
    await p.focus(cell(0, 5));
    await p.keyboard.press('ArrowRight');
    assert.deepEqual((await focused(p)).at, [0, 4]);
    await p.keyboard.press('ArrowDown');
    assert.deepEqual((await focused(p)).at, [1, 4]);

    // Tapped moves; the path is drawn where the tiles are drawn.
    const dealt = await game(id);
    const { moves } = await call('POST', '/v1/clear', { board: dealt.board, rules: 'shisen-sho' });
    await clickMove(moves[0], 1, p);
    await clickMove(moves[1], 2, p);
    assert.deepEqual(JSON.parse(await p.getAttribute('#board', 'data-path')), (await game(id)).last.path);
    await clickMove(moves[2], 3, p);
    await p.screenshot({ path: join(artifacts, 'playground-phone.png'), animations: 'disabled' });
    await p.screenshot({ path: join(root, 'docs', 'playground-phone.png'), animations: 'disabled' });
    await audit('playing (390 x 844)', p);
    assert.deepEqual(problems, []);
  } finally {
    await phone.close();
  }
});

test('changes made through the API arrive on the event stream', BOUND, async () => {
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'lianliankan', gravity: 'none', seed: 7 });
  await page.waitForSelector('#game[data-stream="open"]', { state: 'attached' });
  // The game is the page's player's: only their token acts on it.
  const { token } = await storedPlayer();

  await call('POST', `/v1/games/${id}/hint`, undefined, token);
  await landed(1);
  assert.equal(await page.locator('#board .cell.hinted').count(), 2);
  assert.equal(await text('ranked'), 'no');

  const { moves } = await call('POST', '/v1/clear', { board: (await game(id)).board, rules: 'lianliankan' });
  const after = await call('POST', `/v1/games/${id}/moves`, moves[0], token);
  await landed(2);
  assert.equal(await tiles(), 6);
  assert.deepEqual(JSON.parse(await page.getAttribute('#board', 'data-path')), after.last.path);
  assert.equal(await text('score'), String(after.score));

  // The score as the resign answered it: play time may count in it.
  const resigned = await call('POST', `/v1/games/${id}/resign`, undefined, token);
  await landed(3);
  assert.equal(await text('game-status'), 'resigned');
  assert.equal(await text('message'), `Resigned with 6 tiles left; ${resigned.score} points.`);
  await page.waitForSelector('#overlay[data-kind="resigned"]:not([hidden])');
  assert.equal(await page.getAttribute('#game', 'data-stream'), 'closed');
  assert.deepEqual(problems, []);
});

test('a win without assists is ranked under the player, who renames with the keyboard', BOUND, async () => {
  const guest = await storedPlayer();
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'none', seed: 3 });
  const dealt = await game(id);
  assert.equal(dealt.owner, guest.id);
  const clear = await call('POST', '/v1/clear', { board: dealt.board, rules: 'shisen-sho' });
  for (let i = 0; i < clear.moves.length; i += 1) await clickMove(clear.moves[i], i + 1);
  await page.waitForSelector('#overlay[data-kind="won"]:not([hidden])');
  const won = await game(id);
  assert.deepEqual([won.status, won.ranked, won.owner], ['won', true, guest.id]);
  assert.equal(await text('overlay-detail'), 'Ranked on this deal\'s leaderboard.');

  // The deal's leaderboard holds the win, under the player's name.
  const entry = async () => {
    const board = await call('GET', `/v1/leaderboards/${won.leaderboard}`);
    assert.equal(board.entries.length, 1);
    const { rank, player, player_id: playerId, game: entered } = board.entries[0];
    return { rank, player, playerId, entered };
  };
  assert.deepEqual(await entry(), { rank: 1, player: guest.name, playerId: guest.id, entered: id });

  // A name the server refuses: said in words, in the page's one place.
  await page.click('#player-box summary');
  const field = page.getByLabel('New name');
  await field.fill('Ann!');
  await field.press('Enter');
  await page.waitForSelector('#message[data-kind="warn"]');
  assert.match(await text('message'), /^That name was refused: .+\.$/);
  assert.equal(await text('player-name'), guest.name);
  assert.deepEqual(problems, [`422 ${base}/v1/players/me`]);
  problems = [];

  // Renamed with the keyboard alone: type, Tab to the button, Enter.
  await field.fill('Ann Lee');
  await field.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'rename-button');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('player-name').textContent === 'Ann Lee');
  assert.equal(await text('player-note'), 'Renamed: you play as Ann Lee now.');
  assert.equal(await text('message'), 'You play as Ann Lee now.');
  assert.ok((await text('game-line')).endsWith('. Ann Lee\'s.'), await text('game-line'));
  assert.equal(await page.inputValue('#new-name'), '');
  assert.deepEqual(await storedPlayer(), { ...guest, name: 'Ann Lee' });
  assert.deepEqual(await entry(), { rank: 1, player: 'Ann Lee', playerId: guest.id, entered: id });

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await text('player-name'), 'Ann Lee');
  assert.equal(await text('player-note'), '');
  assert.deepEqual(problems, []);
});

test('a time limit runs out while the page watches, and the cover deals again', BOUND, async () => {
  // 0.02 minutes: 1.2 s of play.
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'shisen-sho', gravity: 'none', 'time-limit': '0.02', seed: 1 });
  await page.waitForSelector('#overlay[data-kind="out_of_time"]:not([hidden])', { timeout: 15000 });
  const ended = await game(id);
  assert.deepEqual([ended.status, ended.time_limit_ms, ended.elapsed_ms], ['out_of_time', 1200, 1200]);
  assert.equal(await text('overlay-title'), 'Out of time');
  assert.equal(await text('overlay-text'), '8 tiles left · Score 0');
  assert.equal(await text('clock'), '0:01 of 0:01');
  assert.equal(await text('message'), 'Out of time with 8 tiles left; 0 points.');
  await audit('out-of-time cover');
  // Play again, without the limit this time.
  await page.click('#new-game-box summary');
  await page.fill('#time-limit', '');
  await page.click('#play-again');
  await page.waitForFunction((old) => document.getElementById('game').dataset.id !== old, id);
  await landed(0);
  assert.equal((await shownGame()).status, 'playing');
  assert.equal(await page.isHidden('#overlay'), true);
  assert.deepEqual(problems, []);
});

test('a stuck game is covered, and its shuffle plays on', BOUND, async () => {
  // Under Lianliankan no path leaves the board: no pair of this one meets.
  const created = await call('POST', '/v1/games', { board: ['AB', 'BA'], rules: 'lianliankan' });
  assert.equal(created.status, 'stuck');
  await page.goto(`${base}/#game=${created.id}`);
  await page.waitForSelector('#overlay[data-kind="stuck"]:not([hidden])');
  assert.equal(await text('overlay-title'), 'No moves left');
  assert.equal(await text('message'), 'No pair can be removed now: shuffle to play on, or undo.');
  assert.equal(await page.isDisabled('#hint'), true);
  assert.equal(await page.locator('#overlay-undo').count(), 0, 'nothing to undo on a fresh game');
  await audit('stuck cover');
  await page.click('#overlay-shuffle');
  await landed(1);
  const shuffled = await game(created.id);
  assert.equal(shuffled.status, 'playing');
  assert.equal(await page.isHidden('#overlay'), true);
  assert.equal(await text('assists'), 'hints 0, undos 0, shuffles 1');
  assert.equal(await page.isEnabled('#undo'), true);
  assert.deepEqual(problems, []);
});

test('a game the server does not have is said so, forgotten, and a new one dealt from the cover', BOUND, async () => {
  const id = '0'.repeat(32);
  await page.goto(`${base}/#game=${id}`);
  await page.waitForSelector('#overlay[data-kind="gone"]:not([hidden])');
  assert.equal(await text('overlay-title'), 'This game is gone');
  assert.equal((await shownGame()).status, 'none');
  assert.equal(new URL(page.url()).hash, '');
  assert.equal(await page.evaluate(() => localStorage.getItem('linkpath.game')), null);
  assert.deepEqual(problems, [`404 ${base}/v1/games/${id}`]);
  problems = [];
  await page.click('#overlay-new');
  await landed(0);
  assert.equal((await shownGame()).status, 'playing');
  assert.deepEqual(problems, []);
});

test('a game is dealt onto a shipped layout, its holes no cells, and onto rows typed in', BOUND, async () => {
  const marks = (rows) => rows.map((row) => [...row].map((c) => (c === '.' ? '.' : '#')).join(''));
  const shipped = await call('GET', '/playground/layouts.json');
  assert.deepEqual(shipped.map((l) => l.name), ['rectangle', 'pyramid', 'islands', 'pillars', 'ring', 'checkerboard']);
  const pyramid = shipped.find((l) => l.name === 'pyramid').rows;
  await page.click('#new-game-box summary');
  await page.selectOption('#layout', 'pyramid');
  assert.equal(await page.inputValue('#layout-rows'), pyramid.join('\n'));
  assert.deepEqual([await page.inputValue('#types'), await page.inputValue('#copies')], ['10', '']);
  const id = await dealOnPage({ rules: 'shisen-sho', gravity: 'none', seed: 5 });
  const dealt = await game(id);
  assert.deepEqual(marks(dealt.board), pyramid);
  assert.equal(await tiles(), 40);
  // A cell outside the layout is no cell: not drawn, not in the grid.
  const holes = pyramid.join('').split('.').length - 1;
  assert.equal(await page.locator('#board .cell.hole').count(), holes);
  assert.equal(await page.locator('#board .cell.hole[role]').count(), 0);
  assert.equal(await page.$eval('#board .cell.hole', (c) => getComputedStyle(c).visibility), 'hidden');
  // One's own rows: an odd count is the server's 422, said in its words.
  await page.click('#new-game-box summary');
  await page.fill('#layout-rows', '#.#\n###');
  assert.equal(await page.inputValue('#layout'), 'own');
  await page.fill('#types', '2');
  await page.click('#deal');
  await page.waitForSelector('#message[data-kind="warn"]');
  assert.match(await text('message'), /^Refused: the layout has 5 marked cells; tiles are removed in pairs, so a deal needs an even count \(4 or 6\)\.$/);
  problems = problems.filter((p) => !p.startsWith('422 '));
  await page.fill('#layout-rows', '#..#\n####');
  const own = await dealOnPage({ types: 3 });
  assert.deepEqual(marks((await game(own)).board), ['#..#', '####']);
  assert.equal(await page.locator('#board .cell.hole').count(), 2);
  assert.deepEqual(problems, []);
  await page.click('#new-game-box summary');
  await page.selectOption('#layout', '');
  await page.click('#new-game-box summary');
});

test('a lost connection is said once, in words, and cleared when the server answers again', BOUND, async () => {
  await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'shisen-sho', gravity: 'none', seed: 2 });
  await page.route('**/v1/games/**', (route) => route.abort('connectionrefused'));
  await page.route('**/healthz', (route) => route.abort('connectionrefused'));
  await page.click('#hint');
  await page.waitForSelector('#connection:not([hidden])');
  assert.equal(await text('connection'), 'Lost the connection to the server; trying again.');
  // A second failure says nothing more.
  await page.click('#hint');
  assert.equal(await text('connection'), 'Lost the connection to the server; trying again.');
  await page.unroute('**/v1/games/**');
  await page.unroute('**/healthz');
  await page.waitForSelector('#connection', { state: 'hidden' });
  assert.ok(problems.length > 0 && problems.every((p) => p.startsWith('request failed: ')), problems.join('\n'));
  problems = [];
  await page.click('#hint');
  await landed(1);
  assert.deepEqual(problems, []);
});

test('a token the server refuses is replaced by a new guest, once a visit', BOUND, async () => {
  const lost = await storedPlayer();
  // A token of the right form that no player has: what a server that lost
  // its players sees.
  await page.evaluate((p) => localStorage.setItem('linkpath.player', JSON.stringify(p)), { ...lost, token: `lpp_${'0'.repeat(64)}` });
  await page.evaluate(() => localStorage.removeItem('linkpath.game'));
  signUps = 0;
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]');
  const guest = await storedPlayer();
  assert.notEqual(guest.id, lost.id);
  assert.match(guest.name, /^Guest [0-9]{4}$/);
  assert.equal(await text('player-name'), guest.name);
  assert.equal(await text('player-note'), `This server no longer knew ${lost.name}, so the page signed up a new guest, ${guest.name}.`);
  assert.equal(signUps, 1);
  // The game dealt on opening is the new guest's.
  assert.equal((await game((await shownGame()).id)).owner, guest.id);
  assert.deepEqual(problems, [`401 ${base}/v1/players/me`]);
  problems = [];

  // A server that refuses every token gets one sign-up more, not one a
  // request: the refusal after it is said in words.
  const refusal = { error: { code: 'unauthorized', message: 'the player\'s token is not known' } };
  await page.route('**/v1/players/me', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify(refusal) }));
  signUps = 0;
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(signUps, 1);
  assert.equal(await text('player-note'), 'The server did not accept this player.');
  assert.deepEqual(problems, [`401 ${base}/v1/players/me`, `401 ${base}/v1/players/me`]);
  await page.unroute('**/v1/players/me');
  problems = [];
  // The game routes take the new guest's token.
  const id = await dealOnPage({ width: 4, height: 2, types: 2, copies: 4, rules: 'shisen-sho', gravity: 'none', seed: 9 });
  assert.equal((await game(id)).owner, (await storedPlayer()).id);
  assert.equal(signUps, 1);
  assert.deepEqual(problems, []);
});

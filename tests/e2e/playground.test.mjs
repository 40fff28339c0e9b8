// The playground page in headless Chromium: `node --test tests/e2e/`.
//
// Starts the release binary (or $LINKPATH_BIN) on a free loopback port,
// drives Debian's /usr/bin/chromium (or $CHROMIUM) with playwright-core,
// clicks two tiles of the docs/rules.md sample and checks the drawn path and the
// segment count, selects one tile and checks its partners light up, asks for a
// hint and plays it, checks an API error is shown,
// and saves screenshots under tests/artifacts/; the README's picture,
// docs/playground.png, is the first of them, taken anew on each run.
import { test, before, after } from 'node:test';
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

let server;
let base;
let browser;
let page;
const problems = [];

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

// A `points` attribute back to cells: the centre of [x, y] is at
// (CELL + (x + 0.5) CELL, CELL + (y + 0.5) CELL).
function cells(points) {
  return points.trim().split(/\s+/).map((pair) => pair.split(',').map((v) => {
    const cell = Number(v) / CELL - 1.5;
    assert.ok(Number.isInteger(cell), `${v} is not a cell centre`);
    return cell;
  }));
}

const cell = (x, y) => `#board-view g.cell[data-x="${x}"][data-y="${y}"]`;

async function clickPair(from, to) {
  await page.click(cell(...from));
  await page.click(cell(...to));
  await page.waitForSelector('#segments, #reason, #error:not([hidden])');
}

before(async () => {
  ({ child: server, base } = await startServer());
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 960 } });
  page.setDefaultTimeout(10000);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // A refused request is reported by `response` below, with its URL.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
  });
  // The browser's own favicon request is the only 404 expected.
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('the page loads with a CSP that allows only this origin', async () => {
  const response = await page.goto(`${base}/`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'], /^default-src 'self'/);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#board-view g.tile').count(), 14);
  assert.equal(await page.locator('#board-view g.empty').count(), 6);
});

test('two tiles of the docs/rules.md sample: the path and its segments', async () => {
  await clickPair([1, 2], [4, 2]);
  assert.equal(await page.textContent('#segments'), '4');
  const points = await page.getAttribute('#board-view polyline.path', 'points');
  assert.deepEqual(cells(points), [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]]);
  await page.screenshot({ path: join(artifacts, 'playground.png') });
  await page.screenshot({ path: join(root, 'docs', 'playground.png') });

  // Through the ring below the board (y = 4 = height).
  await clickPair([0, 2], [3, 3]);
  assert.equal(await page.textContent('#segments'), '3');
  const ring = await page.getAttribute('#board-view polyline.path', 'points');
  assert.deepEqual(cells(ring), [[0, 2], [0, 4], [3, 4], [3, 3]]);
  assert.equal(await page.locator('#board-view polyline').count(), 1);
});

test('one selected tile lights up its partners', async () => {
  await page.click(cell(1, 2));
  await page.waitForSelector('#partners');
  assert.equal(await page.textContent('#partners'), '10');
  const lit = await page.$$eval('#board-view g.partner', (gs) => gs.map((g) => [Number(g.dataset.x), Number(g.dataset.y)]));
  // Every tile touching the open cells inside the board, and its three
  // neighbours; not the corners' tiles [0, 0], [4, 0] or [2, 3].
  const partners = [[1, 0], [2, 0], [3, 0], [0, 1], [4, 1], [0, 2], [2, 2], [4, 2], [1, 3], [3, 3]];
  assert.deepEqual(lit, partners);
  const expected = await (await fetch(`${base}/v1/moves`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ board: ['XXXXX', 'X...X', 'XXX.X', '.XXX.'], rules: 'mahjong', from: [1, 2] }),
  })).json();
  assert.deepEqual(expected.moves.map((m) => m.to), partners);
  await page.screenshot({ path: join(artifacts, 'playground-partners.png') });
  await page.click('#clear-selection');
  assert.equal(await page.locator('#board-view g.partner').count(), 0);
});

test('a hint is shown, and playing it removes its tiles', async () => {
  await page.click('#hint');
  // Attached, not visible: a straight hint has a bounding box of height 0.
  await page.waitForSelector('#board-view polyline.path.hint', { state: 'attached' });
  const expected = await (await fetch(`${base}/v1/moves`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ board: ['XXXXX', 'X...X', 'XXX.X', '.XXX.'], rules: 'mahjong', limit: 1 }),
  })).json();
  const [move] = expected.moves;
  assert.equal(await page.textContent('#hint-text'), `Hint: [${move.from.join(', ')}] and [${move.to.join(', ')}], `);
  assert.equal(await page.textContent('#segments'), String(move.segments));
  const points = await page.getAttribute('#board-view polyline.path.hint', 'points');
  assert.deepEqual(cells(points), move.path);
  await page.screenshot({ path: join(artifacts, 'playground-hint.png') });

  await page.click('#play');
  await page.waitForSelector(`${cell(...move.from)}.empty`);
  assert.ok(await page.locator(`${cell(...move.to)}.empty`).count() === 1);
  assert.equal(await page.locator('#board-view g.tile').count(), 12);
});

test('an API error is shown as the API gave it', async () => {
  await page.fill('#deal-width', '0');
  await page.click('#deal');
  await page.waitForSelector('#error:not([hidden])');
  const text = await page.textContent('#error');
  assert.match(text, /^POST \/v1\/deal answered 422\ninvalid_request: /);
  assert.deepEqual(problems, [`422 ${base}/v1/deal`]);
});

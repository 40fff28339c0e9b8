// A race on the playground in headless Chromium: `node --test tests/e2e/`.
//
// Two browser contexts are two guests on one server whose countdown is
// 300 ms. Ann makes a race from the "New game" settings (a 6 × 4 deal,
// seed 7) and copies its link; Bob opens it and joins; both see the
// countdown and each other's name; Bob's moves reach Ann's page as his
// tiles left, and Bob's reload follows the race again; Ann clears the board with the moves POST /v1/clear finds on
// the deal; both see the result cover, Ann first, with ratings before and
// after. On a phone the others' progress is below the board. A second
// race shows "Race again", a leave before the start, and a leave
// mid-race, which resigns and places last. axe-core audits the pages
// racing (desktop and phone) and under the result (no serious or
// critical violation). Screenshots go under tests/artifacts/.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, root, startServer } from './support.mjs';

const artifacts = join(root, 'tests', 'artifacts');
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
// No test may hang: each is cut off well past what it needs.
const BOUND = { timeout: 60000 };
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const DEAL = { width: 6, height: 4, types: 6, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'none', seed: 7 };

let server;
let base;
let browser;
// Two players, each a browser context of its own: { context, page, me }.
const ann = {};
const bob = {};
// Failed requests and page errors, of either page.
let problems = [];

async function call(method, path, body, token) {
  const headers = body === undefined ? {} : { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${base}${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10000),
  });
  const json = await response.json();
  assert.ok(response.ok, `${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

function watch(p, who) {
  p.setDefaultTimeout(10000);
  p.on('pageerror', (e) => problems.push(`${who}: page error: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`${who}: console: ${m.text()}`);
  });
  p.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${who}: ${r.status()} ${r.url()}`);
  });
  // A stream the page closes (its game or race over) is an aborted request.
  p.on('requestfailed', (r) => {
    if (!(new URL(r.url()).pathname.endsWith('/events') && r.failure()?.errorText === 'net::ERR_ABORTED')) {
      problems.push(`${who}: request failed: ${r.url()}`);
    }
  });
}

// Records each cover shown (`kind: text`) and each message said, from the
// page's start: a countdown of 300 ms is gone before a test could look.
function record() {
  window.seen = { covers: [], messages: [] };
  document.addEventListener('DOMContentLoaded', () => {
    const overlay = document.getElementById('overlay');
    const message = document.getElementById('message');
    new MutationObserver(() => {
      const line = `${overlay.dataset.kind}: ${document.getElementById('overlay-text').textContent}`;
      if (!overlay.hidden && window.seen.covers.at(-1) !== line) window.seen.covers.push(line);
    }).observe(overlay, { attributes: true, subtree: true, childList: true, characterData: true });
    new MutationObserver(() => {
      if (window.seen.messages.at(-1) !== message.textContent) window.seen.messages.push(message.textContent);
    }).observe(message, { subtree: true, childList: true, characterData: true });
  });
}

async function open(who, path = '/') {
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await context.addInitScript(record);
  const page = await context.newPage();
  watch(page, who);
  await page.goto(`${base}${path}`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  const me = await page.evaluate(() => JSON.parse(localStorage.getItem('linkpath.player')));
  return { context, page, me };
}

// The page's clock: m:ss of whole seconds.
function clockText(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const cell = (x, y) => `#board .cell[data-x="${x}"][data-y="${y}"]`;
const landed = (p, version) => p.waitForSelector(`#board[data-version="${version}"][data-phase="idle"]`, { state: 'attached' });
const seen = (p) => p.evaluate(() => window.seen);

async function clickMove(p, { from, to }, version) {
  await p.click(cell(...from));
  await p.click(cell(...to));
  await landed(p, version);
}

async function audit(name, p) {
  if (!(await p.evaluate(() => typeof window.axe === 'object'))) await p.evaluate(AXE);
  const violations = await p.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  assert.deepEqual(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), [], name);
}

// Fills "New game" with `fields` (without dealing) and makes a race of it.
async function makeRace(p, fields) {
  await p.click('#new-game-box summary');
  for (const [id, value] of Object.entries(fields)) {
    if (['difficulty', 'rules', 'gravity'].includes(id)) await p.selectOption(`#${id}`, value);
    else await p.fill(`#${id}`, String(value));
  }
  await p.click('#race');
  await p.waitForSelector('#overlay[data-kind="race-open"]');
  const link = await p.inputValue('#race-link');
  const found = /^http:\/\/[^/]+\/#match=([0-9a-f]{32})$/.exec(link);
  assert.ok(found, link);
  return { id: found[1], link: new URL(link).hash };
}

// Both pages on their seat's game, at version 0; the match as the API has it.
async function raceStarted(id) {
  for (const { page } of [ann, bob]) await page.waitForSelector('#game[data-status="playing"][data-version="0"]', { state: 'attached' });
  const match = await call('GET', `/v1/matches/${id}`, undefined, ann.me.token);
  assert.equal(match.status, 'playing');
  for (const { page, me } of [ann, bob]) {
    const seat = match.players.find((s) => s.player === me.id);
    assert.equal(await page.$eval('#game', (g) => g.dataset.id), seat.game);
    await landed(page, 0);
  }
  return match;
}

before(async () => {
  ({ child: server, base } = await startServer({ LINKPATH_MATCH_COUNTDOWN_MS: '300' }));
  browser = await launchChromium();
  mkdirSync(artifacts, { recursive: true });
});

afterEach(() => { problems = []; });

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('two guests race on one deal: the link, the countdown, the other\'s progress, the result with ratings', BOUND, async () => {
  Object.assign(ann, await open('Ann'));
  const { id, link } = await makeRace(ann.page, DEAL);
  assert.equal(await ann.page.isDisabled('#race'), true, 'one race at a time');
  assert.equal(await ann.page.textContent('#race-status'), 'Waiting for a second player: send them this link.');
  assert.equal(await ann.page.textContent('#racers'), '1 seat free');
  await ann.page.click('#race-copy');
  assert.equal(await ann.page.evaluate(() => navigator.clipboard.readText()), `${base}/${link}`);
  assert.equal(await ann.page.textContent('#message'), 'Copied the link: send it to the other player.');
  const created = await call('GET', `/v1/matches/${id}`, undefined, ann.me.token);
  assert.deepEqual({ ...created.game, seats: created.seats, assists: created.assists }, {
    width: 6, height: 4, types: 6, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'none', seed: 7, seats: 2, assists: false,
  });

  Object.assign(bob, await open('Bob', `/${link}`));
  const match = await raceStarted(id);
  assert.deepEqual(match.players.map((s) => s.name), [ann.me.name, bob.me.name]);
  // Each saw the countdown with the other's name, and sees it beside the board.
  for (const [{ page }, other] of [[ann, bob], [bob, ann]]) {
    assert.ok((await seen(page)).covers.some((c) => /^countdown: [123]$/.test(c)), JSON.stringify((await seen(page)).covers));
    assert.ok((await seen(page)).messages.includes(`Racing ${other.me.name}: the race starts in a moment.`));
    assert.equal(await page.textContent('#racers li strong'), other.me.name);
    assert.equal(await page.textContent('#race-status'), 'Racing: the first to clear the board wins.');
    // No pause in a race, and no hint or undo without assists.
    for (const button of ['pause', 'hint', 'undo', 'redo', 'race']) assert.equal(await page.isDisabled(`#${button}`), true, button);
    for (const button of ['shuffle', 'resign', 'race-leave']) assert.equal(await page.isDisabled(`#${button}`), false, button);
  }
  assert.equal(new URL(bob.page.url()).hash, link, 'a reload follows the race again');
  await audit('racing', ann.page);
  await ann.page.screenshot({ path: join(artifacts, 'race-playing.png'), animations: 'disabled' });
  // On a phone the others' progress is below the board.
  await bob.page.setViewportSize(PHONE);
  const [board, racers] = await bob.page.$$eval(['#board-box', '#racers'].join(','), (es) => es.map((e) => e.getBoundingClientRect().toJSON()));
  assert.ok(racers.top >= board.bottom, `${JSON.stringify(racers)} below ${JSON.stringify(board)}`);
  await audit('racing, phone', bob.page);
  await bob.page.screenshot({ path: join(artifacts, 'race-phone.png'), animations: 'disabled' });
  await bob.page.setViewportSize(DESKTOP);

  const seat = (who) => match.players.find((s) => s.player === who.me.id).game;
  const dealt = await call('GET', `/v1/games/${seat(ann)}`, undefined, ann.me.token);
  assert.equal(dealt.board.join('\n'), (await call('GET', `/v1/games/${seat(bob)}`, undefined, bob.me.token)).board.join('\n'), 'one deal');
  const { moves } = await call('POST', '/v1/clear', { board: dealt.board, rules: 'shisen-sho', gravity: 'none' });
  assert.equal(moves.length, 12);

  // Bob's two pairs reach Ann's page: 20 tiles left of 24.
  await clickMove(bob.page, moves[0], 1);
  await clickMove(bob.page, moves[1], 2);
  await ann.page.waitForSelector(`#racers li[data-player="${bob.me.id}"][data-tiles-left="20"]`);
  // A reload mid-race follows the race again, on Bob's game as he left it.
  await bob.page.reload();
  await bob.page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await landed(bob.page, 2);
  assert.equal(await bob.page.$eval('#game', (g) => g.dataset.id), seat(bob));
  assert.equal(await bob.page.textContent('#race-status'), 'Racing: the first to clear the board wins.');
  assert.equal(await bob.page.isDisabled('#pause'), true);
  const { score } = await call('GET', `/v1/games/${seat(bob)}`, undefined, bob.me.token);
  // Two pairs within 3 s of each other are a combo of 2; slower, none shown.
  assert.match(await ann.page.textContent(`#racers li[data-player="${bob.me.id}"] .racer-line`), new RegExp(`^20 tiles left · ${score} points( · combo ×2)?$`));
  assert.equal(await ann.page.$eval(`#racers li[data-player="${bob.me.id}"] progress`, (b) => `${b.value}/${b.max}`), '4/24');

  // Ann clears the board.
  for (let i = 0; i < moves.length; i += 1) await clickMove(ann.page, moves[i], i + 1);
  const over = await call('GET', `/v1/matches/${id}`, undefined, ann.me.token);
  assert.equal(over.status, 'finished');
  assert.deepEqual(over.result.map((r) => [r.name, r.place, r.finish, r.tiles]), [[ann.me.name, 1, 'cleared', 24], [bob.me.name, 2, 'stopped', 4]]);
  for (const { page } of [ann, bob]) {
    await page.waitForSelector('#overlay[data-kind="race-result"]');
    const lines = await page.$$eval('#overlay-places li', (lis) => lis.map((li) => li.textContent));
    const [first, second] = over.result;
    const rating = (r) => `rating ${Math.round(r.rating_before.rating)} → ${Math.round(r.rating_after.rating)}`;
    assert.equal(lines[0], `First: ${ann.me.name}, cleared in ${clockText(first.elapsed_ms)}, 24 tiles, ${first.score} points, ${rating(first)}`);
    assert.match(lines[1], new RegExp(`^Second: ${bob.me.name}, stopped at \\d+:\\d\\d, 4 tiles, ${second.score} points, ${rating(second)}$`));
    assert.equal(await page.textContent('#race-status'), 'The race is over.');
    assert.equal(await page.isDisabled('#race-leave'), true);
  }
  assert.equal(await ann.page.textContent('#overlay-title'), 'You won the race!');
  assert.equal(await bob.page.textContent('#overlay-title'), 'You placed second');
  assert.equal(await bob.page.textContent('#message'), `${ann.me.name} cleared the board. The race is over: you placed second.`);
  // Bob's game plays no more, its clock stopped where the race ended.
  for (const button of ['hint', 'undo', 'redo', 'shuffle', 'pause', 'resign']) assert.equal(await bob.page.isDisabled(`#${button}`), true, button);
  assert.equal(await bob.page.textContent('#clock'), clockText(over.result[1].elapsed_ms));
  // Bob heard that Ann cleared, in the live region.
  assert.ok((await seen(bob.page)).messages.some((m) => m.startsWith(`${ann.me.name} cleared the board.`)), JSON.stringify((await seen(bob.page)).messages));
  await bob.page.screenshot({ path: join(artifacts, 'race-result.png'), animations: 'disabled' });
  await audit('race result, winner', ann.page);
  await audit('race result, second', bob.page);
  assert.deepEqual(problems, []);
});

test('race again, a leave before the start, and a leave mid-race that places last', BOUND, async () => {
  // "Race again" asks for the rematch: the same players and settings, a
  // new deal.
  const last = new URL(ann.page.url()).hash;
  const finished = last.slice('#match='.length);
  await ann.page.click('#race-again');
  await ann.page.waitForFunction((old) => /^#match=/.test(location.hash) && location.hash !== old, last);
  await ann.page.waitForSelector('#overlay[data-kind="race-open"]');
  const first = new URL(ann.page.url()).hash.slice('#match='.length);
  const again = await call('GET', `/v1/matches/${first}`, undefined, ann.me.token);
  const { seed, ...settings } = again.game;
  assert.deepEqual(settings, { width: 6, height: 4, types: 6, copies: 4, difficulty: 'easy', rules: 'shisen-sho', gravity: 'none' });
  assert.equal(typeof seed, 'number');
  assert.equal(again.previous, finished);
  assert.deepEqual(again.invited, [bob.me.id]);
  // Leaving asks first; declined, the race stays.
  ann.page.once('dialog', (d) => d.dismiss());
  await ann.page.click('#race-leave');
  assert.equal(await ann.page.isHidden('#race-box'), false);
  ann.page.once('dialog', (d) => { assert.equal(d.message(), 'Leave the race?'); d.accept(); });
  await ann.page.click('#race-leave');
  await ann.page.waitForSelector('#race-box', { state: 'hidden' });
  assert.equal(await ann.page.textContent('#message'), 'You left the race.');
  assert.equal(await ann.page.isDisabled('#race'), false);

  // A race whose second player leaves mid-race: resigned, placed last.
  const { id, link } = await makeRace(ann.page, {});
  assert.notEqual(id, first);
  await bob.page.goto(`${base}/${link}`);
  await bob.page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await raceStarted(id);
  bob.page.once('dialog', (d) => { assert.equal(d.message(), 'Leave the race? Your game is resigned and you place last.'); d.accept(); });
  await bob.page.click('#race-leave');
  for (const { page } of [ann, bob]) await page.waitForSelector('#overlay[data-kind="race-result"]');
  const over = await call('GET', `/v1/matches/${id}`, undefined, ann.me.token);
  assert.deepEqual(over.result.map((r) => [r.name, r.place, r.finish]), [[ann.me.name, 1, 'stopped'], [bob.me.name, 2, 'quit']]);
  assert.match(await bob.page.textContent('#overlay-places li:last-child'), new RegExp(`^Second: ${bob.me.name}, left after \\d+:\\d\\d, 0 tiles`));
  assert.equal(await ann.page.textContent('#overlay-title'), 'You won the race!');
  assert.deepEqual(problems, []);
});

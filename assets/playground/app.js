// The linkpath playground: a client of the public API only. Every action is
// one fetch to /v1/*; the answers are drawn as SVG in the page.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
// The layout of /v1/render: cells of CELL units with a one-cell margin that
// holds the ring around the board, so a point [x, y] (-1 and width/height
// on the ring) is drawn at centre([x, y]).
const CELL = 40;
const centre = ([x, y]) => [CELL + (x + 0.5) * CELL, CELL + (y + 0.5) * CELL];
const OUTSIDE = { mahjong: true, 'shisen-sho': true, lianliankan: false, curling: false };

const SAMPLES = {
  mahjong: { rows: ['XXXXX', 'X...X', 'XXX.X', '.XXX.'], preset: 'mahjong' },
  shisen: { rows: ['AB.A', 'B..C', 'ACBA'], preset: 'shisen-sho' },
  lianliankan: { rows: ['AB.A', 'B..C', 'ACBA'], preset: 'lianliankan' },
  gravity: { rows: ['A.', 'BB', 'AC'], preset: 'lianliankan', gravity: 'down' },
};

const $ = (id) => document.getElementById(id);
// `partners`: the cells the one selected tile can be removed with, as
// `/v1/moves` with `from` answers; `asked` tells a stale answer from the
// current one.
const state = { rows: [], selected: [], move: null, partners: [], asked: 0 };

function setStatus(text) {
  $('status').replaceChildren(...(Array.isArray(text) ? text : [text]));
}

function showError(text) {
  const box = $('error');
  box.textContent = text;
  box.hidden = !text;
}

// POSTs `body` as JSON; resolves to the parsed answer, or throws an Error
// whose message is the API's error, code, field and all.
async function api(path, body, accept = 'json') {
  const headers = { 'Content-Type': 'application/json' };
  const key = $('api-key').value.trim();
  if (key) headers.Authorization = `Bearer ${key}`;
  let response;
  try {
    response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (e) {
    throw new Error(`POST ${path}: the server did not answer (${e.message})`);
  }
  if (response.ok) return accept === 'json' ? response.json() : response.text();
  const text = await response.text();
  let detail = text;
  try {
    const { error } = JSON.parse(text);
    detail = `${error.code}: ${error.message}${error.field ? ` (field ${error.field})` : ''}`;
  } catch (_) { /* not JSON: show the text as it came */ }
  throw new Error(`POST ${path} answered ${response.status}\n${detail}`);
}

function rules() { return $('preset').value; }

function readRows() {
  const text = $('board').value.replace(/\r/g, '');
  let lines = text.split('\n');
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  const width = Math.max(0, ...lines.map((l) => [...l].length));
  // Short rows are padded with empty cells, as in the judges' text format.
  return lines.map((l) => l + '.'.repeat(width - [...l].length));
}

function setBoard(rows) {
  state.rows = rows;
  state.selected = [];
  state.partners = [];
  state.move = null;
  $('board').value = rows.join('\n');
  $('play').disabled = true;
  draw();
}

function el(name, attributes = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function hue(tile) {
  let h = 0;
  for (const c of tile) h = (h * 31 + c.codePointAt(0)) % 360;
  return h;
}

function draw(paths = []) {
  const svg = $('board-view');
  const rows = state.rows.map((r) => [...r]);
  const h = rows.length;
  const w = h ? rows[0].length : 0;
  svg.setAttribute('viewBox', `0 0 ${(w + 2) * CELL} ${(h + 2) * CELL}`);
  svg.replaceChildren();
  if (OUTSIDE[rules()]) {
    svg.append(el('rect', { class: 'ring', x: 1, y: 1, width: (w + 2) * CELL - 2, height: (h + 2) * CELL - 2 }));
  }
  rows.forEach((row, y) => row.forEach((c, x) => {
    const empty = c === ' ' || c === '.';
    const at = ([px, py]) => px === x && py === y;
    const selected = state.selected.some(at);
    const partner = state.partners.some(at);
    const [cx, cy] = centre([x, y]);
    const g = el('g', {
      class: `cell ${empty ? 'empty' : 'tile'}${selected ? ' selected' : ''}${partner ? ' partner' : ''}`,
      'data-x': x, 'data-y': y,
    });
    g.append(el('rect', {
      x: cx - CELL * 0.44, y: cy - CELL * 0.44, width: CELL * 0.88, height: CELL * 0.88,
      rx: CELL * 0.12, 'stroke-width': CELL * 0.04,
    }));
    if (!empty) {
      g.append(el('text', {
        x: cx, y: cy, 'font-size': CELL * 0.55, 'text-anchor': 'middle',
        'dominant-baseline': 'central', fill: `hsl(${hue(c)}, 60%, 32%)`,
      }, c));
    }
    g.addEventListener('click', () => pick(x, y));
    svg.append(g);
  }));
  for (const { points, hint } of paths) {
    svg.append(el('polyline', {
      class: `path${hint ? ' hint' : ''}`,
      points: points.map((p) => centre(p).join(',')).join(' '),
      'stroke-width': CELL * 0.12,
    }));
  }
}

const point = ([x, y]) => `[${x}, ${y}]`;

async function pick(x, y) {
  showError('');
  if (state.selected.length === 2) state.selected = [];
  state.selected.push([x, y]);
  state.move = null;
  state.partners = [];
  state.asked += 1;
  $('play').disabled = true;
  if (state.selected.length === 1) {
    draw();
    setStatus(`From ${point([x, y])}: click a second cell.`);
    const tile = [...state.rows[y]][x];
    if (rules() !== 'curling' && tile !== '.' && tile !== ' ') await showPartners([x, y]);
    return;
  }
  draw();
  const [from, to] = state.selected;
  setStatus(`Solving ${point(from)} to ${point(to)}…`);
  try {
    const answer = await api('/v1/solve', { board: state.rows, rules: rules(), queries: [{ from, to }] });
    const result = answer.results[0];
    if (result.connected) {
      draw([{ points: result.path }]);
      const count = Object.assign(document.createElement('strong'), { id: 'segments', textContent: String(result.segments) });
      setStatus([`${point(from)} to ${point(to)}: `, count, result.segments === 1 ? ' segment' : ' segments']);
      state.move = { from, to };
      $('play').disabled = false;
    } else {
      const reason = Object.assign(document.createElement('strong'), { id: 'reason', textContent: result.reason });
      setStatus([`${point(from)} to ${point(to)} do not connect: `, reason]);
    }
  } catch (e) {
    setStatus('');
    showError(e.message);
  }
}

// Forgets the selection, and any partners still being asked for.
function deselect() {
  state.selected = [];
  state.move = null;
  state.partners = [];
  state.asked += 1;
  $('play').disabled = true;
}

// Lights up the tiles `from` can be removed with now.
async function showPartners(from) {
  const asked = state.asked;
  try {
    const answer = await api('/v1/moves', { board: state.rows, rules: rules(), from, include_path: false });
    if (asked !== state.asked) return;
    state.partners = answer.moves.map((m) => m.to);
    draw();
    const count = Object.assign(document.createElement('strong'), { id: 'partners', textContent: String(state.partners.length) });
    setStatus([`From ${point(from)}: `, count, state.partners.length === 1 ? ' partner' : ' partners', ' lit up; click a second cell.']);
  } catch (e) {
    if (asked === state.asked) showError(e.message);
  }
}

async function hint() {
  showError('');
  deselect();
  try {
    const answer = await api('/v1/moves', { board: state.rows, rules: rules(), limit: 1 });
    if (answer.moves.length === 0) {
      draw();
      setStatus(answer.cleared ? 'Cleared: no tile left.' : 'Stuck: no pair can be removed.');
      return;
    }
    const move = answer.moves[0];
    state.selected = [move.from, move.to];
    state.move = { from: move.from, to: move.to };
    $('play').disabled = false;
    draw([{ points: move.path, hint: true }]);
    const count = Object.assign(document.createElement('strong'), { id: 'segments', textContent: String(move.segments) });
    setStatus([
      Object.assign(document.createElement('span'), { id: 'hint-text', textContent: `Hint: ${point(move.from)} and ${point(move.to)}, ` }),
      count, move.segments === 1 ? ' segment' : ' segments',
    ]);
  } catch (e) {
    draw();
    setStatus('');
    showError(e.message);
  }
}

async function play() {
  if (!state.move) return;
  showError('');
  const gravity = $('gravity').value;
  try {
    const answer = await api('/v1/play', { board: state.rows, rules: rules(), gravity, moves: [state.move] });
    setBoard(answer.board);
    if (answer.stopped_at) {
      setStatus(`Move refused: ${answer.stopped_at.reason}`);
    } else {
      const left = answer.cleared ? ' Cleared!' : answer.stuck ? ' Stuck: no move left.' : '';
      setStatus(`Removed, gravity ${gravity}.${left}`);
    }
  } catch (e) {
    showError(e.message);
  }
}

async function deal() {
  showError('');
  const number = (id) => Number($(id).value);
  try {
    const answer = await api('/v1/deal', {
      width: number('deal-width'), height: number('deal-height'), types: number('deal-types'),
      seed: number('deal-seed'), rules: rules(), gravity: $('gravity').value,
    });
    setBoard(answer.board);
    setStatus(`Dealt: ${answer.moves.length} moves clear it.`);
  } catch (e) {
    showError(e.message);
  }
}

async function downloadSvg() {
  showError('');
  const queries = state.selected.length === 2 ? [{ from: state.selected[0], to: state.selected[1] }] : [];
  try {
    const svg = await api('/v1/render', { board: state.rows, rules: rules(), queries }, 'text');
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    link.download = 'board.svg';
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (e) {
    showError(e.message);
  }
}

function loadSample() {
  const sample = SAMPLES[$('sample').value];
  $('preset').value = sample.preset;
  $('gravity').value = sample.gravity || 'none';
  setBoard(sample.rows);
  setStatus('Click a tile.');
  showError('');
}

document.addEventListener('DOMContentLoaded', () => {
  $('load-sample').addEventListener('click', loadSample);
  $('apply-board').addEventListener('click', () => { setBoard(readRows()); showError(''); setStatus('Click a tile.'); });
  $('preset').addEventListener('change', () => { deselect(); draw(); });
  $('hint').addEventListener('click', hint);
  $('play').addEventListener('click', play);
  $('deal').addEventListener('click', deal);
  $('svg').addEventListener('click', downloadSvg);
  $('clear-selection').addEventListener('click', () => { deselect(); draw(); setStatus('Click a tile.'); });
  loadSample();
  document.body.dataset.ready = 'true';
});

// The board of the playground: the game the server answered, drawn as an
// ARIA grid of cells (role grid, rows, gridcells named by tile and place)
// sized to fill its box, with the path of a move, the fade of the pair
// and the fall of the tiles gravity moves, as the answer's `last` tells.
//
// A board wider than tall in a box taller than wide (a phone held upright)
// is turned a quarter clockwise to stand upright, in the drawing only:
// each cell keeps the game's own [x, y] (data-x, data-y) and its drawn
// place (data-col, data-row); arrow keys move in the drawn orientation,
// and a pick reports the game's cell.
//
// #board carries what a test waits on: data-version, the game's version
// drawn, and data-phase, "path" while a move's path shows, "fall" while
// tiles fall (the path is gone by then), "idle" once all has landed.
import { faceOf, faceSvg, nameOf } from '/playground/tiles.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
// The ring around the board, where paths may run: half a cell wide, and
// a path on it runs along its middle.
const MARGIN = 0.5;
const MAX_CELL = 88;
const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
// prefers-reduced-motion: every animation near-instant.
const reduced = window.matchMedia('(prefers-reduced-motion: reduce)');
const ms = (t) => (reduced.matches ? 1 : t);

const view = {
  box: null, // the element the board fills
  frame: null, // the board and its ring, sized to fit the box
  grid: null, // role="grid"
  paths: null, // the SVG that draws paths over the cells
  pick: () => {}, // called with a game cell [x, y] picked
  drawn: null, // the game drawn
  shape: null, // { w, h, turned, holes, key }
  cell: 0, // a cell's size in pixels
  cells: new Map(), // `${x},${y}` to its gridcell
  focus: null, // the game cell that takes the tab stop
  picked: null,
  flashed: [],
  queue: Promise.resolve(),
  pending: 0, // games waiting to be drawn
  resized: false, // the box changed size while something moved
};

const key = ([x, y]) => `${x},${y}`;
const cellAt = (at) => (at ? view.cells.get(key(at)) : undefined);
const atOf = (cell) => [Number(cell.dataset.x), Number(cell.dataset.y)];

function svg(name, attributes = {}) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  return node;
}

// A board's rows as cells: { face, name } for a tile, null when empty;
// text rows and number rows alike.
export function cellsOf(board) {
  return board.map((row) => (typeof row === 'string'
    ? [...row].map((c) => (c === '.' || c === ' ' ? null : c))
    : row.map((n) => (n === 0 ? null : n))).map((tile) => {
    if (tile === null) return null;
    const face = faceOf(tile);
    return { face, name: nameOf(face) };
  }));
}

// ---- where things are drawn -------------------------------------------------

// A game point (cells, and the ring at -1, width, height) to its drawn
// column and row.
function drawnOf([x, y]) {
  const { turned, h } = view.shape;
  return turned ? [h - 1 - y, x] : [x, y];
}

function gameOf([c, r]) {
  const { turned, h } = view.shape;
  return turned ? [r, h - 1 - c] : [c, r];
}

// A drawn column (or row) of `n` to its centre, in cells from the grid's
// corner; the ring's line runs in the middle of the margin.
function centre(c, n) {
  if (c < 0) return -MARGIN / 2;
  if (c >= n) return n + MARGIN / 2;
  return c + 0.5;
}

function pointOf(at) {
  const [c, r] = drawnOf(at);
  const { dw, dh } = drawnSize();
  return `${centre(c, dw)},${centre(r, dh)}`;
}

function drawnSize() {
  const { w, h, turned } = view.shape;
  return turned ? { dw: h, dh: w } : { dw: w, dh: h };
}

// The cell size and the turn that show the board largest in its box.
function fit(w, h) {
  const bw = view.box.clientWidth;
  const bh = view.box.clientHeight;
  const size = (dw, dh) => Math.max(8, Math.min(MAX_CELL, Math.floor(Math.min(bw / (dw + 2 * MARGIN), bh / (dh + 2 * MARGIN)))));
  const plain = size(w, h);
  const turned = size(h, w);
  return turned > plain ? { turned: true, cell: turned } : { turned: false, cell: plain };
}

// ---- the grid -----------------------------------------------------------------

function build() {
  const { dw, dh } = drawnSize();
  const hadFocus = view.grid.contains(document.activeElement);
  view.cells.clear();
  const rows = [];
  for (let r = 0; r < dh; r += 1) {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    row.className = 'row';
    for (let c = 0; c < dw; c += 1) {
      const at = gameOf([c, r]);
      const cell = document.createElement('div');
      cell.className = 'cell';
      Object.assign(cell.dataset, { x: at[0], y: at[1], col: c, row: r });
      if (view.shape.holes.has(key(at))) {
        // Outside the layout: no cell at all, to the eye or to a reader.
        cell.classList.add('hole');
        cell.setAttribute('aria-hidden', 'true');
      } else {
        cell.setAttribute('role', 'gridcell');
        cell.tabIndex = -1;
        view.cells.set(key(at), cell);
      }
      row.append(cell);
    }
    rows.push(row);
  }
  view.grid.replaceChildren(...rows);
  if (!cellAt(view.focus)) view.focus = view.cells.size ? atOf(view.cells.values().next().value) : null;
  rove(hadFocus);
}

// Sizes the frame to the box; builds the grid anew when the board's shape
// or its turn changed.
function layout(w, h, holes, holesKey) {
  const { turned, cell } = fit(w, h);
  const shapeKey = `${w}x${h}:${turned}:${holesKey}`;
  const rebuild = !view.shape || view.shape.key !== shapeKey;
  view.shape = { w, h, turned, holes, key: shapeKey };
  view.cell = cell;
  const { dw, dh } = drawnSize();
  view.frame.style.width = `${(dw + 2 * MARGIN) * cell}px`;
  view.frame.style.height = `${(dh + 2 * MARGIN) * cell}px`;
  view.grid.style.setProperty('--cell', `${cell}px`);
  view.grid.style.left = `${MARGIN * cell}px`;
  view.grid.style.top = `${MARGIN * cell}px`;
  view.paths.setAttribute('viewBox', `${-MARGIN} ${-MARGIN} ${dw + 2 * MARGIN} ${dh + 2 * MARGIN}`);
  view.grid.dataset.turned = String(turned);
  if (rebuild) build();
  return rebuild;
}

// The cell that holds the tab stop gets tabindex 0, the others -1.
function rove(focus) {
  for (const cell of view.cells.values()) cell.tabIndex = -1;
  const cell = cellAt(view.focus);
  if (!cell) return;
  cell.tabIndex = 0;
  if (focus) cell.focus({ preventScroll: true });
}

function describe(cell, tile) {
  const [x, y] = atOf(cell);
  return `${tile ? tile.name : 'empty'}, row ${y + 1}, column ${x + 1}`;
}

const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];

function marks(cell) {
  const at = atOf(cell);
  const picked = Boolean(same(view.picked, at));
  cell.classList.toggle('picked', picked);
  cell.setAttribute('aria-selected', String(picked));
}

// Draws `game` as it is, at once: no path, no fall.
function paint(game) {
  view.drawn = game;
  view.grid.dataset.version = String(game.version);
  view.paths.replaceChildren();
  view.flashed = [];
  const board = game.board;
  view.frame.hidden = !board;
  if (!board) return;
  const rows = cellsOf(board);
  const h = rows.length;
  const w = h ? rows[0].length : 0;
  const layoutRows = game.settings && game.settings.layout;
  const holes = new Set();
  if (layoutRows) {
    layoutRows.forEach((row, y) => [...row].forEach((c, x) => { if (c === '.') holes.add(key([x, y])); }));
  }
  layout(w, h, holes, layoutRows ? layoutRows.join('/') : '');
  const last = game.last && game.last.version === game.version ? game.last : null;
  const hint = last && last.action === 'hint' && last.hint ? last.hint : null;
  for (const cell of view.cells.values()) {
    const at = atOf(cell);
    const tile = rows[at[1]][at[0]];
    cell.className = `cell ${tile ? 'tile' : 'empty'}`;
    cell.replaceChildren(...(tile ? [faceSvg(tile.face)] : []));
    cell.setAttribute('aria-label', describe(cell, tile));
    if (hint && (same(hint.from, at) || same(hint.to, at))) cell.classList.add('hinted');
    marks(cell);
  }
  if (hint && hint.path) drawPath(hint.path, 'hint');
}

function drawPath(points, kind) {
  const line = svg('polyline', {
    class: `path ${kind}`,
    points: points.map(pointOf).join(' '),
    'stroke-width': 0.12,
    'data-path': JSON.stringify(points),
  });
  view.paths.append(line);
  return line;
}

const done = (animation) => animation.finished.catch(() => {});

function setPhase(phase) { view.grid.dataset.phase = phase; }

// Fits the board drawn to its box again, as it stands.
function refit() {
  view.resized = false;
  const game = view.drawn;
  if (!game || !game.board || !view.shape) return;
  const { w, h, holes, key: shapeKey } = view.shape;
  if (layout(w, h, holes, shapeKey.split(':')[2])) paint(game);
}

// A pair removed (a move, or a redo making it again): a move's path drawn
// over the two tiles where they stand, the tiles faded, the path taken
// away, and only then the board after the move, its tiles falling.
async function removal(game, last) {
  const pair = [last.from, last.to].map(cellAt).filter(Boolean);
  let line = null;
  if (last.action === 'move' && last.path) {
    setPhase('path');
    line = drawPath(last.path, 'move');
    line.setAttribute('pathLength', 100);
    line.setAttribute('stroke-dasharray', 100);
    view.grid.dataset.path = JSON.stringify(last.path);
    await done(line.animate([{ strokeDashoffset: 100 }, { strokeDashoffset: 0 }], { duration: ms(200), easing: 'ease-out', fill: 'forwards' }));
  }
  const fades = pair.map((cell) => cell.firstElementChild).filter(Boolean).map((face) => face.animate(
    [{ opacity: 1, transform: 'scale(1)' }, { opacity: 0, transform: 'scale(0.7)' }],
    { duration: ms(220), delay: ms(line ? 120 : 0), easing: 'ease-in', fill: 'forwards' },
  ));
  await Promise.all(fades.map(done));
  if (line) line.remove();
  setPhase('fall');
  paint(game);
  await fall(last.moved || []);
}

// The tiles `moved` slide from where they were to where they are now.
async function fall(moved) {
  const animations = [];
  for (const { from, to } of moved) {
    const cell = cellAt(to);
    const face = cell && cell.firstElementChild;
    if (!face) continue;
    const [fc, fr] = drawnOf(from);
    const [tc, tr] = drawnOf(to);
    const cells = Math.hypot(fc - tc, fr - tr);
    cell.classList.add('moving');
    const animation = face.animate(
      [{ transform: `translate(${(fc - tc) * view.cell}px, ${(fr - tr) * view.cell}px)` }, { transform: 'translate(0, 0)' }],
      { duration: ms(150 + 70 * cells), easing: 'cubic-bezier(0.45, 0, 0.9, 0.6)' },
    );
    animations.push(done(animation).then(() => cell.classList.remove('moving')));
  }
  await Promise.all(animations);
}

// Tiles put back (an undo): the pair fades in, the tiles that fell rise.
async function restore(game, last) {
  setPhase('fall');
  paint(game);
  const faces = [last.from, last.to].map(cellAt).filter(Boolean).map((cell) => cell.firstElementChild).filter(Boolean);
  const fades = faces.map((face) => face.animate([{ opacity: 0 }, { opacity: 1 }], { duration: ms(220) }));
  await Promise.all([...fades.map(done), fall(last.moved || [])]);
}

async function step(game) {
  view.pending -= 1;
  const before = view.drawn;
  const last = game.last && game.last.version === game.version ? game.last : null;
  // Only the change that follows the board drawn is shown moving, and
  // only when no newer one waits: a reload or a game caught up on is
  // drawn as it stands.
  const next = view.pending === 0 && last && before && before.board && game.board
    && before.id === game.id && game.version === before.version + 1;
  if (next && (last.action === 'move' || last.action === 'redo') && last.from) await removal(game, last);
  else if (next && last.action === 'undo' && last.from) await restore(game, last);
  else if (next && last.action === 'shuffle') { setPhase('fall'); paint(game); await fall(last.moved || []); } else paint(game);
  if (view.resized) refit();
  setPhase('idle');
}

// ---- what the page calls ---------------------------------------------------------

// Draws `game`, after the games before it; resolves once it has landed.
export function drawGame(game) {
  view.pending += 1;
  view.queue = view.queue.then(() => step(game)).catch((e) => {
    setPhase('idle');
    throw e;
  });
  return view.queue;
}

// Draws no game.
export function clearBoard() {
  view.pending += 1;
  view.queue = view.queue.then(() => {
    view.pending -= 1;
    view.drawn = null;
    view.frame.hidden = true;
    view.grid.dataset.version = '';
    setPhase('idle');
  });
  return view.queue;
}

export function setPicked(at) {
  view.picked = at;
  for (const cell of view.flashed) cell.classList.remove('refused');
  view.flashed = [];
  for (const cell of view.cells.values()) marks(cell);
}

// Marks the cells of a refused move until the next pick.
export function flash(points) {
  view.flashed = points.map(cellAt).filter(Boolean);
  for (const cell of view.flashed) cell.classList.add('refused');
}

// Moves the keyboard's focus to the board's tab stop.
export function focusBoard() { rove(true); }

// Ends what is moving on the board at once: a player who picks while
// tiles fall picks on the board as it now is.
export function settle() {
  for (const animation of view.grid.parentElement.getAnimations({ subtree: true })) animation.finish();
}

function arrow(cell, [dc, dr]) {
  const { dw, dh } = drawnSize();
  let c = Number(cell.dataset.col);
  let r = Number(cell.dataset.row);
  for (;;) {
    c += dc;
    r += dr;
    if (c < 0 || r < 0 || c >= dw || r >= dh) return;
    const next = cellAt(gameOf([c, r]));
    if (next) {
      view.focus = atOf(next);
      rove(true);
      return;
    }
  }
}

export function setupBoard({ box, pick }) {
  view.box = box;
  view.frame = box.querySelector('#board-frame');
  view.grid = box.querySelector('#board');
  view.paths = box.querySelector('#paths');
  view.pick = pick;
  view.grid.addEventListener('keydown', (e) => {
    const cell = e.target.closest('.cell');
    if (!cell) return;
    if (STEPS[e.key]) {
      e.preventDefault();
      arrow(cell, STEPS[e.key]);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      view.pick(atOf(cell));
    }
  });
  view.grid.addEventListener('click', (e) => {
    const cell = e.target.closest('.cell');
    if (!cell || !cell.hasAttribute('role')) return;
    view.focus = atOf(cell);
    rove(true);
    view.pick(atOf(cell));
  });
  // The board follows its box: a window resized or a phone turned; once
  // what moves has landed, if it is moving.
  new ResizeObserver(() => {
    if (view.grid.dataset.phase === 'idle') refit();
    else view.resized = true;
  }).observe(box);
  setPhase('idle');
}

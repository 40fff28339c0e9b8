// The tile faces of the playground, drawn in SVG by the page itself (no
// font or picture is fetched). A type is told apart by its shape and by
// how the shape is filled, and only then by colour, so that a player who
// does not see colours plays as well: nine shapes, each in four fills
// (solid red, blue outline, green hatched, purple with a hole), make 36
// faces; two small shapes make 36 more, and past 72 a number in the corner
// tells faces of one kind apart. Face i takes shape i mod 9 and fill
// i mod 4 (9 and 4 share no factor, so the 36 pairs each come once), so
// that a deal of a few types already mixes shapes and fills.

const SVG_NS = 'http://www.w3.org/2000/svg';

// The characters of text rows in the order /v1/deal deals them: the
// first type dealt is 'A', so that a deal of n types shows the n first
// faces.
const TEXT_TILES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Each shape fits the 100 × 100 face, centred on (50, 50).
const SHAPES = [
  ['circle', 'circle', { cx: 50, cy: 50, r: 28 }],
  ['square', 'rect', { x: 24, y: 24, width: 52, height: 52 }],
  ['triangle', 'polygon', { points: '50,17 84,78 16,78' }],
  ['diamond', 'polygon', { points: '50,14 84,50 50,86 16,50' }],
  ['star', 'polygon', { points: star() }],
  ['hexagon', 'polygon', { points: polygon(6, 32, 0) }],
  ['cross', 'polygon', { points: '40,16 60,16 60,40 84,40 84,60 60,60 60,84 40,84 40,60 16,60 16,40 40,40' }],
  ['heart', 'path', { d: 'M50 82 C24 64 14 48 22 34 C30 20 46 22 50 34 C54 22 70 20 78 34 C86 48 76 64 50 82 Z' }],
  ['moon', 'path', { d: 'M60 14 A36 36 0 1 0 60 86 A44 44 0 0 1 60 14 Z' }],
];

// The four fills, each with its colour; the fill alone tells them apart.
const FILLS = [
  { colour: 'red', ink: '#b71c1c', fill: '#c62828' },
  { colour: 'blue', ink: '#0d47a1', fill: 'none', width: 8 },
  { colour: 'green', ink: '#1b5e20', fill: 'url(#hatch)', width: 5 },
  { colour: 'purple', ink: '#4a148c', fill: '#6a1b9a', hole: true },
];

const FACES = SHAPES.length * FILLS.length;

function star() {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const r = i % 2 === 0 ? 36 : 15;
    const a = (Math.PI / 5) * i - Math.PI / 2;
    points.push(`${(50 + r * Math.cos(a)).toFixed(1)},${(54 + r * Math.sin(a)).toFixed(1)}`);
  }
  return points.join(' ');
}

function polygon(sides, r, turn) {
  const points = [];
  for (let i = 0; i < sides; i += 1) {
    const a = (2 * Math.PI * i) / sides + turn;
    points.push(`${(50 + r * Math.cos(a)).toFixed(1)},${(50 + r * Math.sin(a)).toFixed(1)}`);
  }
  return points.join(' ');
}

function el(name, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

// The index of a tile's face: a number tile's type from 1, a text tile
// by its place in the deal's characters (any other character after them).
export function faceOf(tile) {
  if (typeof tile === 'number') return tile - 1;
  const i = TEXT_TILES.indexOf(tile);
  if (i >= 0) return i;
  return TEXT_TILES.length + (tile.codePointAt(0) % 64);
}

// A face's name for people (and screen readers): "Red circle", "Two blue
// stars", "Green heart 3".
export function nameOf(face) {
  const shape = SHAPES[face % SHAPES.length][0];
  const { colour } = FILLS[face % FILLS.length];
  const round = Math.floor(face / FACES);
  const Colour = colour[0].toUpperCase() + colour.slice(1);
  if (round === 0) return `${Colour} ${shape}`;
  if (round === 1) return `Two ${colour} ${shape}s`;
  return `${Colour} ${shape} ${round - 1}`;
}

// The glyph of `face`: its shape in its fill, once or twice.
function glyph(face) {
  const [, tag, attributes] = SHAPES[face % SHAPES.length];
  const f = FILLS[face % FILLS.length];
  const round = Math.floor(face / FACES);
  const shape = () => {
    const g = el('g', {}, el(tag, {
      ...attributes, fill: f.fill, stroke: f.ink, 'stroke-width': f.width || 3, 'stroke-linejoin': 'round',
    }));
    if (f.hole) g.append(el('circle', { cx: 50, cy: 52, r: 8, fill: '#fbf7ea', stroke: f.ink, 'stroke-width': 2 }));
    return g;
  };
  if (round !== 1) {
    const g = shape();
    if (round > 1) {
      g.setAttribute('transform', 'translate(8 8) scale(0.84)');
      return el('g', {}, g, el('text', {
        x: 10, y: 22, 'font-size': 20, 'font-weight': 700, fill: f.ink, 'font-family': 'sans-serif',
      }, String(round - 1)));
    }
    return g;
  }
  const a = shape();
  const b = shape();
  a.setAttribute('transform', 'translate(6 6) scale(0.5)');
  b.setAttribute('transform', 'translate(44 44) scale(0.5)');
  return el('g', {}, a, b);
}

// The face's symbol: the tile's body and its glyph, referred to as
// `#face-N` by each cell that shows it.
function symbol(face) {
  return el('symbol', { id: `face-${face}`, viewBox: '0 0 100 100' },
    el('rect', { x: 7, y: 8, width: 90, height: 90, rx: 11, fill: '#b9ab88' }),
    el('rect', { x: 3, y: 3, width: 90, height: 90, rx: 11, fill: '#fbf7ea', stroke: '#8d7b5e', 'stroke-width': 2 }),
    glyph(face));
}

let defs = null;
const made = new Set();

// The page's one <defs>, in a hidden <svg>, holding each face once it is
// asked for.
function ensure(face) {
  if (!defs) {
    defs = el('defs', {},
      el('pattern', { id: 'hatch', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
        el('rect', { width: 8, height: 8, fill: '#e8f5e9' }),
        el('rect', { width: 3.5, height: 8, fill: '#2e7d32' })));
    const holder = el('svg', { 'aria-hidden': 'true', focusable: 'false', class: 'defs' }, defs);
    document.body.append(holder);
  }
  if (!made.has(face)) {
    defs.append(symbol(face));
    made.add(face);
  }
}

// A drawing of face `face` (of faceOf), to put in a cell.
export function faceSvg(face) {
  ensure(face);
  return el('svg', { class: 'face', viewBox: '0 0 100 100', 'aria-hidden': 'true', focusable: 'false', 'data-face': face },
    el('use', { href: `#face-${face}` }));
}

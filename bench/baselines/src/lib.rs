//! Shared pieces of the baselines: a small deterministic RNG, a byte-level
//! reader of the judge text formats (used alike by the contestant solvers and
//! by the parse-only floors, so both parse the same way), and the plain
//! POJ 3009 depth-first search (used by the contestant and by the generator,
//! which picks boards by their answer).
//!
//! The formats are those of `docs/rules.md`.

/// SplitMix64: a tiny, well-mixed, deterministic generator. Inputs are
/// reproducible from their seed alone.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Reads all of standard input at once (into a buffer of the right size when
/// stdin is a file, as in the benchmarks).
pub fn read_stdin() -> Vec<u8> {
    use std::io::Read;
    let size = std::fs::metadata("/dev/stdin").map_or(0, |m| m.len() as usize);
    let mut bytes = Vec::with_capacity(size + 1);
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .expect("reading standard input");
    bytes
}

/// Writes `text` to standard output in one go.
pub fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .expect("writing standard output");
    out.flush().expect("writing standard output");
}

/// A cursor over the input bytes: whitespace-separated numbers, or whole
/// lines (the Mahjong rows).
pub struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Scanner { bytes, pos: 0 }
    }

    fn skip_whitespace(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// True when only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.skip_whitespace();
        self.pos >= self.bytes.len()
    }

    /// The next number (an optional '-' and decimal digits), or `None` at the
    /// end of the input. Panics on anything else: the baselines only read
    /// well-formed inputs. (Local copies of the cursor let the compiler keep
    /// it in a register: this loop is most of the floor's time.)
    pub fn number(&mut self) -> Option<i64> {
        let bytes = self.bytes;
        let mut pos = self.pos;
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos >= bytes.len() {
            self.pos = pos;
            return None;
        }
        let negative = bytes[pos] == b'-';
        pos += usize::from(negative);
        let start = pos;
        let mut value: i64 = 0;
        while pos < bytes.len() {
            let digit = bytes[pos].wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value * 10 + i64::from(digit);
            pos += 1;
        }
        assert!(pos > start, "expected a number at byte {start}");
        self.pos = pos;
        Some(if negative { -value } else { value })
    }

    /// The next number, which must be there.
    pub fn expect(&mut self, what: &str) -> i64 {
        self.number()
            .unwrap_or_else(|| panic!("expected {what}, found the end of the input"))
    }

    /// The rest of the current line (without its "\n" or "\r\n"), moving to
    /// the start of the next line.
    pub fn line(&mut self) -> &'a [u8] {
        let rest = &self.bytes[self.pos..];
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.pos += (len + 1).min(rest.len());
        let line = &rest[..len];
        line.strip_suffix(b"\r").unwrap_or(line)
    }
}

/// One Mahjong board (docs/rules.md §1) and its pairs, as given: 1-based
/// `[x1, y1, x2, y2]`, x the column.
pub struct MahjongInput {
    pub width: usize,
    pub height: usize,
    /// Row-major, 1 for a tile, 0 for an empty cell (' ' or '.').
    pub tiles: Vec<u8>,
    pub pairs: Vec<[usize; 4]>,
}

/// Reads one Mahjong board and its pairs, up to `0 0 0 0` or the end of the
/// input. `None` at the end of the input or at a `0 0` header.
pub fn read_mahjong(sc: &mut Scanner) -> Option<MahjongInput> {
    let width = sc.number()? as usize;
    let height = sc.expect("the board height") as usize;
    if width == 0 && height == 0 {
        return None;
    }
    sc.line(); // the end of the header line
    let mut tiles = vec![0u8; width * height];
    for y in 0..height {
        let row = sc.line();
        assert!(row.len() <= width, "row {} is longer than {width}", y + 1);
        for (cell, &c) in tiles[y * width..].iter_mut().zip(row) {
            *cell = u8::from(c != b' ' && c != b'.');
        }
    }
    let mut pairs = Vec::new();
    while let Some(x1) = sc.number() {
        let pair = [
            x1 as usize,
            sc.expect("y1") as usize,
            sc.expect("x2") as usize,
            sc.expect("y2") as usize,
        ];
        if pair == [0; 4] {
            break;
        }
        pairs.push(pair);
    }
    Some(MahjongInput {
        width,
        height,
        tiles,
        pairs,
    })
}

/// One HDU 1175 case (docs/rules.md §2) and its queries, as given: 1-based
/// `[x1, y1, x2, y2]`, x the row.
pub struct HduCase {
    pub rows: usize,
    pub columns: usize,
    /// Row-major, 0 empty, else the tile type.
    pub cells: Vec<u32>,
    pub queries: Vec<[usize; 4]>,
}

/// Reads the next HDU 1175 case; `None` at `0 0` or the end of the input.
pub fn read_hdu1175(sc: &mut Scanner) -> Option<HduCase> {
    let rows = sc.number()? as usize;
    let columns = sc.expect("the column count") as usize;
    if rows == 0 && columns == 0 {
        return None;
    }
    let cells = (0..rows * columns)
        .map(|_| sc.expect("a cell") as u32)
        .collect();
    let count = sc.expect("the query count") as usize;
    let queries = (0..count)
        .map(|_| {
            [
                sc.expect("x1") as usize,
                sc.expect("y1") as usize,
                sc.expect("x2") as usize,
                sc.expect("y2") as usize,
            ]
        })
        .collect();
    Some(HduCase {
        rows,
        columns,
        cells,
        queries,
    })
}

/// One POJ 3009 dataset (docs/rules.md §4).
#[derive(Clone)]
pub struct CurlingBoard {
    pub width: usize,
    pub height: usize,
    /// Row-major, 1 for a block.
    pub blocks: Vec<u8>,
    pub start: usize,
    pub goal: usize,
}

/// Reads the next POJ 3009 dataset; `None` at `0 0` or the end of the input.
pub fn read_poj3009(sc: &mut Scanner) -> Option<CurlingBoard> {
    let width = sc.number()? as usize;
    let height = sc.expect("the board height") as usize;
    if width == 0 && height == 0 {
        return None;
    }
    let (mut start, mut goal) = (usize::MAX, usize::MAX);
    let mut blocks = vec![0u8; width * height];
    for (i, block) in blocks.iter_mut().enumerate() {
        match sc.expect("a square code") {
            1 => *block = 1,
            2 => start = i,
            3 => goal = i,
            _ => {}
        }
    }
    assert!(
        start != usize::MAX && goal != usize::MAX,
        "a dataset without start or goal"
    );
    Some(CurlingBoard {
        width,
        height,
        blocks,
        start,
        goal,
    })
}

/// The plain POJ 3009 depth-first search a contestant writes: try every
/// throw sequence of at most 10 throws, breaking a block when the stone hits
/// it and restoring it on the way back, and keep the minimum. With `prune`,
/// it also has the usual `if depth >= best { return }` cut.
pub struct CurlingDfs {
    width: i32,
    height: i32,
    blocks: Vec<u8>,
    goal: usize,
    prune: bool,
    best: u32,
    /// Calls of the search (positions the stone was in): the work done.
    pub nodes: u64,
}

/// At most this many throws.
pub const MAX_THROWS: u32 = 10;

impl CurlingDfs {
    /// Searches `board`; returns the fewest throws (or `None`) and the search.
    pub fn solve(board: &CurlingBoard, prune: bool) -> (Option<u32>, CurlingDfs) {
        let mut dfs = CurlingDfs {
            width: board.width as i32,
            height: board.height as i32,
            blocks: board.blocks.clone(),
            goal: board.goal,
            prune,
            best: MAX_THROWS + 1,
            nodes: 0,
        };
        let (x, y) = (board.start % board.width, board.start / board.width);
        dfs.search(x as i32, y as i32, 0);
        let best = (dfs.best <= MAX_THROWS).then_some(dfs.best);
        (best, dfs)
    }

    fn search(&mut self, x: i32, y: i32, depth: u32) {
        self.nodes += 1;
        if depth >= MAX_THROWS || (self.prune && depth >= self.best) {
            return;
        }
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let inside = |x: i32, y: i32| x >= 0 && y >= 0 && x < self.width && y < self.height;
            let at = |x: i32, y: i32| (y * self.width + x) as usize;
            // It cannot be thrown toward a block right beside it.
            if inside(x + dx, y + dy) && self.blocks[at(x + dx, y + dy)] == 1 {
                continue;
            }
            let (mut sx, mut sy) = (x, y);
            loop {
                sx += dx;
                sy += dy;
                if !inside(sx, sy) {
                    break; // off the board: this throw loses
                }
                let here = at(sx, sy);
                if here == self.goal {
                    self.best = self.best.min(depth + 1);
                    break;
                }
                if self.blocks[here] == 1 {
                    self.blocks[here] = 0;
                    self.search(sx - dx, sy - dy, depth + 1);
                    self.blocks[here] = 1;
                    break;
                }
            }
        }
    }
}

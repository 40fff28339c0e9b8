//! The classic judges' text formats: read a judge input, answer it with the
//! engine, and write exactly the judge's expected output.
//!
//! Boards may be of any size memory allows; rows may be shorter than the
//! width or empty; numbers may be separated by any whitespace. Malformed
//! input is a [`JudgeError`] naming the line and what was expected.

mod input;
mod memory;

use input::Input;
use linkpath_engine::Pages;
use linkpath_engine::{Answer, Board, EMPTY, Point, Preset, Query, Solver, Stop, tile_of_char};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::str::FromStr;

// Peak memory per board cell while answering (RSS over cells, measured on
// 2000 x 2000 and 3000 x 3000 boards: Mahjong 17-19 bytes with its text
// and run graph, Lianliankan about 7 with its numbers as text), rounded up.
// Curling is not measured so: its cells (4 bytes), its text (2 at least)
// and a rink of bits.
const MAHJONG_BYTES_PER_CELL: u64 = 24;
const LIANLIANKAN_BYTES_PER_CELL: u64 = 8;
const CURLING_BYTES_PER_CELL: u64 = 8;

/// The judge formats `linkpath judge` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Format {
    /// One Mahjong board (`w h`, rows, pairs ended by `0 0 0 0`); prints each
    /// pair's segment count, or 0.
    Mahjong,
    /// POJ 1101: Mahjong boards until `0 0`, answered in `Board #n:` blocks.
    Poj1101,
    /// HDU 1175: Lianliankan cases until `0 0`; prints YES or NO per query.
    Hdu1175,
    /// POJ 3009: Curling datasets until `0 0`; prints the throws or -1.
    Poj3009,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::Mahjong,
        Format::Poj1101,
        Format::Hdu1175,
        Format::Poj3009,
    ];

    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown judge format {s:?}, expected mahjong, poj1101, hdu1175 or poj3009")
            })
    }
}

/// Malformed judge input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct JudgeError {
    pub line: usize,
    pub message: String,
}

/// Answers a whole judge input in `format`, returning the judge's output.
///
/// ```
/// use linkpath_formats::judge::{run, Format};
/// let input = "5 4\nXXXXX\nX   X\nXXX X\n XXX \n2 3 5 3\n1 3 4 4\n2 3 3 4\n0 0 0 0\n";
/// assert_eq!(run(Format::Mahjong, input.as_bytes()).unwrap(), "4\n3\n0\n");
/// ```
pub fn run(format: Format, input: &[u8]) -> Result<String, JudgeError> {
    let mut input = Input::new(input);
    let mut out = String::new();
    match format {
        Format::Mahjong => {
            mahjong_board(&mut input, |_, answer| {
                let _ = writeln!(out, "{}", answer.segments().unwrap_or(0));
            })?;
            if !input.at_end() {
                return Err(input.error("expected the end of input after the pairs' 0 0 0 0"));
            }
        }
        Format::Poj1101 => poj1101(&mut input, &mut out)?,
        Format::Hdu1175 => hdu1175(&mut input, &mut out)?,
        Format::Poj3009 => poj3009(&mut input, &mut out)?,
    }
    Ok(out)
}

/// Reads one Mahjong board and its pairs, then answers the pairs in order.
/// Returns false when the input ended (at `0 0` or at its end) instead.
fn mahjong_board(
    input: &mut Input,
    mut answered: impl FnMut(usize, &Answer),
) -> Result<bool, JudgeError> {
    let Some((width, height)) = dimensions(input, "the board width", "the board height")? else {
        return Ok(false);
    };
    let mut cells = board_cells(input, width, height, MAHJONG_BYTES_PER_CELL, 0)?;
    let mut rows = Vec::with_capacity(height);
    for y in 0..height {
        let row = input.row(&format!("row {} of the board", y + 1))?;
        // A row of at most `width` bytes has at most `width` characters.
        if row.len() > width {
            let found = row.chars().count();
            if found > width {
                return Err(input.error(format!(
                    "row {} has {found} cells, expected at most {width}",
                    y + 1
                )));
            }
        }
        if let Some(column) = control_column(row) {
            let c = row.chars().nth(column).expect("the column is in the row");
            return Err(input.error(format!(
                "row {} has U+{:04X}, a control character, at column {}, expected a tile character, or a space for empty",
                y + 1,
                u32::from(c),
                column + 1
            )));
        }
        rows.push(row);
    }
    // The rows are checked: fill the cells, a big board's on every core
    // (reading the characters, and the first writes of the pages).
    let fill = |(slots, row): (&mut [u32], &&str)| {
        for (slot, c) in slots.iter_mut().zip(row.chars()) {
            *slot = tile_of_char(c);
        }
    };
    if width * height < 1 << 16 {
        cells.chunks_mut(width).zip(&rows).for_each(fill);
    } else {
        cells.par_chunks_mut(width).zip(&rows).for_each(fill);
    }
    let board = Board::with_cells(width, height, cells).map_err(|e| input.error(e.to_string()))?;
    let mut queries = Vec::new();
    loop {
        if input.at_end() {
            break;
        }
        let line = input.line();
        let x1 = input.number("x1 of a pair")?;
        let y1 = input.number("y1 of a pair")?;
        let x2 = input.number("x2 of a pair")?;
        let y2 = input.number("y2 of a pair")?;
        if [x1, y1, x2, y2] == [0; 4] {
            break;
        }
        let from = one_based(&board, x1, y1, line)?;
        let to = one_based(&board, x2, y2, line)?;
        queries.push(Query::new(from, to));
    }
    // The judges print counts: no need to work out paths. All pairs at
    // once, so a big board's searches run on every core.
    let answers = Solver::new(&board, Preset::Mahjong.rules())
        .without_paths()
        .answer_all(&queries, &Stop::never())
        .expect("an unbounded stop never interrupts");
    for (pair, answer) in answers.iter().enumerate() {
        answered(pair + 1, answer);
    }
    Ok(true)
}

/// The column (from 0, in characters) of the first control character of
/// a Mahjong row: a tab or the like is no tile anyone can see, and would
/// be read as a tile type of its own. A line's `\r` is gone already.
fn control_column(row: &str) -> Option<usize> {
    // Most rows are printable ASCII: one pass over the bytes. A C1 control
    // (U+0080 to U+009F) starts with 0xC2.
    if !row.bytes().any(|b| b.is_ascii_control() || b == 0xC2) {
        return None;
    }
    row.chars().position(char::is_control)
}

/// A board header's two sizes; `None` at the end of the input or at the
/// `0 0` that ends it. One zero alone is an error.
fn dimensions(
    input: &mut Input,
    first: &str,
    second: &str,
) -> Result<Option<(usize, usize)>, JudgeError> {
    if input.at_end() {
        return Ok(None);
    }
    let a = input.size(first)?;
    let b = input.size(second)?;
    match (a, b) {
        (0, 0) => Ok(None),
        (0, _) | (_, 0) => Err(input.error(format!(
            "the board is {a} x {b}, expected at least one row and one column"
        ))),
        sizes => Ok(Some(sizes)),
    }
}

/// Room for a `width × height` board's cells, or an error naming the size
/// when the board cannot be answered in the memory left (rather than dying
/// out of memory part-way). `bytes_per_cell` is the whole answer's working
/// set: the cells, the engine's arrays, the input text; `held` is what the
/// input's earlier boards still hold, by the same measure.
fn board_cells(
    input: &Input,
    width: usize,
    height: usize,
    bytes_per_cell: u64,
    held: u64,
) -> Result<Pages<u32>, JudgeError> {
    let too_large = || input.error(format!("a {width} x {height} board does not fit in memory"));
    let total = width.checked_mul(height).ok_or_else(too_large)?;
    // The allocator, or the kernel's overcommit, may hand out address space
    // the machine cannot back (jemalloc maps with MAP_NORESERVE; big cells
    // are an mmap of their own, see `Pages`), so ask the kernel first (what
    // earlier boards hold is already out of what it reports); not while the
    // input's boards are small, where reading /proc for each would cost
    // more than the answers.
    let needed = (total as u64).saturating_mul(bytes_per_cell);
    if needed.saturating_add(held) > 64 << 20
        && needed > memory::available_bytes().unwrap_or(u64::MAX)
    {
        return Err(too_large());
    }
    // Every cell starts empty; the formats write the tiles.
    const _: () = assert!(EMPTY == 0);
    Pages::try_zeroed(total).ok_or_else(too_large)
}

/// The 0-based point of 1-based `(column, row)` judge coordinates.
fn one_based(board: &Board, column: i64, row: i64, line: usize) -> Result<Point, JudgeError> {
    let point = Point::new(
        (column - 1).clamp(-1, i64::from(i32::MAX)) as i32,
        (row - 1).clamp(-1, i64::from(i32::MAX)) as i32,
    );
    if board.contains(point) {
        Ok(point)
    } else {
        Err(JudgeError {
            line,
            message: format!(
                "cell (column {column}, row {row}) is off the {} x {} board, expected columns 1 to {} and rows 1 to {}",
                board.width(),
                board.height(),
                board.width(),
                board.height()
            ),
        })
    }
}

fn poj1101(input: &mut Input, out: &mut String) -> Result<(), JudgeError> {
    for number in 1.. {
        let mut block = format!("Board #{number}:\n");
        let more = mahjong_board(input, |pair, answer| {
            let _ = match answer.segments() {
                Some(k) => writeln!(block, "Pair {pair}: {k} segments."),
                None => writeln!(block, "Pair {pair}: impossible."),
            };
        })?;
        if !more {
            break;
        }
        out.push_str(&block);
        out.push('\n');
    }
    Ok(())
}

fn hdu1175(input: &mut Input, out: &mut String) -> Result<(), JudgeError> {
    while let Some((rows, columns)) = dimensions(input, "the row count n", "the column count m")? {
        let mut cells = board_cells(input, columns, rows, LIANLIANKAN_BYTES_PER_CELL, 0)?;
        for cell in cells.iter_mut() {
            *cell = input.cell("a cell (0 or a tile type)", u32::MAX)?;
        }
        let board =
            Board::with_cells(columns, rows, cells).map_err(|e| input.error(e.to_string()))?;
        let mut solver = Solver::new(&board, Preset::Lianliankan.rules()).without_paths();
        let queries = input.size("the query count q")?;
        for _ in 0..queries {
            let line = input.next_token_line();
            let mut numbers = [0i64; 4];
            for (n, what) in numbers.iter_mut().zip(["x1", "y1", "x2", "y2"]) {
                *n = input.number(&format!("{what} of a query"))?;
            }
            let [x1, y1, x2, y2] = numbers;
            // HDU 1175 gives (row, column).
            let from = one_based(&board, y1, x1, line)?;
            let to = one_based(&board, y2, x2, line)?;
            let answer = solver
                .answer(Query::new(from, to), &Stop::never())
                .expect("an unbounded stop never interrupts");
            out.push_str(match answer {
                Answer::Connected(_) => "YES\n",
                Answer::NotConnected(_) => "NO\n",
            });
        }
    }
    Ok(())
}

fn poj3009(input: &mut Input, out: &mut String) -> Result<(), JudgeError> {
    let mut games = Vec::new();
    // Every board is kept until all are answered.
    let mut held = 0;
    while let Some((width, height)) = dimensions(input, "the board width w", "the board height h")?
    {
        let header = input.line();
        let mut cells = board_cells(input, width, height, CURLING_BYTES_PER_CELL, held)?;
        let total = width * height;
        held += total as u64 * CURLING_BYTES_PER_CELL;
        let (mut start, mut goal) = (None, None);
        for (i, cell) in cells.iter_mut().enumerate() {
            let code = input.cell("a square code (0 vacant, 1 block, 2 start, 3 goal)", 3)?;
            let here = Point::new((i % width) as i32, (i / width) as i32);
            let seen = match code {
                2 => start.replace(here),
                3 => goal.replace(here),
                _ => None,
            };
            if seen.is_some() {
                let what = if code == 2 { "start (2)" } else { "goal (3)" };
                return Err(input.error(format!("a second {what}, expected exactly one")));
            }
            *cell = u32::from(code == 1);
        }
        let (Some(start), Some(goal)) = (start, goal) else {
            return Err(JudgeError {
                line: header,
                message: "the board needs exactly one start (2) and one goal (3)".into(),
            });
        };
        let board =
            Board::with_cells(width, height, cells).map_err(|e| input.error(e.to_string()))?;
        games.push((board, Query::new(start, goal)));
    }
    // Every board is a search of its own: spread them over the cores.
    let answers: Vec<Answer> = games
        .par_iter()
        .map(|(board, query)| {
            Solver::new(board, Preset::Curling.rules())
                .without_paths()
                .answer(*query, &Stop::never())
                .expect("an unbounded stop never interrupts")
        })
        .collect();
    for answer in answers {
        let _ = match answer.segments() {
            Some(throws) => writeln!(out, "{throws}"),
            None => writeln!(out, "-1"),
        };
    }
    Ok(())
}

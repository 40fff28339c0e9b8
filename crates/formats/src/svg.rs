//! SVG pictures of a board and the answers to its queries: the drawing
//! behind `POST /v1/render` and `linkpath render`.
//!
//! Pure string building over solver types, no I/O. The picture is laid out
//! in user units of [`CELL`] per cell, with a one-cell margin all round that
//! holds the ring around the board when the rules let paths use it: the
//! centre of cell `(x, y)` is at [`centre`]. Large boards keep the same
//! layout and are shrunk by the `width`/`height` attributes against the
//! `viewBox`, so stroke widths and labels, given in cell units, scale with
//! the cells and paths stay visible on a 100 × 100 board.
//!
//! ```
//! use linkpath_formats::svg::{self, Labels};
//! use linkpath_engine::{solve, Board, Point, Preset, Query, Stop};
//! let board = Board::from_rows(&["X X"]).unwrap();
//! let rules = Preset::Mahjong.rules();
//! let queries = [Query::new(Point::new(0, 0), Point::new(2, 0))];
//! let answers = solve(&board, &rules, &queries, &Stop::never()).unwrap();
//! let svg = svg::svg(&board, Labels::Chars, &rules, &queries, &answers);
//! assert!(svg.contains(r#"<polyline class="path" points="60,60 140,60""#));
//! ```

use linkpath_engine::{Answer, Board, EMPTY, Movement, Point, Query, Rules};
use std::fmt::Write;

/// The side of one cell, in user units.
pub const CELL: f64 = 40.0;

/// The most pixels the picture asks for along its longer side; beyond it
/// the viewBox scales the drawing down.
const MAX_PIXELS: f64 = 960.0;

/// The most queries listed in the legend under the board; all are drawn.
const MAX_LEGEND: usize = 50;

/// The legend's font size.
const LEGEND_FONT: f64 = CELL * 0.34;

/// Path colours, cycled through by query.
const COLOURS: [&str; 8] = [
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2", "#8c564b",
];

/// The most bytes of SVG that one thing [`drawn`] counts takes, on a
/// board of at most 16,384 cells (the server's default picture limit) with
/// at most 10,000 queries: a tile labelled with a ten-digit number, 260
/// bytes; a query with one segment, about 450 for two; one that does not
/// connect, about 680 for three; each further segment, about 11. Bigger
/// boards and batches have longer coordinates and query numbers.
pub const MAX_BYTES_EACH: usize = 260;

/// The most bytes of SVG besides what [`drawn`] counts: the header, the
/// ring, the board's background and the legend's at most 51 lines.
pub const MAX_BYTES_BESIDES: usize = 10_240;

/// The least a query counts in [`drawn`]: itself and one segment.
pub const LEAST_A_QUERY: usize = 2;

/// How much a picture draws, the measure of its size: one for each cell of
/// the board and one for each query, and for each query one more for each
/// segment of its path, or two for its end marks when it does not connect.
/// `svg` writes at most [`MAX_BYTES_BESIDES`] bytes plus
/// [`MAX_BYTES_EACH`] for each.
///
/// ```
/// use linkpath_formats::svg;
/// use linkpath_engine::{solve, Board, Point, Preset, Query, Stop};
/// let board = Board::from_rows(&["X X", "Y.X"]).unwrap();
/// let queries = [
///     Query::new(Point::new(0, 0), Point::new(2, 0)),
///     Query::new(Point::new(0, 0), Point::new(0, 1)),
/// ];
/// let answers = solve(&board, &Preset::Lianliankan.rules(), &queries, &Stop::never()).unwrap();
/// // 6 cells; a query of one segment; one that does not connect.
/// assert_eq!(svg::drawn(&board, &answers), 6 + 2 + 3);
/// ```
pub fn drawn(board: &Board, answers: &[Answer]) -> usize {
    let queries: usize = answers
        .iter()
        .map(|answer| match answer {
            Answer::Connected(path) => 1 + path.segments as usize,
            Answer::NotConnected(_) => 3,
        })
        .sum();
    board.cells().len() + queries
}

/// How a cell's tile type is written on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labels {
    /// The board came as text rows: a tile is the character it was given as.
    Chars,
    /// The board came as number rows: a tile is its number.
    Numbers,
}

/// The centre of cell `p` in the picture's user units; `p` may be on the
/// ring around the board (`-1`, `width`, `height`).
pub fn centre(p: Point) -> (f64, f64) {
    (
        CELL + (f64::from(p.x) + 0.5) * CELL,
        CELL + (f64::from(p.y) + 0.5) * CELL,
    )
}

/// Draws `board` and, for each query, its answer: a polyline through the
/// path's corner points with its segment count, or its endpoints marked
/// with the reason it does not connect. `answers[i]` answers `queries[i]`.
pub fn svg(
    board: &Board,
    labels: Labels,
    rules: &Rules,
    queries: &[Query],
    answers: &[Answer],
) -> String {
    let (w, h) = (board.width(), board.height());
    let ring = rules.outside && rules.movement == Movement::Line;
    let legend_lines = queries.len().min(MAX_LEGEND) + usize::from(queries.len() > MAX_LEGEND);
    let legend_height = legend_lines as f64 * CELL * 0.5;
    // Wide enough for the legend's longest line too, at about 0.6 em a
    // character.
    let legend_w = legend(queries, answers)
        .map(|(_, text)| text.chars().count() as f64 * LEGEND_FONT * 0.6 + CELL)
        .fold(0.0, f64::max);
    let view_w = ((w as f64 + 2.0) * CELL).max(legend_w);
    let view_h = (h as f64 + 2.0) * CELL + legend_height;
    let scale = (MAX_PIXELS / view_w.max(view_h)).min(1.0);
    let mut out = String::with_capacity(256 + w * h * 120 + queries.len() * 200);
    let _ = write!(
        out,
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {vw} {vh}" width="{pw}" height="{ph}" "#,
            r#"font-family="sans-serif" role="img">"#,
            "\n<title>{w} x {h} board, {q} {queries}</title>\n",
            r##"<rect width="{vw}" height="{vh}" fill="#ffffff"/>"##,
            "\n"
        ),
        vw = num(view_w),
        vh = num(view_h),
        pw = num((view_w * scale).round()),
        ph = num((view_h * scale).round()),
        w = w,
        h = h,
        q = queries.len(),
        queries = if queries.len() == 1 {
            "query"
        } else {
            "queries"
        },
    );
    if ring {
        let _ = writeln!(
            out,
            r##"<rect class="ring" x="{o}" y="{o}" width="{rw}" height="{rh}" fill="none" stroke="#9aa5b1" stroke-width="{sw}" stroke-dasharray="{d} {d}"/>"##,
            o = num(CELL * 0.02),
            rw = num((w as f64 + 2.0) * CELL - CELL * 0.04),
            rh = num((h as f64 + 2.0) * CELL - CELL * 0.04),
            sw = num(CELL * 0.04),
            d = num(CELL * 0.15),
        );
    }
    draw_cells(&mut out, board, labels);
    for (i, (query, answer)) in queries.iter().zip(answers).enumerate() {
        draw_answer(&mut out, i, query, answer);
    }
    draw_legend(&mut out, queries, answers, (h as f64 + 2.0) * CELL);
    out.push_str("</svg>\n");
    out
}

fn draw_cells(out: &mut String, board: &Board, labels: Labels) {
    let (w, h) = (board.width(), board.height());
    let _ = writeln!(
        out,
        r##"<rect class="board" x="{CELL}" y="{CELL}" width="{bw}" height="{bh}" fill="#f4f1ea"/>"##,
        bw = num(w as f64 * CELL),
        bh = num(h as f64 * CELL),
    );
    let font = CELL * 0.55;
    for (i, &cell) in board.cells().iter().enumerate() {
        let (x, y) = ((i % w) as i32, (i / w) as i32);
        let (cx, cy) = centre(Point::new(x, y));
        let (left, top) = (cx - CELL / 2.0, cy - CELL / 2.0);
        if cell == EMPTY {
            let _ = writeln!(
                out,
                r##"<rect class="empty" x="{}" y="{}" width="{s}" height="{s}" fill="none" stroke="#e2dccf" stroke-width="{sw}"/>"##,
                num(left + CELL * 0.05),
                num(top + CELL * 0.05),
                s = num(CELL * 0.9),
                sw = num(CELL * 0.02),
            );
            continue;
        }
        let label = label(cell, labels);
        let chars = label.chars().count().max(1) as f64;
        let size = if chars <= 2.0 {
            font
        } else {
            font * 2.0 / chars
        };
        let _ = writeln!(
            out,
            concat!(
                r##"<g class="tile"><rect x="{}" y="{}" width="{s}" height="{s}" rx="{r}" fill="#fffdf6" stroke="#6b5e4b" stroke-width="{sw}"/>"##,
                r##"<text x="{}" y="{}" font-size="{}" text-anchor="middle" dominant-baseline="central" fill="#3b3024">{}</text></g>"##
            ),
            num(left + CELL * 0.06),
            num(top + CELL * 0.06),
            num(cx),
            num(cy),
            num(size),
            escape(&label),
            s = num(CELL * 0.88),
            r = num(CELL * 0.12),
            sw = num(CELL * 0.04),
        );
    }
}

fn draw_answer(out: &mut String, i: usize, query: &Query, answer: &Answer) {
    let colour = COLOURS[i % COLOURS.len()];
    match answer {
        Answer::Connected(path) => {
            let points: Vec<String> = path
                .corners
                .iter()
                .map(|&p| {
                    let (x, y) = centre(p);
                    format!("{},{}", num(x), num(y))
                })
                .collect();
            let _ = writeln!(
                out,
                r#"<g class="query connected" data-query="{i}" data-segments="{s}"><polyline class="path" points="{}" fill="none" stroke="{colour}" stroke-width="{sw}" stroke-linejoin="round" stroke-linecap="round" opacity="0.85"/>"#,
                points.join(" "),
                s = path.segments,
                sw = num(CELL * 0.12),
            );
            // The count sits on the start cell's corner, where it hides no
            // segment of its own path.
            let (x, y) = centre(query.from);
            badge(
                out,
                x - CELL * 0.3,
                y - CELL * 0.3,
                colour,
                &path.segments.to_string(),
            );
            out.push_str("</g>\n");
        }
        Answer::NotConnected(reason) => {
            let _ = writeln!(
                out,
                r#"<g class="query not-connected" data-query="{i}" data-reason="{}">"#,
                reason.name()
            );
            for p in [query.from, query.to] {
                let (x, y) = centre(p);
                let _ = writeln!(
                    out,
                    r#"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="{colour}" stroke-width="{}" stroke-dasharray="{d} {d}"/>"#,
                    num(x),
                    num(y),
                    num(CELL * 0.42),
                    num(CELL * 0.08),
                    d = num(CELL * 0.12),
                );
            }
            let (x, y) = centre(query.from);
            badge(out, x - CELL * 0.3, y - CELL * 0.3, colour, "×");
            let _ = writeln!(
                out,
                r##"<text class="reason" x="{}" y="{}" font-size="{}" fill="{colour}" stroke="#ffffff" stroke-width="{}" paint-order="stroke">{}</text>"##,
                num(x - CELL * 0.45),
                num(y + CELL * 0.75),
                num(CELL * 0.3),
                num(CELL * 0.06),
                reason.name(),
            );
            out.push_str("</g>\n");
        }
    }
}

/// A small filled disc with `text` on it.
fn badge(out: &mut String, x: f64, y: f64, colour: &str, text: &str) {
    let _ = writeln!(
        out,
        r##"<circle class="badge" cx="{x}" cy="{y}" r="{r}" fill="{colour}"/><text class="segments" x="{x}" y="{y}" font-size="{fs}" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#ffffff">{text}</text>"##,
        x = num(x),
        y = num(y),
        r = num(CELL * 0.22),
        fs = num(CELL * 0.28),
        text = escape(text),
    );
}

/// The legend's lines: each listed query's index and text.
fn legend<'a>(
    queries: &'a [Query],
    answers: &'a [Answer],
) -> impl Iterator<Item = (usize, String)> + 'a {
    let listed = queries
        .iter()
        .zip(answers)
        .enumerate()
        .take(MAX_LEGEND)
        .map(|(i, (query, answer))| {
            let what = match answer {
                Answer::Connected(path) => match path.segments {
                    1 => "1 segment".to_owned(),
                    n => format!("{n} segments"),
                },
                Answer::NotConnected(reason) => format!("not connected: {reason}"),
            };
            let (from, to) = (query.from, query.to);
            let text = format!(
                "query {i}: [{}, {}] to [{}, {}], {what}",
                from.x, from.y, to.x, to.y
            );
            (i, text)
        });
    let more = (queries.len() > MAX_LEGEND).then(|| {
        (
            MAX_LEGEND,
            format!(
                "and {} more queries, drawn but not listed",
                queries.len() - MAX_LEGEND
            ),
        )
    });
    listed.chain(more)
}

fn draw_legend(out: &mut String, queries: &[Query], answers: &[Answer], top: f64) {
    for (i, text) in legend(queries, answers) {
        let colour = if i < MAX_LEGEND {
            COLOURS[i % COLOURS.len()]
        } else {
            "#555555"
        };
        let _ = writeln!(
            out,
            r#"<text class="legend" x="{}" y="{}" font-size="{}" fill="{colour}">{}</text>"#,
            num(CELL * 0.5),
            num(top + CELL * 0.5 * (i as f64 + 0.75)),
            num(LEGEND_FONT),
            escape(&text),
        );
    }
}

/// The text written on a tile. Characters XML cannot hold (most control
/// characters) are written as their code point.
fn label(cell: u32, labels: Labels) -> String {
    match labels {
        Labels::Numbers => cell.to_string(),
        Labels::Chars => match char::from_u32(cell) {
            Some(c) if xml_char(c) && !c.is_whitespace() => c.to_string(),
            _ => format!("U+{cell:04X}"),
        },
    }
}

/// Whether XML 1.0 allows `c` in text.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Escapes text for an XML text node or attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// A coordinate without a trailing `.0`, at most two decimals.
fn num(v: f64) -> String {
    let rounded = (v * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded}")
    }
}

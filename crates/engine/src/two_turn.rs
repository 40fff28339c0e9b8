//! Paths of at most three segments (two turns), found by checking shapes
//! instead of searching: a straight line, the two L corners, and every Z or
//! U whose middle segment lies on some row or column. With [`Lines`] each
//! shape costs O(1), so a query costs O(width + height), plus labelling the
//! rows and columns it is the first of its batch to ask about.

use super::grid::Grid;
use super::lines::Lines;

/// A path found by shape: its segment count, length and padded corner cells
/// from `a` to `b` inclusive.
#[derive(Debug)]
pub(crate) struct Shape {
    pub segments: u32,
    pub corners: Vec<(usize, usize)>,
}

/// The path from tile `a` to tile `b` with the fewest segments, at most
/// `max_segments` (capped at 3), and among those the shortest; `None` when
/// no such path has three segments or fewer.
pub(crate) fn shortest(
    grid: &Grid,
    lines: &mut Lines,
    a: usize,
    b: usize,
    max_segments: u32,
) -> Option<Shape> {
    let w = grid.width;
    let (a, b) = ((a % w, a / w), (b % w, b / w));
    let open = |(x, y): (usize, usize)| grid.open[y * w + x];

    if max_segments == 0 {
        return None;
    }
    if (a.0 == b.0 || a.1 == b.1) && lines.between_clear(grid, a, b) {
        return Some(Shape {
            segments: 1,
            corners: vec![a, b],
        });
    }
    if max_segments == 1 {
        return None;
    }
    if a.0 != b.0 && a.1 != b.1 {
        // Both corners give the same length; the horizontal-first one wins.
        for corner in [(b.0, a.1), (a.0, b.1)] {
            if open(corner)
                && lines.between_clear(grid, a, corner)
                && lines.between_clear(grid, corner, b)
            {
                return Some(Shape {
                    segments: 2,
                    corners: vec![a, corner, b],
                });
            }
        }
    }
    if max_segments == 2 {
        return None;
    }

    // Three segments: a middle segment on row `r` from (a.x, r) to (b.x, r),
    // or on column `c` from (c, a.y) to (c, b.y). Keep the shortest; the
    // first found wins a tie (rows top-down, then columns left to right).
    let mut best: Option<(usize, [(usize, usize); 2])> = None;
    let mut consider = |length: usize, p, q| {
        if best.is_none_or(|(l, _)| length < l) {
            best = Some((length, [p, q]));
        }
    };
    if a.0 != b.0 {
        let across = a.0.abs_diff(b.0);
        for r in 1..grid.height - 1 {
            if r == a.1 || r == b.1 {
                continue;
            }
            let (p, q) = ((a.0, r), (b.0, r));
            // The legs first: they stay on two columns, while each middle
            // row is labelled when first asked about.
            if open(p)
                && open(q)
                && lines.between_clear(grid, a, p)
                && lines.between_clear(grid, q, b)
                && lines.row_clear(grid, r, a.0, b.0)
            {
                consider(across + a.1.abs_diff(r) + b.1.abs_diff(r), p, q);
            }
        }
    }
    if a.1 != b.1 {
        let down = a.1.abs_diff(b.1);
        for c in 1..w - 1 {
            if c == a.0 || c == b.0 {
                continue;
            }
            let (p, q) = ((c, a.1), (c, b.1));
            if open(p)
                && open(q)
                && lines.between_clear(grid, a, p)
                && lines.between_clear(grid, q, b)
                && lines.col_clear(grid, c, a.1, b.1)
            {
                consider(down + a.0.abs_diff(c) + b.0.abs_diff(c), p, q);
            }
        }
    }
    best.map(|(_, [p, q])| Shape {
        segments: 3,
        corners: vec![a, p, q, b],
    })
}

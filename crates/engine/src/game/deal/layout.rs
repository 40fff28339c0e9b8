//! Which cells of the board a deal puts its tiles on: the cells of a
//! layout sent (holes, pillars, islands, any shape), or else the bottom
//! rows of the rectangle, turned to the gravity side when the deal settles.

use super::DealError;
use crate::game::gravity::{Fall, Gravity};
use crate::rng::SplitMix64;
use crate::{Point, Stop};

/// The cells that take the deal's `total` tiles, in reading order: the
/// deal's `layout` when it has one (checked), else [`rows`].
pub(super) fn cells(
    width: usize,
    height: usize,
    layout: Option<&[usize]>,
    total: usize,
    fall: Fall,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Vec<usize>, DealError> {
    let Some(layout) = layout else {
        let cells = width * height;
        if total > cells {
            return Err(DealError::TooMany {
                tiles: total,
                cells,
            });
        }
        return Ok(rows(width, height, total, fall, rng));
    };
    checked(width, height, layout, total, fall, stop)?;
    Ok(layout.to_vec())
}

/// Checks a layout: distinct cells of the board in reading order, one for
/// each tile, and, when every line settles, none floating, since the first
/// removal would move every tile off a floating cell at once.
fn checked(
    width: usize,
    height: usize,
    layout: &[usize],
    total: usize,
    fall: Fall,
    stop: &Stop,
) -> Result<(), DealError> {
    let cells = width * height;
    let ordered = layout.windows(2).all(|w| w[0] < w[1]);
    if !ordered || layout.last().is_some_and(|&last| last >= cells) {
        return Err(DealError::LayoutCells);
    }
    if layout.len() != total {
        return Err(DealError::LayoutCount {
            tiles: total,
            cells: layout.len(),
        });
    }
    if !fall.settle {
        return Ok(());
    }
    let mut marked = vec![false; cells];
    for &i in layout {
        marked[i] = true;
    }
    // Settled when every marked cell rests on a marked cell or the edge,
    // toward the gravity side.
    let (dx, dy): (i64, i64) = match fall.gravity {
        Gravity::None => return Ok(()),
        Gravity::Down => (0, 1),
        Gravity::Up => (0, -1),
        Gravity::Left => (-1, 0),
        Gravity::Right => (1, 0),
    };
    let mut work = 0;
    for &i in layout {
        stop.tick(&mut work)?;
        let (x, y) = ((i % width) as i64, (i / width) as i64);
        let (nx, ny) = (x + dx, y + dy);
        let edge = nx < 0 || ny < 0 || nx >= width as i64 || ny >= height as i64;
        if !edge && !marked[ny as usize * width + nx as usize] {
            return Err(DealError::Floating {
                cell: Point::new(x as i32, y as i32),
                gravity: fall.gravity,
            });
        }
    }
    Ok(())
}

/// The bottom rows full, the cells of a partly filled top row drawn from
/// `rng`; in reading order. With [`Fall::settle`] the same cells turned to
/// stand on the gravity side.
fn rows(width: usize, height: usize, total: usize, fall: Fall, rng: &mut SplitMix64) -> Vec<usize> {
    let side = if fall.settle {
        fall.gravity
    } else {
        Gravity::Down
    };
    // Left and right: laid on the board turned a quarter, rows for columns.
    let (w, h) = match side {
        Gravity::Left | Gravity::Right => (height, width),
        _ => (width, height),
    };
    let full_rows = total / w;
    let mut occupied: Vec<usize> = ((h - full_rows) * w..w * h).collect();
    if !total.is_multiple_of(w) {
        let row = h - full_rows - 1;
        let mut top: Vec<usize> = (row * w..(row + 1) * w).collect();
        rng.shuffle(&mut top);
        occupied.extend(&top[..total % w]);
    }
    let mut occupied: Vec<usize> = occupied
        .into_iter()
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let (x, y) = match side {
                Gravity::Up => (x, h - 1 - y),
                // The bottom row of the turned board is the right column.
                Gravity::Right => (y, x),
                Gravity::Left => (h - 1 - y, x),
                Gravity::Down | Gravity::None => (x, y),
            };
            y * width + x
        })
        .collect();
    occupied.sort_unstable();
    occupied
}

//! The breadth-first search by layers of segments that both the explorer
//! ([`super::moves`]) and the pair-by-pair grid ([`super::link`]) walk
//! when a path may have more segments than two shapes cover.
//!
//! Layer `s` holds the open cells first reached with `s` segments, and each
//! of them walks its four rays, passing through cells of the same layer
//! and stopping at a cell of an earlier one (whose own rays cover the rest
//! of that line). A ray that ends on a closed cell reaches it with `s`
//! segments.

use crate::{Interrupted, Stop};

const UNSET: u32 = u32::MAX;

/// The search over one padded grid, and its scratch kept between searches.
pub(crate) struct Layers {
    /// The grid's width: a step along a column.
    width: usize,
    /// Segments to reach each cell, [`UNSET`] for not yet reached.
    dist: Vec<u32>,
    touched: Vec<usize>,
    layer: Vec<usize>,
    next: Vec<usize>,
}

impl Layers {
    /// The search over a grid `width` cells wide.
    pub fn new(width: usize) -> Self {
        Layers {
            width,
            dist: Vec::new(),
            touched: Vec::new(),
            layer: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Explores from cell `start` of the grid (`open` cells, a closed ring
    /// around them) with at most `max` segments. Each closed cell a ray ends on is given to `end`, and the
    /// search stops as soon as `end` returns true. `stop` is polled at each
    /// cell of a layer, and `work` counts the cells each ray walks too.
    /// Whether `end` stopped it.
    pub fn explore(
        &mut self,
        open: &[bool],
        start: usize,
        max: u32,
        stop: &Stop,
        work: &mut u32,
        mut end: impl FnMut(usize) -> bool,
    ) -> Result<bool, Interrupted> {
        if self.dist.len() != open.len() {
            self.dist = vec![UNSET; open.len()];
        }
        let w = self.width as isize;
        let steps = [1, w, -1, -w];
        self.layer.clear();
        self.layer.push(start);
        self.dist[start] = 0;
        self.touched.push(start);
        let mut segments = 1;
        let mut outcome = Ok(false);
        'layers: while segments <= max && !self.layer.is_empty() {
            self.next.clear();
            for &cell in &self.layer {
                if let Err(e) = stop.tick(work) {
                    outcome = Err(e);
                    break 'layers;
                }
                for step in steps {
                    let mut n = cell.wrapping_add_signed(step);
                    let from = n;
                    loop {
                        if !open[n] {
                            if end(n) {
                                outcome = Ok(true);
                                break 'layers;
                            }
                            break;
                        }
                        let d = self.dist[n];
                        if d < segments {
                            break;
                        }
                        if d == UNSET {
                            self.dist[n] = segments;
                            self.touched.push(n);
                            self.next.push(n);
                        }
                        n = n.wrapping_add_signed(step);
                    }
                    // A ray on a wide board walks far: count its cells too,
                    // so the clock is read every few thousand cells walked.
                    *work += (n.abs_diff(from) / step.unsigned_abs()) as u32;
                }
            }
            std::mem::swap(&mut self.layer, &mut self.next);
            segments += 1;
        }
        for &cell in &self.touched {
            self.dist[cell] = UNSET;
        }
        self.touched.clear();
        outcome
    }
}

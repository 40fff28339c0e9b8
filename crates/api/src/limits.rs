//! The limits a request is checked against while it is decoded and
//! answered.

/// Request limits; the server's settings of the same names set them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_cells: usize,
    pub max_side: usize,
    pub max_queries: usize,
    pub max_segments: u32,
    /// Most moves `/v1/moves` lists.
    pub max_moves: usize,
    /// Most a picture draws: the board's cells, and each query with its
    /// path's segments or its end marks ([`linkpath_formats::svg::drawn`]).
    pub max_render_cells: usize,
    /// Whether `max_cells` is the picture limit, for the message.
    pub picture: bool,
}

impl Default for Limits {
    /// The server's defaults.
    fn default() -> Self {
        Limits {
            max_cells: 1 << 20,
            max_side: 1 << 16,
            max_queries: 10_000,
            max_segments: 100_000,
            max_moves: 10_000,
            max_render_cells: 16_384,
            picture: false,
        }
    }
}

impl Limits {
    /// The limits of a board to draw: no more cells than a picture may have.
    pub fn for_pictures(&self) -> Limits {
        Limits {
            max_cells: self.max_cells.min(self.max_render_cells),
            picture: true,
            ..self.clone()
        }
    }
}

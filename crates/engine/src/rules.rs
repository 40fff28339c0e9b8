//! The rules a query is answered under, and the classic presets.

use std::fmt;
use std::str::FromStr;

/// How a path moves between two cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Movement {
    /// Straight segments through empty cells, turning at any empty cell.
    Line,
    /// Curling physics: a throw slides until it hits a block, which breaks.
    Slide,
}

/// Which pairs of tiles may be joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Match {
    /// Any two tiles.
    Any,
    /// Only two tiles of the same type.
    Same,
}

/// The rules of one puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub movement: Movement,
    /// The most segments (throws for `slide`) a path may have; `None` is no
    /// limit.
    pub max_segments: Option<u32>,
    /// Whether a `line` path may use the ring of cells around the board.
    /// `slide` movement never leaves the board: a stone that does is lost.
    pub outside: bool,
    /// Which tiles may be joined (`line` movement only).
    pub matching: Match,
}

impl Rules {
    /// Whether every query is answered by checking path shapes, with no
    /// search: `line` movement with at most three segments (two turns).
    pub fn needs_no_search(&self) -> bool {
        self.movement == Movement::Line && self.max_segments.is_some_and(|m| m <= 3)
    }
}

/// The named rule sets of the classic puzzles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Preset {
    /// "The Game", POJ 1101: any turns, may leave the board, any two tiles.
    Mahjong,
    /// Two turns, through the ring around the board, same type.
    ShisenSho,
    /// HDU 1175: two turns, inside the board, same type.
    Lianliankan,
    /// POJ 3009: sliding stones, at most 10 throws.
    Curling,
}

impl Preset {
    pub const ALL: [Preset; 4] = [
        Preset::Mahjong,
        Preset::ShisenSho,
        Preset::Lianliankan,
        Preset::Curling,
    ];

    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn rules(self) -> Rules {
        let line = |max_segments, outside, matching| Rules {
            movement: Movement::Line,
            max_segments,
            outside,
            matching,
        };
        match self {
            Preset::Mahjong => line(None, true, Match::Any),
            Preset::ShisenSho => line(Some(3), true, Match::Same),
            Preset::Lianliankan => line(Some(3), false, Match::Same),
            Preset::Curling => Rules {
                movement: Movement::Slide,
                max_segments: Some(10),
                outside: false,
                matching: Match::Any,
            },
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A preset name that is not one of [`Preset::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown preset {0:?}, expected one of mahjong, shisen-sho, lianliankan, curling")]
pub struct UnknownPreset(pub String);

impl FromStr for Preset {
    type Err = UnknownPreset;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPreset(s.to_owned()))
    }
}

impl From<Preset> for Rules {
    fn from(preset: Preset) -> Self {
        preset.rules()
    }
}

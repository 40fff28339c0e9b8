//! Matching groups: sets of tile types that match one another, as in the
//! "Chinese style" matching of KShisen (the four seasons, the four
//! flowers).
//!
//! Matching by group is an equivalence relation, so it is answered as
//! matching by type on the *class board*: each tile replaced by its class,
//! the first type of its group (a type in no group is its own class). That
//! is exact, not an approximation: every search reads a tile's type only to
//! ask whether two tiles match, which on the class board is whether they
//! are in one group; where a path may run depends only on which cells are
//! empty, and the class board has the same empty cells. So a query, a
//! move, a removal with its gravity and a clearing sequence are the same on
//! both boards, and answers on the class board are answers on the real one.
//! Two classes never collide: a group's first type is in that group only,
//! and a type in no group is no group's first type.

use crate::game::rng::SplitMix64;
use crate::{Board, EMPTY, Interrupted, Stop};
use std::borrow::Cow;
use std::collections::HashMap;

/// Tile types grouped into classes that match one another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    /// `(type, class)` for every type in a group, sorted by type.
    classes: Vec<(u32, u32)>,
}

/// Why a list of groups cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroupsError {
    #[error("group {group} is empty, expected at least one tile type")]
    Empty { group: usize },
    #[error("group {group} holds the empty cell, expected tile types")]
    EmptyCell { group: usize },
    #[error("type {kind} is in group {first} and group {second}, expected one group a type")]
    Twice {
        kind: u32,
        first: usize,
        second: usize,
    },
}

impl Groups {
    /// Groups from lists of types. Each list must be non-empty, hold no
    /// [`EMPTY`], and share no type with another (or repeat one).
    ///
    /// ```
    /// use linkpath_engine::{Board, Groups, Stop};
    /// let groups = Groups::new([vec![1, 2, 3], vec![7]]).unwrap();
    /// assert_eq!((groups.class(3), groups.class(7), groups.class(9)), (1, 7, 9));
    /// let board = Board::new(3, 1, vec![2, 0, 3]).unwrap();
    /// assert_eq!(groups.classes(&board, &Stop::never()).unwrap().cells(), [1, 0, 1]);
    /// ```
    pub fn new<G, T>(groups: G) -> Result<Groups, GroupsError>
    where
        G: IntoIterator<Item = T>,
        T: IntoIterator<Item = u32>,
    {
        let mut group_of: HashMap<u32, usize> = HashMap::new();
        let mut classes = Vec::new();
        for (group, kinds) in groups.into_iter().enumerate() {
            let mut first = None;
            for kind in kinds {
                if kind == EMPTY {
                    return Err(GroupsError::EmptyCell { group });
                }
                if let Some(&before) = group_of.get(&kind) {
                    return Err(GroupsError::Twice {
                        kind,
                        first: before,
                        second: group,
                    });
                }
                group_of.insert(kind, group);
                let class = *first.get_or_insert(kind);
                classes.push((kind, class));
            }
            if first.is_none() {
                return Err(GroupsError::Empty { group });
            }
        }
        classes.sort_unstable();
        Ok(Groups { classes })
    }

    /// Whether no type is grouped with another: matching by class is then
    /// matching by type.
    pub fn is_trivial(&self) -> bool {
        self.classes.iter().all(|&(kind, class)| kind == class)
    }

    /// Whether `kind` shares its class with another type.
    pub fn is_grouped(&self, kind: u32) -> bool {
        let class = self.class(kind);
        self.classes
            .iter()
            .any(|&(other, c)| c == class && other != kind)
    }

    /// The class of a cell: the first type of its group, the type itself
    /// when in none, [`EMPTY`] for an empty cell.
    pub fn class(&self, cell: u32) -> u32 {
        match self.classes.binary_search_by_key(&cell, |&(kind, _)| kind) {
            Ok(i) => self.classes[i].1,
            Err(_) => cell,
        }
    }

    /// The class board: every tile replaced by its class. Borrowed when
    /// the groups change nothing.
    pub fn classes<'b>(
        &self,
        board: &'b Board,
        stop: &Stop,
    ) -> Result<Cow<'b, Board>, Interrupted> {
        if self.is_trivial() {
            return Ok(Cow::Borrowed(board));
        }
        // Types up to the largest grouped one by table (text tiles and
        // small numbers), the rest by search.
        let largest = self.classes.last().map_or(0, |&(kind, _)| kind);
        let table: Vec<u32> = if largest < 1 << 16 {
            (0..=largest).map(|kind| self.class(kind)).collect()
        } else {
            Vec::new()
        };
        let mut cells = Vec::with_capacity(board.cells().len());
        for chunk in board.cells().chunks(Stop::POLL_EVERY as usize) {
            stop.check()?;
            cells.extend(chunk.iter().map(|&cell| match table.get(cell as usize) {
                Some(&class) => class,
                None if cell > largest => cell,
                None => self.class(cell),
            }));
        }
        Ok(Cow::Owned(
            Board::new(board.width(), board.height(), cells).expect("same size"),
        ))
    }

    /// `(type, count)` lists merged by class: each class in the order its
    /// first type comes, with the count of all its types. A list with no
    /// two types of one class comes back as it is.
    pub fn class_counts(&self, kinds: &[(u32, usize)]) -> Vec<(u32, usize)> {
        let mut merged: Vec<(u32, usize)> = Vec::new();
        let mut at: HashMap<u32, usize> = HashMap::new();
        for &(kind, count) in kinds {
            let class = self.class(kind);
            match at.get(&class) {
                Some(&i) => merged[i].1 += count,
                None => {
                    at.insert(class, merged.len());
                    merged.push((class, count));
                }
            }
        }
        merged
    }

    /// The board with `tiles` (real types) put on `classes` (a class
    /// board): each cell gets a tile of its class, the tiles of a class in
    /// an order drawn from `seed`. `tiles` must hold, for every class, as
    /// many tiles of that class as `classes` has cells of it.
    ///
    /// # Panics
    /// When `tiles` and `classes` do not hold the same classes.
    pub fn assign(
        &self,
        classes: &Board,
        tiles: impl IntoIterator<Item = u32>,
        seed: u64,
        stop: &Stop,
    ) -> Result<Board, Interrupted> {
        let mut work = 0;
        let mut of_class: HashMap<u32, Vec<u32>> = HashMap::new();
        for tile in tiles {
            stop.tick(&mut work)?;
            of_class.entry(self.class(tile)).or_default().push(tile);
        }
        // Shuffled in the order of the classes, so the board is the same
        // on every run whatever the map's order.
        let mut order: Vec<u32> = of_class.keys().copied().collect();
        order.sort_unstable();
        let mut rng = SplitMix64::new(seed ^ 0x6A09_E667_F3BC_C908);
        for class in order {
            let list = of_class.get_mut(&class).expect("a class listed");
            list.sort_unstable();
            rng.shuffle(list);
        }
        let mut cells = Vec::with_capacity(classes.cells().len());
        for &class in classes.cells() {
            stop.tick(&mut work)?;
            cells.push(match class {
                EMPTY => EMPTY,
                class => of_class
                    .get_mut(&class)
                    .and_then(Vec::pop)
                    .expect("a tile of each class cell"),
            });
        }
        debug_assert!(of_class.values().all(Vec::is_empty), "tiles left over");
        Ok(Board::new(classes.width(), classes.height(), cells).expect("same size"))
    }
}

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

use crate::board::{Board, EMPTY};
use crate::rng::SplitMix64;
use crate::stop::{Interrupted, Stop};
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
        // Every type with its place in the lists, and each group's end and
        // first type: flat, a few bytes a type, where a map of types to
        // groups took tens (a million groups of one type come in a body of
        // about 9 MB).
        let groups = groups.into_iter();
        // Sized once where the groups are counted: grown by doubling, the
        // arrays left as many bytes again behind them, which the allocator
        // keeps a while.
        let count = groups.size_hint().0;
        let mut listed: Vec<(u32, u32)> = Vec::with_capacity(count);
        let mut ends: Vec<u32> = Vec::with_capacity(count);
        let mut firsts: Vec<u32> = Vec::with_capacity(count);
        let mut refused = None;
        'groups: for (group, kinds) in groups.enumerate() {
            let mut first = None;
            for kind in kinds {
                if kind == EMPTY {
                    refused = Some(GroupsError::EmptyCell { group });
                    break 'groups;
                }
                let place = u32::try_from(listed.len()).expect("fewer than 2^32 grouped types");
                listed.push((kind, place));
                first.get_or_insert(kind);
            }
            let Some(first) = first else {
                refused = Some(GroupsError::Empty { group });
                break;
            };
            ends.push(listed.len() as u32);
            firsts.push(first);
        }
        // Sorted by type, then place: a type listed twice is two neighbours,
        // the first of them where it was first listed.
        listed.sort_unstable();
        let group_of = |place: u32| ends.partition_point(|&end| end <= place);
        // The second listing met first, as reading the lists in order
        // meets it; it comes before any error found while reading.
        let twice = listed
            .windows(2)
            .filter(|pair| pair[0].0 == pair[1].0)
            .min_by_key(|pair| pair[1].1);
        if let Some(&[(kind, first), (_, second)]) = twice {
            return Err(GroupsError::Twice {
                kind,
                first: group_of(first),
                second: group_of(second),
            });
        }
        if let Some(error) = refused {
            return Err(error);
        }
        for entry in &mut listed {
            entry.1 = firsts[group_of(entry.1)];
        }
        Ok(Groups { classes: listed })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(groups: &[&[u32]]) -> GroupsError {
        Groups::new(groups.iter().map(|g| g.iter().copied())).unwrap_err()
    }

    #[test]
    fn the_first_mistake_in_reading_order_is_named() {
        // A type listed again in a later group, and within its own.
        assert_eq!(
            refused(&[&[1, 2], &[3], &[4, 2]]),
            GroupsError::Twice {
                kind: 2,
                first: 0,
                second: 2
            }
        );
        assert_eq!(
            refused(&[&[1, 5, 1]]),
            GroupsError::Twice {
                kind: 1,
                first: 0,
                second: 0
            }
        );
        // Of two types listed twice, the one whose second listing is read
        // first, though its type is larger and its first listing later.
        assert_eq!(
            refused(&[&[1, 7], &[9, 1, 7], &[2, 9]]),
            GroupsError::Twice {
                kind: 1,
                first: 0,
                second: 1
            }
        );
        assert_eq!(
            refused(&[&[1, 7], &[9, 7, 1]]),
            GroupsError::Twice {
                kind: 7,
                first: 0,
                second: 1
            }
        );
        // An empty group or an empty cell against a type listed twice:
        // whichever comes first.
        assert_eq!(refused(&[&[1], &[], &[1]]), GroupsError::Empty { group: 1 });
        assert_eq!(
            refused(&[&[1], &[1], &[]]),
            GroupsError::Twice {
                kind: 1,
                first: 0,
                second: 1
            }
        );
        assert_eq!(
            refused(&[&[1, 2], &[3, EMPTY, 2]]),
            GroupsError::EmptyCell { group: 1 }
        );
        assert_eq!(
            refused(&[&[1, 2], &[2, EMPTY]]),
            GroupsError::Twice {
                kind: 2,
                first: 0,
                second: 1
            }
        );
    }

    #[test]
    fn each_type_is_in_the_class_of_its_groups_first_type() {
        let groups = Groups::new([vec![9, 3, 5], vec![4], vec![8, 1]]).unwrap();
        assert_eq!(
            groups.classes,
            [(1, 8), (3, 9), (4, 4), (5, 9), (8, 8), (9, 9)]
        );
        assert!(groups.is_grouped(5) && !groups.is_grouped(4) && !groups.is_grouped(2));
        let many = Groups::new((1..=100_000).map(|kind| [kind])).unwrap();
        assert!(many.is_trivial());
        assert_eq!(many.class(77_777), 77_777);
    }
}

//! Zeroed arrays for big boards, on transparent huge pages.
//!
//! A million-cell board's arrays (its cells, the run ids) take megabytes,
//! each page first touched once. In 4 KiB pages that is thousands of page
//! faults, and each costs microseconds, more inside a virtual machine: on a
//! 1000 × 1000 Mahjong board they were 15% of the CPU time (BENCHMARKS.md,
//! target 2). Where Linux offers transparent huge pages (`always`, or
//! `madvise` as most distributions ship it), an array of [`HUGE_PAGE`] or more is
//! mapped on its own, aligned to 2 MiB and advised to use them: one fault
//! per 2 MiB. Its memory goes back to the system as soon as it is dropped.
//! Smaller arrays, and other systems, use a `Vec` the allocator zeroes
//! (untouched until written).

use std::fmt;
use std::ops::{Deref, DerefMut};

/// The size of a transparent huge page on x86-64 and most arm64 kernels,
/// and the smallest array given pages of its own.
const HUGE_PAGE: usize = 2 << 20;

/// A fixed-length array of `T`, starting all zeros.
pub struct Pages<T: bytemuck::Pod> {
    store: Store<T>,
}

enum Store<T> {
    Vec(Vec<T>),
    #[cfg(target_os = "linux")]
    Mapped {
        map: memmap2::MmapMut,
        /// Bytes before the first 2 MiB boundary of the mapping.
        skip: usize,
        len: usize,
    },
}

impl<T: bytemuck::Pod> Pages<T> {
    /// `len` zeros; `None` when the system cannot give that much memory
    /// (below [`HUGE_PAGE`], the process aborts instead, as `vec!` does).
    pub fn try_zeroed(len: usize) -> Option<Self> {
        let bytes = len.checked_mul(size_of::<T>())?;
        if bytes >= HUGE_PAGE {
            #[cfg(target_os = "linux")]
            return Self::mapped(bytes, len);
            // Elsewhere, ask the allocator first whether it can: `vec!`
            // would abort.
            #[cfg(not(target_os = "linux"))]
            Vec::<T>::new().try_reserve_exact(len).ok()?;
        }
        // `vec!` of zeros asks the allocator for zeroed memory (calloc),
        // so the pages stay untouched until written.
        Some(vec![T::zeroed(); len].into())
    }

    /// `len` zeros. Out of memory, the process aborts, as `vec!` does.
    pub fn zeroed(len: usize) -> Self {
        Self::try_zeroed(len).unwrap_or_else(|| {
            let bytes = len.saturating_mul(size_of::<T>());
            std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, align_of::<T>())
                    .unwrap_or(std::alloc::Layout::new::<T>()),
            )
        })
    }

    /// A mapping one huge page longer than needed, so that the array can
    /// start on a 2 MiB boundary whatever address the kernel picked.
    #[cfg(target_os = "linux")]
    fn mapped(bytes: usize, len: usize) -> Option<Self> {
        let size = bytes
            .checked_next_multiple_of(HUGE_PAGE)?
            .checked_add(HUGE_PAGE)?;
        let map = memmap2::MmapMut::map_anon(size).ok()?;
        let skip = (HUGE_PAGE - map.as_ptr() as usize % HUGE_PAGE) % HUGE_PAGE;
        // Without transparent huge pages the advice fails, and the array
        // works the same on small pages.
        let _ = map.advise_range(memmap2::Advice::HugePage, skip, size - skip);
        Some(Pages {
            store: Store::Mapped { map, skip, len },
        })
    }

    /// Shortens the array to its first `len` elements.
    pub fn truncate(&mut self, new_len: usize) {
        match &mut self.store {
            Store::Vec(vec) => vec.truncate(new_len),
            #[cfg(target_os = "linux")]
            Store::Mapped { len, .. } => *len = new_len.min(*len),
        }
    }

    /// The elements as a `Vec`: moved when they are one, else copied.
    pub fn into_vec(self) -> Vec<T> {
        match self.store {
            Store::Vec(vec) => vec,
            #[cfg(target_os = "linux")]
            Store::Mapped { .. } => self.to_vec(),
        }
    }
}

impl<T: bytemuck::Pod> From<Vec<T>> for Pages<T> {
    fn from(vec: Vec<T>) -> Self {
        Pages {
            store: Store::Vec(vec),
        }
    }
}

impl<T: bytemuck::Pod> Deref for Pages<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.store {
            Store::Vec(vec) => vec,
            #[cfg(target_os = "linux")]
            Store::Mapped { map, skip, len } => {
                let bytes = &map[*skip..*skip + len * size_of::<T>()];
                bytemuck::cast_slice(bytes)
            }
        }
    }
}

impl<T: bytemuck::Pod> DerefMut for Pages<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.store {
            Store::Vec(vec) => vec,
            #[cfg(target_os = "linux")]
            Store::Mapped { map, skip, len } => {
                let bytes = &mut map[*skip..*skip + *len * size_of::<T>()];
                bytemuck::cast_slice_mut(bytes)
            }
        }
    }
}

impl<T: bytemuck::Pod> Clone for Pages<T> {
    fn clone(&self) -> Self {
        let mut copy = Self::zeroed(self.len());
        copy.copy_from_slice(self);
        copy
    }
}

impl<T: bytemuck::Pod + fmt::Debug> fmt::Debug for Pages<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq for Pages<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: bytemuck::Pod + Eq> Eq for Pages<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lengths below, at and past the size that gets pages of its own.
    const LENGTHS: [usize; 4] = [0, 1000, (2 << 20) / 4, (2 << 20) / 4 * 3 + 7];

    #[test]
    fn starts_zeroed_and_holds_what_is_written() {
        for len in LENGTHS {
            let mut pages = Pages::<u32>::zeroed(len);
            assert_eq!(pages.len(), len);
            assert!(pages.iter().all(|&x| x == 0), "{len} not zeroed");
            for (i, x) in pages.iter_mut().enumerate() {
                *x = i as u32 * 3;
            }
            assert!(pages.iter().enumerate().all(|(i, &x)| x == i as u32 * 3));
            assert_eq!(pages.clone(), pages);
            let vec = pages.into_vec();
            assert_eq!(vec.len(), len);
            assert_eq!(
                vec.last().copied(),
                len.checked_sub(1).map(|i| i as u32 * 3)
            );
        }
    }

    #[test]
    fn truncate_keeps_the_front() {
        for len in LENGTHS {
            let mut pages = Pages::<u64>::zeroed(len);
            if let Some(last) = pages.last_mut() {
                *last = 9;
            }
            pages.truncate(len / 2);
            assert_eq!(pages.len(), len / 2);
            pages.truncate(len);
            assert_eq!(pages.len(), len / 2, "truncate never grows");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_big_array_starts_on_a_huge_page_boundary() {
        let pages = Pages::<u32>::zeroed(HUGE_PAGE / 4);
        assert!(matches!(pages.store, Store::Mapped { .. }));
        assert_eq!(pages.as_ptr() as usize % HUGE_PAGE, 0);
        let small = Pages::<u32>::zeroed(HUGE_PAGE / 4 - 1);
        assert!(matches!(small.store, Store::Vec(_)));
    }

    #[test]
    fn an_impossible_length_is_refused() {
        assert!(Pages::<u64>::try_zeroed(usize::MAX / 4).is_none());
    }

    #[test]
    fn a_vec_becomes_pages_as_it_is() {
        let pages = Pages::from(vec![1u32, 2, 3]);
        assert_eq!(&*pages, &[1, 2, 3]);
        assert_eq!(format!("{pages:?}"), "[1, 2, 3]");
    }
}

//! The check a store file passes before it is opened for real, so that
//! a damaged file is an error to report and never a panic (or, worse, a
//! second panic while unwinding the first, which aborts the process).
//!
//! redb checks a file's pages only when it repairs it after a crash: then
//! it verifies the checksum of every page of the last commit, top down,
//! before it reads what the page says. A file closed cleanly it trusts,
//! reading its pages as they are, so a flipped byte there can make redb
//! panic (an `unreachable!` on a page's type, an index out of bounds), or
//! serve wrong bytes without a word. Here the file is opened first as
//! after a crash, in a copy kept in memory (an [`Overlay`]: reads from the
//! file, writes to memory, so the check writes nothing to the file):
//! every page the last commit reaches is verified. Before that, the
//! header's page size and region layout, which no checksum covers, must
//! be those redb writes: with others redb asserts, or allocates and loops
//! for as long as a region it takes to be huge.
//!
//! A file written to its end (a two-phase commit, as redb closes a file)
//! must pass as it is. One whose last commit was cut short by a crash may
//! fall back to the commit before, as redb's repair does.
//!
//! The header's layout (`header.rs` in redb, file format 3, stable):
//! a 9-byte magic number, the god byte, 2 bytes of padding, then the page
//! size, the region header pages and the region's most data pages (u32
//! each); then the two commit slots, each with its own checksum.

use std::collections::HashMap;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use redb::backends::InMemoryBackend;
use redb::{RepairSession, StorageBackend};

use super::disk::{Disk, Shared};
use super::tables::open_failed;
use super::{builder, damaged};
use crate::StoreError;

const MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];
const GOD_BYTE: usize = 9;
/// Which commit slot is the primary (the last commit).
const PRIMARY_SLOT: u8 = 1;
/// Set while the file is open: not closed cleanly.
const RECOVERY_REQUIRED: u8 = 2;
/// The last commit was two-phase: its slot is valid, never to be
/// fallen back from.
const TWO_PHASE_COMMIT: u8 = 4;
/// The page size, the region header pages and the region's most data
/// pages.
const LAYOUT: std::ops::Range<usize> = 12..24;

/// Checks the file `disk` holds, at `path`; an empty file (a new store)
/// passes. A file that is no redb database is left for the open to tell.
pub(super) fn check(path: &Path, disk: &Arc<Disk>) -> Result<(), StoreError> {
    let len = disk.len().map_err(|err| open_failed(path, err))?;
    if len < LAYOUT.end as u64 {
        return Ok(());
    }
    let head = disk
        .read(0, LAYOUT.end)
        .map_err(|err| open_failed(path, err))?;
    if head[..MAGIC.len()] != MAGIC {
        return Ok(());
    }
    if head[LAYOUT] != *fresh_layout() {
        return Err(StoreError::Damaged {
            path: path.to_owned(),
            cause: "its header's page size or region layout is not one redb writes".into(),
        });
    }
    let god_byte = head[GOD_BYTE];
    if god_byte & RECOVERY_REQUIRED != 0 && god_byte & TWO_PHASE_COMMIT == 0 {
        // Not closed cleanly after a one-phase commit: redb's open repairs
        // it, every page checked first, as here.
        return Ok(());
    }

    let overlay = Arc::new(Overlay::new(Arc::clone(disk), len)?);
    let repair = Arc::new(Repair::default());
    let opened = panic::catch_unwind(AssertUnwindSafe(|| {
        let watched = (Arc::clone(&overlay), Arc::clone(&repair));
        let db = builder()
            .set_repair_callback(move |session| watched.1.saw(session, &watched.0, god_byte))
            .create_with_backend(Shared(Arc::clone(&overlay)))?;
        // Closing it commits once more, to memory.
        drop(db);
        Ok::<_, redb::DatabaseError>(())
    }));
    match opened {
        Err(payload) => return Err(damaged(path, payload.as_ref())),
        Ok(Err(err)) => return Err(open_failed(path, err)),
        Ok(Ok(())) => {}
    }
    if god_byte & TWO_PHASE_COMMIT != 0 && repair.fell_back.load(Ordering::Relaxed) {
        return Err(StoreError::Damaged {
            path: path.to_owned(),
            cause: "its last commit fails its checksums, and that commit was written whole".into(),
        });
    }
    Ok(())
}

/// What redb's repair did, as its callback saw it: redb calls it at
/// progress 0 as the repair starts (the primary slot chosen, the header
/// written), and at 0.3 only when the last commit's pages failed their
/// checksums and it falls back to the commit before.
#[derive(Default)]
struct Repair {
    fell_back: AtomicBool,
}

impl Repair {
    fn saw(&self, session: &mut RepairSession, overlay: &Overlay, god_byte: u8) {
        let progress = session.progress();
        let fell_back = if progress < 0.1 {
            // The slot redb chose is not the one the file names.
            overlay
                .read(GOD_BYTE as u64, 1)
                .map_or(true, |now| (now[0] ^ god_byte) & PRIMARY_SLOT != 0)
        } else {
            (0.2..0.5).contains(&progress)
        };
        if fell_back {
            self.fell_back.store(true, Ordering::Relaxed);
        }
    }
}

/// The page size and region layout redb writes in a new file with the
/// store's settings.
fn fresh_layout() -> &'static [u8] {
    static LAYOUT_BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    LAYOUT_BYTES.get_or_init(|| {
        let memory = Arc::new(InMemoryBackend::new());
        let made = builder()
            .create_with_backend(Shared(Arc::clone(&memory)))
            .map(drop)
            .and_then(|()| Ok(memory.read(0, LAYOUT.end)?));
        // Memory does not fail; were it to, no file would pass.
        made.map_or_else(|_| Vec::new(), |head| head[LAYOUT].to_vec())
    })
}

/// The bytes an [`Overlay`] keeps in memory come in blocks of this size.
const BLOCK: u64 = 4096;

/// The file as the check sees it: read from the file, written to memory,
/// with redb's crash flag set and its two-phase flag cleared, so that
/// redb opens it as after a crash, checking every page first.
#[derive(Debug)]
struct Overlay {
    disk: Arc<Disk>,
    view: Mutex<View>,
}

#[derive(Debug)]
struct View {
    len: u64,
    /// Below this, bytes not written come from the file; past it, zeros
    /// (the view was cut shorter, then grown).
    from_disk: u64,
    /// The blocks written, by index.
    written: HashMap<u64, Vec<u8>>,
}

impl Overlay {
    fn new(disk: Arc<Disk>, len: u64) -> Result<Overlay, StoreError> {
        let overlay = Overlay {
            disk,
            view: Mutex::new(View {
                len,
                from_disk: len,
                written: HashMap::new(),
            }),
        };
        let god_byte = overlay
            .read(GOD_BYTE as u64, 1)
            .map_err(|err| StoreError::Io(err.to_string()))?[0];
        let flags = (god_byte | RECOVERY_REQUIRED) & !TWO_PHASE_COMMIT;
        overlay
            .write(GOD_BYTE as u64, &[flags])
            .map_err(|err| StoreError::Io(err.to_string()))?;
        Ok(overlay)
    }

    fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Block `index` as it is now.
    fn block(&self, view: &View, index: u64) -> io::Result<Vec<u8>> {
        if let Some(block) = view.written.get(&index) {
            return Ok(block.clone());
        }
        let start = index * BLOCK;
        let mut block = vec![0; BLOCK as usize];
        let end = (start + BLOCK).min(view.from_disk);
        if start < end {
            let bytes = self.disk.read(start, (end - start) as usize)?;
            block[..bytes.len()].copy_from_slice(&bytes);
        }
        Ok(block)
    }
}

impl StorageBackend for Overlay {
    fn len(&self) -> io::Result<u64> {
        Ok(self.view().len)
    }

    fn read(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let view = self.view();
        let end = offset + len as u64;
        if end > view.len {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let blocks = offset / BLOCK..end.div_ceil(BLOCK);
        if end <= view.from_disk && !blocks.clone().any(|i| view.written.contains_key(&i)) {
            return self.disk.read(offset, len);
        }
        let mut bytes = Vec::with_capacity(len);
        for index in blocks {
            let block = self.block(&view, index)?;
            let start = offset.max(index * BLOCK) - index * BLOCK;
            let stop = end.min((index + 1) * BLOCK) - index * BLOCK;
            bytes.extend_from_slice(&block[start as usize..stop as usize]);
        }
        Ok(bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut view = self.view();
        view.from_disk = view.from_disk.min(len);
        view.written.retain(|index, _| index * BLOCK < len);
        if let Some(last) = view.written.get_mut(&(len / BLOCK)) {
            last[(len % BLOCK) as usize..].fill(0);
        }
        view.len = len;
        Ok(())
    }

    fn sync_data(&self, _eventual: bool) -> io::Result<()> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut view = self.view();
        let end = offset + data.len() as u64;
        for index in offset / BLOCK..end.div_ceil(BLOCK) {
            let mut block = self.block(&view, index)?;
            let start = offset.max(index * BLOCK);
            let stop = end.min((index + 1) * BLOCK);
            block[(start - index * BLOCK) as usize..(stop - index * BLOCK) as usize]
                .copy_from_slice(&data[(start - offset) as usize..(stop - offset) as usize]);
            view.written.insert(index, block);
        }
        view.len = view.len.max(end);
        Ok(())
    }
}

//! The store file as redb reads and writes it: locked against other
//! processes while open, shared by the check that precedes an open
//! (`check.rs`) and the database then opened on it, and cut off from a
//! database that failed.
//!
//! A database that failed on a panic may hold a state redb no longer
//! keeps consistent: closed the usual way it would commit once more (its
//! allocator state) and mark the file closed cleanly. Cut off first,
//! every later read and write of it fails, so it writes nothing: the file
//! is left as a crash leaves it, and the next open repairs it from its
//! last commit, every page checked.

use std::fs::OpenOptions;
use std::io;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use redb::StorageBackend;
use redb::backends::FileBackend;

use super::tables::open_failed;
use crate::StoreError;

/// The open, locked store file, until it is cut off.
#[derive(Debug)]
pub(super) struct Disk {
    file: RwLock<Option<FileBackend>>,
}

impl Disk {
    /// Opens the file at `path`, or creates it empty, and locks it as
    /// redb does (`flock`): a file open in another process is
    /// [`StoreError::Locked`].
    pub(super) fn open(path: &Path) -> Result<Arc<Disk>, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|err| open_failed(path, err))?;
        let file = FileBackend::new(file).map_err(|err| open_failed(path, err))?;
        Ok(Arc::new(Disk {
            file: RwLock::new(Some(file)),
        }))
    }

    /// Closes the file, which unlocks it; every later call on it fails.
    pub(super) fn cut_off(&self) {
        drop(
            self.file
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }

    fn with<T>(&self, call: impl FnOnce(&FileBackend) -> io::Result<T>) -> io::Result<T> {
        match self
            .file
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            Some(file) => call(file),
            None => Err(io::Error::other(
                "the store file was closed after a failure",
            )),
        }
    }
}

impl StorageBackend for Disk {
    fn len(&self) -> io::Result<u64> {
        self.with(StorageBackend::len)
    }

    fn read(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        self.with(|file| file.read(offset, len))
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.with(|file| file.set_len(len))
    }

    fn sync_data(&self, eventual: bool) -> io::Result<()> {
        self.with(|file| file.sync_data(eventual))
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.with(|file| file.write(offset, data))
    }
}

/// A backend redb owns while the store keeps a hold on it too: to cut
/// the file off, or to read what redb wrote.
#[derive(Debug)]
pub(super) struct Shared<B>(pub(super) Arc<B>);

impl<B: StorageBackend> StorageBackend for Shared<B> {
    fn len(&self) -> io::Result<u64> {
        self.0.len()
    }

    fn read(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        self.0.read(offset, len)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }

    fn sync_data(&self, eventual: bool) -> io::Result<()> {
        self.0.sync_data(eventual)
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.0.write(offset, data)
    }
}

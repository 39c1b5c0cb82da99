//! Saving and restoring a change tracker whole, for rollback.

use std::cell::UnsafeCell;

use super::ChangeTracker;
use super::log::LogEntry;
use crate::entity::Entity;
use crate::storage::sparse_set::RowLookup;
use crate::storage::tick::Tick;

/// A change tracker's state, saved by [`ChangeTracker::save_image`] for rollback: its buffers are
/// reused by the next save.
#[derive(Clone, Debug, Default)]
pub struct TrackerImage {
    added: Vec<Tick>,
    changed: Vec<u32>,
    slots: Vec<u32>,
    fields: Vec<u32>,
    log: Vec<LogEntry>,
    removed: Vec<LogEntry>,
    removed_trimmed: usize,
}

impl TrackerImage {
    /// Bytes saved: the per-row and per-field ticks and both logs.
    pub fn bytes(&self) -> usize {
        self.added.len() * size_of::<Tick>()
            + (self.changed.len() + self.slots.len() + self.fields.len()) * size_of::<u32>()
            + (self.log.len() + self.removed.len()) * size_of::<LogEntry>()
    }
}

impl ChangeTracker {
    /// Copies the tracker's whole state into `image` (drawing pending stamps into the log first,
    /// through `lookup`, the pool's): the per-row and per-field ticks, the change log with its
    /// slots, and the removal log. Reuses the image's buffers. O(rows + log + removals).
    ///
    /// The caller holds read access to the pool's component (a shared borrow of the world with no
    /// query running, as rollback's save has), so no query stamps rows meanwhile.
    pub fn save_image(&self, lookup: RowLookup<'_>, image: &mut TrackerImage) {
        let log = self.lock_settled(lookup);
        image.added.clone_from(&self.added);
        image.changed.clear();
        image.changed.extend((0..self.added.len()).map(|row| self.cells.changed(row)));
        image.slots.clear();
        image.slots.extend((0..self.added.len()).map(|row| self.cells.slot(row)));
        image.fields.clear();
        image.fields.extend(self.fields.values());
        image.log.clone_from(&log);
        image.removed.clone_from(&self.removed);
        image.removed_trimmed = self.removed_trimmed;
    }

    /// Puts a state saved by [`ChangeTracker::save_image`] back, for a pool whose rows were just
    /// restored from the same save: afterwards every reader sees exactly what it saw at the save.
    /// Reuses every buffer. O(rows + log + removals).
    ///
    /// # Panics
    /// If the image's row count or field stride is not the tracker's rows' (the pool and the
    /// tracker come from different saves).
    #[track_caller]
    pub fn restore_image(&mut self, rows: usize, image: &TrackerImage) {
        assert_eq!(image.added.len(), rows, "a tracker image restores the rows of its own save");
        assert_eq!(image.fields.len(), rows * self.fields.stride, "a tracker image of another layout");
        self.added.clone_from(&image.added);
        self.cells.0.clear();
        for (&changed, &slot) in image.changed.iter().zip(&image.slots) {
            self.cells.push(changed, slot);
        }
        self.fields.ticks.clear();
        self.fields.ticks.extend(image.fields.iter().map(|&tick| UnsafeCell::new(tick)));
        *self.any_pending.get_mut() = false;
        self.pending.resize(0);
        self.pending.resize(rows);
        self.log_mut().clone_from(&image.log);
        self.removed.clone_from(&image.removed);
        self.removed_trimmed = image.removed_trimmed;
    }

    /// Starts over after a rollback restored the pool to `entities` (its rows now): every row
    /// counts as added and changed now, as in [`ChangeTracker::new`], and the change log lists
    /// each row once. Reuses every buffer. Removals made by the restore are not logged.
    /// O(rows).
    pub fn restored(&mut self, entities: &[Entity]) {
        let now = self.clock.now();
        self.added.clear();
        self.added.resize(entities.len(), now);
        self.cells.0.clear();
        self.fields.reset(entities.len(), now.get());
        // Stamps pending from before the restore name rows that no longer mean the same.
        *self.any_pending.get_mut() = false;
        self.pending.resize(0);
        self.pending.resize(entities.len());
        let mut log = std::mem::take(self.log_mut());
        log.clear();
        for (row, &entity) in entities.iter().enumerate() {
            self.cells.push(now.get(), row as u32);
            log.push(LogEntry { tick: now, changed: now, row: row as u32, entity });
        }
        *self.log_mut() = log;
    }
}

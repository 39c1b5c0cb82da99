//! The ticks change readers last read at: every system's last run and every removal reader's
//! cursor, kept by the world so that a rollback restores them with the frame.
//!
//! A reader compares the change ticks of rows with the tick it last read at. When a rollback puts
//! a world back at frame F, its pools' ticks and its clock go back to F; for readers to see after
//! the restore exactly what they saw at that point of the straight run, their last reads must go
//! back to F too. So each reader's tick is a [`ReaderTick`] cell shared between the reader (which
//! moves it through `&World` while it runs, possibly beside others) and this table, which the
//! world saves, restores and clamps in the periodic wraparound check.

use std::sync::{Arc, Weak};

use super::World;
use crate::storage::{Clock, ReaderTick, Tick};

/// Every live reader tick of a world, in slot order.
#[derive(Debug, Default)]
pub(crate) struct ReaderTicks {
    /// Cells in slot order; dropped readers' entries are pruned as the table grows.
    cells: Vec<Weak<ReaderTick>>,
    /// The next slot number (never reused).
    next_slot: u64,
    /// Length after the last prune; the next prune waits until it doubles.
    pruned: usize,
}

impl ReaderTicks {
    /// The live cells, in slot order.
    fn live(&self) -> impl Iterator<Item = Arc<ReaderTick>> + '_ {
        self.cells.iter().filter_map(Weak::upgrade)
    }

    /// Clamps every reader's tick to the clock's maximum age (the periodic wraparound check).
    /// O(readers).
    pub(crate) fn check(&self, clock: &Clock) {
        for cell in self.live() {
            if let Some(tick) = cell.get() {
                cell.set(Some(clock.clamp(tick)));
            }
        }
    }
}

impl World {
    /// A new reader tick holding `tick` (`None`: the reader has not read yet), kept by this world
    /// until the reader drops it. Systems take one when they are initialized, removal readers
    /// one each. O(1) amortised.
    pub(crate) fn register_reader_tick(&mut self, tick: Option<Tick>) -> Arc<ReaderTick> {
        let table = &mut self.reader_ticks;
        if table.cells.len() >= 2 * table.pruned.max(16) {
            table.cells.retain(|cell| cell.strong_count() > 0);
            table.pruned = table.cells.len();
        }
        let cell = Arc::new(ReaderTick::new(table.next_slot, tick));
        table.next_slot += 1;
        table.cells.push(Arc::downgrade(&cell));
        cell
    }
}

/// The reader ticks of a world, saved by rollback: `(slot, tick)` of every live reader, in slot
/// order. Its buffer is reused by the next save.
#[cfg(feature = "rollback")]
#[derive(Clone, Debug, Default)]
pub(crate) struct ReaderTicksImage(Vec<(u64, Option<Tick>)>);

#[cfg(feature = "rollback")]
impl ReaderTicksImage {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.0.len() * size_of::<(u64, Option<Tick>)>()
    }
}

#[cfg(feature = "rollback")]
impl ReaderTicks {
    /// Copies every live reader's tick into `image`. O(readers).
    pub(crate) fn save_image(&self, image: &mut ReaderTicksImage) {
        image.0.clear();
        image.0.extend(self.live().map(|cell| (cell.slot(), cell.get())));
    }

    /// Puts the saved ticks back; a reader made after the save (absent from it) counts as not
    /// having read yet, as a new reader, so it sees every change kept. O(readers + saved).
    pub(crate) fn restore_image(&self, image: &ReaderTicksImage) {
        let mut saved = image.0.iter().peekable();
        for cell in self.live() {
            while saved.next_if(|&&(slot, _)| slot < cell.slot()).is_some() {}
            match saved.next_if(|&&(slot, _)| slot == cell.slot()) {
                Some(&(_, tick)) => cell.set(tick),
                None => cell.set(None),
            }
        }
    }
}

//! The removal log of a change tracker: which entities lost the component, kept until every
//! reader has seen them.

use std::sync::{Arc, Weak};

use super::ChangeTracker;
use super::log::{DEAD_ROW, LogEntry};
use crate::entity::Entity;
use crate::storage::tick::{ReaderTick, Ticks};

impl ChangeTracker {
    #[inline]
    pub(super) fn record_removal(&mut self, entity: Entity) {
        let now = self.clock.now();
        self.removed.push(LogEntry { tick: now, changed: now, row: DEAD_ROW, entity });
        if self.removed.len() > 64 && self.removed.len() >= 2 * self.removed_trimmed {
            self.trim_removals();
        }
    }

    /// Drops the removals every reader has seen: those not newer than the oldest registered
    /// reader's cursor nor than the world's last `clear_trackers`. O(removals + readers).
    pub(super) fn trim_removals(&mut self) {
        let now = self.clock.now();
        self.readers.retain(|reader| reader.strong_count() > 0);
        // A reader that has not read yet (after a rollback to before it existed) wants them all.
        let windows = self
            .readers
            .iter()
            .filter_map(Weak::upgrade)
            .map(|cursor| cursor.get())
            .chain([Some(self.clock.last_clear())]);
        let seen = windows
            .map(|last| match last {
                Some(last) => {
                    let ticks = self.clock.ticks(last, now);
                    self.removed.partition_point(|e| !ticks.is_newer(e.tick))
                }
                None => 0,
            })
            .min()
            .unwrap_or(0);
        self.removed.drain(..seen);
        self.removed_trimmed = self.removed.len().max(32);
    }

    /// Registers a removal reader's cursor (which the world made, at the present tick, so the
    /// reader sees no earlier removal): removals it has not read are kept until it moves on.
    pub fn register_reader(&mut self, cursor: &Arc<ReaderTick>) {
        self.readers.retain(|reader| reader.strong_count() > 0);
        self.readers.push(Arc::downgrade(cursor));
    }

    /// The removals newer than `ticks.last_run`, oldest first. O(log removals).
    #[inline]
    pub fn removed_since(&self, ticks: Ticks) -> &[LogEntry] {
        let start = self.removed.partition_point(|e| !ticks.is_newer(e.tick));
        &self.removed[start..]
    }
}

//! A pool's parts handed to pool images (`storage/image.rs`, feature `rollback`), which save and
//! restore them whole.

use super::{PoolData, SparseSet};
use crate::entity::Entity;
use crate::storage::SparseArray;

/// The parts of a pool, for pool images (`storage/image.rs`), which save and restore them whole.
impl SparseSet {
    /// The index and the values, read-only.
    pub(in crate::storage) fn image_parts(
        &self,
    ) -> (&SparseArray, &[Entity], crate::storage::image::Values<'_>) {
        let values = match &self.data {
            PoolData::Aos(column) => crate::storage::image::Values::Aos(column),
            PoolData::Soa(columns) => crate::storage::image::Values::Soa(columns),
        };
        (&self.sparse, &self.dense, values)
    }

    /// Brings the change tracker (if any) in step with rows just restored from an image: puts
    /// back the tracker `saved` with them, or, when the saved pool had none, counts every row as
    /// added and changed now. Call right after the parts were replaced.
    pub(in crate::storage) fn image_restored(&mut self, saved: Option<&crate::storage::TrackerImage>) {
        if let Some(changes) = &mut self.changes {
            match saved {
                Some(saved) => changes.restore_image(self.dense.len(), saved),
                None => changes.restored(&self.dense),
            }
        }
    }

    /// The index and the values, to be replaced together. Bumps the pool's version first, so no
    /// cached alignment outlives the change. The caller must leave the invariants above holding.
    ///
    /// Every per-row array of the pool must be handed out here (and saved by `PoolImage`), or a
    /// restore leaves it out of step with `dense`: per-row change ticks, when the pool gets them,
    /// belong in this tuple and in the image.
    pub(in crate::storage) fn image_parts_mut(
        &mut self,
    ) -> (&mut SparseArray, &mut Vec<Entity>, crate::storage::image::ValuesMut<'_>) {
        self.version += 1;
        let values = match &mut self.data {
            PoolData::Aos(column) => crate::storage::image::ValuesMut::Aos(column),
            PoolData::Soa(columns) => crate::storage::image::ValuesMut::Soa(columns),
        };
        (&mut self.sparse, &mut self.dense, values)
    }
}

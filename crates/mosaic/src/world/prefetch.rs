//! Prefetching for batches of structural changes: a loop that knows the entities it will
//! despawn next asks for their memory a few steps ahead, so that the cache misses of a
//! million-entity world (the entity's slot, its component set, each pool's sparse entry, row
//! and values: about 25 lines for an entity of five components in two nested groups), and the
//! entries of the entities its row swaps move, overlap instead of coming one after another.
//! Hints only: what the batch does is unchanged.

use super::World;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::SparseSet;

/// How many steps ahead of the despawn the first stage runs; the second runs at half of it,
/// the third at a quarter.
pub(crate) const DISTANCE: usize = 16;

impl World {
    /// For the despawn half of [`DISTANCE`] commands ahead, the other entities its row swaps will
    /// move in `id`'s pool, `pool`: it leaves each group owning `id` (swapped with the group's last
    /// member), then its row is swap-removed (the pool's last row moves in), and each swap
    /// writes the moved entity's sparse entry, at a random place in entity order. Those entities
    /// are known only from where the group ends and the pool's end will be: this assumes each
    /// command in between is a despawn that moves them back by one row (a run of deaths); a
    /// wrong guess costs one wasted hint. O(groups owning `id`); never changes anything.
    /// (The same guess for spawns, at the groups' first non-members, did not pay in the arena.)
    #[inline]
    fn prefetch_swap_partners(&self, id: ComponentId, pool: &SparseSet) {
        let ahead = DISTANCE / 2;
        let entities = pool.entities();
        let hint = |row: Option<usize>| {
            if let Some(entity) = row.and_then(|row| entities.get(row)) {
                pool.prefetch_entry(entity.index());
            }
        };
        for &group in self.groups.chain(id) {
            hint(self.groups.owning[group as usize].len.checked_sub(1 + ahead));
        }
        hint(entities.len().checked_sub(1 + ahead));
    }

    /// Stage `stage` (0, 1 or 2) of prefetching for despawning `entity`: 0 fetches its slot and
    /// component-set entry, 1 (once those are in cache) each of its pools' sparse entries, 2
    /// (once those are) each pool's row. Run stage 0 at [`DISTANCE`] steps ahead, 1 at half,
    /// 2 at a quarter. O(components of the entity); never changes anything.
    #[inline]
    pub(crate) fn prefetch_despawn(&self, entity: Entity, stage: u8) {
        let index = entity.index();
        match stage {
            0 => {
                self.entities.prefetch_slot(index);
                self.component_sets.prefetch_set_of(index);
            }
            _ => {
                let Some(&set) = self.component_sets.sets_of().get(index as usize) else { return };
                for &id in self.component_sets.set_ids(set) {
                    let pool = self.components.pool(id);
                    if stage == 1 {
                        pool.prefetch_entry(index);
                        self.prefetch_swap_partners(id, pool);
                    } else {
                        pool.prefetch_row_of(index);
                    }
                }
            }
        }
    }

    /// Stage `stage` of prefetching for spawning reserved `entity` with components `ids`: 0
    /// fetches its slot and component-set entry, 1 each pool's sparse entry for it (the new rows
    /// go at the pools' ends, already in cache); 2 does nothing. O(components).
    #[inline]
    pub(crate) fn prefetch_spawn(&self, entity: Entity, ids: &[ComponentId], stage: u8) {
        let index = entity.index();
        match stage {
            0 => {
                self.entities.prefetch_slot(index);
                self.component_sets.prefetch_set_of(index);
            }
            1 => {
                for &id in ids {
                    if let Some(pool) = self.components.pools().get(id.index()) {
                        pool.prefetch_entry(index);
                    }
                }
            }
            _ => {}
        }
    }
}

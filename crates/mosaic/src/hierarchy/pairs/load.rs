//! Putting loaded pairs into a world (snapshots, `serialize/pairs.rs`): the forward side as
//! saved, the reverse index rebuilt from each pair's saved slot, the target marks as saved.

use super::{PairEntry, PairRelation, PairTarget, Targets};
use crate::entity::Entity;
use crate::world::World;

impl World {
    /// Gives `world` loaded pairs of kind `R` (setting the kind up if needed): each source's
    /// `Targets<R>` in the given order (the pool's row order when the pool is empty), and each
    /// target's list of sources rebuilt from the entries' slots, so [`World::sources`] keeps
    /// the saved order. The sources and targets are live entities with no pair of `R` yet, each
    /// source listed once with at least one entry, and each target's slots are `0..n` once each
    /// (the snapshot checks all of it first). O(pairs * log pairs).
    pub(crate) fn load_pairs<R: PairRelation>(&mut self, rows: Vec<(Entity, Vec<PairEntry<R>>)>) {
        let k = self.init_pairs::<R>();
        let mut reverse: Vec<(Entity, u32, Entity)> = rows
            .iter()
            .flat_map(|(source, entries)| entries.iter().map(move |e| (e.target, e.slot, *source)))
            .collect();
        reverse.sort_unstable();
        self.insert_rows(
            rows.into_iter().map(|(source, entries)| (source, Targets::<R> { entries })),
            |_, _| {},
        );
        let sources = &mut self.pair_index_mut().kinds[k].sources;
        for group in reverse.chunk_by(|a, b| a.0 == b.0) {
            debug_assert!(
                group.iter().enumerate().all(|(i, &(_, slot, _))| slot as usize == i),
                "a loaded target's slots are 0..n"
            );
            let list = sources.entry(group[0].0).or_default();
            debug_assert!(list.is_empty(), "a loaded target has no sources yet");
            list.extend(group.iter().map(|&(_, _, source)| source));
        }
    }

    /// Marks loaded targets (in the given order: the marks pool's row order when it is empty),
    /// setting up the marker's pool if needed. O(marks).
    pub(crate) fn load_pair_marks(&mut self, marks: impl IntoIterator<Item = Entity>) {
        self.init_pair_mark();
        self.insert_rows(marks.into_iter().map(|m| (m, PairTarget)), |_, _| {});
    }
}

//! Rollback images of the pairs: each kind's `Targets<R>` pool and reverse index, and the target
//! marks, saved, restored and hashed as one world part (`rollback/part.rs`).

use super::{PairRelation, PairTarget, Targets};
use crate::entity::Entity;
use crate::storage::PoolImage;
use crate::world::World;

/// An entity as a hash word: index and generation, world tag left out.
fn word(entity: Entity) -> u64 {
    u64::from(entity.index()) | (u64::from(entity.generation()) << 32)
}

/// One kind's saved state.
#[derive(Default)]
pub(crate) struct PairKindImage {
    /// The pool of `Targets<R>`.
    pool: PoolImage,
    /// Per pair in row order: source, target and slot words (for comparing runs).
    words: Vec<u64>,
    /// Target -> sources, targets sorted by index and generation.
    sources: Vec<(Entity, Vec<Entity>)>,
}

/// Every pair kind's saved state, by kind name, and the target marks' pool.
#[derive(Default)]
pub(crate) struct PairsImage {
    kinds: Vec<(&'static str, PairKindImage)>,
    marks: PoolImage,
}

/// A kind's typed image operations.
#[derive(Clone, Copy)]
pub(crate) struct ImageOps {
    save: fn(&World, usize, &mut PairKindImage),
    restore: fn(&mut World, usize, Option<&PairKindImage>),
    /// Appends source, target and slot words of each pair, in row order.
    words: fn(&World, usize, &mut Vec<u64>),
}

impl ImageOps {
    pub(crate) fn of<R: PairRelation>() -> Self {
        Self { save: save_kind::<R>, restore: restore_kind::<R>, words: pair_words::<R> }
    }
}

fn pair_words<R: PairRelation>(world: &World, k: usize, out: &mut Vec<u64>) {
    let pool = world.components().pool(world.pair_index().kinds[k].pool);
    for (&source, targets) in pool.entities().iter().zip(pool.values::<Targets<R>>()) {
        for entry in &targets.entries {
            out.extend([word(source), word(entry.target), u64::from(entry.slot)]);
        }
    }
}

fn save_kind<R: PairRelation>(world: &World, k: usize, image: &mut PairKindImage) {
    let kind = &world.pair_index().kinds[k];
    let pool = world.components().pool(kind.pool);
    image.pool.save_clone_with::<Targets<R>>(pool, Targets::duplicate, |d, s| *d = s.duplicate());
    image.words.clear();
    pair_words::<R>(world, k, &mut image.words);
    image.sources.clear();
    image.sources.extend(kind.sources.iter().map(|(&t, s)| (t, s.clone())));
    image.sources.sort_unstable_by_key(|&(t, _)| word(t));
}

fn restore_kind<R: PairRelation>(world: &mut World, k: usize, image: Option<&PairKindImage>) {
    let (index, components) = world.pairs_and_components_mut();
    let kind = &mut index.kinds[k];
    let pool = components.pool_mut(kind.pool);
    kind.sources.clear();
    match image {
        Some(image) => {
            image.pool.restore_clone_with::<Targets<R>>(pool, Targets::duplicate, |d, s| *d = s.duplicate());
            kind.sources.extend(image.sources.iter().map(|(t, s)| (*t, s.clone())));
        }
        None => pool.clear(),
    }
}

impl PairsImage {
    /// Bytes saved.
    pub(crate) fn bytes(&self) -> usize {
        let sources = |i: &PairKindImage| {
            i.sources.iter().map(|(_, s)| (s.len() + 1) * size_of::<Entity>()).sum::<usize>()
        };
        self.marks.bytes() + self.kinds.iter().map(|(_, i)| i.pool.bytes() + sources(i)).sum::<usize>()
    }

    /// The name of a kind this image holds pairs of that `world` has not set up (it cannot
    /// restore them), if any.
    pub(crate) fn unknown_kind(&self, world: &World) -> Option<&'static str> {
        let kinds = &world.pair_index().kinds;
        self.kinds
            .iter()
            .find(|(name, image)| image.pool.len() > 0 && !kinds.iter().any(|k| k.name == *name))
            .map(|(name, _)| *name)
    }

    /// The first difference from `other`: `(kind name, row, entity at that row)`, row 0 and no
    /// entity for the reverse index or the marks.
    pub(crate) fn first_difference(&self, other: &Self) -> Option<(&'static str, usize, Option<Entity>)> {
        let empty = PairKindImage::default();
        for (name, a) in &self.kinds {
            let b = other.kinds.iter().find(|(n, _)| n == name).map_or(&empty, |(_, i)| i);
            if a.words != b.words {
                let row = a.words.chunks(3).zip(b.words.chunks(3)).position(|(x, y)| x != y);
                let row = row.unwrap_or(a.words.len().min(b.words.len()) / 3);
                return Some((name, row, None));
            }
            if a.sources != b.sources {
                return Some((name, 0, None));
            }
        }
        let marks = |i: &PoolImage| i.entities().iter().map(|&e| word(e)).collect::<Vec<_>>();
        (marks(&self.marks) != marks(&other.marks)).then_some(("pair target marks", 0, None))
    }
}

impl World {
    /// Saves every pair kind and the target marks into `image`, reusing its buffers.
    pub(crate) fn save_pairs(&self, image: &mut PairsImage) {
        let kinds = &self.pair_index().kinds;
        image.kinds.truncate(kinds.len());
        for (k, kind) in kinds.iter().enumerate() {
            if image.kinds.len() <= k {
                image.kinds.push((kind.name, PairKindImage::default()));
            }
            image.kinds[k].0 = kind.name;
            (kind.ops.rollback.save)(self, k, &mut image.kinds[k].1);
        }
        match self.pair_index().mark {
            Some(mark) => image.marks.save_clone_with::<PairTarget>(
                self.components().pool(mark),
                |&m| m,
                |d, s| *d = *s,
            ),
            None => image.marks.save_empty::<PairTarget>(),
        }
    }

    /// Puts saved pairs back: each kind the world set up takes its saved state (none when the
    /// image predates the kind). Check [`PairsImage::unknown_kind`] first.
    pub(crate) fn restore_pairs(&mut self, image: &PairsImage) {
        for k in 0..self.pair_index().kinds.len() {
            let kind = &self.pair_index().kinds[k];
            let saved = image.kinds.iter().find(|(n, _)| *n == kind.name).map(|(_, i)| i);
            let restore = kind.ops.rollback.restore;
            restore(self, k, saved);
        }
        if let Some(mark) = self.pair_index().mark {
            let pool = self.components_mut().pool_mut(mark);
            if image.marks.holds::<PairTarget>() {
                image.marks.restore_clone_with::<PairTarget>(pool, |&m| m, |d, s| *d = *s);
            } else {
                pool.clear();
            }
        }
    }

    /// Feeds the pairs to `out`: per kind with any pair (by name), its name and a list of
    /// 64-bit words: the sources in row order, each pair's source, target and slot, then the
    /// reverse index in target order; then the target marks. Values are not hashed (`R` need
    /// not be `Hash`).
    pub(crate) fn hash_pairs(&self, out: &mut dyn FnMut(&str, &[u64])) {
        let mut kinds: Vec<_> = self.pair_index().kinds.iter().enumerate().collect();
        kinds.sort_unstable_by_key(|(_, k)| k.name);
        for (k, kind) in kinds {
            let pool = self.components().pool(kind.pool);
            if pool.is_empty() {
                continue;
            }
            let mut words = vec![pool.len() as u64];
            words.extend(pool.entities().iter().map(|&e| word(e)));
            (kind.ops.rollback.words)(self, k, &mut words);
            let mut sources: Vec<_> = kind.sources.iter().collect();
            sources.sort_unstable_by_key(|(t, _)| word(**t));
            for (&target, list) in sources {
                words.push(word(target));
                words.push(list.len() as u64);
                words.extend(list.iter().map(|&s| word(s)));
            }
            out(kind.name, &words);
        }
        if let Some(mark) = self.pair_index().mark {
            let marks: Vec<u64> = self.components().pool(mark).entities().iter().map(|&e| word(e)).collect();
            if !marks.is_empty() {
                out("pair target marks", &marks);
            }
        }
    }
}

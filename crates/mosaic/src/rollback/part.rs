//! The parts of a world's state, each saving, restoring, hashing and comparing itself.
//!
//! One [`WorldPart`] impl per part, and one list ([`world_parts!`] below) that a frame image, the
//! checks before a restore, the restore, the world hash and the desync finder all run through in
//! the same order. The world hands its parts out only through `World::parts` /
//! `World::parts_mut`, which take the world apart exhaustively, so a new piece of world state
//! fails to compile until it is sorted there, and then until it has a part here.

use smallvec::SmallVec;

use super::dynamic_part::DynamicPoolsPart;
use super::hash::{StableHasher, hash_mapped, hash_words};
use super::registry::{SavedResource, entity_word};
use super::{RollbackError, RollbackRegistry, StateDifference};
use crate::component::ComponentId;
use crate::entity::EntitiesImage;
use crate::hierarchy::{OrderState, PairsImage, RelationImage, Relationship};
use crate::storage::{PoolImage, Tick};
use crate::world::{ReaderTicksImage, SetsImage, World};

/// One part of a world's state, as rollback sees it.
///
/// Implementations are marker types; the state itself lives in the world (reached through
/// `World::parts`), the saved copy in [`WorldPart::Image`].
pub(crate) trait WorldPart {
    /// The saved state. Saving again reuses its buffers.
    type Image: Default + Send + Sync;

    /// Copies the part's state out of `world` into `image`.
    fn save(world: &World, registry: &RollbackRegistry, image: &mut Self::Image);

    /// Whether `world` can take `image` back; every part is checked before any is restored, so a
    /// refused restore leaves the world as it was.
    ///
    /// # Errors
    /// The reason, as a [`RollbackError`].
    fn check(
        _world: &World,
        _registry: &RollbackRegistry,
        _image: &Self::Image,
    ) -> Result<(), RollbackError> {
        Ok(())
    }

    /// Puts the saved state back (parts earlier in the list are restored already).
    fn restore(world: &mut World, registry: &RollbackRegistry, image: &Self::Image);

    /// Feeds the part's present state to the world hash. Parts that are not the simulation's
    /// identity (change ticks, caches derivable from other parts) write nothing.
    fn hash(world: &World, registry: &RollbackRegistry, hasher: &mut StableHasher);

    /// The first difference between two saves of this part (two runs' frames), if any.
    fn compare(registry: &RollbackRegistry, a: &Self::Image, b: &Self::Image) -> Option<StateDifference>;

    /// Bytes the image holds (what a plain copy of the same state would move).
    fn bytes(image: &Self::Image) -> usize;
}

/// Defines [`FrameParts`], one image per part, and the passes over them, from one list of
/// `field: Part` pairs in hash order.
macro_rules! world_parts {
    ($($field:ident: $part:ty,)*) => {
        /// One image per part of a world.
        #[derive(Default)]
        pub(crate) struct FrameParts {
            $($field: <$part as WorldPart>::Image,)*
        }

        impl FrameParts {
            /// Saves every part of `world`.
            pub(crate) fn save(&mut self, world: &World, registry: &RollbackRegistry) {
                $(<$part>::save(world, registry, &mut self.$field);)*
            }

            /// Checks that `world` can take every part back.
            pub(crate) fn check(&self, world: &World, registry: &RollbackRegistry) -> Result<(), RollbackError> {
                $(<$part>::check(world, registry, &self.$field)?;)*
                Ok(())
            }

            /// Restores every part, in list order.
            pub(crate) fn restore(&self, world: &mut World, registry: &RollbackRegistry) {
                $(<$part>::restore(world, registry, &self.$field);)*
            }

            /// The first difference with `other`, in list order.
            pub(crate) fn compare(&self, other: &Self, registry: &RollbackRegistry) -> Option<StateDifference> {
                $(
                    if let Some(difference) = <$part>::compare(registry, &self.$field, &other.$field) {
                        return Some(difference);
                    }
                )*
                None
            }

            /// Bytes held by every image.
            pub(crate) fn bytes(&self) -> usize {
                0 $(+ <$part>::bytes(&self.$field))*
            }
        }

        /// Feeds every part of `world` to `hasher`, in list order.
        pub(crate) fn hash_parts(world: &World, registry: &RollbackRegistry, hasher: &mut StableHasher) {
            $(<$part>::hash(world, registry, hasher);)*
        }
    };
}

world_parts! {
    entities: AllocatorPart,
    sampler: SamplerPart,
    pools: PoolsPart,
    dynamic_pools: DynamicPoolsPart,
    hierarchy: HierarchyPart,
    relations: RelationsPart,
    pairs: PairsPart,
    resources: ResourcesPart,
    sets: SetsPart,
    groups: GroupsPart,
    clock: ClockPart,
    readers: ReadersPart,
    observers: ObserversPart,
    indexes: IndexesPart,
}

impl FrameParts {
    /// What changed from this image (earlier) to `later`: live entities from the allocators, each
    /// registered component's pools entity by entity, the hashed resources. O(slots + rows).
    pub(crate) fn diff(&self, later: &Self, registry: &RollbackRegistry) -> super::FrameDiff {
        let (spawned, despawned) =
            super::frame_diff::live_changes(self.entities.live(), later.entities.live());
        let components = registry
            .components
            .iter()
            .zip(self.pools.iter().zip(&later.pools))
            .map(|(entry, (a, b))| super::frame_diff::component_changes(&entry.changed, &entry.name, a, b))
            .collect();
        let resources_changed = registry
            .resources
            .iter()
            .zip(self.resources.iter().zip(&later.resources))
            .filter(|(entry, ((a, _), (b, _)))| resource_digest(entry, a) != resource_digest(entry, b))
            .map(|(entry, _)| entry.name.clone())
            .collect();
        super::FrameDiff { spawned, despawned, components, resources_changed }
    }

    /// An empty world that accepts this image: its allocator shares the saved world's tag, so the
    /// saved handles name the same entities in it.
    pub(crate) fn accepting_world(&self) -> World {
        let mut world = World::new();
        *world.entities_mut() = crate::entity::Entities::accepting(&self.entities);
        world
    }
}

/// The entity allocator: slots, generations, free list, live count.
pub(crate) struct AllocatorPart;

impl WorldPart for AllocatorPart {
    type Image = EntitiesImage;

    fn save(world: &World, _: &RollbackRegistry, image: &mut EntitiesImage) {
        world.entities().save_image(image);
    }

    fn check(world: &World, _: &RollbackRegistry, image: &EntitiesImage) -> Result<(), RollbackError> {
        if world.entities().accepts(image) {
            Ok(())
        } else {
            Err(RollbackError::ForeignWorld { saved: image.world_tag(), world: world.entities().world_tag() })
        }
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &EntitiesImage) {
        world.entities_mut().restore_image(image);
    }

    fn hash(world: &World, _: &RollbackRegistry, hasher: &mut StableHasher) {
        let entities = world.entities();
        hasher.write_word(hash_mapped(3, entities.slots(), crate::entity::Slot::word));
        hasher.write_word(hash_mapped(4, entities.free_list(), |&i| u64::from(i)));
        hasher.write_word(u64::from(entities.len()));
    }

    fn compare(_: &RollbackRegistry, a: &EntitiesImage, b: &EntitiesImage) -> Option<StateDifference> {
        a.first_difference(b).map(|slot| StateDifference::Allocator { slot })
    }

    fn bytes(image: &EntitiesImage) -> usize {
        image.bytes()
    }
}

/// The lazy collector's sampling state.
pub(crate) struct SamplerPart;

impl WorldPart for SamplerPart {
    type Image = u64;

    fn save(world: &World, _: &RollbackRegistry, image: &mut u64) {
        *image = world.parts().sampler;
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &u64) {
        *world.parts_mut().sampler = *image;
    }

    fn hash(world: &World, _: &RollbackRegistry, hasher: &mut StableHasher) {
        hasher.write_word(world.parts().sampler);
    }

    fn compare(_: &RollbackRegistry, a: &u64, b: &u64) -> Option<StateDifference> {
        (a != b).then_some(StateDifference::Sampler)
    }

    fn bytes(_: &u64) -> usize {
        size_of::<u64>()
    }
}

/// The registered components' pools: rows, values and, for tracked types, change ticks and logs.
pub(crate) struct PoolsPart;

impl WorldPart for PoolsPart {
    /// One per registered component, in registry (name) order.
    type Image = Vec<PoolImage>;

    fn save(world: &World, registry: &RollbackRegistry, image: &mut Vec<PoolImage>) {
        image.resize_with(registry.components.len(), PoolImage::new);
        for (entry, pool) in registry.components.iter().zip(image) {
            (entry.save)(world, pool);
        }
    }

    fn check(world: &World, registry: &RollbackRegistry, _: &Vec<PoolImage>) -> Result<(), RollbackError> {
        match registry.unregistered_pool(world) {
            Some(type_name) => Err(RollbackError::UnregisteredComponent { type_name }),
            None => Ok(()),
        }
    }

    fn restore(world: &mut World, registry: &RollbackRegistry, image: &Vec<PoolImage>) {
        for (entry, pool) in registry.components.iter().zip(image) {
            (entry.restore)(world, pool);
        }
    }

    fn hash(world: &World, registry: &RollbackRegistry, hasher: &mut StableHasher) {
        let components = world.parts().components;
        for entry in &registry.components {
            std::hash::Hasher::write(hasher, entry.name.as_bytes());
            // A missing pool and an empty one are the same state.
            let pool = components.id_by_type(entry.type_id).map(|id| components.pool(id));
            let Some(pool) = pool.filter(|pool| !pool.is_empty()) else {
                hasher.write_word(0);
                continue;
            };
            hasher.write_word(pool.len() as u64);
            hasher.write_word(hash_mapped(pool.len() as u64, pool.entities(), |&e| entity_word(e)));
            (entry.hash)(pool, hasher);
        }
    }

    fn compare(
        registry: &RollbackRegistry,
        a: &Vec<PoolImage>,
        b: &Vec<PoolImage>,
    ) -> Option<StateDifference> {
        for (entry, (pa, pb)) in registry.components.iter().zip(a.iter().zip(b)) {
            if let Some((row, entity)) = first_row_difference(pa, pb, &*entry.diff) {
                return Some(StateDifference::Component { name: entry.name.clone(), row, entity });
            }
        }
        None
    }

    fn bytes(image: &Vec<PoolImage>) -> usize {
        image.iter().map(PoolImage::bytes).sum()
    }
}

/// The hierarchy: the pool of [`Relationship`] and the ordering and propagation bookkeeping.
pub(crate) struct HierarchyPart;

/// A saved hierarchy.
#[derive(Default)]
pub(crate) struct HierarchyImage {
    relationships: PoolImage,
    /// `None` when the world had not set hierarchies up.
    order: Option<OrderState>,
}

impl WorldPart for HierarchyPart {
    type Image = HierarchyImage;

    fn save(world: &World, _: &RollbackRegistry, image: &mut HierarchyImage) {
        match world.relationship_pool() {
            Some(pool) => image.relationships.save_clone_with::<Relationship>(
                pool,
                Relationship::duplicate,
                |dst, src| *dst = src.duplicate(),
            ),
            None => image.relationships.save_empty::<Relationship>(),
        }
        world.save_hierarchy_order_into(&mut image.order);
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &HierarchyImage) {
        if image.relationships.len() > 0 || world.relationship_pool().is_some() {
            let id = world.components_mut().register::<Relationship>();
            image.relationships.restore_clone_with::<Relationship>(
                world.components_mut().pool_mut(id),
                Relationship::duplicate,
                |dst, src| *dst = src.duplicate(),
            );
        }
        world.restore_hierarchy_order_from(image.order.as_ref());
    }

    fn hash(world: &World, _: &RollbackRegistry, hasher: &mut StableHasher) {
        match world.relationship_pool() {
            Some(pool) if !pool.is_empty() => {
                hasher.write_word(pool.len() as u64);
                hasher.write_word(hash_mapped(1, pool.entities(), |&e| entity_word(e)));
                let links = pool.values::<Relationship>().iter().flat_map(|r| r.words());
                hasher.write_word(hash_words(2, links));
            }
            _ => hasher.write_word(0),
        }
    }

    fn compare(_: &RollbackRegistry, a: &HierarchyImage, b: &HierarchyImage) -> Option<StateDifference> {
        let rel_diff = |x: &PoolImage, y: &PoolImage| -> Option<usize> {
            let (x, y) = (x.values::<Relationship>()?, y.values::<Relationship>()?);
            x.iter().zip(y).position(|(p, q)| p.words() != q.words())
        };
        if let Some((row, entity)) = first_row_difference(&a.relationships, &b.relationships, rel_diff) {
            return Some(StateDifference::Hierarchy { row, entity });
        }
        let order =
            |o: &OrderState| (o.dirty.iter().map(|&e| entity_word(e)).collect::<Vec<_>>(), o.overflow);
        (a.order.as_ref().map(order) != b.order.as_ref().map(order))
            .then_some(StateDifference::Hierarchy { row: 0, entity: None })
    }

    fn bytes(image: &HierarchyImage) -> usize {
        image.relationships.bytes()
    }
}

/// Every relation kind the world set up (`World::relate`): its pairs, target marks and index (the
/// index read from the world's relation index, `World::parts().relations`).
pub(crate) struct RelationsPart;

impl WorldPart for RelationsPart {
    /// Per relation kind, by `R`'s type name (sorted).
    type Image = Vec<(&'static str, RelationImage)>;

    fn save(world: &World, _: &RollbackRegistry, image: &mut Self::Image) {
        let kinds = &world.parts().relations.kinds;
        // Kinds are only ever added, so the image's slots line up with the first kinds.
        image.truncate(kinds.len());
        for (i, kind) in kinds.iter().enumerate() {
            if image.len() <= i {
                image.push((kind.name, RelationImage::default()));
            }
            image[i].0 = kind.name;
            (kind.ops.save)(world, kind, &mut image[i].1);
        }
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &Self::Image) {
        let kinds: SmallVec<[_; 4]> =
            world.parts_mut().relations.kinds.iter().map(|k| (k.name, k.ops.restore)).collect();
        for (k, (name, restore)) in kinds.into_iter().enumerate() {
            // A kind set up after the save had no pairs then.
            let saved = image.iter().find(|(n, _)| *n == name).map(|(_, i)| i);
            restore(world, k, saved);
        }
    }

    fn hash(world: &World, _: &RollbackRegistry, hasher: &mut StableHasher) {
        let mut kinds: SmallVec<[_; 4]> = world.parts().relations.kinds.iter().collect();
        kinds.sort_unstable_by_key(|k| k.name);
        for kind in kinds {
            let mut words = Vec::new();
            (kind.ops.hash)(world, kind, &mut |w| words.push(w));
            // A kind with no pair, mark or index entry is the same state as no kind at all.
            if words.iter().all(|&w| w == 0) {
                continue;
            }
            std::hash::Hasher::write(hasher, kind.name.as_bytes());
            hasher.write_word(hash_words(5, words));
        }
    }

    fn compare(_: &RollbackRegistry, a: &Self::Image, b: &Self::Image) -> Option<StateDifference> {
        for (name, ia) in a {
            let empty = RelationImage::default();
            let ib = b.iter().find(|(n, _)| n == name).map_or(&empty, |(_, i)| i);
            let targets =
                |_: &PoolImage, _: &PoolImage| ia.targets.iter().zip(&ib.targets).position(|(x, y)| x != y);
            let pairs = first_row_difference(&ia.pairs, &ib.pairs, targets)
                .or_else(|| first_row_difference(&ia.targeted, &ib.targeted, |_, _| None))
                .or_else(|| {
                    let sorted = |i: &RelationImage| {
                        i.index
                            .iter()
                            .map(|(t, s)| {
                                (entity_word(*t), s.iter().map(|&e| entity_word(e)).collect::<Vec<_>>())
                            })
                            .collect::<Vec<_>>()
                    };
                    (sorted(ia) != sorted(ib)).then_some((0, None))
                });
            if let Some((row, entity)) = pairs {
                return Some(StateDifference::Relation { name: (*name).to_owned(), row, entity });
            }
        }
        None
    }

    fn bytes(image: &Self::Image) -> usize {
        image.iter().map(|(_, i)| i.bytes()).sum()
    }
}

/// Every many-to-many pair kind the world set up (`World::add_pair`): each kind's `Targets<R>`
/// pool and reverse index, and the target marks.
pub(crate) struct PairsPart;

impl WorldPart for PairsPart {
    type Image = PairsImage;

    fn save(world: &World, _: &RollbackRegistry, image: &mut PairsImage) {
        world.save_pairs(image);
    }

    fn check(world: &World, _: &RollbackRegistry, image: &PairsImage) -> Result<(), RollbackError> {
        match image.unknown_kind(world) {
            Some(type_name) => Err(RollbackError::UnregisteredComponent { type_name }),
            None => Ok(()),
        }
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &PairsImage) {
        world.restore_pairs(image);
    }

    /// The pairs' structure (`World::hash_pairs`), then the values of the kinds registered with
    /// [`RollbackRegistry::register_pair`] that have pairs, by registered name.
    fn hash(world: &World, registry: &RollbackRegistry, hasher: &mut StableHasher) {
        world.hash_pairs(&mut |name, words| {
            std::hash::Hasher::write(hasher, name.as_bytes());
            hasher.write_word(hash_words(6, words.iter().copied()));
        });
        for entry in &registry.pairs {
            if let Some(values) = (entry.hash)(world) {
                std::hash::Hasher::write(hasher, entry.name.as_bytes());
                hasher.write_word(values);
            }
        }
    }

    fn compare(_: &RollbackRegistry, a: &PairsImage, b: &PairsImage) -> Option<StateDifference> {
        let (name, row, entity) = a.first_difference(b)?;
        Some(StateDifference::Relation { name: name.to_owned(), row, entity })
    }

    fn bytes(image: &PairsImage) -> usize {
        image.bytes()
    }
}

/// The registered resources, with their change ticks.
pub(crate) struct ResourcesPart;

impl WorldPart for ResourcesPart {
    /// One per registered resource, in registry (name) order: the value (`None` when the world
    /// had none) and its change ticks.
    type Image = Vec<(SavedResource, Option<(Tick, Tick)>)>;

    fn save(world: &World, registry: &RollbackRegistry, image: &mut Self::Image) {
        image.resize_with(registry.resources.len(), || (None, None));
        for (entry, (saved, ticks)) in registry.resources.iter().zip(image) {
            (entry.save)(world, saved);
            *ticks = (entry.ticks)(world);
        }
    }

    /// Puts every value back, then its ticks (the value's own insert or write stamps the present,
    /// which the saved ticks replace).
    fn restore(world: &mut World, registry: &RollbackRegistry, image: &Self::Image) {
        for (entry, (saved, ticks)) in registry.resources.iter().zip(image) {
            (entry.restore)(world, saved);
            if let Some(ticks) = *ticks {
                (entry.set_ticks)(world, ticks);
            }
        }
    }

    fn hash(world: &World, registry: &RollbackRegistry, hasher: &mut StableHasher) {
        for entry in &registry.resources {
            if let Some(hash) = &entry.hash {
                std::hash::Hasher::write(hasher, entry.name.as_bytes());
                match (entry.get)(world) {
                    Some(value) => {
                        hasher.write_word(1);
                        hash(value, hasher);
                    }
                    None => hasher.write_word(0),
                }
            }
        }
    }

    fn compare(registry: &RollbackRegistry, a: &Self::Image, b: &Self::Image) -> Option<StateDifference> {
        registry
            .resources
            .iter()
            .zip(a.iter().zip(b))
            .find(|(entry, ((ra, _), (rb, _)))| resource_digest(entry, ra) != resource_digest(entry, rb))
            .map(|(entry, _)| StateDifference::Resource { name: entry.name.clone() })
    }

    fn bytes(_: &Self::Image) -> usize {
        0
    }
}

/// The stable hash of a saved resource by its entry's hash (`Some(None)` when it was absent);
/// `None` for a resource registered without a hash, which never counts as changed.
fn resource_digest(entry: &super::registry::ResourceEntry, saved: &SavedResource) -> Option<Option<u64>> {
    let hash = entry.hash.as_ref()?;
    Some(saved.as_deref().map(|value| super::registry::digest(&**hash, value)))
}

/// Each entity's component set: derived from the pools, saved for speed (restored as a copy when
/// the image comes from this world's table of sets, else rebuilt from the restored pools).
pub(crate) struct SetsPart;

impl WorldPart for SetsPart {
    type Image = SetsImage;

    fn save(world: &World, _: &RollbackRegistry, image: &mut SetsImage) {
        world.parts().component_sets.save_image(image);
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &SetsImage) {
        if !world.parts_mut().component_sets.restore_image(image) {
            // Saved from another world (`frame_world`, or a world sharing the tag): its set ids
            // mean nothing here, so the sets are read back from the restored pools.
            world.rebuild_component_sets();
        }
    }

    fn hash(_: &World, _: &RollbackRegistry, _: &mut StableHasher) {}

    fn compare(_: &RollbackRegistry, _: &SetsImage, _: &SetsImage) -> Option<StateDifference> {
        None
    }

    fn bytes(image: &SetsImage) -> usize {
        image.bytes()
    }
}

/// The owning groups' lengths (the packed rows themselves are in the pools).
pub(crate) struct GroupsPart;

impl WorldPart for GroupsPart {
    /// Per owning group: its owned components and its length, in rows.
    type Image = Vec<(SmallVec<[ComponentId; 4]>, usize)>;

    fn save(world: &World, _: &RollbackRegistry, image: &mut Self::Image) {
        image.clear();
        image.extend(world.parts().groups.owning.iter().map(|g| (g.owned.clone(), g.len)));
    }

    fn check(world: &World, _: &RollbackRegistry, image: &Self::Image) -> Result<(), RollbackError> {
        let groups = &world.groups().owning;
        if groups.len() != image.len() || groups.iter().zip(image).any(|(g, (owned, _))| g.owned != *owned) {
            return Err(RollbackError::GroupsDiffer { saved: image.len(), world: groups.len() });
        }
        Ok(())
    }

    /// A world with no groups (a `frame_world`) takes the pools' rows as they are.
    fn restore(world: &mut World, _: &RollbackRegistry, image: &Self::Image) {
        for (group, (_, len)) in world.groups_mut().owning.iter_mut().zip(image) {
            group.len = *len;
        }
    }

    fn hash(_: &World, _: &RollbackRegistry, _: &mut StableHasher) {}

    fn compare(_: &RollbackRegistry, _: &Self::Image, _: &Self::Image) -> Option<StateDifference> {
        None
    }

    fn bytes(image: &Self::Image) -> usize {
        image.len() * size_of::<usize>()
    }
}

/// The change clock: the present tick, the last `clear_trackers`, the last wraparound check.
/// Restored with the pools' change ticks, so readers see after a restore what they saw then.
pub(crate) struct ClockPart;

impl WorldPart for ClockPart {
    type Image = [u32; 3];

    fn save(world: &World, _: &RollbackRegistry, image: &mut [u32; 3]) {
        *image = world.components().clock().state();
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &[u32; 3]) {
        world.components().clock().set_state(*image);
    }

    fn hash(_: &World, _: &RollbackRegistry, _: &mut StableHasher) {}

    fn compare(_: &RollbackRegistry, _: &[u32; 3], _: &[u32; 3]) -> Option<StateDifference> {
        None
    }

    fn bytes(image: &[u32; 3]) -> usize {
        size_of_val(image)
    }
}

/// The ticks change readers last read at: systems' last runs, removal readers' cursors.
pub(crate) struct ReadersPart;

impl WorldPart for ReadersPart {
    type Image = ReaderTicksImage;

    fn save(world: &World, _: &RollbackRegistry, image: &mut ReaderTicksImage) {
        world.parts().reader_ticks.save_image(image);
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &ReaderTicksImage) {
        world.parts().reader_ticks.restore_image(image);
    }

    fn hash(_: &World, _: &RollbackRegistry, _: &mut StableHasher) {}

    fn compare(_: &RollbackRegistry, _: &ReaderTicksImage, _: &ReaderTicksImage) -> Option<StateDifference> {
        None
    }

    fn bytes(image: &ReaderTicksImage) -> usize {
        image.bytes()
    }
}

/// The value indexes: derived from the pools, so nothing is saved; a restore marks them stale and
/// each rebuilds from its restored pool on its next lookup (O(n) then), so none is ever read stale.
pub(crate) struct IndexesPart;

impl WorldPart for IndexesPart {
    type Image = ();

    fn save(_: &World, _: &RollbackRegistry, _: &mut ()) {}

    fn restore(world: &mut World, _: &RollbackRegistry, _: &()) {
        world.parts_mut().indexes.invalidate();
    }

    fn hash(_: &World, _: &RollbackRegistry, _: &mut StableHasher) {}

    fn compare(_: &RollbackRegistry, _: &(), _: &()) -> Option<StateDifference> {
        None
    }

    fn bytes(_: &()) -> usize {
        0
    }
}

/// The first row where two images differ, by entity or by value (`values` compares the common
/// rows), or where one is longer; with the entity at that row (of `a`, else of `b`).
pub(crate) fn first_row_difference(
    a: &PoolImage,
    b: &PoolImage,
    values: impl Fn(&PoolImage, &PoolImage) -> Option<usize>,
) -> Option<(usize, Option<crate::Entity>)> {
    let (ea, eb) = (a.entities(), b.entities());
    let by_entity =
        ea.iter().zip(eb).position(|(x, y)| x.index() != y.index() || x.generation() != y.generation());
    let by_value = values(a, b);
    let by_len = (ea.len() != eb.len()).then_some(ea.len().min(eb.len()));
    let row = [by_entity, by_value, by_len].into_iter().flatten().min()?;
    Some((row, ea.get(row).or_else(|| eb.get(row)).copied()))
}

/// The observers' entities: code cannot be saved, so a restore checks the world has the observers
/// the frame had (the same entities) and puts nothing back; their `Observer` and `Observed` rows
/// are left as they are (equal by that check). Not hashed: registrations, not simulation state.
pub(crate) struct ObserversPart;

impl WorldPart for ObserversPart {
    /// The observer entities, sorted.
    type Image = Vec<crate::entity::Entity>;

    fn save(world: &World, _: &RollbackRegistry, image: &mut Self::Image) {
        image.clear();
        image.extend(world.observers().entities());
        image.sort_unstable();
    }

    fn check(world: &World, _: &RollbackRegistry, image: &Self::Image) -> Result<(), RollbackError> {
        let observers = world.observers();
        let same = observers.len() == image.len() && image.iter().all(|&e| observers.contains(e));
        if same {
            Ok(())
        } else {
            Err(RollbackError::ObserversChanged { saved: image.len(), now: observers.len() })
        }
    }

    fn restore(_: &mut World, _: &RollbackRegistry, _: &Self::Image) {}

    fn hash(_: &World, _: &RollbackRegistry, _: &mut StableHasher) {}

    fn compare(_: &RollbackRegistry, _: &Self::Image, _: &Self::Image) -> Option<StateDifference> {
        None
    }

    fn bytes(image: &Self::Image) -> usize {
        std::mem::size_of_val(image.as_slice())
    }
}

//! The ring of saved frames: in-memory save and restore of a world's simulation state.

use smallvec::SmallVec;

use super::registry::{SavedResource, entity_word};
use super::{RollbackError, RollbackRegistry, StateDifference};
use crate::component::ComponentId;
use crate::entity::EntitiesImage;
use crate::hierarchy::{OrderState, Relationship};
use crate::storage::PoolImage;
use crate::world::{SetsImage, World};

/// One saved frame. Every buffer is reused by the next save into the same slot.
#[derive(Default)]
pub(crate) struct FrameImage {
    /// The frame number, `None` while empty or half-written.
    frame: Option<u64>,
    entities: EntitiesImage,
    /// Per entity, its component set.
    sets: SetsImage,
    /// One per registered component, in registry order.
    pools: Vec<PoolImage>,
    relationships: PoolImage,
    order: Option<OrderState>,
    /// One per registered resource, in registry order.
    resources: Vec<SavedResource>,
    /// Per owning group: its owned components and its length, in rows.
    groups: Vec<(SmallVec<[ComponentId; 4]>, usize)>,
    sampler: u64,
}

/// The last `capacity` saved frames of a world, in memory: save and restore copy columns and
/// indices as they are (no serialization), for rollback netcode (GGPO style), replays and
/// lockstep resimulation.
///
/// Shape: `capacity` slots; frame `f` is saved into slot `f % capacity`, overwriting whatever
/// frame was there, so the ring holds at most `capacity` frames, and any `capacity` consecutive
/// frame numbers fit. Each slot keeps its buffers: once every slot has held the largest world it
/// sees, saving and restoring allocate nothing.
///
/// A saved frame holds: the entity allocator (slots, generations, free list, live count); each
/// entity's component set id; every registered component pool (sparse pages, entities in row order,
/// values: `memcpy` per column for plain data, `clone_from` for [`register_clone`] types); the
/// hierarchy's pool of [`Relationship`] and its ordering bookkeeping; the registered resources;
/// the owning groups' lengths; the lazy collector's sampler. Restoring puts all of it back, so the
/// world then evolves exactly as it did from that frame: same iteration order, same recycled ids.
///
/// Restore does not touch hooks, watches, systems, events or unregistered resources, fires no
/// hook (values are copied, not inserted), and drops ids reserved but not flushed. Change ticks
/// are not rolled back: a restored pool that tracks changes counts every row as added and
/// changed at the restore (as a loaded snapshot does), so `Changed` readers see it all once, and
/// the next transform propagation recomputes every restored entity.
///
/// Complexity: save and restore are O(entity slots + registered rows + sparse pages).
///
/// [`register_clone`]: RollbackRegistry::register_clone
///
/// # Examples
/// ```
/// use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
/// use mosaic::{Component, World};
///
/// #[derive(Component, Clone, Copy, NoUninit)]
/// #[bytemuck(crate = "mosaic::rollback::bytemuck")]
/// #[repr(C)]
/// struct Position { x: f32, y: f32 }
///
/// let mut registry = RollbackRegistry::new();
/// registry.register::<Position>("position");
/// let mut ring = RollbackRing::new(registry, 8);
///
/// let mut world = World::new();
/// let e = world.spawn(Position { x: 0.0, y: 0.0 });
/// ring.save(&mut world, 0).unwrap();
/// let at_0 = ring.hash(&world);
/// world.get_mut::<Position>(e).unwrap().x = 5.0;
/// world.spawn(Position { x: 1.0, y: 1.0 });
/// ring.restore(0, &mut world).unwrap();
/// assert_eq!(world.len(), 1);
/// assert_eq!(ring.hash(&world), at_0);
/// ```
pub struct RollbackRing {
    registry: RollbackRegistry,
    frames: Vec<FrameImage>,
}

impl std::fmt::Debug for RollbackRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RollbackRing")
            .field("registry", &self.registry)
            .field("capacity", &self.frames.len())
            .field("frames", &self.saved_frames().collect::<Vec<_>>())
            .finish()
    }
}

impl RollbackRing {
    /// A ring of `capacity` frames of what `registry` names. Allocates the slots, not their
    /// buffers (the first save into each slot does).
    ///
    /// # Panics
    /// If `capacity` is 0.
    #[track_caller]
    pub fn new(registry: RollbackRegistry, capacity: usize) -> Self {
        assert!(capacity > 0, "a rollback ring needs room for at least one frame");
        Self { registry, frames: (0..capacity).map(|_| FrameImage::default()).collect() }
    }

    /// The registry the ring saves by.
    pub fn registry(&self) -> &RollbackRegistry {
        &self.registry
    }

    /// Number of frames the ring holds at most.
    pub fn capacity(&self) -> usize {
        self.frames.len()
    }

    /// The frames held, in increasing order. O(capacity log capacity).
    pub fn saved_frames(&self) -> impl Iterator<Item = u64> + '_ {
        let mut frames: Vec<u64> = self.frames.iter().filter_map(|f| f.frame).collect();
        frames.sort_unstable();
        frames.into_iter()
    }

    /// Bytes saved for frame `frame` (allocator, component sets, pools with their sparse pages,
    /// the hierarchy; resources and heap data of cloned values not counted): what a plain
    /// `memcpy` of the same state would move. `None` if the frame is not held.
    pub fn frame_bytes(&self, frame: u64) -> Option<usize> {
        let image = self.get(frame).ok()?;
        let pools: usize = image.pools.iter().map(PoolImage::bytes).sum();
        Some(image.entities.bytes() + image.sets.bytes() + pools + image.relationships.bytes())
    }

    /// Whether frame `frame` is held. O(1).
    pub fn contains(&self, frame: u64) -> bool {
        self.slot(frame).frame == Some(frame)
    }

    /// The world hash of `world` by this ring's registry ([`RollbackRegistry::hash`]).
    pub fn hash(&self, world: &World) -> u64 {
        self.registry.hash(world)
    }

    fn slot_index(&self, frame: u64) -> usize {
        (frame % self.frames.len() as u64) as usize
    }

    fn slot(&self, frame: u64) -> &FrameImage {
        &self.frames[self.slot_index(frame)]
    }

    /// The saved frame `frame`, or the error naming what the ring holds.
    fn get(&self, frame: u64) -> Result<&FrameImage, RollbackError> {
        let image = self.slot(frame);
        if image.frame == Some(frame) {
            return Ok(image);
        }
        let held = || self.frames.iter().filter_map(|f| f.frame);
        Err(RollbackError::FrameNotSaved { frame, oldest: held().min(), newest: held().max() })
    }

    /// Saves `world`'s state as frame `frame`, replacing the frame held in its slot (`frame %
    /// capacity`). Flushes reserved entities first. O(slots + registered rows + pages);
    /// allocates only while the slot's buffers are smaller than the world.
    ///
    /// # Errors
    /// [`RollbackError::UnregisteredComponent`] if the world has rows of a component type the
    /// registry does not name (nothing is saved; the slot keeps its frame).
    ///
    /// # Panics
    /// If a [`register_clone`](RollbackRegistry::register_clone) type's `Clone` panics (the slot
    /// is then empty; the world is untouched).
    pub fn save(&mut self, world: &mut World, frame: u64) -> Result<(), RollbackError> {
        world.flush();
        if let Some(type_name) = self.registry.unregistered_pool(world) {
            return Err(RollbackError::UnregisteredComponent { type_name });
        }
        let index = self.slot_index(frame);
        let registry = &self.registry;
        let image = &mut self.frames[index];
        image.frame = None;
        world.entities.save_image(&mut image.entities);
        world.component_sets.save_image(&mut image.sets);

        image.pools.resize_with(registry.components.len(), PoolImage::new);
        for (entry, pool) in registry.components.iter().zip(&mut image.pools) {
            (entry.save)(world, pool);
        }
        match world.relationship_pool() {
            Some(pool) => image.relationships.save_clone_with::<Relationship>(
                pool,
                Relationship::duplicate,
                |dst, src| *dst = src.duplicate(),
            ),
            None => image.relationships.save_empty::<Relationship>(),
        }
        world.save_hierarchy_order_into(&mut image.order);
        image.resources.resize_with(registry.resources.len(), || None);
        for (entry, saved) in registry.resources.iter().zip(&mut image.resources) {
            (entry.save)(world, saved);
        }
        image.groups.clear();
        image.groups.extend(world.groups.owning.iter().map(|g| (g.owned.clone(), g.len)));
        image.sampler = world.sampler;
        image.frame = Some(frame);
        Ok(())
    }

    /// Puts `world` back in the state saved as frame `frame`. Everything is checked first: on
    /// error the world is unchanged. O(slots + registered rows + pages); allocates only where the
    /// world's buffers are smaller than the saved ones.
    ///
    /// The frame stays in the ring (restore it again, or save over it). Frames saved after it are
    /// kept too: they belong to the timeline being replaced, and are overwritten as the
    /// resimulation saves its own.
    ///
    /// # Errors
    /// - [`RollbackError::FrameNotSaved`] if the ring does not hold `frame`;
    /// - [`RollbackError::ForeignWorld`] if it was saved from another world;
    /// - [`RollbackError::UnregisteredComponent`] if the world has rows of an unregistered type;
    /// - [`RollbackError::GroupsDiffer`] if the world's owning groups are not the saved ones.
    ///
    /// # Aborts
    /// If a [`register_clone`](RollbackRegistry::register_clone) type's `Clone` or `Drop` panics
    /// midway (a half-restored pool would break its invariants).
    pub fn restore(&self, frame: u64, world: &mut World) -> Result<(), RollbackError> {
        let image = self.get(frame)?;
        self.check(image, world)?;
        self.restore_image(image, world);
        for (group, (_, len)) in world.groups.owning.iter_mut().zip(&image.groups) {
            group.len = *len;
        }
        Ok(())
    }

    /// A new world holding the state saved as frame `frame`, for reading it without touching
    /// the world it came from (an inspector scrubbing back through saved frames, a debugger
    /// comparing two frames): the same entities (handles of the saved world name the same
    /// entities in it: it shares that world's tag), registered components with their values in
    /// the saved row order, the hierarchy and the registered resources.
    ///
    /// The new world has no owning groups (its pools are plain, rows in the saved order), hooks,
    /// watches, events, unregistered resources or systems; its change ticks count every row as
    /// added. O(slots + registered rows + pages) time, and it allocates the whole state.
    ///
    /// # Errors
    /// [`RollbackError::FrameNotSaved`] if the ring does not hold `frame`.
    ///
    /// # Examples
    /// ```
    /// use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, Copy, NoUninit, Debug, PartialEq)]
    /// #[bytemuck(crate = "mosaic::rollback::bytemuck")]
    /// #[repr(C)]
    /// struct Position { x: f32, y: f32 }
    ///
    /// let mut registry = RollbackRegistry::new();
    /// registry.register::<Position>("position");
    /// let mut ring = RollbackRing::new(registry, 8);
    /// let mut world = World::new();
    /// let e = world.spawn(Position { x: 0.0, y: 0.0 });
    /// ring.save(&mut world, 0).unwrap();
    /// world.get_mut::<Position>(e).unwrap().x = 5.0;
    ///
    /// let then = ring.frame_world(0).unwrap();
    /// assert_eq!(then.get::<Position>(e), Ok(&Position { x: 0.0, y: 0.0 }));
    /// assert_eq!(world.get::<Position>(e), Ok(&Position { x: 5.0, y: 0.0 }));
    /// assert!(ring.frame_world(1).is_err());
    /// ```
    pub fn frame_world(&self, frame: u64) -> Result<World, RollbackError> {
        let image = self.get(frame)?;
        let mut world = World::new();
        world.entities = crate::entity::Entities::accepting(&image.entities);
        self.restore_image(image, &mut world);
        Ok(world)
    }

    /// Copies `image` into `world`, all but the owning groups' lengths; `world` must accept it
    /// (checked by the caller).
    fn restore_image(&self, image: &FrameImage, world: &mut World) {
        world.entities.restore_image(&image.entities);
        let sets_restored = world.component_sets.restore_image(&image.sets);
        for (entry, pool) in self.registry.components.iter().zip(&image.pools) {
            (entry.restore)(world, pool);
        }
        if image.relationships.len() > 0 || world.relationship_pool().is_some() {
            let id = world.components.register::<Relationship>();
            image.relationships.restore_clone_with::<Relationship>(
                world.components.pool_mut(id),
                Relationship::duplicate,
                |dst, src| *dst = src.duplicate(),
            );
        }
        if !sets_restored {
            // Saved from another world (`frame_world`, or a world sharing the tag): its set ids
            // mean nothing here, so the sets are read back from the restored pools.
            world.rebuild_component_sets();
        }
        world.restore_hierarchy_order_from(image.order.as_ref());
        for (entry, saved) in self.registry.resources.iter().zip(&image.resources) {
            (entry.restore)(world, saved);
        }
        world.sampler = image.sampler;
    }

    /// Checks `world` can take `image`.
    fn check(&self, image: &FrameImage, world: &World) -> Result<(), RollbackError> {
        if !world.entities.accepts(&image.entities) {
            return Err(RollbackError::ForeignWorld {
                saved: image.entities.world_tag(),
                world: world.entities.world_tag(),
            });
        }
        if let Some(type_name) = self.registry.unregistered_pool(world) {
            return Err(RollbackError::UnregisteredComponent { type_name });
        }
        let groups = &world.groups.owning;
        if groups.len() != image.groups.len()
            || groups.iter().zip(&image.groups).any(|(g, (owned, _))| g.owned != *owned)
        {
            return Err(RollbackError::GroupsDiffer { saved: image.groups.len(), world: groups.len() });
        }
        Ok(())
    }

    /// Compares frame `frame` of this ring with frame `other_frame` of `other` (two runs of the
    /// same simulation, each saved into its own ring with the same registry), and returns the
    /// first difference: allocator first, then each component by name (the first row whose entity
    /// or value differs), the hierarchy, the hashed resources. `None` if the states are equal.
    /// O(slots + rows).
    ///
    /// # Errors
    /// [`RollbackError::FrameNotSaved`] if either ring does not hold its frame.
    ///
    /// # Panics
    /// If the two rings' registries do not name the same components and resources.
    #[track_caller]
    pub fn compare(
        &self,
        frame: u64,
        other: &RollbackRing,
        other_frame: u64,
    ) -> Result<Option<StateDifference>, RollbackError> {
        let (a, b) = (self.get(frame)?, other.get(other_frame)?);
        let names = |r: &RollbackRegistry| {
            (
                r.component_names().map(str::to_owned).collect::<Vec<_>>(),
                r.resource_names().map(str::to_owned).collect::<Vec<_>>(),
            )
        };
        assert!(names(&self.registry) == names(&other.registry), "the rings' registries differ");
        if let Some(slot) = a.entities.first_difference(&b.entities) {
            return Ok(Some(StateDifference::Allocator { slot }));
        }
        for (entry, (pa, pb)) in self.registry.components.iter().zip(a.pools.iter().zip(&b.pools)) {
            if let Some((row, entity)) = first_row_difference(pa, pb, &entry.diff) {
                return Ok(Some(StateDifference::Component { name: entry.name.clone(), row, entity }));
            }
        }
        let rel_diff = |x: &PoolImage, y: &PoolImage| -> Option<usize> {
            let (x, y) = (x.values::<Relationship>()?, y.values::<Relationship>()?);
            x.iter().zip(y).position(|(p, q)| p.words() != q.words())
        };
        if let Some((row, entity)) = first_row_difference(&a.relationships, &b.relationships, rel_diff) {
            return Ok(Some(StateDifference::Hierarchy { row, entity }));
        }
        let order =
            |o: &OrderState| (o.dirty.iter().map(|&e| entity_word(e)).collect::<Vec<_>>(), o.overflow);
        if a.order.as_ref().map(order) != b.order.as_ref().map(order) {
            return Ok(Some(StateDifference::Hierarchy { row: 0, entity: None }));
        }
        for (entry, (ra, rb)) in self.registry.resources.iter().zip(a.resources.iter().zip(&b.resources)) {
            let Some(hash) = &entry.hash else { continue };
            let digest = |saved: &SavedResource| {
                saved.as_deref().map(|value| {
                    let mut hasher = super::StableHasher::new();
                    hash(value, &mut hasher);
                    std::hash::Hasher::finish(&hasher)
                })
            };
            if digest(ra) != digest(rb) {
                return Ok(Some(StateDifference::Resource { name: entry.name.clone() }));
            }
        }
        if a.sampler != b.sampler {
            return Ok(Some(StateDifference::Sampler));
        }
        Ok(None)
    }
}

/// The first row where two images differ, by entity or by value (`values` compares the common
/// rows), or where one is longer; with the entity at that row (of `a`, else of `b`).
fn first_row_difference(
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

impl World {
    /// Saves this world's state into `ring` as frame `frame`; see [`RollbackRing::save`].
    ///
    /// # Errors
    /// As [`RollbackRing::save`].
    pub fn save_frame(&mut self, ring: &mut RollbackRing, frame: u64) -> Result<(), RollbackError> {
        ring.save(self, frame)
    }

    /// Puts this world back in the state `ring` saved as frame `frame`; see
    /// [`RollbackRing::restore`].
    ///
    /// # Errors
    /// As [`RollbackRing::restore`].
    pub fn restore_frame(&mut self, ring: &RollbackRing, frame: u64) -> Result<(), RollbackError> {
        ring.restore(frame, self)
    }
}

//! The ring of saved frames: in-memory save and restore of a world's simulation state.

use std::sync::Arc;

use super::part::FrameParts;
use super::{FrameDiff, RollbackError, RollbackRegistry, StateDifference};
use crate::world::World;

/// One saved frame. Every buffer is reused by the next save into the same slot.
#[derive(Default)]
pub(crate) struct FrameImage {
    /// The frame number, `None` while empty or half-written.
    frame: Option<u64>,
    /// One image per part of the world (`rollback/part.rs`).
    parts: FrameParts,
}

/// The last `capacity` saved frames of a world, in memory: save and restore copy columns and
/// indices as they are (no serialization), for rollback netcode (GGPO style), replays and
/// lockstep resimulation.
///
/// Shape: `capacity` slots; frame `f` is saved into slot `f % capacity`, overwriting whatever
/// frame was there, so the ring holds at most `capacity` frames, and any `capacity` consecutive
/// frame numbers fit. Each slot keeps its buffers: once every slot has held the largest world it
/// sees, saving and restoring allocate nothing (except a save into the slot of a frame a
/// [`SavedFrame`] still shares: the reader keeps the old buffers, the save takes new ones).
///
/// [`RollbackRing::saved_frame`] shares one frame in O(1), to be read (rebuilt as a world,
/// diffed, compared) on another thread without holding the ring: the owner goes on saving.
///
/// A saved frame holds every part of the world's state (`rollback/part.rs` lists them): the
/// entity allocator (slots, generations, free list, live count); every registered component pool
/// (sparse pages, entities in row order, values: `memcpy` per column for plain data, `clone_from`
/// for [`register_clone`] types) with, for types whose changes are tracked, its change ticks and
/// logs; the hierarchy's pool of [`Relationship`](crate::hierarchy::Relationship) and its
/// ordering and propagation bookkeeping; every relation kind's pairs, target marks and index;
/// the registered resources; each entity's component set; the owning groups' lengths; the change
/// clock and the ticks every change reader (system, removal reader) last read at; the lazy
/// collector's sampler. Restoring puts all of it back, so the world then evolves exactly as it did
/// from that frame: same iteration order, same recycled ids, and change readers
/// ([`Added`](crate::Added), [`Changed`](crate::Changed),
/// [`RemovedComponents`](crate::RemovedComponents), world-level and in systems) see exactly what
/// they saw at that point of the straight run. A system's "last run" is itself world state: after
/// a restore to frame F it is the system's last run as of F (a system added since counts as never
/// run, and sees everything kept).
///
/// Restore does not touch hooks, watches, systems (their `Local` state included), events or
/// unregistered resources, fires no hook (values are copied, not inserted), and drops ids reserved
/// but not flushed.
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
    /// Shared with every [`SavedFrame`] handed out.
    registry: Arc<RollbackRegistry>,
    /// One image per slot; shared with a [`SavedFrame`] while one holds it (copy on write: a
    /// save into a shared slot replaces the image).
    frames: Vec<Arc<FrameImage>>,
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
        Self { registry: Arc::new(registry), frames: (0..capacity).map(|_| Arc::default()).collect() }
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

    /// Bytes saved for frame `frame` (allocator, component sets, pools with their sparse pages and
    /// change ticks, the hierarchy, relations; resources and heap data of cloned values not
    /// counted): what a plain
    /// `memcpy` of the same state would move. `None` if the frame is not held.
    pub fn frame_bytes(&self, frame: u64) -> Option<usize> {
        Some(self.get(frame).ok()?.parts.bytes())
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
        let slot = &mut self.frames[index];
        if Arc::get_mut(slot).is_none() {
            // A `SavedFrame` shares this image: it keeps it, the ring takes new buffers.
            *slot = Arc::default();
        }
        let image = Arc::get_mut(slot).expect("an image just made has one owner");
        image.frame = None;
        image.parts.save(world, &self.registry);
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
        image.parts.check(world, &self.registry)?;
        image.parts.restore(world, &self.registry);
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
        let mut world = image.parts.accepting_world();
        image.parts.restore(&mut world, &self.registry);
        Ok(world)
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
        Ok(a.parts.compare(&b.parts, &self.registry))
    }
}

impl RollbackRing {
    /// What changed from frame `earlier` to frame `later` of this ring, entity by entity
    /// ([`FrameDiff`]): entities spawned and despawned (from the saved allocators), per registered
    /// component the entities that gained it, lost it or changed value (plain-data values
    /// compared as bytes, cloned ones by their registered hash), and the hashed resources that
    /// changed. Read from the images alone: neither world is built, nothing is allocated per
    /// value. O(slots + rows of both frames).
    ///
    /// An inspector's "what happened between these frames" (`mosaic-inspect`'s `/api/diff`);
    /// [`RollbackRing::compare`] finds the first difference between two runs instead.
    ///
    /// # Errors
    /// [`RollbackError::FrameNotSaved`] if the ring does not hold either frame.
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
    /// let mut ring = RollbackRing::new(registry, 4);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Position { x: 0.0, y: 0.0 }), world.spawn(Position { x: 1.0, y: 0.0 }));
    /// ring.save(&mut world, 0).unwrap();
    /// world.get_mut::<Position>(a).unwrap().x = 5.0;
    /// world.despawn(b);
    /// let c = world.spawn(Position { x: 2.0, y: 0.0 });
    /// ring.save(&mut world, 1).unwrap();
    ///
    /// let diff = ring.diff(0, 1).unwrap();
    /// assert_eq!((diff.spawned, diff.despawned), (vec![c], vec![b]));
    /// assert_eq!(diff.components[0].changed, [a]);
    /// assert_eq!((diff.components[0].added.as_slice(), diff.components[0].removed.as_slice()), (&[c][..], &[b][..]));
    /// ```
    pub fn diff(&self, earlier: u64, later: u64) -> Result<FrameDiff, RollbackError> {
        let (a, b) = (self.get(earlier)?, self.get(later)?);
        Ok(a.parts.diff(&b.parts, &self.registry))
    }

    /// Frame `frame`, shared: a handle that reads it ([`SavedFrame::world`],
    /// [`SavedFrame::diff`], [`SavedFrame::compare`]) without the ring, so the ring's owner can
    /// go on saving while another thread rebuilds or compares frames (an inspector's server).
    /// O(1): no copy is made now; a later save into the frame's slot leaves this image to the
    /// handle and takes new buffers (one frame's allocation).
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
    /// let mut ring = RollbackRing::new(registry, 1);
    /// let mut world = World::new();
    /// let e = world.spawn(Position { x: 0.0, y: 0.0 });
    /// ring.save(&mut world, 0).unwrap();
    /// let zero = ring.saved_frame(0).unwrap();
    /// world.get_mut::<Position>(e).unwrap().x = 5.0;
    /// ring.save(&mut world, 1).unwrap(); // the same slot: frame 0 is gone from the ring
    /// assert!(!ring.contains(0));
    /// assert_eq!(zero.world().get::<Position>(e), Ok(&Position { x: 0.0, y: 0.0 }));
    /// ```
    pub fn saved_frame(&self, frame: u64) -> Result<SavedFrame, RollbackError> {
        self.get(frame)?;
        Ok(SavedFrame {
            frame,
            image: Arc::clone(&self.frames[self.slot_index(frame)]),
            registry: Arc::clone(&self.registry),
        })
    }
}

/// One frame of a [`RollbackRing`], shared with it ([`RollbackRing::saved_frame`]): read without
/// the ring, on any thread, while the ring saves on. Cloning it is O(1).
#[derive(Clone)]
pub struct SavedFrame {
    frame: u64,
    /// Never written while shared: the ring replaces a shared image rather than write it.
    image: Arc<FrameImage>,
    registry: Arc<RollbackRegistry>,
}

impl std::fmt::Debug for SavedFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SavedFrame").field("frame", &self.frame).finish_non_exhaustive()
    }
}

impl SavedFrame {
    /// The frame number it was saved as.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Bytes saved for it, as [`RollbackRing::frame_bytes`] counts them.
    pub fn bytes(&self) -> usize {
        self.image.parts.bytes()
    }

    /// A new world holding this frame's state, as [`RollbackRing::frame_world`] builds it.
    /// O(slots + registered rows + pages) time, and it allocates the whole state.
    pub fn world(&self) -> World {
        let mut world = self.image.parts.accepting_world();
        self.image.parts.restore(&mut world, &self.registry);
        world
    }

    /// What changed from this frame to `later`, as [`RollbackRing::diff`] finds it. O(slots +
    /// rows of both frames).
    ///
    /// # Panics
    /// If the two frames come from rings whose registries do not name the same components and
    /// resources.
    #[track_caller]
    pub fn diff(&self, later: &SavedFrame) -> FrameDiff {
        assert_same_registry(&self.registry, &later.registry);
        self.image.parts.diff(&later.image.parts, &self.registry)
    }

    /// The first difference between this frame and `other` (`None` if equal), as
    /// [`RollbackRing::compare`] finds it. O(slots + rows).
    ///
    /// # Panics
    /// If the two frames come from rings whose registries do not name the same components and
    /// resources.
    #[track_caller]
    pub fn compare(&self, other: &SavedFrame) -> Option<StateDifference> {
        assert_same_registry(&self.registry, &other.registry);
        self.image.parts.compare(&other.image.parts, &self.registry)
    }
}

/// Panics unless `a` and `b` name the same components and resources (one registry, or two alike).
#[track_caller]
fn assert_same_registry(a: &Arc<RollbackRegistry>, b: &Arc<RollbackRegistry>) {
    let names = |r: &RollbackRegistry| {
        (
            r.component_names().map(str::to_owned).collect::<Vec<_>>(),
            r.resource_names().map(str::to_owned).collect::<Vec<_>>(),
        )
    };
    assert!(Arc::ptr_eq(a, b) || names(a) == names(b), "the frames' registries differ");
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

// A ring and its shared frames go to other threads (an inspector's server reads frames there).
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<RollbackRing>();
    send_sync::<SavedFrame>();
};

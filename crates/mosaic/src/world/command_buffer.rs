//! The command buffer: structural changes recorded now, applied to the world later.

use std::any::{Any, TypeId};

use rustc_hash::FxHashMap;

use super::World;
use crate::component::{Bundle, Component};
use crate::entity::Entity;

/// One recorded command. Bundle values live in typed queues beside the command list, so
/// recording allocates nothing once the buffer is warm.
#[derive(Clone, Copy)]
enum Command {
    /// Spawn an entity with the next bundle of queue `queue`.
    Spawn { queue: u32 },
    /// Insert the next bundle of queue `queue` into `entity`.
    Insert { entity: Entity, queue: u32 },
    /// Remove a component (the function knows which) from `entity`.
    Remove { entity: Entity, remove: fn(&mut World, Entity) },
    /// Despawn `entity`.
    Despawn { entity: Entity },
}

/// A FIFO of bundles of one type, consumed in recording order during `apply`.
trait BundleQueue: Any + Send + Sync {
    /// Reverses the stored values so `pop` yields them in recording order.
    fn start_apply(&mut self);
    /// Spawns the next bundle.
    fn spawn_next(&mut self, world: &mut World);
    /// Inserts the next bundle into `entity`, which the caller checked is alive.
    fn insert_next(&mut self, world: &mut World, entity: Entity);
    /// Drops the next bundle (its target died).
    fn skip_next(&mut self);
    /// Drops every stored bundle, keeping the capacity.
    fn clear(&mut self);
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

struct TypedQueue<B>(Vec<B>);

impl<B: Bundle> BundleQueue for TypedQueue<B> {
    fn start_apply(&mut self) {
        self.0.reverse();
    }
    fn spawn_next(&mut self, world: &mut World) {
        world.spawn(self.0.pop().expect("queue holds one bundle per command"));
    }
    fn insert_next(&mut self, world: &mut World, entity: Entity) {
        world.insert_bundle(entity, self.0.pop().expect("queue holds one bundle per command"));
    }
    fn skip_next(&mut self) {
        self.0.pop();
    }
    fn clear(&mut self) {
        self.0.clear();
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// What [`CommandBuffer::apply`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyReport {
    /// Commands applied.
    pub applied: usize,
    /// Commands skipped because their entity was no longer alive when the command ran.
    pub skipped: usize,
    /// Entities spawned (also counted in `applied`).
    pub spawned: usize,
    /// Entities despawned (also counted in `applied`).
    pub despawned: usize,
}

impl std::ops::AddAssign for ApplyReport {
    /// Adds every count, to total the reports of several applies.
    fn add_assign(&mut self, other: Self) {
        self.applied += other.applied;
        self.skipped += other.skipped;
        self.spawned += other.spawned;
        self.despawned += other.despawned;
    }
}

/// Structural changes (spawn, despawn, insert, remove) recorded while the world is borrowed, e.g.
/// during a query, and applied later with [`CommandBuffer::apply`].
///
/// Commands apply in the order recorded. A command whose entity is no longer alive when it runs
/// (despawned earlier in the same buffer, or before `apply`) is skipped and counted in
/// [`ApplyReport::skipped`]; its bundle is dropped. Despawning the same entity twice therefore
/// skips the second despawn instead of panicking.
///
/// Memory: commands and bundle values are kept in vectors that keep their capacity across
/// `apply`, so a buffer reused every frame stops allocating once warm (one queue per bundle type).
///
/// # Examples
/// ```
/// use mosaic::{CommandBuffer, Component, Entity, World};
///
/// #[derive(Component)]
/// struct Health(i32);
///
/// let mut world = World::new();
/// world.spawn_batch([Health(0), Health(5)]);
/// let mut commands = CommandBuffer::new();
/// for (entity, health) in world.query::<(Entity, &Health)>() {
///     if health.0 <= 0 {
///         commands.despawn(entity);
///     }
/// }
/// let report = commands.apply(&mut world);
/// assert_eq!((report.despawned, world.len()), (1, 1));
/// ```
#[derive(Default)]
pub struct CommandBuffer {
    commands: Vec<Command>,
    queues: Vec<Box<dyn BundleQueue>>,
    queue_of: FxHashMap<TypeId, u32>,
}

impl std::fmt::Debug for CommandBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandBuffer").field("commands", &self.commands.len()).finish()
    }
}

impl CommandBuffer {
    /// An empty buffer. Allocates nothing until used.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of commands recorded and not yet applied.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// Whether no command is pending.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Stores `bundle` in its typed queue and returns the queue's index.
    fn push_bundle<B: Bundle>(&mut self, bundle: B) -> u32 {
        let queues = &mut self.queues;
        let queue = *self.queue_of.entry(TypeId::of::<B>()).or_insert_with(|| {
            queues.push(Box::new(TypedQueue::<B>(Vec::new())));
            (queues.len() - 1) as u32
        });
        let typed = self.queues[queue as usize]
            .as_any_mut()
            .downcast_mut::<TypedQueue<B>>()
            .expect("queue registered under its bundle's TypeId");
        typed.0.push(bundle);
        queue
    }

    /// Records spawning an entity with `bundle`.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) {
        let queue = self.push_bundle(bundle);
        self.commands.push(Command::Spawn { queue });
    }

    /// Records inserting `bundle` (one component or a tuple) into `entity`, replacing values of
    /// the same types.
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        let queue = self.push_bundle(bundle);
        self.commands.push(Command::Insert { entity, queue });
    }

    /// Records removing `entity`'s `T` (dropping it); a no-op at apply time if it has none.
    pub fn remove<T: Component>(&mut self, entity: Entity) {
        fn remove<T: Component>(world: &mut World, entity: Entity) {
            world.remove::<T>(entity);
        }
        self.commands.push(Command::Remove { entity, remove: remove::<T> });
    }

    /// Records despawning `entity`.
    pub fn despawn(&mut self, entity: Entity) {
        self.commands.push(Command::Despawn { entity });
    }

    /// Applies every command in recording order and empties the buffer (keeping its capacity).
    /// O(n) in the commands plus the cost of each operation.
    ///
    /// # Panics
    /// If the entity index space runs out during a spawn, or a bundle holds a component twice.
    /// The commands not yet applied are then dropped.
    pub fn apply(&mut self, world: &mut World) -> ApplyReport {
        /// Empties the buffer when `apply` ends, also by panic.
        struct Reset<'a>(&'a mut CommandBuffer);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.commands.clear();
                for queue in &mut self.0.queues {
                    queue.clear();
                }
            }
        }
        let this = Reset(self);
        for queue in &mut this.0.queues {
            queue.start_apply();
        }
        let mut report = ApplyReport::default();
        for &command in &this.0.commands {
            let alive = match command {
                Command::Spawn { queue } => {
                    this.0.queues[queue as usize].spawn_next(world);
                    report.spawned += 1;
                    true
                }
                Command::Insert { entity, queue } => {
                    let queue = &mut this.0.queues[queue as usize];
                    let alive = world.is_alive(entity);
                    if alive {
                        queue.insert_next(world, entity)
                    } else {
                        queue.skip_next()
                    }
                    alive
                }
                Command::Remove { entity, remove } => {
                    let alive = world.is_alive(entity);
                    if alive {
                        remove(world, entity);
                    }
                    alive
                }
                Command::Despawn { entity } => {
                    let alive = world.try_despawn(entity).is_ok();
                    report.despawned += usize::from(alive);
                    alive
                }
            };
            if alive { report.applied += 1 } else { report.skipped += 1 }
        }
        report
    }
}

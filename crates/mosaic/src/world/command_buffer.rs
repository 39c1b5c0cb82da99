//! The command buffer: structural changes recorded now, applied to the world later.

use std::any::{Any, TypeId};

use rustc_hash::FxHashMap;

use super::World;
use super::command_runs::{self, ApplyRun, MIN_RUN, RemoveOps, RunKind};
use super::despawn_run::DespawnRun;
use smallvec::SmallVec;

use crate::component::{Bundle, ComponentId, Components};
use crate::entity::Entity;

/// What a command of a higher layer (the hierarchy's) did, from [`CommandBuffer::push_op`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpOutcome {
    /// Applied; `despawned` entities were despawned by it.
    Applied { despawned: usize },
    /// An entity it names was not alive.
    Skipped,
    /// Refused by the operation (e.g. a hierarchy cycle).
    Refused,
}

/// A world operation on one or two entities, recorded by a higher layer.
pub(crate) type EntityOp = fn(&mut World, Entity, Option<Entity>) -> OpOutcome;

/// One recorded command. Bundle values live in typed queues beside the command list, so
/// recording allocates nothing once the buffer is warm.
#[derive(Clone, Copy)]
enum Command {
    /// Give reserved `entity` the next bundle of queue `queue`.
    Spawn { entity: Entity, queue: u32 },
    /// A spawn whose entity is allocated at apply time.
    SpawnAtApply { queue: u32 },
    /// Insert the next bundle of queue `queue` into `entity`.
    Insert { entity: Entity, queue: u32 },
    /// Remove a bundle (the table knows which) from `entity`.
    Remove { entity: Entity, ops: &'static RemoveOps },
    /// Despawn `entity`.
    Despawn { entity: Entity },
    /// Run `op` on `entity` and `other`.
    Op { entity: Entity, other: Option<Entity>, op: EntityOp },
    /// Run the next closure of queue `queue` on the world.
    Run { queue: u32 },
    /// Run the next closure of queue `queue`, which only sends an event (touches the event
    /// channel's resource, no entity): it commutes with the despawns of a run, which it does not
    /// end.
    SendEvent { queue: u32 },
}

/// The values of one type recorded for later, consumed in recording order during `apply`:
/// bundles to insert, or closures to run. `apply` says what to do with one value.
struct Queue<V> {
    values: Vec<V>,
    apply: fn(V, &mut World, Option<Entity>),
    /// Applies a run of this queue's commands as one batch (queues of bundles and removals).
    run: Option<ApplyRun<V>>,
    /// For a queue of bundles: registers the bundle's components and lists their ids.
    register: Option<RegisterIds>,
    /// The ids `register` gave at the start of the last apply (for prefetching spawns).
    ids: SmallVec<[ComponentId; 8]>,
}

/// Registers a bundle type's components in a world and lists their ids.
type RegisterIds = fn(&mut Components, &mut SmallVec<[ComponentId; 8]>);

impl<V> Queue<V> {
    fn new(
        apply: fn(V, &mut World, Option<Entity>),
        register: Option<RegisterIds>,
        run: Option<ApplyRun<V>>,
    ) -> Self {
        Self { values: Vec::new(), apply, run, register, ids: SmallVec::new() }
    }
}

/// [`RegisterIds`] of bundle type `B`.
fn register_bundle<B: Bundle>(components: &mut Components, ids: &mut SmallVec<[ComponentId; 8]>) {
    ids.clear();
    B::register_ids(components, &mut |id| ids.push(id));
}

/// Inserts a queued bundle into its target.
fn insert_queued<B: Bundle>(bundle: B, world: &mut World, entity: Option<Entity>) {
    world.insert_bundle(entity.expect("a bundle is applied to an entity"), bundle);
}

/// Runs a queued closure.
fn run_queued<F: FnOnce(&mut World)>(f: F, world: &mut World, _: Option<Entity>) {
    f(world);
}

/// A [`Queue`] of any value type, as the buffer stores it.
trait ErasedQueue: Any + Send + Sync {
    /// Reverses the stored values so `pop` yields them in recording order, and for a queue of
    /// bundles registers their components in `components` and keeps their ids.
    fn start_apply(&mut self, components: &mut Components);
    /// The component ids of a queue of bundles (empty for closures), as of the last
    /// `start_apply`.
    fn ids(&self) -> &[ComponentId];
    /// Applies the next value: inserts a bundle into `entity`, which the caller checked is
    /// alive, or runs a closure (`entity` is `None`).
    fn apply_next(&mut self, world: &mut World, entity: Option<Entity>);
    /// Drops the next value (its target died).
    fn skip_next(&mut self);
    /// Whether runs of this queue's commands can be applied as one batch
    /// ([`ErasedQueue::apply_run`]).
    fn batches(&self) -> bool;
    /// Applies the next `count` values as one run of `kind` commands on `entities` (empty for
    /// spawns allocated at apply); returns how many were skipped (entity not alive).
    fn apply_run(&mut self, world: &mut World, kind: RunKind, entities: &[Entity], count: usize) -> usize;
    /// Drops every stored value, keeping the capacity.
    fn clear(&mut self);
    /// Moves every value of `other`, a queue of the same value type, to the end of this one's
    /// (both still in recording order: neither is being applied).
    fn append_values(&mut self, other: &mut dyn ErasedQueue);
}

impl<V: Send + Sync + 'static> ErasedQueue for Queue<V> {
    fn start_apply(&mut self, components: &mut Components) {
        self.values.reverse();
        if let Some(register) = self.register
            && !self.values.is_empty()
        {
            register(components, &mut self.ids);
        }
    }
    fn ids(&self) -> &[ComponentId] {
        &self.ids
    }
    fn apply_next(&mut self, world: &mut World, entity: Option<Entity>) {
        let value = self.values.pop().expect("a queue holds one value per command");
        (self.apply)(value, world, entity);
    }
    fn skip_next(&mut self) {
        self.values.pop();
    }
    fn batches(&self) -> bool {
        self.run.is_some()
    }
    fn apply_run(&mut self, world: &mut World, kind: RunKind, entities: &[Entity], count: usize) -> usize {
        let run = self.run.expect("runs are formed only on queues that batch");
        run(&mut self.values, world, kind, entities, count)
    }
    fn clear(&mut self) {
        self.values.clear();
    }
    fn append_values(&mut self, other: &mut dyn ErasedQueue) {
        let other: &mut dyn Any = other;
        let other = other.downcast_mut::<Queue<V>>().expect("queues of one value type");
        self.values.append(&mut other.values);
    }
}

/// Prefetches for the despawns and spawns recorded [`super::prefetch::DISTANCE`], half of it
/// and a quarter of it commands after `at`, each at its stage ([`World::prefetch_despawn`],
/// [`World::prefetch_spawn`]).
#[inline]
fn prefetch_ahead(
    world: &World,
    commands: &[Command],
    queues: &[Box<dyn ErasedQueue>],
    at: usize,
    runs: bool,
) {
    let distance = super::prefetch::DISTANCE;
    for (stage, ahead) in [(0u8, distance), (1, distance / 2), (2, distance / 4)] {
        match commands.get(at + ahead) {
            // A despawn that joins a run has its rows removed later, pool by pool, with hints of
            // their own: only its slot and component set are read now.
            Some(&Command::Despawn { entity }) if stage == 0 || !runs => {
                world.prefetch_despawn(entity, stage)
            }
            Some(&Command::Spawn { entity, queue }) => {
                world.prefetch_spawn(entity, queues[queue as usize].ids(), stage);
            }
            _ => {}
        }
    }
}

/// What [`CommandBuffer::apply`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyReport {
    /// Commands applied (every recorded command is counted once, in `applied`, `skipped` or
    /// `refused`).
    pub applied: usize,
    /// Commands skipped because an entity they name was not alive when the command ran (a
    /// spawn's entity despawned before it was applied, or a buffer applied to another world).
    pub skipped: usize,
    /// Hierarchy commands the world refused although their entities were alive: a
    /// [`CommandBuffer::set_parent`] that would close a cycle.
    pub refused: usize,
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
        self.refused += other.refused;
        self.spawned += other.spawned;
        self.despawned += other.despawned;
    }
}

/// Structural changes (spawn, despawn, insert, remove, and the hierarchy's `set_parent`,
/// `remove_parent`, `despawn_recursive`) recorded while the world is borrowed, e.g. during a query,
/// and applied later with [`CommandBuffer::apply`].
///
/// [`CommandBuffer::spawn`] reserves the new entity's id through `&World` and returns it at once,
/// so later commands in the same buffer (or components) can name it: spawn a ship, then its
/// turrets as its children. Applying first flushes the world's reserved ids (they become live,
/// empty entities), then runs the commands in the order recorded. A command whose entity is no longer alive when it runs
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
///
/// // A spawned entity's handle is usable at once, by later commands too.
/// let ship = commands.spawn(&world, Health(100));
/// let turret = commands.spawn(&world, Health(20));
/// commands.set_parent(turret, ship);
/// commands.apply(&mut world);
/// assert_eq!(world.parent(turret), Some(ship));
/// ```
#[derive(Default)]
pub struct CommandBuffer {
    commands: Vec<Command>,
    queues: Vec<Box<dyn ErasedQueue>>,
    queue_of: FxHashMap<TypeId, u32>,
    /// The value type recorded last and its queue: a loop recording one kind of command finds
    /// its queue without hashing.
    last_queue: Option<(TypeId, u32)>,
    /// The entities of the run being applied (kept for its capacity).
    run_targets: Vec<Entity>,
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

    /// Appends `value` to the queue kept for values of type `V` (made on first use, applying
    /// values with `apply`) and returns the queue's index.
    fn push_queued<V: Send + Sync + 'static>(
        &mut self,
        value: V,
        apply: fn(V, &mut World, Option<Entity>),
        register: Option<RegisterIds>,
        run: Option<ApplyRun<V>>,
    ) -> u32 {
        let type_id = TypeId::of::<V>();
        let queue = match self.last_queue {
            Some((last, queue)) if last == type_id => queue,
            _ => {
                let queues = &mut self.queues;
                let queue = *self.queue_of.entry(type_id).or_insert_with(|| {
                    queues.push(Box::new(Queue::new(apply, register, run)));
                    (queues.len() - 1) as u32
                });
                self.last_queue = Some((type_id, queue));
                queue
            }
        };
        // Upcast to `dyn Any` (a vtable switch, no call), then one dynamic `type_id` call.
        let erased: &mut dyn Any = &mut *self.queues[queue as usize];
        erased
            .downcast_mut::<Queue<V>>()
            .expect("queue registered under its value type's TypeId")
            .values
            .push(value);
        queue
    }

    /// Stores `bundle` in its typed queue and returns the queue's index.
    fn push_bundle<B: Bundle>(&mut self, bundle: B) -> u32 {
        self.push_queued(
            bundle,
            insert_queued::<B>,
            Some(register_bundle::<B>),
            Some(command_runs::bundle_run::<B>),
        )
    }

    /// Records spawning an entity with `bundle` and returns its handle at once, reserved through
    /// `world` ([`World::reserve_entity`]): later commands may name it, and it may be stored in
    /// components. The entity is alive once `world` next flushes (applying this buffer does) and
    /// has `bundle` once this command is applied. O(1) amortised.
    ///
    /// Apply the buffer to the same `world`: applied to another, the spawn is skipped (the handle
    /// is foreign there). A spawn recorded but never applied (the buffer dropped or cleared)
    /// leaves an empty entity behind once `world` flushes, as in hecs.
    ///
    /// # Panics
    /// If `world`'s entity index space is exhausted (see [`World::try_reserve_entity`]); nothing
    /// is recorded then.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Component, World};
    ///
    /// #[derive(Component)]
    /// struct Target(mosaic::Entity);
    ///
    /// let mut world = World::new();
    /// let mut commands = CommandBuffer::new();
    /// let a = commands.spawn(&world, ());
    /// let b = commands.spawn(&world, Target(a));
    /// commands.apply(&mut world);
    /// assert_eq!(world.get::<Target>(b).unwrap().0, a);
    /// ```
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, world: &World, bundle: B) -> Entity {
        let entity = world.reserve_entity();
        let queue = self.push_bundle(bundle);
        self.commands.push(Command::Spawn { entity, queue });
        entity
    }

    /// Records spawning `bundle`, with the entity allocated when the buffer is applied, in
    /// recording order, instead of reserved now. Returns nothing, and needs no world: the form for
    /// buffers filled on several threads at once ([`Query::par_for_each_deferred`]), since ids
    /// reserved at recording time would depend on which thread reserved first, while ids allocated
    /// at apply depend only on the order commands are applied. Use [`CommandBuffer::spawn`] when
    /// later commands must name the new entity.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Component, World};
    ///
    /// #[derive(Component)]
    /// struct Spark(u32);
    ///
    /// let mut world = World::new();
    /// let mut commands = CommandBuffer::new();
    /// commands.spawn_at_apply(Spark(1));
    /// commands.spawn_at_apply(Spark(2));
    /// assert_eq!(commands.apply(&mut world).spawned, 2);
    /// assert_eq!(world.len(), 2);
    /// ```
    ///
    /// [`Query::par_for_each_deferred`]: crate::Query::par_for_each_deferred
    pub fn spawn_at_apply<B: Bundle>(&mut self, bundle: B) {
        let queue = self.push_bundle(bundle);
        self.commands.push(Command::SpawnAtApply { queue });
    }

    /// Records inserting `bundle` (one component or a tuple) into `entity`, replacing values of
    /// the same types.
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        let queue = self.push_bundle(bundle);
        self.commands.push(Command::Insert { entity, queue });
    }

    /// Records an insert-like command on `entity`: `value` goes to its own queue and `apply`
    /// writes it when the command comes (skipped, and counted, if `entity` is dead by then).
    pub(super) fn push_insert<V: Send + Sync + 'static>(
        &mut self,
        entity: Entity,
        value: V,
        apply: fn(V, &mut World, Option<Entity>),
    ) {
        let queue = self.push_queued(value, apply, None, None);
        self.commands.push(Command::Insert { entity, queue });
    }

    /// Records removing whichever components of bundle `B` (a component, or a tuple) `entity`
    /// has, dropping them: bevy's `remove::<(A, B)>()`; those it lacks are passed over at apply
    /// time (see [`World::remove_present`]).
    ///
    /// # Panics
    /// At apply time, if `B` holds a type twice.
    pub fn remove<B: Bundle>(&mut self, entity: Entity) {
        self.commands.push(Command::Remove { entity, ops: RemoveOps::of::<B>() });
    }

    /// Records despawning `entity`; skipped at apply time if it is no longer alive.
    pub fn despawn(&mut self, entity: Entity) {
        self.commands.push(Command::Despawn { entity });
    }

    /// Records `f` to run on the world when the buffer is applied, in order with the other
    /// commands (bevy's `Commands::queue`): any change through `&mut World` the built-in commands
    /// do not cover. Closures of one type share a queue that keeps its capacity, so a buffer
    /// reused every frame stops allocating once warm. It always runs (it names no entity that
    /// could have died) and counts as applied.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, World};
    ///
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(0));
    /// let mut commands = CommandBuffer::new();
    /// for points in [3, 4] {
    ///     commands.queue(move |world: &mut World| world.resource_mut::<Score>().0 += points);
    /// }
    /// commands.apply(&mut world);
    /// assert_eq!(world.resource::<Score>().0, 7);
    /// ```
    pub fn queue<F: FnOnce(&mut World) + Send + Sync + 'static>(&mut self, f: F) {
        let queue = self.push_queued(f, run_queued::<F>, None, None);
        self.commands.push(Command::Run { queue });
    }

    /// Records `send`, a closure that only sends an event (see [`Command::SendEvent`]).
    pub(crate) fn queue_event<F: FnOnce(&mut World) + Send + Sync + 'static>(&mut self, send: F) {
        let queue = self.push_queued(send, run_queued::<F>, None, None);
        self.commands.push(Command::SendEvent { queue });
    }

    /// Records an operation of a higher layer on `entity` (and `other`).
    pub(crate) fn push_op(&mut self, entity: Entity, other: Option<Entity>, op: EntityOp) {
        self.commands.push(Command::Op { entity, other, op });
    }

    /// Moves every command of `other` to the end of this buffer, leaving `other` empty (bevy's
    /// `CommandQueue::append`): applying this buffer then runs its own commands, then `other`'s,
    /// in the order each was recorded, each counted in the [`ApplyReport`] as its own (and
    /// joining runs with its neighbours, as if recorded here). O(c + q) for `other`'s c commands
    /// and q value queues; `other` gives up its capacity.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Component, World};
    ///
    /// #[derive(Component)]
    /// struct Spark;
    /// struct Gravity(f32);
    ///
    /// let mut world = World::new();
    /// let mut first = CommandBuffer::new();
    /// first.insert_resource(Gravity(9.8));
    /// let mut second = CommandBuffer::new();
    /// second.spawn(&world, Spark);
    /// second.spawn(&world, Spark);
    /// first.append(&mut second);
    /// assert!(second.is_empty());
    /// let report = first.apply(&mut world);
    /// assert_eq!((report.applied, report.spawned), (3, 2));
    /// assert!(world.contains_resource::<Gravity>() && world.len() == 2);
    /// ```
    pub fn append(&mut self, other: &mut CommandBuffer) {
        if other.is_empty() {
            return;
        }
        let mut other = std::mem::take(other);
        // Each of `other`'s queues joins this buffer's queue of the same value type (its values
        // after this one's, as its commands come after), or becomes a queue of this buffer.
        let mut index_of = vec![0u32; other.queues.len()];
        let mut queues: Vec<Option<Box<dyn ErasedQueue>>> = other.queues.drain(..).map(Some).collect();
        for (&type_id, &queue) in &other.queue_of {
            let mut moved = queues[queue as usize].take().expect("one type id per queue");
            index_of[queue as usize] = match self.queue_of.get(&type_id) {
                Some(&mine) => {
                    self.queues[mine as usize].append_values(&mut *moved);
                    mine
                }
                None => {
                    let mine = u32::try_from(self.queues.len()).expect("fewer than 2^32 queues");
                    self.queues.push(moved);
                    self.queue_of.insert(type_id, mine);
                    mine
                }
            };
        }
        let remap = |queue: u32| index_of[queue as usize];
        self.commands.extend(other.commands.iter().map(|&command| match command {
            Command::Spawn { entity, queue } => Command::Spawn { entity, queue: remap(queue) },
            Command::SpawnAtApply { queue } => Command::SpawnAtApply { queue: remap(queue) },
            Command::Insert { entity, queue } => Command::Insert { entity, queue: remap(queue) },
            Command::Run { queue } => Command::Run { queue: remap(queue) },
            Command::SendEvent { queue } => Command::SendEvent { queue: remap(queue) },
            Command::Remove { .. } | Command::Despawn { .. } | Command::Op { .. } => command,
        }));
    }

    /// Drops every recorded command and bundle without applying them, keeping the capacity.
    /// Entities reserved by [`CommandBuffer::spawn`] stay reserved and become empty entities
    /// when the world next flushes.
    pub fn clear(&mut self) {
        self.commands.clear();
        for queue in &mut self.queues {
            queue.clear();
        }
    }

    /// Flushes `world`'s reserved ids ([`World::flush`]), then applies every command in
    /// recording order and empties the buffer (keeping its capacity). O(n) in the commands plus
    /// the cost of each operation.
    ///
    /// On a rayon pool of more than one thread (feature `parallel`), consecutive despawns (with
    /// the event sends between them) are applied as one [`World::despawn_batch`], each pool's
    /// rows removed at once, one task per pool for a large run; on one thread, one by one with
    /// the memory of the despawns ahead prefetched. On every thread count, four or more
    /// consecutive spawns, inserts or removals of one bundle type are applied as one batch (the
    /// bundle's ids and pools found once: [`World::insert_batch`]'s path for an insert of one
    /// component, [`World::remove_batch`]'s for a removal), each entity still checked alive at
    /// its turn, and row by row through the world's single-row operations wherever a listener
    /// (hook, observer, group, required component) follows the pools. The world and the report
    /// afterwards are the same either way as applying the commands one at a time.
    ///
    /// # Panics
    /// If a bundle holds a component twice. The commands not yet applied are then dropped.
    pub fn apply(&mut self, world: &mut World) -> ApplyReport {
        let mut runs = DespawnRuns::new(world);
        self.apply_in(&mut runs)
    }

    /// [`CommandBuffer::apply`] with the despawn run of `runs`, which a run of despawns at the
    /// end of this buffer stays open in (the next buffer of a [`ChunkedCommands`](super::ChunkedCommands) may continue it).
    pub(crate) fn apply_in(&mut self, runs: &mut DespawnRuns<'_>) -> ApplyReport {
        /// Empties the buffer when `apply` ends, also by panic.
        struct Reset<'a>(&'a mut CommandBuffer);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.clear();
            }
        }
        let (world, run) = (&mut *runs.world, &mut runs.run);
        let runs = despawn_runs_pay();
        world.flush();
        let this = Reset(self);
        for queue in &mut this.0.queues {
            queue.start_apply(world.components_mut());
        }
        let mut report = ApplyReport::default();
        let commands = &this.0.commands;
        let mut at = 0;
        while let Some(&command) = commands.get(at) {
            // Any other command ends an open run (none opens on one thread).
            if runs && !matches!(command, Command::Despawn { .. } | Command::SendEvent { .. }) {
                world.finish_despawn_run(run);
            }
            // A run of spawns, inserts or removals on one queue: one batch call.
            if let Some((key, len)) = run_of(commands, at, &this.0.queues) {
                let targets = &mut this.0.run_targets;
                targets.clear();
                targets.extend(commands[at..at + len].iter().filter_map(Command::entity));
                let (kind, skipped) = match key {
                    RunKey::Queue(kind, queue) => {
                        (kind, this.0.queues[queue as usize].apply_run(world, kind, targets, len))
                    }
                    RunKey::Remove(ops) => (RunKind::Remove, (ops.run)(world, targets)),
                };
                report.applied += len - skipped;
                report.skipped += skipped;
                if matches!(kind, RunKind::Spawn | RunKind::SpawnAtApply) {
                    report.spawned += len - skipped;
                }
                at += len;
                continue;
            }
            // Despawns ahead: their memory is asked for early, so the misses of a large world
            // overlap (a hint; what is applied is unchanged).
            if matches!(command, Command::Despawn { .. } | Command::Spawn { .. }) {
                prefetch_ahead(world, commands, &this.0.queues, at, runs);
            }
            at += 1;
            let outcome = match command {
                Command::Spawn { entity, queue } => {
                    let queue = &mut this.0.queues[queue as usize];
                    if world.is_alive(entity) {
                        queue.apply_next(world, Some(entity));
                        report.spawned += 1;
                        OpOutcome::Applied { despawned: 0 }
                    } else {
                        queue.skip_next();
                        OpOutcome::Skipped
                    }
                }
                Command::SpawnAtApply { queue } => {
                    let entity = world.spawn_empty();
                    this.0.queues[queue as usize].apply_next(world, Some(entity));
                    report.spawned += 1;
                    OpOutcome::Applied { despawned: 0 }
                }
                Command::Insert { entity, queue } => {
                    let queue = &mut this.0.queues[queue as usize];
                    if world.is_alive(entity) {
                        queue.apply_next(world, Some(entity));
                        OpOutcome::Applied { despawned: 0 }
                    } else {
                        queue.skip_next();
                        OpOutcome::Skipped
                    }
                }
                Command::Remove { entity, ops } => {
                    if world.is_alive(entity) {
                        (ops.one)(world, entity);
                        OpOutcome::Applied { despawned: 0 }
                    } else {
                        OpOutcome::Skipped
                    }
                }
                Command::Despawn { entity } if runs => match world.despawn_in_run(run, entity) {
                    true => OpOutcome::Applied { despawned: 1 },
                    false => OpOutcome::Skipped,
                },
                Command::Despawn { entity } => match world.try_despawn(entity) {
                    Ok(()) => OpOutcome::Applied { despawned: 1 },
                    Err(_) => OpOutcome::Skipped,
                },
                Command::Op { entity, other, op } => op(world, entity, other),
                Command::Run { queue } | Command::SendEvent { queue } => {
                    this.0.queues[queue as usize].apply_next(world, None);
                    OpOutcome::Applied { despawned: 0 }
                }
            };
            match outcome {
                OpOutcome::Applied { despawned } => {
                    report.applied += 1;
                    report.despawned += despawned;
                }
                OpOutcome::Skipped => report.skipped += 1,
                OpOutcome::Refused => report.refused += 1,
            }
        }
        report
    }
}

impl Command {
    /// The entity the command names, if one (a spawn allocated at apply names none yet).
    fn entity(&self) -> Option<Entity> {
        match *self {
            Command::Spawn { entity, .. }
            | Command::Insert { entity, .. }
            | Command::Remove { entity, .. }
            | Command::Despawn { entity }
            | Command::Op { entity, .. } => Some(entity),
            Command::SpawnAtApply { .. } | Command::Run { .. } | Command::SendEvent { .. } => None,
        }
    }

    /// What a command that can join a run has in common with the rest of the run.
    fn run_key(&self) -> Option<RunKey> {
        match *self {
            Command::Spawn { queue, .. } => Some(RunKey::Queue(RunKind::Spawn, queue)),
            Command::SpawnAtApply { queue } => Some(RunKey::Queue(RunKind::SpawnAtApply, queue)),
            Command::Insert { queue, .. } => Some(RunKey::Queue(RunKind::Insert, queue)),
            Command::Remove { ops, .. } => Some(RunKey::Remove(ops)),
            _ => None,
        }
    }
}

/// What the commands of a run share: a kind and a queue of bundles, or a removal table.
#[derive(Clone, Copy)]
enum RunKey {
    Queue(RunKind, u32),
    Remove(&'static RemoveOps),
}

impl PartialEq for RunKey {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RunKey::Queue(kind, queue), RunKey::Queue(other_kind, other_queue)) => {
                kind == other_kind && queue == other_queue
            }
            // The same table: the same bundle type (see `RemoveOps::of`).
            (RunKey::Remove(ops), RunKey::Remove(other)) => std::ptr::eq(*ops, *other),
            _ => false,
        }
    }
}

/// The run starting at `commands[at]`: its kind, queue and length, when at least [`MIN_RUN`]
/// consecutive commands are spawns, inserts or removals of one kind on one queue (one bundle
/// type) whose values can be applied as a batch. O(run length), and O(1) for a command that
/// cannot start one, so a long sequence of commands that do not batch is not scanned again at
/// each of them.
fn run_of(commands: &[Command], at: usize, queues: &[Box<dyn ErasedQueue>]) -> Option<(RunKey, usize)> {
    let key = commands[at].run_key()?;
    let batches = match key {
        RunKey::Queue(_, queue) => queues[queue as usize].batches(),
        RunKey::Remove(_) => true,
    };
    if !batches || commands.get(at + MIN_RUN - 1)?.run_key() != Some(key) {
        return None;
    }
    let len = commands[at..].iter().take_while(|command| command.run_key() == Some(key)).count();
    (len >= MIN_RUN).then_some((key, len))
}

/// Whether applying runs of despawns as batches pays: only when the pools can be emptied on
/// several threads. On one thread, despawning one by one with the commands ahead prefetched
/// (`prefetch_ahead`) was as fast or faster in `benches/commands.rs` (a 10^6-entity world in
/// two nested groups: 0.57 against 0.64 of the unprefetched loop's time per change, medians of
/// five runs), so a buffer applied on one thread keeps that path; the world afterwards is the
/// same either way.
fn despawn_runs_pay() -> bool {
    // Under Miri, asking outside a pool the caller installed would start rayon's global pool
    // for every buffer applied (threads whose crossbeam internals Miri reports under Stacked
    // Borrows); there, only an installed pool counts.
    #[cfg(feature = "parallel")]
    return !(cfg!(miri) && rayon::current_thread_index().is_none()) && rayon::current_num_threads() > 1;
    #[cfg(not(feature = "parallel"))]
    false
}

/// The despawn run of one or more buffers being applied, as a guard: however the applying ends
/// (also by a panic), the run is finished, so no dead entity's rows stay in a pool, and its
/// buffers go back to the world.
pub(crate) struct DespawnRuns<'w> {
    world: &'w mut World,
    run: DespawnRun,
}

impl<'w> DespawnRuns<'w> {
    /// Opens an empty run on `world` (with the world's warm buffers).
    pub(crate) fn new(world: &'w mut World) -> Self {
        let run = world.take_despawn_run();
        Self { world, run }
    }
}

impl Drop for DespawnRuns<'_> {
    fn drop(&mut self) {
        self.world.finish_despawn_run(&mut self.run);
        self.world.put_despawn_run(std::mem::take(&mut self.run));
    }
}

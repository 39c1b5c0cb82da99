//! The [`Schedule`] type: adding systems and building the run plan.

use std::ops::Range;

use rustc_hash::FxHashMap;

use super::graph::{self, NodeSpec, SetSpec};
use super::profile::Samples;
use super::{IntoSystem, ScheduleError, System};
use crate::world::World;

/// A run condition: the system runs this frame only if it returns `true`.
pub(crate) type Condition = Box<dyn Fn(&World) -> bool + Send + Sync>;

/// One system with its configuration.
pub(crate) struct Node {
    pub(crate) system: Box<dyn System>,
    pub(crate) name: String,
    pub(crate) sets: Vec<String>,
    pub(crate) before: Vec<String>,
    pub(crate) after: Vec<String>,
    pub(crate) priority: i32,
    pub(crate) conditions: Vec<Condition>,
    /// Indices in `Schedule::gates` of the sets with run conditions that hold this system; set
    /// when the schedule is built.
    pub(crate) gates: Vec<u32>,
    pub(crate) skip_if_missing: bool,
    pub(crate) insertion: usize,
    pub(crate) initialized: bool,
    /// Whether it runs this frame (conditions and resources checked at its segment's start).
    pub(crate) enabled: bool,
    /// Run time of the last run, when measured.
    pub(crate) last: std::time::Duration,
    pub(crate) samples: Option<Samples>,
}

/// Consecutive systems that may run at the same time.
pub(crate) struct Batch {
    pub(crate) range: Range<usize>,
}

/// How a schedule runs its batches. The default is `Parallel` with the `parallel` feature (rayon),
/// `SingleThreaded` without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutorKind {
    /// Every system on the calling thread, in order.
    #[cfg_attr(not(feature = "parallel"), default)]
    SingleThreaded,
    /// Systems on rayon's pool as a dependency graph: within a segment (consecutive batches up
    /// to the next sync point: after a batch whose systems defer work such as `Commands`, and
    /// before a batch with run conditions or an exclusive system), a system starts as soon as
    /// every earlier system of the segment that conflicts with it or is ordered before it has
    /// finished, whichever batch it is in. A segment goes on the pool when its measured work is
    /// large enough to pay for the hand-off, or always with a zero threshold (see
    /// [`Schedule::set_parallel_threshold`]); otherwise it runs on the calling thread. Commands
    /// are applied at the end of each segment in system order, so results equal the
    /// single-threaded executor's.
    ///
    /// Without the `parallel` feature there is no pool: every batch runs on the calling thread, as
    /// with `SingleThreaded`.
    #[cfg_attr(feature = "parallel", default)]
    Parallel,
}

/// Functions that every [`Schedule::run`] calls after its last batch, once per frame (event
/// buffers are updated there). A resource; add to it with [`FrameEndTasks::add`].
#[derive(Default, Debug)]
pub struct FrameEndTasks(pub(crate) Vec<fn(&mut World)>);

impl FrameEndTasks {
    /// Adds `task` unless it is already there.
    pub fn add(&mut self, task: fn(&mut World)) {
        if !self.0.contains(&task) {
            self.0.push(task);
        }
    }
}

/// An ordered set of systems run once per frame by [`Schedule::run`].
///
/// Order: the topological order of the `before`/`after` constraints (between systems, named by
/// their function's name or [`SystemConfig::named`], and sets named with
/// [`SystemConfig::in_set`] or [`Schedule::configure_set`]); among systems free to run, higher
/// [`SystemConfig::priority`] first, then the one added first. Orders between sets are
/// transitive, also through sets that hold no system: with sets `a` before `b` before `c`, every
/// system of `a` runs before every system of `c` whatever `b` holds, and whether or not `b`'s
/// systems are skipped that frame (the order is fixed when the schedule is built). Consecutive systems that neither conflict nor are ordered relative to
/// each other form a batch, which may run in parallel; each system's [`Commands`](super::Commands)
/// are applied at the end of its batch, in system order, so both executors give the same result.
///
/// # Examples
/// ```
/// use mosaic::schedule::{Commands, Res, Schedule};
/// use mosaic::{Component, Entity, Query, World};
///
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Velocity(f32);
/// struct Bounds(f32);
///
/// fn movement(mut query: Query<(&mut Position, &Velocity)>) {
///     query.for_each(|(p, v)| p.0 += v.0);
/// }
/// fn cull(query: Query<(Entity, &Position)>, bounds: Res<Bounds>, mut commands: Commands) {
///     for (e, p) in query {
///         if p.0 > bounds.0 {
///             commands.despawn(e);
///         }
///     }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Bounds(2.5));
/// world.spawn_batch([(Position(0.0), Velocity(1.0)), (Position(0.0), Velocity(2.0))]);
/// let mut schedule = Schedule::new();
/// schedule.add_system(cull).after(movement);
/// schedule.add_system(movement);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.len(), 1);
/// ```
pub struct Schedule {
    pub(crate) nodes: Vec<Node>,
    pub(crate) sets: FxHashMap<String, SetSpec>,
    /// Sets with run conditions, in the order first configured.
    pub(crate) gates: Vec<super::gates::SetGate>,
    /// Batches over `nodes` (which are in run order once built); `None` until built.
    pub(crate) batches: Option<Vec<Batch>>,
    /// The segments the executor runs and each system's waits within its segment; built with
    /// `batches`.
    pub(crate) plan: Option<super::segment::Plan>,
    /// Scratch space of the graph executor: per node, its open waits this run.
    pub(crate) waits: Vec<std::sync::atomic::AtomicU32>,
    /// Scratch space of the graph executor: ready nodes, with capacity for every node.
    pub(crate) ready: Vec<u32>,
    pub(crate) executor: ExecutorKind,
    pub(crate) parallel_threshold_ns: f64,
    pub(crate) profile_window: Option<usize>,
    pub(crate) frame: u64,
    /// What the systems' commands did in the last frame.
    pub(crate) frame_changes: crate::world::ApplyReport,
}

impl Default for Schedule {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schedule")
            .field("systems", &self.nodes.iter().map(|n| &n.name).collect::<Vec<_>>())
            .field("executor", &self.executor)
            .finish()
    }
}

/// Configures a system just added; see [`Schedule::add_system`].
pub struct SystemConfig<'a> {
    node: &'a mut Node,
}

impl SystemConfig<'_> {
    /// Renames the system (the name `before`/`after` refer to and profiles show). Names are
    /// unique within a schedule: building one where two systems share a name fails with
    /// [`ScheduleError::DuplicateSystem`]. Order a group of systems through a set.
    pub fn named(self, name: impl Into<String>) -> Self {
        self.node.name = name.into();
        self
    }

    /// Runs the system before `label`: the name of exactly one system or of a set (never both;
    /// see [`Schedule::build`]), or a system function, which stands for its default name
    /// (`.before(collisions)`; see [`IntoLabel`](super::IntoLabel)).
    pub fn before<M>(self, label: impl super::IntoLabel<M>) -> Self {
        self.node.before.push(label.into_label());
        self
    }

    /// Runs the system after `label`, which is as for [`SystemConfig::before`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{ResMut, Schedule, World};
    ///
    /// #[derive(Default)]
    /// struct Trace(Vec<&'static str>);
    /// fn movement(mut trace: ResMut<Trace>) { trace.0.push("movement") }
    /// fn collisions(mut trace: ResMut<Trace>) { trace.0.push("collisions") }
    ///
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(collisions).after(movement); // the function, not a string
    /// schedule.add_system(movement);
    /// let mut world = World::new();
    /// world.insert_resource(Trace::default());
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Trace>().0, ["movement", "collisions"]);
    /// ```
    pub fn after<M>(self, label: impl super::IntoLabel<M>) -> Self {
        self.node.after.push(label.into_label());
        self
    }

    /// Puts the system in set `set`, which other systems and [`Schedule::configure_set`] can order
    /// against. A system may be in several sets, but not in two that are ordered one before the
    /// other ([`ScheduleError::ConflictingSets`]), nor ordered before or after a set it is in
    /// ([`ScheduleError::Cycle`]).
    pub fn in_set(self, set: impl Into<String>) -> Self {
        self.node.sets.push(set.into());
        self
    }

    /// Among systems free to run at the same point, higher priorities run first (default 0).
    pub fn priority(self, priority: i32) -> Self {
        self.node.priority = priority;
        self
    }

    /// Runs the system only on frames where `condition` returns `true` (all conditions must).
    ///
    /// Every condition of the system is evaluated once every frame, in the order added, on the
    /// calling thread at the start of the system's batch, even when an earlier one returned
    /// `false` (no short-circuit, as in bevy): a condition that keeps state, such as "changed
    /// since last frame", observes every frame. A missing resource is checked only on frames
    /// where every condition holds.
    pub fn run_if(self, condition: impl Fn(&World) -> bool + Send + Sync + 'static) -> Self {
        self.node.conditions.push(Box::new(condition));
        self
    }

    /// Skips the system on frames where a resource it needs is missing, instead of panicking.
    pub fn skip_if_missing(self) -> Self {
        self.node.skip_if_missing = true;
        self
    }
}

/// Configures a named set; see [`Schedule::configure_set`].
pub struct SetConfig<'a> {
    name: String,
    spec: &'a mut SetSpec,
    gates: &'a mut Vec<super::gates::SetGate>,
}

impl SetConfig<'_> {
    /// Runs every system of the set before `label` (a system's name or a set's, or a system
    /// function: see [`IntoLabel`](super::IntoLabel)). When the set has no system the order
    /// still holds through it: whatever runs before the set runs before `label`.
    pub fn before<M>(self, label: impl super::IntoLabel<M>) -> Self {
        self.spec.before.push(label.into_label());
        self
    }

    /// Runs every system of the set after `label` (as for [`SetConfig::before`]); the order
    /// holds through an empty set.
    pub fn after<M>(self, label: impl super::IntoLabel<M>) -> Self {
        self.spec.after.push(label.into_label());
        self
    }

    /// Runs the set's systems only on frames where `condition` returns `true` (all of the set's
    /// conditions must, and each system's own). Bevy's `configure_sets(..run_if(..))`.
    ///
    /// The set's conditions are evaluated once per frame, all of them (no short-circuit), on the
    /// calling thread at the start of the segment of the set's first system in run order; every
    /// system of the set then uses that verdict, so a stateful condition sees each frame once.
    /// A system in several sets runs only if every set's conditions hold.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{ResMut, Schedule, World};
    ///
    /// struct Paused(bool);
    /// fn physics(mut steps: ResMut<u32>) { *steps += 1 }
    /// fn collisions(mut steps: ResMut<u32>) { *steps += 10 }
    ///
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(physics).in_set("simulation");
    /// schedule.add_system(collisions).in_set("simulation").after(physics);
    /// schedule.configure_set("simulation").run_if(|world| !world.resource::<Paused>().0);
    /// let mut world = World::new();
    /// world.insert_resource(0u32);
    /// world.insert_resource(Paused(true));
    /// schedule.run(&mut world);
    /// assert_eq!(*world.resource::<u32>(), 0);
    /// world.resource_mut::<Paused>().0 = false;
    /// schedule.run(&mut world);
    /// assert_eq!(*world.resource::<u32>(), 11);
    /// ```
    pub fn run_if(self, condition: impl Fn(&World) -> bool + Send + Sync + 'static) -> Self {
        let gate = match self.gates.iter().position(|gate| gate.set == self.name) {
            Some(at) => &mut self.gates[at],
            None => {
                self.gates.push(super::gates::SetGate::new(self.name.clone()));
                self.gates.last_mut().expect("just pushed")
            }
        };
        gate.conditions.push(Box::new(condition));
        self
    }
}

impl Schedule {
    /// An empty schedule with the default executor ([`ExecutorKind::Parallel`] with the `parallel`
    /// feature, [`ExecutorKind::SingleThreaded`] without).
    pub fn new() -> Self {
        Self {
            nodes: Vec::new(),
            sets: FxHashMap::default(),
            gates: Vec::new(),
            batches: None,
            plan: None,
            waits: Vec::new(),
            ready: Vec::new(),
            executor: ExecutorKind::default(),
            parallel_threshold_ns: 20_000.0,
            profile_window: None,
            frame: 0,
            frame_changes: crate::world::ApplyReport::default(),
        }
    }

    /// Chooses the executor.
    pub fn set_executor(&mut self, executor: ExecutorKind) -> &mut Self {
        self.executor = executor;
        self
    }

    /// A segment (see [`ExecutorKind::Parallel`]) runs in parallel only when its measured
    /// single-thread time is at least `threshold` (default 20 us), and its parallel runs are not
    /// measured slower than its sequential ones; smaller segments cost more to hand to threads
    /// than they save. With a non-zero threshold a segment's first run is on the calling thread,
    /// to measure it.
    ///
    /// Zero forces every segment of two or more systems that run this frame, and that are not
    /// a plain chain (each waiting for the one before), onto rayon's pool (the current one, so
    /// `rayon::ThreadPool::install` picks it), from the first frame on and whatever the measured
    /// times. A chain always runs on the calling thread, since nothing in it can overlap. Rayon runs the systems at the same time when it has idle
    /// threads; systems that wait on each other (a barrier of N) need N idle threads in the pool.
    pub fn set_parallel_threshold(&mut self, threshold: std::time::Duration) -> &mut Self {
        self.parallel_threshold_ns = threshold.as_nanos() as f64;
        self
    }

    /// Records every system's run time over the last `frames` frames; read with
    /// [`Schedule::profile`]. Costs two clock reads per system run.
    pub fn enable_profiling(&mut self, frames: usize) -> &mut Self {
        self.profile_window = Some(frames.max(1));
        for node in &mut self.nodes {
            node.samples = Some(Samples::new(frames.max(1)));
        }
        self
    }

    /// Adds a system.
    ///
    /// # Panics
    /// If two of the system's parameters alias (e.g. `Query<&mut A>` and `Query<&A>`), naming
    /// the system, both parameters and the type; see [`Schedule::try_add_system`].
    #[track_caller]
    pub fn add_system<M>(&mut self, system: impl IntoSystem<M>) -> SystemConfig<'_> {
        self.try_add_system(system).unwrap_or_else(|error| panic!("{error}"))
    }

    /// Adds a system; the fallible form of [`Schedule::add_system`].
    ///
    /// The system's name is its function's name without the module path; a closure is named
    /// after where it was added: `closure@src/main.rs:12:5` (rename it with
    /// [`SystemConfig::named`]).
    ///
    /// # Errors
    /// [`ScheduleError::ConflictingParams`] if two of its parameters alias.
    #[track_caller]
    pub fn try_add_system<M>(
        &mut self,
        system: impl IntoSystem<M>,
    ) -> Result<SystemConfig<'_>, ScheduleError> {
        let name = std::any::type_name_of_val(&system);
        let system = system.into_system().map_err(|pair| ScheduleError::ConflictingParams {
            system: super::system::short_name(name).to_string(),
            first: super::system::pretty_type_name(pair.0.param),
            second: super::system::pretty_type_name(pair.1.param),
            component: pair.1.name,
        })?;
        let mut name = system.name().to_string();
        if name.contains("{{closure}}") {
            let at = std::panic::Location::caller();
            name = format!("closure@{}:{}:{}", at.file(), at.line(), at.column());
        }
        self.batches = None;
        self.nodes.push(Node {
            system: Box::new(system),
            name,
            sets: Vec::new(),
            before: Vec::new(),
            after: Vec::new(),
            priority: 0,
            conditions: Vec::new(),
            gates: Vec::new(),
            skip_if_missing: false,
            insertion: self.nodes.len(),
            initialized: false,
            enabled: false,
            last: std::time::Duration::ZERO,
            samples: self.profile_window.map(Samples::new),
        });
        Ok(SystemConfig { node: self.nodes.last_mut().expect("just pushed") })
    }

    /// Orders a named set relative to other systems or sets, creating the set if no system is in
    /// it yet (a label must name a system or a set that exists when the schedule is built).
    pub fn configure_set(&mut self, set: impl Into<String>) -> SetConfig<'_> {
        self.batches = None;
        let name = set.into();
        SetConfig { spec: self.sets.entry(name.clone()).or_default(), gates: &mut self.gates, name }
    }

    /// Number of systems.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there is no system.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The system names in run order (building the plan if needed).
    ///
    /// # Errors
    /// As [`Schedule::build`].
    pub fn order(&mut self) -> Result<Vec<&str>, ScheduleError> {
        self.build()?;
        Ok(self.nodes.iter().map(|n| n.name.as_str()).collect())
    }

    /// The batches in run order, as lists of system names (building the plan if needed).
    ///
    /// # Errors
    /// As [`Schedule::build`].
    pub fn batches(&mut self) -> Result<Vec<Vec<&str>>, ScheduleError> {
        self.build()?;
        let batches = self.batches.as_ref().expect("built");
        Ok(batches
            .iter()
            .map(|b| self.nodes[b.range.clone()].iter().map(|n| n.name.as_str()).collect())
            .collect())
    }

    /// Sorts the systems and groups them into batches. Called by `run`; calling it early reports
    /// ordering errors before the first frame. O((n + s + e) log(n + s) + n * b * a) for n
    /// systems, s sets, e constraints and set memberships, batch size b and access-set size a.
    ///
    /// # Errors
    /// - [`ScheduleError::DuplicateSystem`] if two systems have the same name;
    /// - [`ScheduleError::UnknownLabel`] if a `before`/`after` names no system and no set;
    /// - [`ScheduleError::AmbiguousLabel`] if one names a system and a set;
    /// - [`ScheduleError::SetCycle`] if sets are ordered in a cycle, with or without systems;
    /// - [`ScheduleError::ConflictingSets`] if a system is in two sets one of which must run
    ///   before the other;
    /// - [`ScheduleError::Cycle`] for any other cycle (between systems, or a system ordered
    ///   before or after a set it is in).
    pub fn build(&mut self) -> Result<(), ScheduleError> {
        if self.batches.is_some() {
            return Ok(());
        }
        self.nodes.sort_by_key(|n| n.insertion);
        let specs: Vec<NodeSpec<'_>> = self
            .nodes
            .iter()
            .map(|n| NodeSpec {
                name: &n.name,
                sets: &n.sets,
                before: &n.before,
                after: &n.after,
                priority: n.priority,
            })
            .collect();
        let sorted = graph::sort(&specs, &self.sets)?;
        // Batches: consecutive systems in run order with no conflict and no direct edge between
        // them, an edge through sets alone counting as direct (an indirect path always runs
        // through a system of an earlier batch or this one).
        let mut batches = Vec::new();
        let mut start = 0;
        for (position, &node) in sorted.order.iter().enumerate() {
            let members = &sorted.order[start..position];
            let access = self.nodes[node].system.access();
            let split = access.is_exclusive()
                || members.iter().any(|&m| {
                    sorted.preds[node].contains(&m)
                        || self.nodes[m].system.access().conflict_with(access).is_some()
                });
            if split && position > start {
                batches.push(start..position);
                start = position;
            }
        }
        if start < sorted.order.len() {
            batches.push(start..sorted.order.len());
        }
        // The gates of the sets with run conditions each system is in.
        for node in &mut self.nodes {
            node.gates = (0..self.gates.len() as u32)
                .filter(|&g| node.sets.contains(&self.gates[g as usize].set))
                .collect();
        }
        // Segments, and each system's waits in its segment, by run position.
        let order = &sorted.order;
        let plan = super::segment::plan(
            order.len(),
            &batches,
            |p| self.nodes[order[p]].system.access(),
            |p| !self.nodes[order[p]].conditions.is_empty() || !self.nodes[order[p]].gates.is_empty(),
            |earlier, later| sorted.preds[order[later]].contains(&order[earlier]),
        );
        // Put the nodes in run order so each batch and segment is a contiguous slice.
        let mut slots: Vec<Option<Node>> = self.nodes.drain(..).map(Some).collect();
        self.nodes = sorted.order.iter().map(|&i| slots[i].take().expect("each node once")).collect();
        self.batches = Some(batches.into_iter().map(|range| Batch { range }).collect());
        self.plan = Some(plan);
        self.waits = (0..self.nodes.len()).map(|_| std::sync::atomic::AtomicU32::new(0)).collect();
        self.ready = Vec::with_capacity(self.nodes.len());
        Ok(())
    }

    /// Per-system run times over the profiling window, in run order.
    ///
    /// Empty unless [`Schedule::enable_profiling`] was called.
    pub fn profile(&self) -> super::FrameProfile {
        super::FrameProfile {
            systems: self
                .nodes
                .iter()
                .filter_map(|n| n.samples.as_ref().map(|s| s.summary(&n.name)))
                .collect(),
            window: self.profile_window.unwrap_or(0),
        }
    }

    /// Frames run so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// What the systems' [`Commands`](super::Commands) did in the last frame, summed over every
    /// sync point: spawned, despawned, applied, and skipped (their entity had died).
    pub fn last_frame_changes(&self) -> crate::world::ApplyReport {
        self.frame_changes
    }
}

//! Running a built schedule: segments (runs of batches between sync points, see `segment.rs`)
//! on the calling thread or as dependency graphs on rayon (feature `parallel`), then their sync
//! points.

use std::time::Duration;

use crate::clock::Instant;

use smallvec::SmallVec;

use super::core::{ExecutorKind, FrameEndTasks, Node};
use super::param::ParamError;
use super::segment::Segment;
use super::{Schedule, ScheduleError};
use crate::world::World;

/// Weight of the newest sample in the moving averages of segment times.
const EMA_WEIGHT: f64 = 0.2;
/// Every this many runs a segment that runs sequentially because parallel looked slower is tried
/// in parallel again, so a change in workload is noticed.
const REPROBE_EVERY: u64 = 64;

fn ema(old: f64, sample: f64) -> f64 {
    if old.is_nan() { sample } else { old + EMA_WEIGHT * (sample - old) }
}

/// Runs one non-exclusive system through the shared world, recording its time if asked.
///
/// # Safety
/// As [`System::run_shared`](super::System::run_shared): the node is initialized and validated,
/// and nothing running at the same time conflicts with its access.
pub(crate) unsafe fn run_node(node: &mut Node, world: &World, measure: bool) {
    #[cfg(feature = "trace")]
    let _span = tracing::info_span!("system", name = node.name.as_str()).entered();
    if measure {
        let start = Instant::now();
        // SAFETY: forwarded from the caller.
        unsafe { node.system.run_shared(world) };
        record(node, start.elapsed());
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { node.system.run_shared(world) };
    }
}

fn record(node: &mut Node, time: Duration) {
    node.last = time;
    if let Some(samples) = &mut node.samples {
        samples.record(time);
    }
}

impl Schedule {
    /// Runs every system once (one frame), then the [`FrameEndTasks`], then one round of lazy
    /// garbage collection ([`World::collect_lazy`]).
    ///
    /// Threads: parallel work goes to the current rayon pool. Call `run` from a thread of that
    /// pool (run the game loop inside `ThreadPool::install`). Called from outside the pool, the
    /// frame's sequential work runs on one thread more than the pool has, and rayon's idle
    /// workers spin beside it. With 2 workers on 2 cores, the arena's 1,000-entity scene ran
    /// 2.7x slower on 2 threads than on 1 from `main`, and 0.9x inside the pool
    /// (docs/scaling.md).
    ///
    /// # Panics
    /// If the schedule cannot be built (see [`Schedule::try_run`]); if a system needs a resource
    /// that is missing, naming the system and the resource (unless it was added with
    /// `skip_if_missing`); or if a system panics.
    #[track_caller]
    pub fn run(&mut self, world: &mut World) {
        if let Err(error) = self.try_run(world) {
            panic!("cannot run the schedule: {error}");
        }
    }

    /// Runs every system once; the fallible form of [`Schedule::run`].
    ///
    /// # Errors
    /// As [`Schedule::build`]: an unknown label or an ordering cycle.
    ///
    /// # Panics
    /// As [`Schedule::run`], for missing resources and panicking systems.
    pub fn try_run(&mut self, world: &mut World) -> Result<(), ScheduleError> {
        self.build()?;
        for node in &mut self.nodes {
            if !node.initialized {
                node.system.initialize(world);
                node.initialized = true;
            }
        }
        let mut plan = self.plan.take().expect("built above");
        self.frame_changes = Default::default();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for segment in &mut plan.segments {
                self.run_segment(segment, &plan.successors, &plan.predecessors, world);
            }
        }));
        self.plan = Some(plan);
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
        let tasks = world.get_resource::<FrameEndTasks>().map_or(0, |t| t.0.len());
        for i in 0..tasks {
            let task = world.resource::<FrameEndTasks>().0[i];
            task(world);
        }
        {
            #[cfg(feature = "trace")]
            let _span = tracing::info_span!("collect_lazy").entered();
            world.collect_lazy();
        }
        if world.check_change_ticks() {
            for node in &mut self.nodes {
                node.system.check_change_tick(world);
            }
        }
        self.frame += 1;
        Ok(())
    }

    /// Runs one segment: tests its systems' run conditions and resources, runs the enabled ones
    /// (alone for an exclusive system; as a dependency graph on rayon when the parallel executor
    /// expects a gain; else in run order on this thread), then applies their commands in run
    /// order.
    fn run_segment(
        &mut self,
        segment: &mut Segment,
        successors: &[SmallVec<[u32; 4]>],
        predecessors: &[u32],
        world: &mut World,
    ) {
        #[cfg(not(feature = "parallel"))]
        let _ = (successors, predecessors); // No pool: segments run in order on this thread.
        let range = segment.nodes.clone();
        let nodes = &mut self.nodes[range.clone()];
        let mut enabled = 0;
        for node in nodes.iter_mut() {
            // Every condition, every frame, even after one returned false: a stateful condition
            // (a change detector, a timer) must see each frame, not only those its predecessors
            // passed, or it later fires on a stale observation. No short-circuit, as in bevy.
            let conditions_hold = node.conditions.iter().fold(true, |all, condition| condition(world) & all);
            // Its sets' conditions: evaluated at the first of their systems this frame.
            let gates_hold =
                node.gates.iter().fold(true, |all, &g| self.gates[g as usize].holds(self.frame, world) & all);
            node.enabled = conditions_hold
                && gates_hold
                && match node.system.validate(world) {
                    Ok(()) => true,
                    // A `Single` or `Populated` that does not fit now: decided at the run, which
                    // checks again against its own window (a system earlier in the segment may
                    // change what a change filter matches) and skips the call if still unmet.
                    Err(ParamError::Unmet(_)) => true,
                    Err(ParamError::MissingResource(missing)) if node.skip_if_missing => {
                        #[cfg(feature = "trace")]
                        tracing::debug!(
                            system = node.name.as_str(),
                            resource = missing,
                            "skipped: resource missing"
                        );
                        #[cfg(not(feature = "trace"))]
                        let _ = missing;
                        false
                    }
                    Err(ParamError::MissingResource(missing)) => panic!(
                        "system `{}` cannot run: resource `{missing}` is missing; insert it before running \
                         the schedule, or add the system with `.skip_if_missing()`",
                        node.name
                    ),
                };
            enabled += usize::from(node.enabled);
        }
        let profiling = self.profile_window.is_some();
        if let [node] = nodes
            && node.system.access().is_exclusive()
        {
            if node.enabled {
                #[cfg(feature = "trace")]
                let _span = tracing::info_span!("system", name = node.name.as_str()).entered();
                let start = Instant::now();
                node.system.run(world);
                record(node, start.elapsed());
            }
        } else if cfg!(feature = "parallel")
            && self.executor == ExecutorKind::Parallel
            && enabled >= 2
            // A chain (every system waits for the one before) gains nothing from the pool.
            && segment.width >= 2
            && (self.parallel_threshold_ns <= 0.0
                || (segment.sequential_ns >= self.parallel_threshold_ns
                    && (segment.parallel_ns.is_nan()
                        || segment.parallel_ns < segment.sequential_ns
                        || segment.runs.is_multiple_of(REPROBE_EVERY))))
        {
            // A zero threshold puts the segment on the pool every frame, the first included (when
            // `sequential_ns` is still unknown) and whatever the measured times say.
            let start = Instant::now();
            #[cfg(feature = "parallel")]
            // SAFETY: every enabled node was initialized (`try_run`) and validated above; the
            // plan orders every conflicting pair of the segment (`segment::plan`) and a segment
            // with an exclusive system holds only it (handled above); the world is only shared
            // until `run_segment` returns.
            unsafe {
                super::dag::run_segment(
                    nodes,
                    &successors[range.clone()],
                    &predecessors[range.clone()],
                    &self.waits[range.clone()],
                    &mut self.ready,
                    enabled.min(segment.width),
                    world,
                );
            }
            let nodes = &self.nodes[range.clone()];
            segment.parallel_ns = ema(segment.parallel_ns, start.elapsed().as_nanos() as f64);
            let work: Duration = nodes.iter().filter(|n| n.enabled).map(|n| n.last).sum();
            segment.sequential_ns = ema(segment.sequential_ns, work.as_nanos() as f64);
        } else {
            let start = Instant::now();
            for node in nodes.iter_mut().filter(|n| n.enabled) {
                // SAFETY: initialized and validated above; this thread holds the world exclusively
                // and runs the systems one at a time.
                unsafe { run_node(node, world, profiling) };
            }
            segment.sequential_ns = ema(segment.sequential_ns, start.elapsed().as_nanos() as f64);
        }
        segment.runs += 1;
        // Sync point: commands in system order, never in completion order.
        for node in self.nodes[range].iter_mut().filter(|n| n.enabled) {
            #[cfg(feature = "trace")]
            let _span = tracing::info_span!("commands", name = node.name.as_str()).entered();
            self.frame_changes += node.system.apply_deferred(world);
        }
    }
}

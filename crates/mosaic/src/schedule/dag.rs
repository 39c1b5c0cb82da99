//! Running one segment's systems as a dependency graph on rayon's pool: a system starts as soon
//! as every system it waits for (see `segment.rs`) has finished, whichever batch it is in.
//!
//! A fixed set of workers, made with nested `rayon::join` (no heap allocation, so a warm frame
//! allocates nothing), pull ready systems from a shared list. Finishing a system counts down its
//! successors' waits; a count reaching zero makes that successor ready. A worker with nothing
//! ready lets rayon run other pending jobs (the pieces of a running system's `par_for_each`)
//! before yielding its thread. bevy's multi-threaded executor has the same shape (a ready set fed
//! by dependency counts); it spawns a task per system instead.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use smallvec::SmallVec;

use super::core::Node;
use super::executor::run_node;
use crate::world::World;

/// The shared state of one graph run.
struct Run<'a> {
    /// The segment's first node; the segment's nodes are `nodes..nodes + len`.
    nodes: *mut Node,
    len: usize,
    /// Per node (segment offsets): the nodes that wait for it.
    successors: &'a [SmallVec<[u32; 4]>],
    /// Per node: the waits still open this run.
    waits: &'a [AtomicU32],
    /// Nodes whose waits are all done and which no worker took yet.
    ready: Mutex<&'a mut Vec<u32>>,
    /// Nodes finished (run, or skipped as disabled).
    done: AtomicUsize,
    /// A system panicked: workers stop taking nodes.
    abort: AtomicBool,
    /// The first panic's payload, resumed once every worker returned.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    world: &'a World,
}

// SAFETY: `nodes` is shared only to hand each node to exactly one worker: a node's offset enters
// `ready` once (when its last wait closes, or at the start for nodes with none), and is popped
// once, under the mutex, so no two workers touch one node. `Node` is `Send` (its system is), and
// everything else is `Sync`.
unsafe impl Sync for Run<'_> {}

impl Run<'_> {
    fn take_ready(&self) -> Option<u32> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    fn make_ready(&self, node: u32) {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner).push(node);
    }

    /// Takes ready nodes and runs them until every node is done or a system panicked.
    ///
    /// # Safety
    /// As [`run_segment`].
    unsafe fn work(&self) {
        loop {
            if self.abort.load(Ordering::Acquire) {
                return;
            }
            let Some(offset) = self.take_ready() else {
                if self.done.load(Ordering::Acquire) == self.len {
                    return;
                }
                // Nothing ready: help with other rayon work (a running system's parallel
                // iteration) before giving up the thread.
                if !matches!(rayon::yield_now(), Some(rayon::Yield::Executed)) {
                    std::thread::yield_now();
                }
                continue;
            };
            // SAFETY: `offset < len` (only segment offsets enter `ready`), and this worker holds
            // the node alone (see `Sync`).
            let node = unsafe { &mut *self.nodes.add(offset as usize) };
            if node.enabled {
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // SAFETY: the node was initialized and validated (caller); every node it
                    // conflicts with in this segment either finished before its waits closed
                    // (the release of the counts and the mutex order those writes before this
                    // run) or waits for it, so nothing running now conflicts with its access.
                    unsafe { run_node(node, self.world, true) }
                }));
                if let Err(payload) = ran {
                    self.panic.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(payload);
                    self.abort.store(true, Ordering::Release);
                    return;
                }
            }
            for &successor in &self.successors[offset as usize] {
                if self.waits[successor as usize].fetch_sub(1, Ordering::AcqRel) == 1 {
                    self.make_ready(successor);
                }
            }
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.len {
                return;
            }
        }
    }
}

/// Starts `workers` workers on rayon's pool (this call runs one of them) and returns when all
/// have returned.
///
/// # Safety
/// As [`run_segment`].
unsafe fn spawn_workers(run: &Run<'_>, workers: usize) {
    if workers <= 1 {
        // SAFETY: forwarded from the caller.
        unsafe { run.work() }
    } else {
        rayon::join(
            // SAFETY: forwarded from the caller.
            || unsafe { run.work() },
            // SAFETY: as above.
            || unsafe { spawn_workers(run, workers - 1) },
        );
    }
}

/// Runs the enabled systems among `nodes` (one segment, in run order) as a dependency graph on
/// rayon's pool, skipping the disabled ones; `successors` and `predecessors` are the segment's
/// slices of the schedule's plan, `waits` and `ready` scratch space of at least the segment's
/// length (`ready` with that capacity, so nothing allocates), `max_workers` the most workers
/// worth starting (the systems running this frame, capped by the segment's estimated width).
///
/// # Panics
/// Resumes the first panic of a system, after every worker has stopped.
///
/// # Safety
/// Every enabled node was initialized and validated on `world`; two nodes of the segment whose
/// accesses conflict are ordered by `successors` (the earlier one's list holds the later one);
/// no node is exclusive; and nothing else accesses the world until this returns.
pub(crate) unsafe fn run_segment(
    nodes: &mut [Node],
    successors: &[SmallVec<[u32; 4]>],
    predecessors: &[u32],
    waits: &[AtomicU32],
    ready: &mut Vec<u32>,
    max_workers: usize,
    world: &World,
) {
    let len = nodes.len();
    debug_assert!(successors.len() == len && predecessors.len() == len && waits.len() >= len);
    ready.clear();
    for (offset, &count) in predecessors.iter().enumerate() {
        waits[offset].store(count, Ordering::Relaxed);
        if count == 0 {
            ready.push(offset as u32);
        }
    }
    // Pop the first nodes in run order first.
    ready.reverse();
    let workers = rayon::current_num_threads().min(max_workers).max(1);
    let run = Run {
        nodes: nodes.as_mut_ptr(),
        len,
        successors,
        waits: &waits[..len],
        ready: Mutex::new(ready),
        done: AtomicUsize::new(0),
        abort: AtomicBool::new(false),
        panic: Mutex::new(None),
        world,
    };
    // SAFETY: forwarded from the caller; `run.nodes` points at `len` nodes borrowed mutably for
    // this call.
    unsafe { spawn_workers(&run, workers) };
    if let Some(payload) = run.panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
        std::panic::resume_unwind(payload);
    }
}

//! Segments: runs of consecutive batches between sync points, which the parallel executor runs
//! as one dependency graph instead of batch after batch.
//!
//! Batches are consecutive systems in run order that may overlap; the single-threaded order
//! applies each batch's commands at its end. A batch whose systems defer no work (no `Commands`)
//! applies nothing there, so the next batch sees the world exactly as if the two batches' systems
//! had run in any order that keeps every conflicting pair (and every `before`/`after`) in run
//! order. A segment is such a run of batches, ending after a batch that defers work and before a
//! batch with run conditions (conditions read the whole world, so they are tested only while no
//! system runs) or an exclusive system (which runs alone, as a segment of its own). Inside a
//! segment a system waits only for its own predecessors: those earlier in run order that
//! conflict with it or are ordered before it. The result equals the single-threaded executor's.

use std::ops::Range;

use smallvec::SmallVec;

use super::access::Access;

/// A run of consecutive batches between sync points: the unit the executor runs, applying the
/// commands of its systems (in run order) at its end.
pub(crate) struct Segment {
    /// The systems, in run order (indices into the schedule's nodes).
    pub(crate) nodes: Range<usize>,
    /// Estimated time to run the segment on one thread, in ns (moving average; NaN: unknown).
    pub(crate) sequential_ns: f64,
    /// Measured time of a parallel run, in ns (moving average; NaN: never tried).
    pub(crate) parallel_ns: f64,
    pub(crate) runs: u64,
    /// How many of its systems can run at once, estimated as the largest level of the
    /// dependency graph (systems at one level of longest-path depth never wait for each other):
    /// the executor starts no more workers than this, so a chain does not keep idle ones
    /// spinning.
    pub(crate) width: usize,
}

/// The segments of a built schedule and, per system, the systems of its segment that wait for
/// it.
pub(crate) struct Plan {
    pub(crate) segments: Vec<Segment>,
    /// Per node: the later nodes of its segment that wait for it, as offsets from the segment's
    /// first node.
    pub(crate) successors: Vec<SmallVec<[u32; 4]>>,
    /// Per node: how many earlier nodes of its segment it waits for.
    pub(crate) predecessors: Vec<u32>,
}

/// Splits `batches` (consecutive ranges over nodes in run order) into segments and finds each
/// system's predecessors within its segment: an earlier system of the segment that conflicts
/// with it, or that `ordered(earlier, later)` says must run first. O(s^2 * a) per segment of s
/// systems with access sets of size a.
///
/// `access(i)`, `has_conditions(i)`: node `i`'s access set and whether it has run conditions.
pub(crate) fn plan<'a>(
    nodes: usize,
    batches: &[Range<usize>],
    access: impl Fn(usize) -> &'a Access,
    has_conditions: impl Fn(usize) -> bool,
    ordered: impl Fn(usize, usize) -> bool,
) -> Plan {
    let exclusive = |batch: &Range<usize>| batch.clone().any(|i| access(i).is_exclusive());
    let mut segments: Vec<Segment> = Vec::new();
    for (b, batch) in batches.iter().enumerate() {
        let starts_new = b == 0
            || exclusive(batch)
            || exclusive(&batches[b - 1])
            || batches[b - 1].clone().any(|i| access(i).has_deferred())
            || batch.clone().any(&has_conditions);
        if starts_new {
            segments.push(Segment {
                nodes: batch.clone(),
                sequential_ns: f64::NAN,
                parallel_ns: f64::NAN,
                runs: 0,
                width: 1,
            });
        } else {
            segments.last_mut().expect("the first batch starts a segment").nodes.end = batch.end;
        }
    }
    let mut successors = vec![SmallVec::new(); nodes];
    let mut predecessors = vec![0u32; nodes];
    for segment in &segments {
        let start = segment.nodes.start;
        for later in segment.nodes.clone() {
            for (earlier, waiting) in successors.iter_mut().enumerate().take(later).skip(start) {
                if ordered(earlier, later) || access(earlier).conflict_with(access(later)).is_some() {
                    waiting.push((later - start) as u32);
                    predecessors[later] += 1;
                }
            }
        }
    }
    for segment in &mut segments {
        // Longest-path levels, in run order (every edge goes from an earlier node to a later one).
        let start = segment.nodes.start;
        let mut level = vec![0usize; segment.nodes.len()];
        let mut per_level = vec![0usize; segment.nodes.len()];
        for node in segment.nodes.clone() {
            let offset = node - start;
            per_level[level[offset]] += 1;
            for &later in &successors[node] {
                level[later as usize] = level[later as usize].max(level[offset] + 1);
            }
        }
        segment.width = per_level.into_iter().max().unwrap_or(1).max(1);
    }
    Plan { segments, successors, predecessors }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::access::{AccessItem, AccessTarget};

    struct R<const N: usize>;

    fn writes<T: 'static>() -> Access {
        let mut access = Access::default();
        access
            .add(AccessItem {
                target: AccessTarget::Resource(std::any::TypeId::of::<T>()),
                name: "T",
                write: true,
                param: "ResMut<T>",
            })
            .unwrap();
        access
    }

    #[test]
    fn batches_without_deferred_work_merge_and_only_conflicts_wait() {
        // a: R0, b: R0, c: R1, d: R1 -> batches [a], [b, c], [d]; one segment.
        let accesses = [writes::<R<0>>(), writes::<R<0>>(), writes::<R<1>>(), writes::<R<1>>()];
        let batches = [0..1, 1..3, 3..4];
        let planned = super::plan(4, &batches, |i| &accesses[i], |_| false, |_, _| false);
        assert_eq!(planned.segments.len(), 1);
        assert_eq!(planned.segments[0].nodes, 0..4);
        assert_eq!(planned.predecessors, [0, 1, 0, 1], "c waits for nothing, so it may run beside a");
        assert_eq!(planned.successors[0].as_slice(), [1]);
        assert_eq!(planned.successors[2].as_slice(), [3]);
        assert_eq!(planned.segments[0].width, 2, "levels (a, c) and (b, d)");
        // An explicit order is an edge too.
        let ordered = super::plan(4, &batches, |i| &accesses[i], |_| false, |e, l| (e, l) == (0, 2));
        assert_eq!(ordered.predecessors, [0, 1, 1, 1]);
    }

    #[test]
    fn deferred_work_conditions_and_exclusive_systems_end_segments() {
        let mut deferred = writes::<R<0>>();
        deferred.mark_deferred();
        let accesses = [deferred, writes::<R<0>>(), writes::<R<1>>(), Access::exclusive(), writes::<R<2>>()];
        let batches = [0..1, 1..2, 2..3, 3..4, 4..5];
        // Node 2 has a run condition.
        let planned = super::plan(5, &batches, |i| &accesses[i], |i| i == 2, |_, _| false);
        let ranges: Vec<Range<usize>> = planned.segments.iter().map(|s| s.nodes.clone()).collect();
        assert_eq!(ranges, [0..1, 1..2, 2..3, 3..4, 4..5]);
    }
}

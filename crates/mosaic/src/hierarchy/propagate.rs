//! Transform propagation, for any kind of transform (2D, 3D): a full pass over the relationship
//! pool, and an incremental pass that recomputes only the subtrees whose local transform or
//! parent changed since the last propagation.

use std::ops::Mul;

use super::Relationship;
use super::component::rel_in;
use super::ops::HierarchyState;
use crate::component::{AosComponent, ComponentId, MutableComponent};
use crate::entity::Entity;
use crate::storage::{SparseSet, Tick};
use crate::world::World;

/// Reparented entities past which the log stops recording and the next propagation is a full one.
const LOG_CAP: usize = 1 << 16;

/// What one transform kind's incremental propagation needs beside change ticks: the entities
/// whose parent changed since it last ran (recorded by the link surgery, through `&mut World`),
/// and the tick it last ran at.
#[derive(Debug, Default)]
pub(crate) struct PropagationLog {
    /// Set once this kind has propagated: before that nothing is recorded.
    active: bool,
    overflow: bool,
    entities: Vec<Entity>,
    last_run: Option<Tick>,
}

impl PropagationLog {
    /// Records that `entity`'s parent changed. O(1) amortised; stops at [`LOG_CAP`] entries and
    /// asks for a full pass instead.
    pub(crate) fn push(&mut self, entity: Entity) {
        if !self.active || self.overflow {
            return;
        }
        if self.entities.len() >= LOG_CAP {
            self.entities.clear();
            self.overflow = true;
        } else {
            self.entities.push(entity);
        }
    }

    /// Takes the recorded entities, the last run's tick (`None`: a full pass is needed) and
    /// starts recording.
    fn take(&mut self) -> (Vec<Entity>, Option<Tick>) {
        let entities = std::mem::take(&mut self.entities);
        let full = !std::mem::replace(&mut self.active, true) | std::mem::take(&mut self.overflow);
        (entities, if full { None } else { self.last_run })
    }

    fn set_last_run(&mut self, tick: Tick) {
        self.last_run = Some(tick);
    }

    /// What the next propagation of this kind will be, for snapshots: 0 never ran (full), 1
    /// incremental, 2 full after an overflow.
    #[cfg(any(feature = "serialize", feature = "rollback"))]
    pub(crate) fn mode(&self) -> u8 {
        match (self.active, self.overflow) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        }
    }

    /// The whole log (mode, recorded entities, last run's tick), for rollback images.
    #[cfg(feature = "rollback")]
    pub(crate) fn save(&self, out: &mut PropagationImage) {
        out.mode = self.mode();
        out.entities.clone_from(&self.entities);
        out.last_run = self.last_run;
    }

    /// Puts a log saved by [`PropagationLog::save`] back.
    #[cfg(feature = "rollback")]
    pub(crate) fn restore(&mut self, saved: &PropagationImage) {
        self.active = saved.mode != 0;
        self.overflow = saved.mode == 2;
        self.entities.clone_from(&saved.entities);
        self.last_run = saved.last_run;
    }

    /// Sets the next propagation's mode as [`PropagationLog::mode`] reports it, for a loaded
    /// world: an incremental one then recomputes every entity whose transforms changed since
    /// `oldest` (all of them, as the load added them), without reordering pools as a full pass
    /// would, so a loaded world continues exactly as the saved one.
    #[cfg(feature = "serialize")]
    pub(crate) fn set_mode(&mut self, mode: u8, oldest: Tick) {
        self.active = mode != 0;
        self.overflow = mode == 2;
        self.entities.clear();
        self.last_run = (mode == 1).then_some(oldest);
    }
}

/// A [`PropagationLog`] saved by rollback: with the change ticks rolled back too, the next
/// propagation after a restore does exactly what it would have done in the straight run.
#[cfg(feature = "rollback")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PropagationImage {
    /// As [`PropagationLog::mode`].
    pub(crate) mode: u8,
    /// Entities reparented since the last propagation.
    pub(crate) entities: Vec<Entity>,
    /// The last propagation's tick.
    pub(crate) last_run: Option<Tick>,
}

/// A kind of transform: a local component, a global component written by propagation, and the
/// matrix type they compose in.
pub(crate) trait TransformKind: 'static {
    /// Relative to the parent.
    type Local: AosComponent;
    /// Relative to the world.
    type Global: AosComponent + MutableComponent;
    /// The affine matrix both reduce to.
    type Matrix: Copy + Mul<Output = Self::Matrix> + Send + 'static;
    /// The identity matrix (a root's parent).
    const IDENTITY: Self::Matrix;
    /// Index of this kind's state in [`HierarchyState`].
    const SLOT: usize;
    /// The local transform's matrix.
    fn local(local: &Self::Local) -> Self::Matrix;
    /// Stores `matrix` as the global transform.
    fn set_global(global: &mut Self::Global, matrix: Self::Matrix);
    /// The global transform's matrix.
    fn global(global: &Self::Global) -> Self::Matrix;
    /// The per-row scratch kept between propagations.
    fn scratch(state: &mut HierarchyState) -> &mut Vec<Self::Matrix>;
    /// The aligned lengths of the local and global pools after the last reordering.
    fn aligned(state: &mut HierarchyState) -> &mut [usize; 2];
}

/// Three distinct pools of `pools`, the third mutable.
fn pools3(pools: &mut [SparseSet], a: usize, b: usize, m: usize) -> (&SparseSet, &SparseSet, &mut SparseSet) {
    debug_assert!(a != m && b != m);
    let (left, rest) = pools.split_at_mut(m);
    let (mid, right) = rest.split_at_mut(1);
    let (left, right): (&[SparseSet], &[SparseSet]) = (left, right);
    let pick = |i: usize| if i < m { &left[i] } else { &right[i - m - 1] };
    (pick(a), pick(b), &mut mid[0])
}

/// Lines the pool of `T` up with the relationship pool (entities in both first, in the
/// relationship pool's order) unless it already is as far as it can be, so rows match and the
/// propagation loop reads them by index. O(1) when nothing moved (cached alignment), O(n) after.
fn align<T: crate::Component>(world: &mut World, rel_id: ComponentId, id: ComponentId, done: &mut usize) {
    let (rels, pool) = (world.components().pool(rel_id), world.components().pool(id));
    let (offset, len) = crate::query::aligned(pool, rels);
    // `done` is 1 + the aligned length right after the last reordering (0: never reordered).
    let after_last = *done;
    if offset == 0 && (len == rels.len() || (after_last > 0 && len + 1 >= after_last)) {
        return;
    }
    // Refused only for a grouped pool: the loop then looks rows up instead.
    if world.sort_as::<T, Relationship>().is_ok() {
        let (offset, len) =
            crate::query::aligned(world.components().pool(id), world.components().pool(rel_id));
        *done = if offset == 0 { len + 1 } else { 1 };
    }
}

/// Propagates transforms of kind `K`: a full pass the first time (and after the reparent log
/// overflowed), an incremental one after. See `propagate_transforms` for the contract.
#[track_caller]
pub(crate) fn propagate<K: TransformKind>(world: &mut World) {
    if world.components().id::<K::Local>().is_none() || world.components().id::<K::Global>().is_none() {
        return;
    }
    world.init_hierarchy();
    if let Err(error) = world.update_hierarchy_order() {
        panic!("cannot propagate transforms: {error}");
    }
    world.track_changes::<K::Local>();
    world.track_changes::<K::Global>();
    let this_run = world.increment_change_tick();
    let (reparented, last_run) = world.hierarchy_state_mut().propagation[K::SLOT].take();
    match last_run {
        Some(last_run) => incremental::<K>(world, last_run, this_run, reparented),
        None => full::<K>(world),
    }
    world.hierarchy_state_mut().propagation[K::SLOT].set_last_run(this_run);
}

/// Recomputes every global transform in one linear pass over the relationship pool (parents
/// before children), reading the local and global pools by row once they are lined up with it.
fn full<K: TransformKind>(world: &mut World) {
    let local_id = world.components().id::<K::Local>().expect("registered by the caller");
    let global_id = world.components().id::<K::Global>().expect("registered by the caller");
    let rel_id = world.components_mut().register::<Relationship>();
    let [mut local_done, mut global_done] = *K::aligned(world.hierarchy_state_mut());
    align::<K::Local>(world, rel_id, local_id, &mut local_done);
    align::<K::Global>(world, rel_id, global_id, &mut global_done);
    let state = world.hierarchy_state_mut();
    *K::aligned(state) = [local_done, global_done];
    let mut scratch = std::mem::take(K::scratch(state));

    let (rels, locals, globals) =
        pools3(world.components_mut().pools_mut(), rel_id.index(), local_id.index(), global_id.index());
    // Prefixes of rows that match the relationship pool's rows one to one.
    let local_prefix = match crate::query::aligned(locals, rels) {
        (0, len) => len,
        _ => 0,
    };
    let global_prefix = match crate::query::aligned(globals, rels) {
        (0, len) => len,
        _ => 0,
    };
    let (rel_rows, local_rows) = (rels.lookup(), locals.lookup());
    let (entities, links) = (rels.entities(), rels.values::<Relationship>());
    let local_values = locals.values::<K::Local>();
    // The parent's row, remembered for runs of siblings (consecutive rows with one parent).
    let mut last_parent = None;
    let mut last_row = None;
    let mut parent_row = |r: &Relationship| {
        let parent = r.parent();
        if parent != last_parent {
            last_parent = parent;
            last_row = parent.and_then(|p| rel_rows.row_of(p));
        }
        last_row
    };
    let local_of = |row: usize, entity| {
        let at = if row < local_prefix { Some(row) } else { local_rows.row_of(entity) };
        at.map_or(K::IDENTITY, |at| K::local(&local_values[at]))
    };
    if global_prefix == entities.len() && local_prefix == entities.len() {
        // Every row lines up: compute straight into the global column, reading the parent's
        // global (computed earlier in this loop, since parents come first) by row.
        let global_values = globals.values_mut::<K::Global>();
        for (row, r) in links.iter().enumerate() {
            let parent = match parent_row(r) {
                Some(at) if at < row => K::global(&global_values[at]),
                _ => K::IDENTITY,
            };
            K::set_global(&mut global_values[row], parent * K::local(&local_values[row]));
        }
    } else {
        scratch.clear();
        scratch.reserve(entities.len());
        for (row, (&entity, r)) in entities.iter().zip(links).enumerate() {
            let parent = match parent_row(r) {
                // Parents precede children, so the parent's row is done.
                Some(at) if at < row => scratch[at],
                _ => K::IDENTITY,
            };
            scratch.push(parent * local_of(row, entity));
        }
        let global_values = globals.values_mut::<K::Global>();
        for (global, &computed) in global_values[..global_prefix].iter_mut().zip(&scratch) {
            K::set_global(global, computed);
        }
        for (row, &entity) in entities.iter().enumerate().skip(global_prefix) {
            if let Some(global) = globals.get_mut::<K::Global>(entity) {
                K::set_global(global, scratch[row]);
            }
        }
    }
    // Entities outside any hierarchy: global = local. The aligned prefix holds only hierarchy
    // entities.
    for (row, &entity) in locals.entities().iter().enumerate().skip(local_prefix) {
        if rel_rows.row_of(entity).is_none()
            && let Some(global) = globals.get_mut::<K::Global>(entity)
        {
            K::set_global(global, K::local(&local_values[row]));
        }
    }
    // Every global was written: one change each for its readers.
    let written: Vec<Entity> = globals.entities().to_vec();
    for entity in written {
        globals.mark_changed(entity);
    }
    *K::scratch(world.hierarchy_state_mut()) = scratch;
}

/// Recomputes the subtrees of the entities whose local transform changed, whose global transform
/// was added, or whose parent changed, since `last_run`: each such entity's global is its
/// parent's global (up to date: parents are visited first, and untouched ones are unchanged)
/// times its local, and so on down its descendants. Each affected entity is computed once.
/// O(s log s + affected * log s) for s seeds, with a lookup per affected entity; O(s log s +
/// affected) with none where a subtree is a run of rows the transform pools line up with (see
/// `scan_subtree`).
fn incremental<K: TransformKind>(world: &mut World, last_run: Tick, this_run: Tick, reparented: Vec<Entity>) {
    let local_id = world.components().id::<K::Local>().expect("registered by the caller");
    let global_id = world.components().id::<K::Global>().expect("registered by the caller");
    let rel_id = world.components_mut().register::<Relationship>();
    let ticks = world.components().clock().ticks(last_run, this_run);
    let mut seeds = reparented;
    for id in [local_id, global_id] {
        let pool = world.components().pool(id);
        let changes = pool.changes().expect("tracked by the caller");
        if id == local_id {
            changes.changed_since(ticks, pool.lookup(), &mut seeds);
        } else {
            // Added globals: candidates from the change log, confirmed by their added tick.
            let mut added = Vec::new();
            changes.changed_since(ticks, pool.lookup(), &mut added);
            let lookup = pool.lookup();
            seeds.extend(
                added
                    .into_iter()
                    .filter(|&e| lookup.row_of(e).is_some_and(|row| ticks.is_newer(changes.added(row)))),
            );
        }
    }
    if seeds.is_empty() {
        return;
    }
    let entities = world.entities();
    seeds.retain(|&e| entities.is_alive(e));
    let (rels, locals, globals) =
        pools3(world.components_mut().pools_mut(), rel_id.index(), local_id.index(), global_id.index());
    let rel_rows = rels.lookup();
    let local_of = |entity| locals.get::<K::Local>(entity).map_or(K::IDENTITY, K::local);
    // Seeds in the hierarchy, in parents-before-children row order; the rest are roots of none.
    let mut rooted: Vec<(usize, Entity)> = Vec::with_capacity(seeds.len());
    for &entity in &seeds {
        match rel_rows.row_of(entity) {
            Some(row) => rooted.push((row, entity)),
            None => {
                let local = local_of(entity);
                if let Some(global) = globals.get_mut::<K::Global>(entity) {
                    K::set_global(global, local);
                    globals.mark_changed(entity);
                }
            }
        }
    }
    rooted.sort_unstable_by_key(|&(row, _)| row);
    rooted.dedup_by_key(|&mut (row, _)| row);
    // Which seeds a subtree walked so far has already covered: O(seeds), not O(rows).
    let mut done = vec![false; rooted.len()];
    // With the local and global pools lined up with the relationship pool (as the full pass
    // leaves them) and each subtree contiguous in pre-order (as `sort_hierarchy` leaves it), a
    // subtree is a run of rows: it is recomputed by one forward scan with no lookups
    // (`scan_subtree`). A scan that finds the layout otherwise stops, and the subtree is walked
    // through the links instead.
    let len = rels.len();
    let lined_up = matches!(crate::query::aligned(locals, rels), (0, n) if n == len)
        && matches!(crate::query::aligned(globals, rels), (0, n) if n == len);
    let mut scan = Scan::default();
    let mut stack: Vec<(Entity, K::Matrix)> = Vec::new();
    for i in 0..rooted.len() {
        let seed = rooted[i].1;
        if done[i] {
            continue; // inside a subtree already recomputed
        }
        let parent = rel_in(rels, seed).and_then(Relationship::parent);
        let parent_global = match parent {
            Some(parent) => global_of::<K>(rels, locals, globals, parent),
            None => K::IDENTITY,
        };
        if lined_up
            && scan_subtree::<K>(
                rels,
                locals,
                globals,
                parent_global,
                &rooted[i..],
                &mut done[i..],
                &mut scan,
            )
        {
            continue;
        }
        stack.push((seed, parent_global));
        while let Some((entity, parent_global)) = stack.pop() {
            let global = parent_global * local_of(entity);
            if let Some(value) = globals.get_mut::<K::Global>(entity) {
                K::set_global(value, global);
                globals.mark_changed(entity);
            }
            let Some(r) = rel_in(rels, entity) else { continue };
            if let Some(at) = rel_rows.row_of(entity)
                && let Ok(seed_index) = rooted.binary_search_by_key(&at, |&(row, _)| row)
            {
                done[seed_index] = true;
            }
            let mut child = r.first_child();
            while let Some(c) = child {
                stack.push((c, global));
                child = rel_in(rels, c).and_then(Relationship::next_sibling);
            }
        }
    }
}

/// The buffer of [`scan_subtree`], reused across seeds: the rows of the open ancestors, innermost
/// last (their globals are read back by row).
#[derive(Default)]
struct Scan {
    open: Vec<usize>,
}

/// Recomputes the subtree of the seed `seeds[0]` (its relationship row and entity; its parent's
/// global is `parent_global`) by one forward scan over the rows, when the local and global pools
/// line up with the relationship pool row for row. `seeds` are the seeds from this one on,
/// sorted by row, and `done` their flags: seeds met in the scan are flagged.
///
/// Returns `false`, having stopped early, unless the subtree is contiguous in pre-order from the
/// seed's row: each node's first child on the next row, and each node's next sibling on the row
/// after the node's subtree. Then the caller walks the subtree through its links instead (the
/// rows scanned were computed right: every node's parent was the open ancestor it was checked
/// against). O(subtree).
fn scan_subtree<K: TransformKind>(
    rels: &SparseSet,
    locals: &SparseSet,
    globals: &mut SparseSet,
    parent_global: K::Matrix,
    seeds: &[(usize, Entity)],
    done: &mut [bool],
    scan: &mut Scan,
) -> bool {
    let (entities, links) = (rels.entities(), rels.values::<Relationship>());
    let local_values = locals.values::<K::Local>();
    let global_values = globals.values_mut::<K::Global>();
    let len = entities.len();
    let seed_row = seeds[0].0;
    // Whether row `row`'s node has its first child on the next row, if it has children.
    let child_follows =
        |row: usize| links[row].first_child().is_none_or(|c| row + 1 < len && entities[row + 1] == c);
    scan.open.clear();
    let mut contiguous = child_follows(seed_row);
    let seed_global = parent_global * K::local(&local_values[seed_row]);
    K::set_global(&mut global_values[seed_row], seed_global);
    scan.open.push(seed_row);
    let mut next_seed = 1;
    let mut row = seed_row + 1;
    while contiguous && row < len {
        let parent = links[row].parent();
        // Close the ancestors whose subtrees ended before this row.
        while let Some(&top) = scan.open.last() {
            if parent == Some(entities[top]) {
                break;
            }
            // A closed node other than the seed has its next sibling, if any, on this row.
            if top != seed_row && links[top].next_sibling().is_some_and(|s| s != entities[row]) {
                contiguous = false;
            }
            scan.open.pop();
        }
        let Some(&parent_row) = scan.open.last() else { break };
        if !contiguous {
            break;
        }
        let global = K::global(&global_values[parent_row]) * K::local(&local_values[row]);
        K::set_global(&mut global_values[row], global);
        while next_seed < seeds.len() && seeds[next_seed].0 < row {
            next_seed += 1;
        }
        if next_seed < seeds.len() && seeds[next_seed].0 == row {
            done[next_seed] = true;
        }
        contiguous = child_follows(row);
        scan.open.push(row);
        row += 1;
    }
    // At the end of the pool, the open nodes (the seed aside) must have no next sibling left.
    if contiguous && row == len {
        contiguous = scan.open.iter().all(|&open| open == seed_row || links[open].next_sibling().is_none());
    }
    // The globals written are those of rows `seed_row..row`: the scan stops before writing.
    for written in seed_row..row {
        globals.mark_changed_at(written);
    }
    contiguous
}

/// The global matrix of `entity`: its global transform if it has one (current: unchanged, or
/// recomputed already since parents come first), else its parent's times its local.
/// O(depth) at worst.
fn global_of<K: TransformKind>(
    rels: &SparseSet,
    locals: &SparseSet,
    globals: &SparseSet,
    entity: Entity,
) -> K::Matrix {
    if let Some(global) = globals.get::<K::Global>(entity) {
        return K::global(global);
    }
    let local = locals.get::<K::Local>(entity).map_or(K::IDENTITY, K::local);
    match rel_in(rels, entity).and_then(Relationship::parent) {
        Some(parent) => global_of::<K>(rels, locals, globals, parent) * local,
        None => local,
    }
}

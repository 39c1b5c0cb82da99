//! 2D transforms and their propagation down the hierarchy.

use glam::Affine2;

use std::sync::PoisonError;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use super::Relationship;
use super::ops::HierarchyState;
use crate::Component;
use crate::component::ComponentId;
use crate::storage::SparseSet;
use crate::world::World;

/// An entity's 2D affine transform relative to its parent (to the world for a root).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct LocalTransform(pub Affine2);

/// An entity's 2D affine transform relative to the world, written by [`propagate_transforms`]:
/// the parent's global transform times the entity's [`LocalTransform`].
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct GlobalTransform(pub Affine2);

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
fn align<T: Component>(world: &mut World, rel_id: ComponentId, id: ComponentId, done: &AtomicUsize) {
    let (rels, pool) = (world.components.pool(rel_id), world.components.pool(id));
    let (offset, len) = pool.aligned_with_pool(rels);
    // `done` is 1 + the aligned length right after the last reordering (0: never reordered).
    let after_last = done.load(Relaxed);
    if offset == 0 && (len == rels.len() || (after_last > 0 && len + 1 >= after_last)) {
        return;
    }
    // Refused only for a grouped pool: the loop then looks rows up instead.
    if world.sort_as::<T, Relationship>().is_ok() {
        let (offset, len) = world.components.pool(id).aligned_with_pool(world.components.pool(rel_id));
        done.store(if offset == 0 { len + 1 } else { 1 }, Relaxed);
    }
}

/// Computes every [`GlobalTransform`] from its parent's and its [`LocalTransform`], in one linear
/// pass over the relationship pool: first [`World::update_hierarchy_order`] puts parents before
/// children (re-placing only what changed), then each row's global is its parent row's global
/// (already computed) times its local. Entities outside any hierarchy get `global = local`.
///
/// An entity in the hierarchy without a `LocalTransform` passes its parent's transform through
/// (identity local); one without a `GlobalTransform` is computed but not written. Roots use the
/// identity as parent transform. O(n) in the entities with transforms plus the ordering pass, with
/// one lookup per entity (its parent's row): the pools of `LocalTransform` and
/// `GlobalTransform` are kept in the relationship pool's order ([`World::sort_as`], O(n) only
/// when that order changed), so their rows are read by index. Any other order you give those two
/// pools is replaced. Allocates nothing once warm (the per-row scratch is kept in the world).
///
/// Add it to a [`Schedule`](crate::Schedule) as an exclusive system, or call it directly.
///
/// # Panics
/// If a group owns the pool of [`Relationship`] (see [`super::HierarchyError::OwnedByGroup`]).
///
/// # Examples
/// ```
/// use glam::{Affine2, Vec2};
/// use mosaic::World;
/// use mosaic::hierarchy::{GlobalTransform, LocalTransform, propagate_transforms};
///
/// let mut world = World::new();
/// let shift = |x: f32| LocalTransform(Affine2::from_translation(Vec2::new(x, 0.0)));
/// let root = world.spawn((shift(1.0), GlobalTransform::default()));
/// let child = world.spawn((shift(2.0), GlobalTransform::default()));
/// world.set_parent(child, root).unwrap();
/// propagate_transforms(&mut world);
/// assert_eq!(world.get::<GlobalTransform>(child).unwrap().0.translation, Vec2::new(3.0, 0.0));
/// ```
#[track_caller]
pub fn propagate_transforms(world: &mut World) {
    let (Some(local_id), Some(global_id)) =
        (world.components.id::<LocalTransform>(), world.components.id::<GlobalTransform>())
    else {
        return;
    };
    let Some(rel_id) = world.components.id::<Relationship>() else {
        world
            .query::<(&LocalTransform, &mut GlobalTransform)>()
            .for_each(|(local, global)| global.0 = local.0);
        return;
    };
    if let Err(error) = world.update_hierarchy_order() {
        panic!("cannot propagate transforms: {error}");
    }
    let state = world.resource::<HierarchyState>();
    let (local_done, global_done) = (state.aligned[0].load(Relaxed), state.aligned[1].load(Relaxed));
    let (local_done, global_done) = (AtomicUsize::new(local_done), AtomicUsize::new(global_done));
    align::<LocalTransform>(world, rel_id, local_id, &local_done);
    align::<GlobalTransform>(world, rel_id, global_id, &global_done);
    let state = world.resource::<HierarchyState>();
    state.aligned[0].store(local_done.into_inner(), Relaxed);
    state.aligned[1].store(global_done.into_inner(), Relaxed);
    let mut scratch = std::mem::take(&mut *state.scratch.lock().unwrap_or_else(PoisonError::into_inner));

    let (rels, locals, globals) =
        pools3(world.components.pools_mut(), rel_id.index(), local_id.index(), global_id.index());
    // Prefixes of rows that match the relationship pool's rows one to one.
    let local_prefix = match locals.aligned_with_pool(rels) {
        (0, len) => len,
        _ => 0,
    };
    let global_prefix = match globals.aligned_with_pool(rels) {
        (0, len) => len,
        _ => 0,
    };
    let (rel_rows, local_rows) = (rels.lookup(), locals.lookup());
    let (entities, links) = (rels.entities(), rels.values::<Relationship>());
    let local_values = locals.values::<LocalTransform>();
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
        at.map_or(Affine2::IDENTITY, |at| local_values[at].0)
    };
    if global_prefix == entities.len() && local_prefix == entities.len() {
        // Every row lines up: compute straight into the global column, reading the parent's
        // global (computed earlier in this loop, since parents come first) by row.
        let global_values = globals.values_mut::<GlobalTransform>();
        for (row, r) in links.iter().enumerate() {
            let parent = match parent_row(r) {
                Some(at) if at < row => global_values[at].0,
                _ => Affine2::IDENTITY,
            };
            global_values[row].0 = parent * local_values[row].0;
        }
    } else {
        scratch.clear();
        scratch.reserve(entities.len());
        for (row, (&entity, r)) in entities.iter().zip(links).enumerate() {
            let parent = match parent_row(r) {
                // Parents precede children, so the parent's row is done.
                Some(at) if at < row => scratch[at],
                _ => Affine2::IDENTITY,
            };
            scratch.push(parent * local_of(row, entity));
        }
        let global_values = globals.values_mut::<GlobalTransform>();
        for (global, &computed) in global_values[..global_prefix].iter_mut().zip(&scratch) {
            global.0 = computed;
        }
        for (row, &entity) in entities.iter().enumerate().skip(global_prefix) {
            if let Some(global) = globals.get_mut::<GlobalTransform>(entity) {
                global.0 = scratch[row];
            }
        }
    }
    // Entities outside any hierarchy: global = local. The aligned prefix holds only hierarchy
    // entities.
    for (row, &entity) in locals.entities().iter().enumerate().skip(local_prefix) {
        if rel_rows.row_of(entity).is_none()
            && let Some(global) = globals.get_mut::<GlobalTransform>(entity)
        {
            global.0 = local_values[row].0;
        }
    }
    *world.resource::<HierarchyState>().scratch.lock().unwrap_or_else(PoisonError::into_inner) = scratch;
}

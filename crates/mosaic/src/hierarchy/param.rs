//! Reading hierarchies and relations from inside a system: the [`Hierarchy`] and [`Relations`]
//! system parameters.

use std::any::TypeId;

use super::iter::{Ancestors, Children, Descendants};
use super::{Pair, Relation, Relationship};
use crate::entity::Entity;
use crate::schedule::{Access, AccessItem, AccessTarget, ParamConflict, SystemParam};
use crate::storage::Ticks;
use crate::world::World;

/// Read access to the parent-child hierarchy in a system: the [`World`] readers
/// ([`parent`](World::parent), [`children`](World::children), [`ancestors`](World::ancestors),
/// [`descendants`](World::descendants)) without `&World`. Declares a read of [`Relationship`],
/// which only structural changes (between batches) write, so it runs beside any other system.
///
/// # Examples
/// ```
/// use mosaic::hierarchy::Hierarchy;
/// use mosaic::{Component, Entity, Query, ResMut, Schedule, With, World};
///
/// #[derive(Component)]
/// struct Wheel;
///
/// fn find_cars(wheels: Query<Entity, With<Wheel>>, hierarchy: Hierarchy, mut out: ResMut<Vec<(Entity, Entity)>>) {
///     for wheel in &wheels {
///         out.push((wheel, hierarchy.root(wheel)));
///     }
/// }
///
/// let mut world = World::new();
/// let car = world.spawn_empty();
/// let axle = world.spawn_empty();
/// let wheel = world.spawn(Wheel);
/// world.set_parent(axle, car).unwrap();
/// world.set_parent(wheel, axle).unwrap();
/// world.insert_resource(Vec::<(Entity, Entity)>::new());
/// let mut schedule = Schedule::new();
/// schedule.add_system(find_cars);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Vec<(Entity, Entity)>>(), &vec![(wheel, car)]);
/// ```
#[derive(Clone, Copy)]
pub struct Hierarchy<'w> {
    /// Only the relationship pool is read through it (the declared access).
    world: &'w World,
}

impl<'w> Hierarchy<'w> {
    /// The parent of `entity`, or `None` for a root or an entity that is not alive. O(1).
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.world.parent(entity)
    }

    /// The children of `entity` in sibling order; exact size, each step O(1).
    pub fn children(&self, entity: Entity) -> Children<'w> {
        self.world.children(entity)
    }

    /// The ancestors of `entity`, its parent first and its root last. O(depth) for the walk.
    pub fn ancestors(&self, entity: Entity) -> Ancestors<'w> {
        self.world.ancestors(entity)
    }

    /// The descendants of `entity`, depth first in pre-order. O(subtree) for the walk.
    pub fn descendants(&self, entity: Entity) -> Descendants<'w> {
        self.world.descendants(entity)
    }

    /// The root of `entity`'s tree: its last ancestor, or `entity` itself for a root. O(depth).
    pub fn root(&self, entity: Entity) -> Entity {
        self.ancestors(entity).last().unwrap_or(entity)
    }
}

/// The access item of a read of component `T`.
fn component_read<T: 'static>(param: &'static str) -> AccessItem {
    AccessItem {
        target: AccessTarget::Component(TypeId::of::<T>()),
        name: std::any::type_name::<T>(),
        write: false,
        param,
    }
}

// SAFETY: declares a read of `Relationship`; every method reads only that pool (and entity
// liveness, which changes only between batches, under `&mut World`). The links are plain fields
// written only by the hierarchy under `&mut World` (its operations, its row subscriber,
// ordering passes), never through `&World`, so the shared reads cannot race a write; the
// hierarchy's bookkeeping (`HierarchyState`) is not read through this parameter at all.
#[allow(unsafe_code)]
unsafe impl SystemParam for Hierarchy<'_> {
    type State = ();
    type Item<'w, 's> = Hierarchy<'w>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(component_read::<Relationship>(std::any::type_name::<Self>()))
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, _: Ticks) -> Hierarchy<'w> {
        Hierarchy { world }
    }
}

/// Read access to one relation kind `R` in a system: each source's target and each target's
/// sources, as [`World::target`] and [`World::related`] give them. Declares a read of
/// [`Pair<R>`]; the relation's index is plain data in the world, which only structural changes
/// (under `&mut World`, between batches) write.
///
/// # Examples
/// ```
/// use mosaic::hierarchy::{Relation, Relations};
/// use mosaic::{Component, Entity, Query, ResMut, Schedule, With, World};
///
/// struct Follows;
/// impl Relation for Follows {}
/// #[derive(Component)]
/// struct Leader;
///
/// fn count_fans(leaders: Query<Entity, With<Leader>>, follows: Relations<Follows>, mut out: ResMut<Vec<usize>>) {
///     for leader in &leaders {
///         out.push(follows.related(leader).len());
///     }
/// }
///
/// let mut world = World::new();
/// let leader = world.spawn(Leader);
/// for _ in 0..3 {
///     let fan = world.spawn_empty();
///     world.relate::<Follows>(fan, leader).unwrap();
/// }
/// world.insert_resource(Vec::<usize>::new());
/// let mut schedule = Schedule::new();
/// schedule.add_system(count_fans);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Vec<usize>>(), &vec![3]);
/// ```
pub struct Relations<'w, R: Relation> {
    /// Only `Pair<R>`'s pool and the world's relation index are read through it.
    world: &'w World,
    _relation: std::marker::PhantomData<fn() -> R>,
}

impl<R: Relation> Relations<'_, R> {
    /// The target of `source`'s pair of `R`, if any. O(1).
    pub fn target(&self, source: Entity) -> Option<Entity> {
        self.world.target::<R>(source)
    }

    /// The sources related to `target` by `R`, in the order they were related. O(k) in them.
    pub fn related(&self, target: Entity) -> Vec<Entity> {
        self.world.related::<R>(target)
    }
}

// SAFETY: declares a read of `Pair<R>`; the methods read only that pool, the world's relation
// index and entity liveness. The index, like liveness, changes only through structural changes,
// which take `&mut World` and so never run while a system holds this parameter's `&World`.
#[allow(unsafe_code)]
unsafe impl<R: Relation> SystemParam for Relations<'_, R> {
    type State = ();
    type Item<'w, 's> = Relations<'w, R>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(component_read::<Pair<R>>(std::any::type_name::<Self>()))
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, _: Ticks) -> Relations<'w, R> {
        Relations { world, _relation: std::marker::PhantomData }
    }
}

//! The [`Index`] system parameter: a value index of a component, brought up to date for the run.

use std::any::TypeId;
use std::hash::Hash;
use std::marker::PhantomData;
use std::ops::Deref;

use super::access::{Access, AccessItem, AccessTarget};
use super::param::{ParamConflict, ParamError, SystemParam};
use crate::component::AosComponent;
use crate::storage::Ticks;
use crate::world::{ComponentIndex, World};

/// A system's view of the value index of component `T` by key `K` (by the value itself when `K`
/// is left out): the index made by [`World::add_index`] or [`World::add_index_by_key`], brought
/// up to date with every write of `T` made before the system runs. Dereferences to
/// [`ComponentIndex`], which has the lookups (this type has no methods of its own).
///
/// Accesses: a read of `T` (the catch-up reads `T`'s values and change log, so no writer of `T`
/// runs beside it) and a write of the index itself (the catch-up refiles entities, so two systems
/// taking the same index run one after the other). The system panics, naming the index, if the
/// world has no such index (unless added with `skip_if_missing`).
///
/// The source: bevy's `bevy_mod_index` offers such a parameter as a third-party crate
/// (bevy#4513, bevy#17608).
///
/// # Examples
/// ```
/// use std::sync::{Arc, Mutex};
/// use mosaic::{Component, Index, Query, Schedule, World};
///
/// #[derive(Component, Clone, PartialEq, Eq, Hash)]
/// enum Team { Red, Blue }
///
/// let mut world = World::new();
/// world.add_index::<Team>();
/// world.spawn_batch([Team::Red, Team::Blue, Team::Red]);
/// let reds = Arc::new(Mutex::new(0));
/// let seen = reds.clone();
/// let mut schedule = Schedule::new();
/// schedule.add_system(|mut teams: Query<&mut Team>| teams.for_each(|t| *t = Team::Red));
/// schedule.add_system(move |teams: Index<Team>| *seen.lock().unwrap() = teams.get(&Team::Red).len());
/// schedule.run(&mut world);
/// assert_eq!(*reds.lock().unwrap(), 3);
/// ```
pub struct Index<'w, T, K = T> {
    index: &'w ComponentIndex<K>,
    component: PhantomData<fn() -> T>,
}

impl<T, K> Deref for Index<'_, T, K> {
    type Target = ComponentIndex<K>;
    fn deref(&self) -> &ComponentIndex<K> {
        self.index
    }
}

impl<'w, T, K> Index<'w, T, K> {
    /// The index, for the whole borrow of the world (not only of this parameter).
    pub fn into_inner(self) -> &'w ComponentIndex<K> {
        self.index
    }
}

/// The target of an index's write access: one type per `(T, K)`, never stored.
struct IndexOf<T, K>(PhantomData<fn() -> (T, K)>);

// SAFETY: `get_param` reads `T`'s pool (values, change log) and writes the index of `T` by `K`,
// nothing else. It declares a read of `T`, so no system writing `T` (`&mut T`, `Mut<T>`) runs
// meanwhile: the rows and the log hold still while the catch-up reads them. It declares a write
// of the index's own target (`IndexOf<T, K>`, a type no other parameter names), so two systems
// taking this index never run at once, and the catch-up's `&mut` to the index is unique
// (`World::index_shared`'s contract). Structural changes, which also write the index (as a row
// subscriber), need `&mut World` and so never overlap a system's run.
unsafe impl<T, K> SystemParam for Index<'_, T, K>
where
    T: AosComponent,
    K: Eq + Hash + Clone + Send + Sync + 'static,
{
    type State = ();
    type Item<'w, 's> = Index<'w, T, K>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        let param = std::any::type_name::<Self>();
        access.add(AccessItem {
            target: AccessTarget::Component(TypeId::of::<T>()),
            name: std::any::type_name::<T>(),
            write: false,
            param,
        })?;
        access.add(AccessItem {
            target: AccessTarget::Resource(TypeId::of::<IndexOf<T, K>>()),
            name: std::any::type_name::<ComponentIndex<K>>(),
            write: true,
            param,
        })
    }

    fn init_state(_: &mut World) -> Self::State {}

    /// [`ParamError::MissingResource`] naming the index when the world has none of `T` by `K`.
    fn validate(_: &(), world: &World, _: Ticks) -> Result<(), ParamError> {
        if world.has_index::<T, K>() {
            Ok(())
        } else {
            Err(ParamError::MissingResource(std::any::type_name::<Index<'static, T, K>>()))
        }
    }

    unsafe fn get_param<'w>(_: &mut (), world: &'w World, _: Ticks) -> Index<'w, T, K> {
        // SAFETY: the scheduler runs no conflicting access for 'w (see the impl's comment): this
        // parameter is the only access to the index, and nothing writes `T`.
        let index = unsafe { world.index_shared::<T, K>() }.expect("validated before the run");
        Index { index, component: PhantomData }
    }
}

//! System parameters: what a system function asks for.

use std::ops::{Deref, DerefMut};

use super::access::{Access, AccessItem, AccessTarget};
use crate::component::Bundle;
use crate::entity::Entity;
use crate::query::{FilterSet, Query, QueryData, QueryFilter};
use crate::storage::Ticks;
use crate::world::{ApplyReport, CommandBuffer, RemovedComponents, World};

/// Two accesses of one system that alias: the first parameter's and the second's.
pub type ParamConflict = Box<(AccessItem, AccessItem)>;

/// A value a system function can take as a parameter: [`Query`], [`Res`](super::Res),
/// [`ResMut`](super::ResMut), [`Local`], [`Commands`], [`EventReader`](crate::event::EventReader),
/// [`EventWriter`](crate::event::EventWriter), and tuples of these.
///
/// # Safety
/// `add_access` must declare every component and resource that `get_param` and `validate` read
/// (as reads) or hand out mutably (as writes); the scheduler runs systems in parallel on that
/// promise. `validate` only reads.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system parameter",
    label = "this parameter's type cannot be fetched for a system",
    note = "system parameters are `Query<..>`, `Res<T>`, `ResMut<T>`, `Option<Res<T>>`, `Local<T>`, \
            `Commands`, `ParCommands`, `EventReader<E>`, `EventWriter<E>`, `RemovedComponents<T>`, \
            `Single<..>`, `Option<Single<..>>`, `Populated<..>`, `ParamSet<(..)>`, `Hierarchy`, `Relations<R>`, and \
            tuples of these; a system that needs `&mut World` \
            takes it as its only parameter"
)]
pub unsafe trait SystemParam: Sized {
    /// Per-system state kept between runs (a command buffer, a local value, a reader cursor).
    type State: Send + Sync + 'static;
    /// The parameter as the function receives it.
    type Item<'w, 's>;

    /// Declares the parameter's accesses. Called when the system is added.
    ///
    /// # Errors
    /// The conflicting pair if an access aliases one already declared by the system.
    fn add_access(access: &mut Access) -> Result<(), ParamConflict>;

    /// Whether [`validate`](Self::validate) can report [`ParamError::Unmet`], so it is checked
    /// again at each run against the run's own window (`Single`, `Populated`, and tuples holding
    /// one). False by default: such parameters are checked once, at the start of the segment.
    const CHECKED_AT_RUN: bool = false;

    /// Creates the state. Called once, before the system's first run.
    fn init_state(world: &mut World) -> Self::State;

    /// Checks the parameter can be fetched now, with `ticks` the system's window as it would
    /// run now (its last run, and the present tick).
    ///
    /// # Errors
    /// [`ParamError::MissingResource`] naming a missing resource (the system panics, unless added
    /// with `skip_if_missing`); [`ParamError::Unmet`] when the parameter's condition does not hold
    /// this frame (the system is skipped).
    fn validate(_state: &Self::State, _world: &World, _ticks: Ticks) -> Result<(), ParamError> {
        Ok(())
    }

    /// Fetches the parameter. `ticks` is the system's change window: its previous run's tick
    /// and the one this run was given (what [`Added`](crate::Added) and
    /// [`Changed`](crate::Changed) compare with, and what `&mut` query terms stamp).
    ///
    /// # Safety
    /// - `state` was made by `init_state` on this world, and `validate` passed since the last change;
    /// - for `'w`, nothing else accesses what `add_access` declared in a conflicting way.
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        world: &'w World,
        ticks: Ticks,
    ) -> Self::Item<'w, 's>;

    /// Fetches the parameter if [`validate`](Self::validate) would pass now, else `None`: one
    /// step where a parameter can check and fetch with one lookup (`Res`, `ResMut`); by default
    /// `validate` then `get_param`. Observers, which run once per event, fetch this way.
    ///
    /// # Safety
    /// As [`get_param`](Self::get_param), without the obligation that `validate` passed.
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut Self::State,
        world: &'w World,
        ticks: Ticks,
    ) -> Option<Self::Item<'w, 's>> {
        Self::validate(state, world, ticks).ok()?;
        // SAFETY: forwarded from the caller, and `validate` passed just above.
        Some(unsafe { Self::get_param(state, world, ticks) })
    }

    /// Applies deferred work (commands) at the system's sync point and reports what it did. A
    /// parameter that overrides this must call [`Access::mark_deferred`] in `add_access`, so the
    /// executor puts a sync point after the system's batch.
    fn apply(_state: &mut Self::State, _world: &mut World) -> ApplyReport {
        ApplyReport::default()
    }

    /// Moves the deferred work [`apply`](Self::apply) would do into `commands`, to be done when
    /// they are applied: observers run inside a world operation, so their parameters' work
    /// waits for it to end. A parameter that overrides `apply` overrides this too; the default
    /// does nothing.
    fn defer(_state: &mut Self::State, _commands: &mut CommandBuffer) {}
}

/// Why a system's parameters cannot be fetched on this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// A resource the system reads or writes is missing: the system panics naming it, unless it
    /// was added with [`skip_if_missing`](super::SystemConfig::skip_if_missing).
    #[error("resource `{0}` is missing")]
    MissingResource(&'static str),
    /// A parameter's condition does not hold: a [`Single`](super::Single) that matches no entity
    /// or several, a [`Populated`](super::Populated) that matches none. The system is skipped
    /// this frame (bevy's rule).
    #[error("`{0}` is not met")]
    Unmet(&'static str),
}

/// The item type of parameter `P`.
pub type SystemParamItem<'w, 's, P> = <P as SystemParam>::Item<'w, 's>;

// SAFETY: declares the query's component accesses, scoped by its `FilterSet`; `get_param` builds
// the query over them only, and every path of that query yields only entities its filter set
// admits (the `FilterSet` adders' contract), so two queries with disjoint sets never hand out the
// same entity's component, in one system or in two running at once.
unsafe impl<Q: QueryData, F: QueryFilter> SystemParam for Query<'_, Q, F> {
    type State = ();
    type Item<'w, 's> = Query<'w, Q, F>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        let mut items = smallvec::SmallVec::<[AccessItem; 8]>::new();
        Q::visit_access(&mut |item| {
            items.push(AccessItem {
                target: AccessTarget::Component(item.type_id),
                name: item.name,
                write: item.write,
                param: std::any::type_name::<Self>(),
            });
        });
        // Change filters read `T`'s ticks, which writers of `T` stamp: a read of `T`, unless
        // the query's data accesses `T` already (then the same item covers it).
        F::visit_access(&mut |item| {
            if !items.iter().any(|i| i.target == AccessTarget::Component(item.type_id)) {
                items.push(AccessItem {
                    target: AccessTarget::Component(item.type_id),
                    name: item.name,
                    write: item.write,
                    param: std::any::type_name::<Self>(),
                });
            }
        });
        // Filtered: a second query whose filter is disjoint from this one's may write the same
        // components (`With<B>` beside `Without<B>`).
        access.add_query(&items, FilterSet::of::<Q, F>())
    }
    fn init_state(world: &mut World) -> Self::State {
        F::check_tracked(world.components());
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Query<'w, Q, F> {
        // SAFETY: the scheduler guarantees no conflicting access to the declared components
        // during 'w, and the declaration passed the aliasing check when the system was added.
        unsafe { Query::new_unchecked(world, ticks) }
    }
}

// SAFETY: declares nothing: the removal log changes only through `&mut World` (structural
// changes), never while systems run, so reading it through `&World` races with nothing.
unsafe impl<T: crate::component::Component> SystemParam for RemovedComponents<'_, T> {
    type State = std::sync::Arc<crate::storage::ReaderTick>;
    type Item<'w, 's> = RemovedComponents<'w, T>;

    fn add_access(_: &mut Access) -> Result<(), ParamConflict> {
        Ok(())
    }
    fn init_state(world: &mut World) -> Self::State {
        world.components().check_tracked::<T>("RemovedComponents");
        let id = world.components_mut().register::<T>();
        // The window opens now: removals made before the reader existed are never seen.
        let cursor = world.register_reader_tick(Some(world.change_tick()));
        world
            .components_mut()
            .pool_mut(id)
            .changes_mut()
            .expect("checked to be tracked")
            .register_reader(&cursor);
        cursor
    }
    unsafe fn get_param<'w>(
        cursor: &mut Self::State,
        world: &'w World,
        ticks: Ticks,
    ) -> RemovedComponents<'w, T> {
        let clock = world.components().clock();
        // No read yet: a restore went back to before the reader existed; it sees what is kept.
        let last = cursor.get().unwrap_or_else(|| clock.oldest());
        cursor.set(Some(ticks.this_run));
        let entries = match world.components().pool_of::<T>().and_then(|pool| pool.changes()) {
            Some(changes) => changes.removed_since(clock.ticks(last, ticks.this_run)),
            None => &[],
        };
        RemovedComponents::new(entries)
    }
}

/// A value owned by one system and kept between its runs, starting at
/// [`T::from_world`](crate::FromWorld) (`T::default()` for a `Default` type), made when the
/// system is initialized (its first run, or when the schedule builds). Bevy's `Local`.
pub struct Local<'s, T>(&'s mut T);

impl<T> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

// SAFETY: touches only its own state.
unsafe impl<T: crate::world::FromWorld + Send + Sync + 'static> SystemParam for Local<'_, T> {
    type State = T;
    type Item<'w, 's> = Local<'s, T>;

    fn add_access(_: &mut Access) -> Result<(), ParamConflict> {
        Ok(())
    }
    fn init_state(world: &mut World) -> T {
        T::from_world(world)
    }
    unsafe fn get_param<'s>(state: &'s mut T, _: &World, _: Ticks) -> Local<'s, T> {
        Local(state)
    }
}

/// The system's own [`CommandBuffer`]: structural changes recorded during the run, applied at
/// the end of the system's batch, in system order (never in thread-completion order).
///
/// Every [`CommandBuffer`] method is reachable through it (`insert`, `remove`, `despawn`,
/// `set_parent`, `remove_parent`, `despawn_recursive`); [`Commands::spawn`] needs no world
/// argument, since the parameter holds the world the system runs on.
///
/// # Examples
/// ```
/// use mosaic::{Commands, Component, Schedule, World};
///
/// #[derive(Component)]
/// struct Ship;
/// #[derive(Component)]
/// struct Turret;
///
/// fn launch(mut commands: Commands) {
///     let ship = commands.spawn(Ship);
///     let turret = commands.spawn(Turret);
///     commands.set_parent(turret, ship);
/// }
///
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_system(launch);
/// schedule.run(&mut world);
/// let ship = world.query::<(mosaic::Entity, &Ship)>().into_iter().next().unwrap().0;
/// assert_eq!(world.children(ship).count(), 1);
/// ```
pub struct Commands<'w, 's> {
    buffer: &'s mut CommandBuffer,
    world: &'w World,
}

impl Commands<'_, '_> {
    /// Records spawning an entity with `bundle` and returns its handle at once, reserved through
    /// the world ([`World::reserve_entity`]); later commands may name it. See
    /// [`CommandBuffer::spawn`].
    ///
    /// Ids are the same on every run, executor and thread count: systems that take `Commands`
    /// never run at the same time as each other (they conflict on the entity allocator, see
    /// [`Access::mark_reserves_entities`]), so they reserve in system order; other systems still
    /// run beside them. Spawns from parallel iteration go through
    /// [`Query::par_for_each_deferred`](crate::Query::par_for_each_deferred), which numbers them
    /// at apply time, in row order.
    ///
    /// # Panics
    /// If the entity index space is exhausted.
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.buffer.spawn(self.world, bundle)
    }

    /// Reserves an entity id without recording a command: the entity exists, with no
    /// components, once the commands are applied. See [`World::reserve_entity`].
    ///
    /// # Panics
    /// If the entity index space is exhausted.
    #[track_caller]
    pub fn reserve_entity(&self) -> Entity {
        self.world.reserve_entity()
    }
}

impl Deref for Commands<'_, '_> {
    type Target = CommandBuffer;
    fn deref(&self) -> &CommandBuffer {
        self.buffer
    }
}

impl DerefMut for Commands<'_, '_> {
    fn deref_mut(&mut self) -> &mut CommandBuffer {
        self.buffer
    }
}

// SAFETY: declares no component or resource access: it touches only its own buffer and the
// world's entity allocator, whose reservations are atomic and which no system changes while
// systems run (structural changes need `&mut World`); it marks itself as reserving, so two such
// systems never run at once (determinism, not soundness); the world is changed in `apply`, which
// the scheduler calls with exclusive access.
unsafe impl SystemParam for Commands<'_, '_> {
    type State = CommandBuffer;
    type Item<'w, 's> = Commands<'w, 's>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.mark_deferred();
        access.mark_reserves_entities();
        Ok(())
    }
    fn init_state(_: &mut World) -> CommandBuffer {
        CommandBuffer::new()
    }
    unsafe fn get_param<'w, 's>(
        state: &'s mut CommandBuffer,
        world: &'w World,
        _: Ticks,
    ) -> Commands<'w, 's> {
        Commands { buffer: state, world }
    }
    fn apply(state: &mut CommandBuffer, world: &mut World) -> ApplyReport {
        state.apply(world)
    }
    fn defer(state: &mut CommandBuffer, commands: &mut CommandBuffer) {
        if !state.is_empty() {
            let mut recorded = std::mem::take(state);
            commands.queue(move |world: &mut World| {
                recorded.apply(world);
            });
        }
    }
}

macro_rules! tuple_param {
    ($($name:ident),*) => {
        // SAFETY: declares the union of its members' accesses and fetches only through them.
        unsafe impl<$($name: SystemParam),*> SystemParam for ($($name,)*) {
            type State = ($($name::State,)*);
            type Item<'w, 's> = ($($name::Item<'w, 's>,)*);
            const CHECKED_AT_RUN: bool = false $(|| $name::CHECKED_AT_RUN)*;

            #[allow(unused_variables)]
            fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
                $($name::add_access(access)?;)*
                Ok(())
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn init_state(world: &mut World) -> Self::State {
                ($($name::init_state(world),)*)
            }
            #[allow(unused_variables, non_snake_case)]
            fn validate(state: &Self::State, world: &World, ticks: Ticks) -> Result<(), ParamError> {
                let ($($name,)*) = state;
                $($name::validate($name, world, ticks)?;)*
                Ok(())
            }
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn get_param<'w, 's>(state: &'s mut Self::State, world: &'w World, ticks: Ticks) -> Self::Item<'w, 's> {
                let ($($name,)*) = state;
                // SAFETY: forwarded from the caller to each member.
                ($(unsafe { $name::get_param($name, world, ticks) },)*)
            }
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn try_get_param<'w, 's>(state: &'s mut Self::State, world: &'w World, ticks: Ticks) -> Option<Self::Item<'w, 's>> {
                let ($($name,)*) = state;
                // SAFETY: forwarded from the caller to each member.
                Some(($(unsafe { $name::try_get_param($name, world, ticks) }?,)*))
            }
            #[allow(unused_variables, non_snake_case, unused_mut)]
            fn apply(state: &mut Self::State, world: &mut World) -> ApplyReport {
                let ($($name,)*) = state;
                let mut report = ApplyReport::default();
                $(report += $name::apply($name, world);)*
                report
            }
            #[allow(unused_variables, non_snake_case)]
            fn defer(state: &mut Self::State, commands: &mut CommandBuffer) {
                let ($($name,)*) = state;
                $($name::defer($name, commands);)*
            }
        }
    };
}

crate::macros::all_tuples!(tuple_param);

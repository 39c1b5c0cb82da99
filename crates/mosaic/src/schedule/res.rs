//! Resource parameters of systems: [`Res`] and [`ResMut`], with change detection.

use std::any::TypeId;
use std::ops::{Deref, DerefMut};

use super::access::{Access, AccessItem, AccessTarget};
use super::param::{ParamConflict, ParamError, SystemParam};
use crate::storage::{ResourceTicks, Tick, Ticks};
use crate::world::World;

/// Shared access to resource `T`. The system panics naming itself and `T` if the resource is
/// missing, unless it was added with `skip_if_missing`; `Option<Res<T>>` never fails.
///
/// [`Res::is_changed`] and [`Res::is_added`] say whether the resource changed since the system
/// last ran (bevy's), by the same window as `Changed<T>` filters.
///
/// # Examples
/// ```
/// use std::sync::{Arc, Mutex};
/// use mosaic::{Res, Schedule, World};
///
/// struct Volume(u8);
///
/// let mut world = World::new();
/// world.insert_resource(Volume(3));
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = seen.clone();
/// let mut schedule = Schedule::new();
/// schedule.add_system(move |volume: Res<Volume>| log.lock().unwrap().push(volume.is_changed()));
/// schedule.run(&mut world); // first run: the insert counts
/// schedule.run(&mut world); // nothing since
/// world.resource_mut::<Volume>().0 = 5;
/// schedule.run(&mut world);
/// assert_eq!(*seen.lock().unwrap(), [true, false, true]);
/// ```
pub struct Res<'w, T> {
    value: &'w T,
    ticks: &'w ResourceTicks,
    window: Ticks,
}

impl<T> Deref for Res<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<'w, T> Res<'w, T> {
    /// The resource, for the whole borrow of the world (not only of this parameter).
    pub fn into_inner(self) -> &'w T {
        self.value
    }

    /// Whether the resource was inserted, replaced or handed out mutably since the system last
    /// ran (for its first run: since the oldest tick kept, so a resource present counts). O(1).
    pub fn is_changed(&self) -> bool {
        self.window.is_newer(self.ticks.changed())
    }

    /// Whether the resource was inserted (not replaced) since the system last ran. O(1).
    pub fn is_added(&self) -> bool {
        self.window.is_newer(self.ticks.added())
    }

    /// The tick of the resource's last change.
    pub fn last_changed(&self) -> Tick {
        self.ticks.changed()
    }
}

/// Exclusive access to resource `T`; missing resources as for [`Res`].
///
/// Writing through it (`DerefMut`) marks the resource changed at the system's tick (bevy's);
/// reading it marks nothing. [`ResMut::bypass_change_detection`] writes without marking.
pub struct ResMut<'w, T> {
    value: &'w mut T,
    ticks: &'w ResourceTicks,
    window: Ticks,
}

impl<T> Deref for ResMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for ResMut<'_, T> {
    /// Marks the resource changed at the system's tick.
    fn deref_mut(&mut self) -> &mut T {
        self.ticks.set_changed(self.window.this_run);
        self.value
    }
}

impl<'w, T> ResMut<'w, T> {
    /// Whether the resource changed since the system last ran (its own writes of this run
    /// included). O(1).
    pub fn is_changed(&self) -> bool {
        self.window.is_newer(self.ticks.changed())
    }

    /// Whether the resource was inserted since the system last ran. O(1).
    pub fn is_added(&self) -> bool {
        self.window.is_newer(self.ticks.added())
    }

    /// Marks the resource changed now without writing it.
    pub fn set_changed(&mut self) {
        self.ticks.set_changed(self.window.this_run);
    }

    /// The resource mutably, without marking it changed: for writes no reader should see as a
    /// change (bookkeeping, caches).
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// Overwrites the resource with `value` only if they differ, marking it changed only then
    /// (bevy's `set_if_neq`); returns whether it wrote. O(1) plus one comparison.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{ResMut, Schedule, World};
    ///
    /// #[derive(PartialEq)]
    /// struct Mode(u8);
    ///
    /// fn set_two(mut mode: ResMut<Mode>) {
    ///     mode.set_if_neq(Mode(2));
    /// }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Mode(1));
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(set_two);
    /// world.clear_trackers();
    /// schedule.run(&mut world); // 1 -> 2: written and marked
    /// assert!(world.is_resource_changed::<Mode>());
    /// world.clear_trackers();
    /// schedule.run(&mut world); // already 2: neither written nor marked
    /// assert!(!world.is_resource_changed::<Mode>());
    /// ```
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: PartialEq,
    {
        if *self.value == value {
            return false;
        }
        *self.value = value;
        self.set_changed();
        true
    }
}

fn resource_item<T: 'static>(write: bool, param: &'static str) -> AccessItem {
    AccessItem {
        target: AccessTarget::Resource(TypeId::of::<T>()),
        name: std::any::type_name::<T>(),
        write,
        param,
    }
}

/// `T`'s value and ticks in `world`, if it has one.
fn shared<'w, T: Send + Sync + 'static>(world: &'w World, window: Ticks) -> Option<Res<'w, T>> {
    let (value, ticks) = world.resource_map().get_with_ticks::<T>()?;
    Some(Res { value, ticks, window })
}

/// `T`'s value, mutably, and ticks in `world`, if it has one.
///
/// # Safety
/// No other reference to the resource exists or is made for 'w (the declared write of `T`).
unsafe fn exclusive<'w, T: Send + Sync + 'static>(world: &'w World, window: Ticks) -> Option<ResMut<'w, T>> {
    // SAFETY: forwarded from the caller: this is the only reference to the value for 'w. The
    // ticks are atomics beside the value, shared freely.
    let (value, ticks) = unsafe { world.resource_map().get_mut_with_ticks_unchecked::<T>() }?;
    Some(ResMut { value, ticks, window })
}

/// `Ok` if `world` holds a `T`, else [`ParamError::MissingResource`] naming it: the validation of
/// every parameter that needs a resource.
pub(crate) fn require_resource<T: Send + Sync + 'static>(world: &World) -> Result<(), ParamError> {
    if world.contains_resource::<T>() {
        Ok(())
    } else {
        Err(ParamError::MissingResource(std::any::type_name::<T>()))
    }
}

// SAFETY: declares a read of `T` and only reads it (its ticks are atomics, read only).
unsafe impl<T: Send + Sync + 'static> SystemParam for Res<'_, T> {
    type State = ();
    type Item<'w, 's> = Res<'w, T>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(resource_item::<T>(false, std::any::type_name::<Self>()))
    }
    fn init_state(_: &mut World) -> Self::State {}
    fn validate(_: &(), world: &World, _: Ticks) -> Result<(), ParamError> {
        require_resource::<T>(world)
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Res<'w, T> {
        shared(world, ticks).expect("validated before the run")
    }
    unsafe fn try_get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Option<Res<'w, T>> {
        shared(world, ticks)
    }
}

// SAFETY: declares a read of `T` and only reads it.
unsafe impl<T: Send + Sync + 'static> SystemParam for Option<Res<'_, T>> {
    type State = ();
    type Item<'w, 's> = Option<Res<'w, T>>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(resource_item::<T>(false, std::any::type_name::<Self>()))
    }
    fn init_state(_: &mut World) -> Self::State {}
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Option<Res<'w, T>> {
        shared(world, ticks)
    }
}

// SAFETY: declares a write of `T`, the only resource it hands out (its ticks are atomics).
unsafe impl<T: Send + Sync + 'static> SystemParam for ResMut<'_, T> {
    type State = ();
    type Item<'w, 's> = ResMut<'w, T>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(resource_item::<T>(true, std::any::type_name::<Self>()))
    }
    fn init_state(_: &mut World) -> Self::State {}
    fn validate(_: &(), world: &World, _: Ticks) -> Result<(), ParamError> {
        require_resource::<T>(world)
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> ResMut<'w, T> {
        // SAFETY: the declared write of `T` means no other running system accesses `T` for 'w
        // (caller), so this is the only reference.
        unsafe { exclusive(world, ticks) }.expect("validated before the run")
    }
    unsafe fn try_get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Option<ResMut<'w, T>> {
        // SAFETY: as in `get_param`.
        unsafe { exclusive(world, ticks) }
    }
}

// SAFETY: declares a write of `T`, the only resource it hands out.
unsafe impl<T: Send + Sync + 'static> SystemParam for Option<ResMut<'_, T>> {
    type State = ();
    type Item<'w, 's> = Option<ResMut<'w, T>>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(resource_item::<T>(true, std::any::type_name::<Self>()))
    }
    fn init_state(_: &mut World) -> Self::State {}
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Option<ResMut<'w, T>> {
        // SAFETY: as for `ResMut`.
        unsafe { exclusive(world, ticks) }
    }
}

//! Run conditions on resources (bevy's `resource_exists`, `resource_added`, `resource_changed`),
//! for [`SystemConfig::run_if`](super::SystemConfig::run_if).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::storage::Tick;
use crate::world::World;

/// A run condition: true on the frames resource `R` exists. O(1).
pub fn resource_exists<R: Send + Sync + 'static>() -> impl Fn(&World) -> bool + Send + Sync + 'static {
    |world: &World| world.contains_resource::<R>()
}

/// A run condition: true on the frames resource `R` was inserted since the condition last ran (on
/// its first evaluation: if `R` exists). Each evaluation takes a change tick, as a system run
/// does, so a write made later in the same frame counts on the next. O(1).
pub fn resource_added<R: Send + Sync + 'static>() -> impl Fn(&World) -> bool + Send + Sync + 'static {
    since_last_evaluation(|world| world.resource_change_ticks::<R>().map(|(added, _)| added))
}

/// A run condition: true on the frames resource `R` was inserted, replaced or handed out mutably
/// (a [`ResMut`](crate::ResMut) written through, [`World::resource_mut`]) since the condition last
/// ran (on its first evaluation: if `R` exists). Each evaluation takes a change tick, as a system
/// run does. O(1).
///
/// # Examples
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::Arc;
/// use mosaic::schedule::resource_changed;
/// use mosaic::{ResMut, Schedule, World};
///
/// struct Settings(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Settings(1));
/// let applied = Arc::new(AtomicU32::new(0));
/// let counter = applied.clone();
/// let mut schedule = Schedule::new();
/// schedule
///     .add_system(move || { counter.fetch_add(1, Ordering::Relaxed); })
///     .run_if(resource_changed::<Settings>());
/// schedule.run(&mut world); // the insert counts
/// schedule.run(&mut world); // nothing changed
/// world.resource_mut::<Settings>().0 = 2;
/// schedule.run(&mut world);
/// assert_eq!(applied.load(Ordering::Relaxed), 2);
/// ```
pub fn resource_changed<R: Send + Sync + 'static>() -> impl Fn(&World) -> bool + Send + Sync + 'static {
    since_last_evaluation(|world| world.resource_change_ticks::<R>().map(|(_, changed)| changed))
}

/// A condition true when `tick(world)` is newer than the condition's previous evaluation.
fn since_last_evaluation(
    tick: impl Fn(&World) -> Option<Tick> + Send + Sync + 'static,
) -> impl Fn(&World) -> bool + Send + Sync + 'static {
    /// The stored value of a condition that has not run yet.
    const NEVER: u64 = u64::MAX;
    let last = AtomicU64::new(NEVER);
    move |world: &World| {
        let clock = world.components().clock();
        let this_run = world.increment_change_tick();
        let last_run = match last.swap(u64::from(this_run.get()), Ordering::Relaxed) {
            NEVER => clock.oldest(),
            value => Tick::new(value as u32),
        };
        tick(world).is_some_and(|t| clock.ticks(last_run, this_run).is_newer(t))
    }
}

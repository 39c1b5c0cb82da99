//! Reading which entities lost a component: [`RemovedComponents`] and [`World::removed`].

use std::marker::PhantomData;

use super::World;
use crate::component::Component;
use crate::entity::Entity;
use crate::storage::LogEntry;

/// The entities that lost their `T` since the reader last looked, oldest removal first (bevy's
/// `RemovedComponents`).
///
/// A removal is `remove`, `despawn` (eager components: at the despawn; components with
/// `cleanup = "lazy"`: when the collector drops the value), `World::clear`, or the same through
/// commands. An entity appears once per removal, so one
/// that lost `T`, got it back and lost it again appears twice; it may be dead or hold a new `T`
/// by the time it is read.
///
/// As a system parameter, it sees the removals made since the system's previous run; a reader
/// created after some removals never sees them (its window opens when it is created, at the
/// system's initialization), and removals stay stored until every reader has seen them. Through
/// [`World::removed`], it sees the removals since the last
/// [`World::clear_trackers`](crate::World::clear_trackers). Removals are only recorded while `T`'s
/// changes are tracked (`#[component(track_changes)]`, or [`World::track_changes`]); a reader of
/// an untracked type panics when it is made (the system parameter at the system's
/// initialization), saying so.
///
/// # Examples
/// ```
/// use mosaic::{Component, Entity, RemovedComponents, Schedule, World};
/// # use std::sync::{Arc, Mutex};
///
/// #[derive(Component)]
/// #[component(track_changes)]
/// struct Burning;
///
/// let mut world = World::new();
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let mut schedule = Schedule::new();
/// schedule.add_system(move |removed: RemovedComponents<Burning>| {
///     log.lock().unwrap().extend(removed.iter());
/// });
/// let e = world.spawn(Burning);
/// schedule.run(&mut world); // initializes the reader: nothing removed yet
/// world.remove::<Burning>(e);
/// schedule.run(&mut world);
/// assert_eq!(*seen.lock().unwrap(), [e]);
/// ```
pub struct RemovedComponents<'w, T> {
    entries: &'w [LogEntry],
    _marker: PhantomData<fn() -> T>,
}

impl<'w, T: Component> RemovedComponents<'w, T> {
    /// Wraps the log entries a reader has not seen.
    pub(crate) fn new(entries: &'w [LogEntry]) -> Self {
        Self { entries, _marker: PhantomData }
    }

    /// The entities, oldest removal first. O(1) per item.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.entries.iter().map(|e| e.entity)
    }

    /// Number of removals (an entity removed twice counts twice). O(1).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is none. O(1).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'w, T: Component> IntoIterator for &RemovedComponents<'w, T> {
    type Item = Entity;
    type IntoIter = std::iter::Map<std::slice::Iter<'w, LogEntry>, fn(&LogEntry) -> Entity>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|e| e.entity)
    }
}

impl World {
    /// The entities that lost their `T` since the last
    /// [`World::clear_trackers`](crate::World::clear_trackers); see [`RemovedComponents`].
    /// O(log removals).
    ///
    /// # Panics
    /// If `T`'s changes are not tracked (`#[component(track_changes)]`, or
    /// [`World::track_changes`]): removals are recorded only for tracked types.
    #[track_caller]
    pub fn removed<T: Component>(&self) -> RemovedComponents<'_, T> {
        self.components.check_tracked::<T>("RemovedComponents");
        let entries = match self.components.pool_of::<T>().and_then(|pool| pool.changes()) {
            Some(changes) => changes.removed_since(self.change_ticks()),
            None => &[],
        };
        RemovedComponents::new(entries)
    }
}

//! The world's change clock: reading it, advancing it, and opting component types into change
//! tracking.

use super::World;
use crate::component::Component;
use crate::storage::{Clock, Tick, Ticks};

impl World {
    /// An empty world whose change clock has `bits` bits instead of 32, so tests can drive it
    /// past its wraparound in a few hundred frames.
    ///
    /// # Panics
    /// If `bits` is not in `4..=32`.
    #[doc(hidden)]
    #[track_caller]
    pub fn with_change_tick_bits(bits: u32) -> Self {
        Self { components: crate::component::Components::with_clock(Clock::new(bits)), ..Self::default() }
    }

    /// The present change tick: writes made through `&mut World` (inserts, `get_mut`, applied
    /// commands) are stamped with it. O(1).
    #[inline]
    pub fn change_tick(&self) -> Tick {
        self.components.clock().now()
    }

    /// The tick of the last [`World::clear_trackers`]: world-level queries with
    /// [`Added`](crate::Added) or [`Changed`](crate::Changed) see what happened after it.
    #[inline]
    pub fn last_change_tick(&self) -> Tick {
        self.components.clock().last_clear()
    }

    /// Takes the present tick for a system run and advances the clock one step (through `&World`,
    /// so parallel systems can each take one). The schedule calls it; code running systems by
    /// hand can too. O(1).
    #[inline]
    pub fn increment_change_tick(&self) -> Tick {
        self.components.clock().advance()
    }

    /// The window world-level change readers use: since the last
    /// [`World::clear_trackers`], up to now.
    #[inline]
    pub fn change_ticks(&self) -> Ticks {
        self.components.clock().world_ticks()
    }

    /// Ends a frame for world-level change readers: queries through the world with
    /// [`Added`](crate::Added) / [`Changed`](crate::Changed) and
    /// [`World::removed`](crate::World::removed) now see only what happens after this call
    /// (bevy's `World::clear_trackers`). Systems keep their own windows and are not affected.
    /// Also runs the periodic wraparound check when due. O(1), or O(tracked rows) when the check
    /// runs (once per 2^29 ticks).
    pub fn clear_trackers(&mut self) {
        let clock = self.components.clock();
        let now = clock.now();
        clock.set_last_clear(now);
        clock.set_now(Tick::new(now.get().wrapping_add(1)));
        self.check_change_ticks();
    }

    /// Clamps every stored change tick older than the maximum age (about 3.2 * 10^9 ticks, three
    /// quarters of the clock's period) to that age, so comparisons stay right across the clock's
    /// wraparound, when the clock has moved a check interval (an eighth of its period) since the
    /// last check; returns whether it ran. The schedule and [`World::clear_trackers`] call it.
    /// bevy's `check_change_ticks`. O(tracked rows + logs) when it runs, O(1) otherwise.
    pub fn check_change_ticks(&mut self) -> bool {
        if !self.components.clock().check_due() {
            return false;
        }
        for pool in self.components.pools_mut() {
            pool.check_changes();
        }
        self.reader_ticks.check(self.components.clock());
        let clock = self.components.clock();
        for ticks in self.resources.every_ticks() {
            ticks.set(clock.clamp(ticks.added()), clock.clamp(ticks.changed()));
        }
        self.components.clock().checked();
        true
    }

    /// Turns change tracking on for `T` now (registering it), as
    /// `#[component(track_changes)]` does from registration: its pool stamps every addition and
    /// change and logs removals from here on, for good. The entities that have a `T` already count
    /// as added and changed now, so call it before the values to be seen are written (right after
    /// making the world, for a type whose derive does not say it).
    ///
    /// Tracking is decided per type, by the derive attribute or this call; change readers
    /// ([`Added`](crate::Added), [`Changed`](crate::Changed), [`FieldChanged`](crate::FieldChanged),
    /// [`RemovedComponents`](crate::RemovedComponents)) never turn it on, and making one of an
    /// untracked type panics. Tracking costs every insert, removal and `&mut` access of the type
    /// a few stores (see `docs/design.md`); untracked types pay nothing. O(1) if on already, else
    /// O(entities with `T`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Changed, Component, Entity, World};
    ///
    /// #[derive(Component)]
    /// struct Fuel(u32);
    ///
    /// let mut world = World::new();
    /// world.track_changes::<Fuel>();
    /// let e = world.spawn(Fuel(3));
    /// world.clear_trackers();
    /// world.get_mut::<Fuel>(e).unwrap().0 -= 1;
    /// let changed: Vec<Entity> = world.query_filtered::<Entity, Changed<Fuel>>().into_iter().collect();
    /// assert_eq!(changed, [e]);
    /// ```
    pub fn track_changes<T: Component>(&mut self) {
        self.components.track_changes::<T>();
    }

    /// Whether `T`'s changes are tracked: its pool tracks them, or it is not registered yet and
    /// its derive says `#[component(track_changes)]`. O(1).
    pub fn tracks_changes<T: Component>(&self) -> bool {
        self.components.tracks_changes::<T>()
    }
}

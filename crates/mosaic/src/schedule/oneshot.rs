//! One-shot systems: run a system function on a world once, now, outside any schedule.

use super::error::ScheduleError;
use super::system::{IntoSystem, System, pretty_type_name, short_name};
use crate::world::{ApplyReport, World};

impl World {
    /// Runs `system` (a function of system parameters, or `FnMut(&mut World)`) once on this
    /// world, now, then applies its commands; returns what they did. The parameters are the ones a
    /// [`Schedule`](super::Schedule) gives, with fresh state each call: a [`Local`](super::Local)
    /// starts at its default and an [`EventReader`](crate::EventReader) reads every event still
    /// retained. To keep state between calls, build the system once with
    /// [`IntoSystem::into_system`] and call [`System::run`] and [`System::apply_deferred`] on it.
    /// bevy's `World::run_system_once`.
    ///
    /// # Panics
    /// If two parameters alias (as [`Schedule::add_system`](super::Schedule::add_system)
    /// refuses), or a resource a parameter needs is missing; both messages name the system.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Commands, Component, Query, World};
    ///
    /// #[derive(Component)]
    /// struct Fuel(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn(Fuel(3));
    /// world.run_system(|mut fuel: Query<&mut Fuel>, mut commands: Commands| {
    ///     fuel.for_each(|f| f.0 -= 1);
    ///     commands.spawn(Fuel(10));
    /// });
    /// let mut left: Vec<u32> = world.query::<&Fuel>().into_iter().map(|f| f.0).collect();
    /// left.sort();
    /// assert_eq!(left, [2, 10]);
    /// ```
    #[track_caller]
    pub fn run_system<M>(&mut self, system: impl IntoSystem<M>) -> ApplyReport {
        let name = short_name(std::any::type_name_of_val(&system));
        let mut system = system.into_system().unwrap_or_else(|pair| {
            let error = ScheduleError::ConflictingParams {
                system: name.to_string(),
                first: pretty_type_name(pair.0.param),
                second: pretty_type_name(pair.1.param),
                component: pair.1.name,
            };
            panic!("cannot run system: {error}")
        });
        system.run(self);
        system.apply_deferred(self)
    }
}

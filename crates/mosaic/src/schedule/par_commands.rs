//! The [`ParCommands`] system parameter.

use std::ops::{Deref, DerefMut};

use super::access::Access;
use super::param::{ParamConflict, SystemParam};
use crate::storage::Ticks;
use crate::world::{ApplyReport, ChunkedCommands, World};

/// The system's own [`ChunkedCommands`], for
/// [`Query::par_for_each_deferred`](crate::Query::par_for_each_deferred): commands recorded per
/// chunk from inside parallel iteration, applied at the end of the system's batch in chunk order
/// (the query's row order), as [`Commands`](crate::Commands) are in system order. The world after
/// the batch is therefore the same for every thread count.
///
/// # Examples
/// ```
/// use mosaic::{Component, Entity, ParCommands, Query, Schedule, World};
///
/// #[derive(Component)] struct Health(i32);
/// fn reap(mut q: Query<(Entity, &Health)>, mut commands: ParCommands) {
///     q.par_for_each_deferred(&mut commands, |(entity, health), buffer| {
///         if health.0 <= 0 {
///             buffer.despawn(entity);
///         }
///     });
/// }
/// let mut world = World::new();
/// world.spawn_batch((0..500).map(|i| Health(i % 2)));
/// let mut schedule = Schedule::new();
/// schedule.add_system(reap);
/// schedule.run(&mut world);
/// assert_eq!(world.len(), 250);
/// ```
pub struct ParCommands<'s>(&'s mut ChunkedCommands);

impl Deref for ParCommands<'_> {
    type Target = ChunkedCommands;
    fn deref(&self) -> &ChunkedCommands {
        self.0
    }
}

impl DerefMut for ParCommands<'_> {
    fn deref_mut(&mut self) -> &mut ChunkedCommands {
        self.0
    }
}

// SAFETY: touches only its own buffers while running; the world is changed in `apply`, which the
// scheduler calls with exclusive access.
unsafe impl SystemParam for ParCommands<'_> {
    type State = ChunkedCommands;
    type Item<'w, 's> = ParCommands<'s>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.mark_deferred();
        Ok(())
    }
    fn init_state(_: &mut World) -> ChunkedCommands {
        ChunkedCommands::new()
    }
    unsafe fn get_param<'s>(state: &'s mut ChunkedCommands, _: &World, _: Ticks) -> ParCommands<'s> {
        ParCommands(state)
    }
    fn apply(state: &mut ChunkedCommands, world: &mut World) -> ApplyReport {
        state.apply(world)
    }
    fn defer(state: &mut ChunkedCommands, commands: &mut crate::world::CommandBuffer) {
        if !state.is_empty() {
            let mut recorded = std::mem::take(state);
            commands.queue(move |world: &mut World| {
                recorded.apply(world);
            });
        }
    }
}

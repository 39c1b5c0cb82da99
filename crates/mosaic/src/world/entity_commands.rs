//! [`EntityCommands`]: commands about one entity, chained (bevy's `commands.entity(e)`).

use super::CommandBuffer;
use crate::component::{AosComponent, Bundle};
use crate::entity::Entity;

/// The commands of a [`CommandBuffer`] (or a system's [`Commands`](crate::Commands)) about one
/// entity, recorded in a chain: `commands.entity(e).insert(Stunned).remove::<Moving>()` (bevy's
/// `EntityCommands`). Each method records the command [`CommandBuffer`] has under the same
/// name, in call order, and returns the handle for the next; nothing runs until the buffer is
/// applied, and a command whose entity has died by then is skipped and counted
/// ([`ApplyReport::skipped`](crate::ApplyReport::skipped)), never a panic. O(1) amortised per
/// command.
///
/// The hierarchy's commands (`set_parent`, `remove_parent`, `despawn_recursive`) are on the
/// buffer ([`CommandBuffer::set_parent`] and the rest), naming the entity.
///
/// # Examples
/// ```
/// use mosaic::{CommandBuffer, Component, World};
///
/// #[derive(Component)]
/// struct Moving;
/// #[derive(Component)]
/// struct Stunned(u32);
///
/// let mut world = World::new();
/// let e = world.spawn(Moving);
/// let mut commands = CommandBuffer::new();
/// commands.entity(e).remove::<Moving>().insert(Stunned(3));
/// commands.apply(&mut world);
/// assert!(!world.contains::<Moving>(e) && world.get::<Stunned>(e).is_ok_and(|s| s.0 == 3));
/// ```
pub struct EntityCommands<'a> {
    buffer: &'a mut CommandBuffer,
    entity: Entity,
}

impl CommandBuffer {
    /// The commands about `entity`, to record in a chain (bevy's `Commands::entity`); see
    /// [`EntityCommands`]. The entity is not checked now: commands on a dead one are skipped
    /// when the buffer is applied.
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_> {
        EntityCommands { buffer: self, entity }
    }
}

impl EntityCommands<'_> {
    /// The entity the commands are about.
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Records inserting `bundle`, replacing values of the same types
    /// ([`CommandBuffer::insert`]).
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.buffer.insert(self.entity, bundle);
        self
    }

    /// Records inserting the components of `bundle` the entity does not have, keeping those it
    /// has ([`CommandBuffer::insert_if_new`]).
    pub fn insert_if_new<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.buffer.insert_if_new(self.entity, bundle);
        self
    }

    /// Records writing `value` only if it differs from the entity's `T`, or inserting it if the
    /// entity has none ([`CommandBuffer::insert_if_neq`]).
    pub fn insert_if_neq<T: AosComponent + PartialEq>(&mut self, value: T) -> &mut Self {
        self.buffer.insert_if_neq(self.entity, value);
        self
    }

    /// Records removing whichever components of bundle `B` the entity has
    /// ([`CommandBuffer::remove`]).
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        self.buffer.remove::<B>(self.entity);
        self
    }

    /// Records removing bundle `B` and the components it requires
    /// ([`CommandBuffer::remove_with_requires`]).
    pub fn remove_with_requires<B: Bundle>(&mut self) -> &mut Self {
        self.buffer.remove_with_requires::<B>(self.entity);
        self
    }

    /// Records keeping only bundle `B` and what it requires ([`CommandBuffer::retain`]).
    pub fn retain<B: Bundle>(&mut self) -> &mut Self {
        self.buffer.retain::<B>(self.entity);
        self
    }

    /// Records despawning the entity ([`CommandBuffer::despawn`]); the chain ends here.
    pub fn despawn(self) {
        self.buffer.despawn(self.entity);
    }
}

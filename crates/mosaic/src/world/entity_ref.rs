//! Handles to one live entity: [`EntityRef`] (shared) and [`EntityMut`] (exclusive).

use super::{ComponentError, World};
use crate::component::{Bundle, Component, ComponentId, MutableComponent};
use crate::entity::{Entity, EntityError};

/// Shared access to one live entity, from [`World::entity`] or [`World::get_entity`].
///
/// The entity stays alive for the handle's lifetime, since the world cannot change meanwhile.
#[derive(Clone, Copy, Debug)]
pub struct EntityRef<'w> {
    world: &'w World,
    entity: Entity,
}

impl<'w> EntityRef<'w> {
    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// The entity's `T`. O(1).
    ///
    /// # Errors
    /// [`ComponentError::MissingComponent`] if it has no `T`.
    #[inline]
    pub fn get<T: Component>(&self) -> Result<T::Ref<'w>, ComponentError> {
        self.world.get::<T>(self.entity)
    }

    /// Whether the entity has a `T`. O(1).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world.contains::<T>(self.entity)
    }

    /// The ids of the entity's components, ascending (see [`World::component_ids`]). O(1).
    pub fn component_ids(&self) -> &'w [ComponentId] {
        self.world.component_sets.ids(self.entity.index())
    }

    /// The world the handle borrows, for the layers above the world that read one entity
    /// (queries).
    pub(crate) fn world(&self) -> &'w World {
        self.world
    }
}

/// Exclusive access to one live entity, from [`World::entity_mut`] or [`World::get_entity_mut`].
#[derive(Debug)]
pub struct EntityMut<'w> {
    world: &'w mut World,
    entity: Entity,
}

impl EntityMut<'_> {
    /// The world and the entity, for the layers above the world that add operations on one
    /// entity (observers).
    pub(crate) fn world_and_id(&mut self) -> (&mut World, Entity) {
        (self.world, self.entity)
    }

    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// The entity's `T`. O(1).
    ///
    /// # Errors
    /// [`ComponentError::MissingComponent`] if it has no `T`.
    #[inline]
    pub fn get<T: Component>(&self) -> Result<T::Ref<'_>, ComponentError> {
        self.world.get::<T>(self.entity)
    }

    /// The entity's `T`, mutably. O(1).
    ///
    /// # Errors
    /// [`ComponentError::MissingComponent`] if it has no `T`.
    #[inline]
    pub fn get_mut<T: MutableComponent>(&mut self) -> Result<T::Mut<'_>, ComponentError> {
        self.world.get_mut::<T>(self.entity)
    }

    /// Whether the entity has a `T`. O(1).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world.contains::<T>(self.entity)
    }

    /// Adds or replaces the entity's `T`, returning the replaced value (see [`World::insert`]).
    pub fn insert<T: Component>(&mut self, value: T) -> Option<T> {
        self.world.insert(self.entity, value)
    }

    /// Adds or replaces the components of `bundle` (see [`World::insert_bundle`]).
    ///
    /// # Panics
    /// If the bundle holds a component type twice.
    #[track_caller]
    pub fn insert_bundle<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.world.insert_bundle(self.entity, bundle);
        self
    }

    /// Removes and returns the entity's components of bundle `B` (a component, or a tuple),
    /// all or nothing: `None` if it lacks one (see [`World::remove`]).
    ///
    /// # Panics
    /// If `B` holds a type twice.
    pub fn remove<B: Bundle>(&mut self) -> Option<B> {
        self.world.remove(self.entity)
    }

    /// Removes whichever components of bundle `B` the entity has; returns how many (see
    /// [`World::remove_present`]).
    ///
    /// # Panics
    /// If `B` holds a type twice.
    pub fn remove_present<B: Bundle>(&mut self) -> usize {
        self.world.remove_present::<B>(self.entity)
    }

    /// Removes whichever components of bundle `B` the entity has and every component they
    /// require; returns how many (see [`World::remove_with_requires`]).
    ///
    /// # Panics
    /// If `B` holds a type twice.
    pub fn remove_with_requires<B: Bundle>(&mut self) -> usize {
        self.world.remove_with_requires::<B>(self.entity)
    }

    /// Removes every component except those of bundle `B` and the components they require
    /// (see [`World::retain`]); returns `self` for chaining, as bevy's `retain`.
    ///
    /// # Panics
    /// If `B` holds a type twice.
    pub fn retain<B: Bundle>(&mut self) -> &mut Self {
        self.world.retain::<B>(self.entity);
        self
    }

    /// Despawns the entity, consuming the handle.
    pub fn despawn(self) {
        self.world.despawn(self.entity);
    }
}

impl World {
    /// Shared access to a live entity.
    ///
    /// # Panics
    /// If `entity` is not alive; see [`World::get_entity`] for the fallible form.
    #[track_caller]
    pub fn entity(&self, entity: Entity) -> EntityRef<'_> {
        self.get_entity(entity).unwrap_or_else(|error| panic!("{error}"))
    }

    /// Shared access to a live entity; the fallible form of [`World::entity`].
    ///
    /// # Errors
    /// [`EntityError::NoSuchEntity`] if `entity` is not alive.
    pub fn get_entity(&self, entity: Entity) -> Result<EntityRef<'_>, EntityError> {
        self.check_alive(entity)?;
        Ok(EntityRef { world: self, entity })
    }

    /// Exclusive access to a live entity.
    ///
    /// # Panics
    /// If `entity` is not alive; see [`World::get_entity_mut`] for the fallible form.
    #[track_caller]
    pub fn entity_mut(&mut self, entity: Entity) -> EntityMut<'_> {
        self.get_entity_mut(entity).unwrap_or_else(|error| panic!("{error}"))
    }

    /// Exclusive access to a live entity; the fallible form of [`World::entity_mut`].
    ///
    /// # Errors
    /// [`EntityError::NoSuchEntity`] if `entity` is not alive.
    pub fn get_entity_mut(&mut self, entity: Entity) -> Result<EntityMut<'_>, EntityError> {
        self.check_alive(entity)?;
        Ok(EntityMut { world: self, entity })
    }
}

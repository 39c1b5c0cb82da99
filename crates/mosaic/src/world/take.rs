//! Removing components by bundle: `World::remove` / `try_remove` take a whole bundle out (all or
//! nothing, as hecs' `remove`), `World::remove_present` drops what the entity has of one (bevy's
//! `remove`), and `World::take` / `try_take` take a bundle out and despawn the entity (hecs'
//! `take`).

use super::{ComponentError, World};
use crate::component::{Bundle, BundleSource, Component};
use crate::entity::Entity;

/// One live entity's components, as a [`BundleSource`]: each removal is a [`World::remove_row`].
struct EntityRows<'a> {
    world: &'a mut World,
    entity: Entity,
}

impl BundleSource for EntityRows<'_> {
    #[inline]
    fn has<T: Component>(&self) -> bool {
        self.world.components.id::<T>().is_some_and(|id| self.world.components.pool(id).contains(self.entity))
    }

    #[inline]
    fn take<T: Component>(&mut self) -> Option<T> {
        let id = self.world.components.id::<T>()?;
        self.world.remove_row::<T>(id, self.entity)
    }
}

/// The name of a bundle's first component type, for messages.
fn first_name<B: Bundle>() -> &'static str {
    let mut first = None;
    B::type_names(&mut |name| {
        first.get_or_insert(name);
    });
    first.unwrap_or("()")
}

impl World {
    /// Removes `entity`'s components of bundle `B` and returns them, or `None` (removing
    /// nothing) if it lacks any of them: a component type (`world.remove::<Health>(e)`) or a
    /// tuple (`world.remove::<(Health, Armor)>(e)`). All or nothing, as hecs' `remove`; for
    /// "remove whichever of these it has" see [`World::remove_present`].
    ///
    /// O(1) per component: the pool's swap-remove and a cached edge of the entity's component
    /// set (O(k) in its k components the first time any entity takes that edge). Hooks and
    /// watches see each component's removal; commands they record are applied once the whole
    /// bundle is out.
    ///
    /// # Panics
    /// If `entity` is not alive, or `B` holds a type twice; see [`World::try_remove`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Armor(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn((Health(5), Armor(2)));
    /// assert_eq!(world.remove::<(Health, Armor)>(e), Some((Health(5), Armor(2))));
    /// world.insert(e, Health(1));
    /// assert_eq!(world.remove::<(Health, Armor)>(e), None); // no armor: nothing removed
    /// assert_eq!(world.remove::<Health>(e), Some(Health(1)));
    /// ```
    #[track_caller]
    pub fn remove<B: Bundle>(&mut self, entity: Entity) -> Option<B> {
        match self.try_remove(entity) {
            Ok(values) => Some(values),
            Err(ComponentError::MissingComponent { .. }) => None,
            Err(error) => panic!("cannot remove `{}`: {error}", std::any::type_name::<B>()),
        }
    }

    /// Removes `entity`'s components of bundle `B` and returns them; the fallible form of
    /// [`World::remove`].
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive; [`ComponentError::MissingComponent`]
    /// naming the first component of `B` (in bundle order) that it lacks, with nothing removed.
    ///
    /// # Panics
    /// If `B` holds the same component type twice.
    pub fn try_remove<B: Bundle>(&mut self, entity: Entity) -> Result<B, ComponentError> {
        self.flush();
        self.check_alive(entity)?;
        if B::COUNT <= 1 {
            // One component (or none): its removal is the presence check.
            return B::take_each(&mut EntityRows { world: self, entity })
                .ok_or(ComponentError::MissingComponent { entity, component: first_name::<B>() });
        }
        super::spawn::check_bundle::<B>(self);
        if let Some(component) = B::missing(&EntityRows { world: self, entity }) {
            return Err(ComponentError::MissingComponent { entity, component });
        }
        let values = self.holding_deferred(|world| B::take_each(&mut EntityRows { world, entity }));
        Ok(values.expect("every component was present and none is listed twice"))
    }

    /// Removes (and drops) whichever components of bundle `B` `entity` has; returns how many it
    /// had. Bevy's `remove::<(A, B)>()`. Hooks and watches see each removal; commands they
    /// record are applied once all are out. O(1) per component, as [`World::remove`].
    ///
    /// # Panics
    /// If `entity` is not alive (see [`World::try_remove_present`]), or `B` holds a type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Stunned;
    /// #[derive(Component)]
    /// struct Burning;
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Stunned);
    /// assert_eq!(world.remove_present::<(Stunned, Burning)>(e), 1);
    /// assert!(!world.contains::<Stunned>(e));
    /// ```
    #[track_caller]
    pub fn remove_present<B: Bundle>(&mut self, entity: Entity) -> usize {
        self.try_remove_present::<B>(entity)
            .unwrap_or_else(|error| panic!("cannot remove `{}`: {error}", std::any::type_name::<B>()))
    }

    /// The fallible form of [`World::remove_present`].
    ///
    /// # Errors
    /// [`EntityError`](crate::EntityError) (`NoSuchEntity` or `ForeignEntity`) if `entity` is not
    /// alive, with nothing removed.
    ///
    /// # Panics
    /// If `B` holds the same component type twice.
    pub fn try_remove_present<B: Bundle>(&mut self, entity: Entity) -> Result<usize, crate::EntityError> {
        self.flush();
        self.check_alive(entity)?;
        if B::COUNT <= 1 {
            return Ok(B::remove_each(&mut EntityRows { world: self, entity }));
        }
        super::spawn::check_bundle::<B>(self);
        Ok(self.holding_deferred(|world| B::remove_each(&mut EntityRows { world, entity })))
    }

    /// Despawns `entity` and hands back its components of bundle `B`, dropping the rest; or
    /// `None`, changing nothing, if it lacks any of them. hecs' `World::take`, typed: all or
    /// nothing, as [`World::remove`].
    ///
    /// `B`'s components leave first (hooks and watches see each removal, as for
    /// [`World::remove`]), then the entity is despawned as by [`World::despawn`] (hooks fire for
    /// the rest). O(k) in the entity's k components.
    ///
    /// # Panics
    /// If `entity` is not alive, or `B` holds a type twice; see [`World::try_take`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Item(&'static str);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Count(u32);
    /// #[derive(Component)]
    /// struct Dropped;
    ///
    /// let mut world = World::new();
    /// let e = world.spawn((Item("arrow"), Count(12), Dropped));
    /// assert_eq!(world.take::<(Item, Count)>(e), Some((Item("arrow"), Count(12))));
    /// assert!(!world.is_alive(e)); // despawned, `Dropped` dropped
    /// ```
    #[track_caller]
    pub fn take<B: Bundle>(&mut self, entity: Entity) -> Option<B> {
        match self.try_take(entity) {
            Ok(values) => Some(values),
            Err(ComponentError::MissingComponent { .. }) => None,
            Err(error) => panic!("cannot take `{}`: {error}", std::any::type_name::<B>()),
        }
    }

    /// Despawns `entity` and hands back its components of bundle `B`; the fallible form of
    /// [`World::take`].
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive; [`ComponentError::MissingComponent`]
    /// naming the first component of `B` (in bundle order) that it lacks, with the entity left
    /// untouched.
    ///
    /// # Panics
    /// If `B` holds the same component type twice.
    pub fn try_take<B: Bundle>(&mut self, entity: Entity) -> Result<B, ComponentError> {
        let values = self.try_remove::<B>(entity)?;
        // A hook on one of `B`'s removals may have despawned the entity already.
        if self.is_alive(entity) {
            self.despawn(entity);
        }
        Ok(values)
    }
}

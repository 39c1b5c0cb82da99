//! Disabling entities: the [`Disabled`] marker, which every query skips unless it names the
//! marker, and `World::disable` / `enable` / `is_disabled` / `register_disabling_component`.
//!
//! The design is bevy's `Disabled` (bevy 0.16, `entity_disabling.rs`: default query filters) and
//! flecs' `EcsDisabled`: a disabled entity keeps its components and stays reachable through
//! direct world access (`World::get`, `World::entity`), but queries and systems pass over it.
//! A query whose data or filter names a disabling component (`&Disabled`, `Option<&Disabled>`,
//! `Has<Disabled>`, `With<Disabled>`, `Without<Disabled>`, `Allow<Disabled>`) sees the entities
//! it disables, and its own terms decide. Unlike bevy, `Option<&Disabled>` counts as naming it.
//!
//! Cost: a query checks the disabling pools once when it is built; while they are empty (no
//! entity disabled) it takes the same paths as before, with no test per row. With disabled
//! entities, each row walked costs one more sparse-set lookup per non-empty disabling pool.

use std::any::TypeId;

use super::{ComponentError, World};
use crate::Component;
use crate::component::ComponentId;
use crate::entity::Entity;

/// Marker component: the entity is disabled, and every query and system skips it unless the
/// query names `Disabled` in its data or filter. bevy's `Disabled`, flecs' `EcsDisabled`.
///
/// Insert it (`world.insert(e, Disabled)`, or [`World::disable`]) to disable an entity; remove
/// it ([`World::enable`]) to enable it again. Direct access ([`World::get`], [`World::entity`])
/// still reaches a disabled entity.
///
/// # Examples
/// ```
/// use mosaic::{Component, Disabled, Has, World};
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let a = world.spawn(Health(1));
/// let b = world.spawn(Health(2));
/// world.insert(b, Disabled);
/// assert_eq!(world.query::<&Health>().count(), 1); // `b` is skipped
/// assert_eq!(world.query::<(&Health, Has<Disabled>)>().count(), 2); // names it: sees both
/// assert_eq!(world.get::<Health>(b).unwrap().0, 2); // direct access still works
/// world.remove::<Disabled>(b);
/// assert_eq!(world.query::<&Health>().count(), 2);
/// # let _ = a;
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Disabled;

/// How many component types can disable entities in one world: [`Disabled`] and up to this
/// many less one registered with [`World::register_disabling_component`]. A query carries one
/// slot per type, so the bound keeps it small and `Copy`.
pub const MAX_DISABLING_COMPONENTS: usize = 4;

/// The component types besides [`Disabled`] that disable entities, in registration order
/// (a part of [`World`]).
#[derive(Debug, Default)]
pub(crate) struct DisablingComponents {
    // A `Vec`, not a `SmallVec`: every query tests it for emptiness when it is built, and a
    // `Vec`'s length is one load (an empty one allocates nothing).
    pub(crate) ids: Vec<(TypeId, ComponentId)>,
}

impl World {
    /// Disables `entity`: inserts [`Disabled`], so queries and systems skip it until
    /// [`World::enable`]. Disabling a disabled entity does nothing. O(1).
    ///
    /// # Panics
    /// If `entity` is not alive; see [`World::try_disable`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Enemy;
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Enemy);
    /// world.disable(e);
    /// assert!(world.is_disabled(e));
    /// assert!(world.query::<&Enemy>().is_empty());
    /// world.enable(e);
    /// assert_eq!(world.query::<&Enemy>().count(), 1);
    /// ```
    #[track_caller]
    pub fn disable(&mut self, entity: Entity) {
        if let Err(error) = self.try_disable(entity) {
            panic!("cannot disable entity: {error}");
        }
    }

    /// Disables `entity`; the fallible form of [`World::disable`].
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive.
    pub fn try_disable(&mut self, entity: Entity) -> Result<(), ComponentError> {
        self.check_alive(entity)?;
        if !self.is_disabled(entity) {
            self.try_insert(entity, Disabled)?;
        }
        Ok(())
    }

    /// Enables `entity`: removes [`Disabled`], so queries see it again. Enabling an entity that
    /// is not disabled does nothing. Components registered with
    /// [`World::register_disabling_component`] are left alone. O(1).
    ///
    /// # Panics
    /// If `entity` is not alive; see [`World::try_enable`].
    #[track_caller]
    pub fn enable(&mut self, entity: Entity) {
        if let Err(error) = self.try_enable(entity) {
            panic!("cannot enable entity: {error}");
        }
    }

    /// Enables `entity`; the fallible form of [`World::enable`].
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive.
    pub fn try_enable(&mut self, entity: Entity) -> Result<(), ComponentError> {
        self.check_alive(entity)?;
        if self.contains::<Disabled>(entity) {
            self.try_remove::<Disabled>(entity)?;
        }
        Ok(())
    }

    /// Whether `entity` is alive and has [`Disabled`] (only that marker: components registered
    /// with [`World::register_disabling_component`] are asked with [`World::contains`]). O(1).
    #[inline]
    pub fn is_disabled(&self, entity: Entity) -> bool {
        self.contains::<Disabled>(entity)
    }

    /// Makes `T` disable entities as [`Disabled`] does: from now on every query that does not
    /// name `T` skips the entities that have one (bevy's
    /// `World::register_disabling_component`). Registering a type twice, or `Disabled` itself,
    /// does nothing. Watches made before the call do not follow `T`. O(1).
    ///
    /// # Panics
    /// If the world already has [`MAX_DISABLING_COMPONENTS`] disabling types (counting
    /// `Disabled`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, With, World};
    ///
    /// #[derive(Component)]
    /// struct Prefab;
    /// #[derive(Component)]
    /// struct Mesh;
    ///
    /// let mut world = World::new();
    /// world.register_disabling_component::<Prefab>();
    /// world.spawn((Mesh, Prefab));
    /// world.spawn(Mesh);
    /// assert_eq!(world.query::<&Mesh>().count(), 1);
    /// assert_eq!(world.query_filtered::<&Mesh, With<Prefab>>().count(), 1);
    /// ```
    #[track_caller]
    pub fn register_disabling_component<T: Component>(&mut self) {
        let type_id = TypeId::of::<T>();
        if type_id == TypeId::of::<Disabled>() {
            return;
        }
        let id = self.register_component::<T>();
        let ids = &mut self.disabling.ids;
        if ids.contains(&(type_id, id)) {
            return;
        }
        assert!(
            ids.len() + 1 < MAX_DISABLING_COMPONENTS,
            "cannot register `{}` as a disabling component: a world has at most {MAX_DISABLING_COMPONENTS} \
             (counting `Disabled`); mark entities with `Disabled` instead",
            std::any::type_name::<T>()
        );
        ids.push((type_id, id));
    }

    /// The component types besides [`Disabled`] that disable entities, with their ids.
    #[inline]
    pub(crate) fn disabling_components(&self) -> &[(TypeId, ComponentId)] {
        &self.disabling.ids
    }
}

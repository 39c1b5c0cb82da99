//! Cloning entities and spawning copies of a template: [`Template`], [`World::clone_entity`],
//! [`World::register_clone`].

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::World;
use crate::component::{AosComponent, ComponentId};
use crate::entity::{Entity, EntityError};

/// One component of a template: inserts a fresh copy of its value into an entity.
type Part = Arc<dyn Fn(&mut World, Entity) + Send + Sync>;

/// How to copy one registered component type out of an entity, as a template part.
type Cloner = fn(&World, Entity) -> Option<Part>;

/// The component types [`World::register_clone`] made cloneable, kept as a resource.
#[derive(Default)]
struct CloneRegistry(FxHashMap<ComponentId, Cloner>);

/// A stored set of component values to spawn copies of, any number of times (hecs' cloneable
/// `EntityBuilder`, flecs' prefabs, as a value rather than an entity).
///
/// Built with [`Template::with`] (any `Clone` component), or taken from a live entity with
/// [`Template::from_entity`] (its components of the types registered with
/// [`World::register_clone`]). [`World::spawn_template`] spawns one copy: each component is
/// cloned and inserted in the order it was added to the template (hooks and watches run as for
/// `insert`; a component added twice keeps the later value). Cloning a template is cheap (the
/// values are shared).
///
/// # Examples
/// ```
/// use mosaic::{Component, Template, World};
///
/// #[derive(Component, Clone)]
/// struct Hull(u32);
/// #[derive(Component, Clone)]
/// struct Turret { range: f32 }
///
/// let mut world = World::new();
/// let frigate = Template::new().with(Hull(100)).with(Turret { range: 40.0 });
/// let fleet = world.spawn_template_batch(&frigate, 3);
/// assert_eq!(fleet.len(), 3);
/// world.get_mut::<Hull>(fleet[0]).unwrap().0 -= 30; // copies are independent
/// assert_eq!(world.get::<Hull>(fleet[1]).unwrap().0, 100);
/// ```
#[derive(Clone, Default)]
pub struct Template {
    parts: Vec<Part>,
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Template").field("components", &self.parts.len()).finish()
    }
}

impl Template {
    /// An empty template (spawns empty entities).
    pub fn new() -> Self {
        Self::default()
    }

    /// The template with `value` added: every copy gets a clone of it. O(1).
    pub fn with<T: AosComponent + Clone>(mut self, value: T) -> Self {
        self.parts.push(Arc::new(move |world: &mut World, entity| {
            world.insert(entity, value.clone());
        }));
        self
    }

    /// Number of components a copy gets (a type added twice counts twice).
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// Whether the template has no component.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// A template holding copies of `entity`'s components of the types registered with
    /// [`World::register_clone`], in the entity's component order; other components (and its
    /// place in a hierarchy: [`Relationship`](crate::Relationship) is never cloned) are left
    /// out. O(k) in the entity's k components.
    ///
    /// # Errors
    /// [`EntityError`] if `entity` is not alive in `world`.
    pub fn from_entity(world: &World, entity: Entity) -> Result<Self, EntityError> {
        let ids = world.component_ids(entity)?;
        let Some(registry) = world.get_resource::<CloneRegistry>() else { return Ok(Self::new()) };
        let parts = ids
            .iter()
            .filter_map(|id| registry.0.get(id))
            .filter_map(|cloner| cloner(world, entity))
            .collect();
        Ok(Self { parts })
    }
}

/// The cloner of `T`: reads `entity`'s value and returns a part that inserts clones of it.
fn cloner<T: AosComponent + Clone>(world: &World, entity: Entity) -> Option<Part> {
    let value: T = world.get::<T>(entity).ok()?.clone();
    Some(Arc::new(move |world: &mut World, entity| {
        world.insert(entity, value.clone());
    }))
}

impl World {
    /// Makes component type `T` cloneable by [`World::clone_entity`] and
    /// [`Template::from_entity`] (registering `T`). Components of types not registered are left
    /// out of clones. O(1).
    pub fn register_clone<T: AosComponent + Clone>(&mut self) {
        let id = self.register_component::<T>();
        if !self.contains_resource::<CloneRegistry>() {
            self.insert_resource(CloneRegistry::default());
        }
        self.resource_mut::<CloneRegistry>().0.insert(id, cloner::<T>);
    }

    /// Spawns a copy of `entity`: a new entity with clones of its components of the types
    /// registered with [`World::register_clone`] (see [`Template::from_entity`] for what is left
    /// out). O(k) in the entity's k components.
    ///
    /// # Errors
    /// [`EntityError`] if `entity` is not alive.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, Debug, PartialEq)]
    /// struct Name(String);
    /// #[derive(Component)]
    /// struct Unique; // not registered: not cloned
    ///
    /// let mut world = World::new();
    /// world.register_clone::<Name>();
    /// let original = world.spawn((Name("probe".into()), Unique));
    /// let copy = world.clone_entity(original).unwrap();
    /// assert_eq!(world.get::<Name>(copy), Ok(&Name("probe".into())));
    /// assert!(!world.contains::<Unique>(copy));
    /// ```
    pub fn clone_entity(&mut self, entity: Entity) -> Result<Entity, EntityError> {
        let template = Template::from_entity(self, entity)?;
        Ok(self.spawn_template(&template))
    }

    /// Spawns one copy of `template`. O(k) in its k components.
    pub fn spawn_template(&mut self, template: &Template) -> Entity {
        let entity = self.spawn_empty();
        for part in &template.parts {
            part(self, entity);
        }
        entity
    }

    /// Spawns `count` copies of `template`, returning them in spawn order. O(count * k).
    pub fn spawn_template_batch(&mut self, template: &Template, count: usize) -> Vec<Entity> {
        (0..count).map(|_| self.spawn_template(template)).collect()
    }
}

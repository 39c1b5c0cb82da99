//! Cloning entities and spawning copies of a template: [`Template`], [`World::clone_entity`],
//! [`World::register_clone`].

use std::any::{Any, TypeId};
use std::sync::Arc;

use super::World;
use crate::component::{AosComponent, CloneSink, Component, TemplateBundle};
use crate::entity::{Entity, EntityError};

/// One stored component value of a template, type-erased: inserts clones of itself.
trait Value: Any + Send + Sync {
    /// Inserts a clone of the value into `entity`.
    fn insert_clone(&self, world: &mut World, entity: Entity);
    /// A separate copy, for copy-on-write in [`Template::get_mut`].
    fn clone_value(&self) -> Arc<dyn Value>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Component + Clone> Value for T {
    fn insert_clone(&self, world: &mut World, entity: Entity) {
        world.insert(entity, self.clone());
    }

    fn clone_value(&self) -> Arc<dyn Value> {
        Arc::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// One component of a template: its type and its value, shared between clones of the template.
#[derive(Clone)]
pub(crate) struct Entry {
    type_id: TypeId,
    type_name: &'static str,
    value: Arc<dyn Value>,
}

impl Entry {
    fn new<T: Component + Clone>(value: T) -> Self {
        Self { type_id: TypeId::of::<T>(), type_name: std::any::type_name::<T>(), value: Arc::new(value) }
    }
}

/// How to copy one registered component type out of an entity, as a template entry.
pub(crate) type Cloner = fn(&World, Entity) -> Option<Entry>;

/// A stored set of component values to spawn copies of, any number of times (hecs'
/// `EntityBuilderClone`, flecs' prefabs, as a value rather than an entity).
///
/// Built with [`Template::with`] (any `Clone` component), from a bundle of `Clone` components
/// ([`Template::from_bundle`], [`Template::with_bundle`]; see [`TemplateBundle`]), or taken from a
/// live entity with [`Template::from_entity`] (its components of the types registered with
/// [`World::register_clone`]). A template holds at most one value per component type: adding a
/// type it has replaces the value in place, and [`Template::merge`] lays one template over
/// another. [`Template::has`], [`Template::get`] and [`Template::get_mut`] read and edit it.
///
/// [`World::spawn_template`] spawns one copy: each component is cloned and inserted in the order
/// it was first added to the template (hooks and watches run as for `insert`). Cloning a template
/// is O(k) in its k components and copies no value: values are shared until
/// [`Template::get_mut`] writes one (copy on write).
///
/// # Examples
/// ```
/// use mosaic::{Component, Template, World};
///
/// #[derive(Component, Clone, Debug, PartialEq)]
/// struct Hull(u32);
/// #[derive(Component, Clone, Debug, PartialEq)]
/// struct Turret { range: f32 }
///
/// let mut world = World::new();
/// let frigate = Template::new().with(Hull(100)).with(Turret { range: 40.0 });
/// let mut heavy = frigate.clone();
/// heavy.get_mut::<Hull>().unwrap().0 = 250; // the frigate keeps its value
/// assert_eq!(frigate.get::<Hull>(), Some(&Hull(100)));
///
/// let fleet = world.spawn_template_batch(&frigate, 3);
/// assert_eq!(fleet.len(), 3);
/// world.get_mut::<Hull>(fleet[0]).unwrap().0 -= 30; // copies are independent
/// assert_eq!(world.get::<Hull>(fleet[1]).unwrap().0, 100);
/// let flagship = world.spawn_template(&heavy);
/// assert_eq!(world.get::<Hull>(flagship).unwrap().0, 250);
/// ```
#[derive(Clone, Default)]
pub struct Template {
    entries: Vec<Entry>,
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Template").field("components", &self.type_names().collect::<Vec<_>>()).finish()
    }
}

/// Collects a bundle's components as template entries.
struct Entries<'t>(&'t mut Template);

impl CloneSink for Entries<'_> {
    fn put<T: Component + Clone>(&mut self, value: T) {
        self.0.put(Entry::new(value));
    }
}

impl Template {
    /// An empty template (spawns empty entities).
    pub fn new() -> Self {
        Self::default()
    }

    /// A template of `bundle`'s components, in bundle order: every component of a
    /// [`TemplateBundle`] is `Clone` (a component, a tuple, a `#[derive(Bundle)]` struct of
    /// them). O(k) in its k components.
    ///
    /// # Panics
    /// Never; a bundle naming a type twice keeps the later value, as [`Template::with`].
    pub fn from_bundle<B: TemplateBundle>(bundle: B) -> Self {
        Self::new().with_bundle(bundle)
    }

    /// The template with `value` added: every copy gets a clone of it. A `T` the template
    /// already has is replaced in place (it keeps its position). O(k) in the template's k
    /// components.
    pub fn with<T: Component + Clone>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// The template with each of `bundle`'s components added, as [`Template::with`] for each.
    /// O(k * b) for b components in the bundle.
    pub fn with_bundle<B: TemplateBundle>(mut self, bundle: B) -> Self {
        self.insert_bundle(bundle);
        self
    }

    /// Adds `value`, returning a clone of the `T` it replaces (values may be shared with clones
    /// of this template, so the old one is copied out). O(k).
    pub fn insert<T: Component + Clone>(&mut self, value: T) -> Option<T> {
        let old = self.get::<T>().cloned();
        self.put(Entry::new(value));
        old
    }

    /// Adds each of `bundle`'s components, as [`Template::insert`] for each. O(k * b).
    pub fn insert_bundle<B: TemplateBundle>(&mut self, bundle: B) -> &mut Self {
        bundle.put_each_clone(&mut Entries(self));
        self
    }

    /// Lays `other` over this template: each of its components replaces this template's value
    /// of the same type in place, and types this template lacks are appended in `other`'s
    /// order (hecs' builder and bevy's bundle insert: the later value wins). Shares `other`'s
    /// values; copies none. O(k * k') for k and k' components.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, Template};
    ///
    /// #[derive(Component, Clone, Debug, PartialEq)]
    /// struct Hull(u32);
    /// #[derive(Component, Clone, Debug, PartialEq)]
    /// struct Shield(u32);
    ///
    /// let base = Template::new().with(Hull(100));
    /// let armoured = Template::new().with(Hull(300)).with(Shield(50));
    /// let ship = base.merged(&armoured);
    /// assert_eq!(ship.get::<Hull>(), Some(&Hull(300)));
    /// assert!(ship.has::<Shield>());
    /// assert_eq!(ship.len(), 2);
    /// ```
    pub fn merge(&mut self, other: &Template) -> &mut Self {
        for entry in &other.entries {
            self.put(entry.clone());
        }
        self
    }

    /// This template with `other` laid over it; see [`Template::merge`].
    pub fn merged(mut self, other: &Template) -> Self {
        self.merge(other);
        self
    }

    /// Whether the template has a `T`. O(k).
    pub fn has<T: Component>(&self) -> bool {
        self.position(TypeId::of::<T>()).is_some()
    }

    /// The template's `T`, or `None` if it has none. O(k).
    pub fn get<T: Component>(&self) -> Option<&T> {
        let entry = &self.entries[self.position(TypeId::of::<T>())?];
        entry.value.as_any().downcast_ref::<T>()
    }

    /// The template's `T` to edit, or `None` if it has none. A value shared with a clone of
    /// this template is copied first, so the clone keeps the old value. O(k), plus one clone
    /// of `T` when shared.
    pub fn get_mut<T: Component>(&mut self) -> Option<&mut T> {
        let at = self.position(TypeId::of::<T>())?;
        let entry = &mut self.entries[at];
        if Arc::get_mut(&mut entry.value).is_none() {
            entry.value = entry.value.clone_value();
        }
        Arc::get_mut(&mut entry.value)?.as_any_mut().downcast_mut::<T>()
    }

    /// Takes the `T` out of the template (copies spawned later lack it), returning a clone of
    /// it (it may be shared with clones of the template); `None` if it has none. O(k).
    pub fn remove<T: Component + Clone>(&mut self) -> Option<T> {
        let at = self.position(TypeId::of::<T>())?;
        let entry = self.entries.remove(at);
        entry.value.as_any().downcast_ref::<T>().cloned()
    }

    /// Number of components a copy gets (one per type).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the template has no component.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The components' type names, in the order copies get them (for messages and debugging).
    pub fn type_names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.entries.iter().map(|entry| entry.type_name)
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
        let entries = ids
            .iter()
            .filter_map(|&id| world.types().cloner(id))
            .filter_map(|cloner| cloner(world, entity))
            .collect();
        Ok(Self { entries })
    }

    /// The template entry holding `value` (what a cloner returns).
    pub(crate) fn entry_of<T: Component + Clone>(value: T) -> Entry {
        Entry::new(value)
    }

    fn position(&self, type_id: TypeId) -> Option<usize> {
        self.entries.iter().position(|entry| entry.type_id == type_id)
    }

    /// Adds `entry`, replacing the entry of its type in place.
    fn put(&mut self, entry: Entry) {
        match self.position(entry.type_id) {
            Some(at) => self.entries[at] = entry,
            None => self.entries.push(entry),
        }
    }
}

impl World {
    /// Makes component type `T` cloneable by [`World::clone_entity`] and
    /// [`Template::from_entity`] (registering `T`). Components of types not registered are left
    /// out of clones. O(1). `T` is stored as a struct (an SoA component is read field by field,
    /// so it cannot be cloned out of its pool).
    pub fn register_clone<T: AosComponent + Clone>(&mut self) {
        self.register::<T>().clone();
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
        for entry in &template.entries {
            entry.value.insert_clone(self, entity);
        }
        entity
    }

    /// Spawns `count` copies of `template`, returning them in spawn order. O(count * k).
    pub fn spawn_template_batch(&mut self, template: &Template, count: usize) -> Vec<Entity> {
        (0..count).map(|_| self.spawn_template(template)).collect()
    }
}

//! Registered types one at a time, by name: for tools that show or edit a running world (an
//! inspector) rather than save it whole.

use super::SnapshotRegistry;
use super::registry::Entry;
use crate::entity::Entity;
use crate::storage::SparseSet;
use crate::world::World;

/// One registered component column or resource of a world, as
/// [`SnapshotRegistry::component_data`] and [`SnapshotRegistry::resource_data`] yield it.
pub struct NamedData<'a> {
    /// The name it is registered under.
    pub name: &'a str,
    /// The Rust type name (`std::any::type_name`), for display only: not stable across builds.
    pub type_name: &'static str,
    /// Rows in the component's pool, live or not yet swept, in rows; 1 for a resource.
    pub rows: usize,
    /// The size of one value (`size_of`), in bytes: `rows * value_bytes` is what the values take
    /// in the pool (without its sparse index and entity list).
    pub value_bytes: usize,
    /// The data. A component serializes as a sequence of `(entity index, value)` pairs in entity
    /// index order (live entities only), as in a snapshot; a resource as its value.
    pub data: Box<dyn erased_serde::Serialize + 'a>,
}

impl std::fmt::Debug for NamedData<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NamedData")
            .field("name", &self.name)
            .field("type_name", &self.type_name)
            .field("rows", &self.rows)
            .field("value_bytes", &self.value_bytes)
            .finish_non_exhaustive()
    }
}

impl SnapshotRegistry {
    /// Each registered component of `world` that has a pool, sorted by name. Nothing is
    /// serialized until a [`NamedData::data`] is. O(registered types) to yield them all.
    pub fn component_data<'a>(&'a self, world: &'a World) -> impl Iterator<Item = NamedData<'a>> + 'a {
        self.components.iter().filter_map(move |entry| {
            let id = world.components().id_by_type(entry.type_id)?;
            let rows = world.components().pool(id).len();
            Some(NamedData {
                name: &entry.name,
                type_name: entry.type_name,
                rows,
                value_bytes: entry.size,
                data: (entry.save)(world)?,
            })
        })
    }

    /// The value of the component registered under `name` on `entity`, to serialize (a copy:
    /// [`View::read`](crate::View::read)), or `None` when no component is registered under
    /// `name` or `entity` does not have it. O(1) plus the copy: for showing a few entities'
    /// values without serializing whole columns ([`SnapshotRegistry::component_data`]).
    ///
    /// # Examples
    /// ```
    /// use mosaic::serialize::SnapshotRegistry;
    /// use mosaic::{Component, World};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    /// struct Health(u32);
    ///
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register::<Health>("health");
    /// let mut world = World::new();
    /// let e = world.spawn(Health(7));
    /// let value = registry.component_value(&world, "health", e).unwrap();
    /// assert_eq!(ron::to_string(&value).unwrap(), "(7)");
    /// assert!(registry.component_value(&world, "mana", e).is_none());
    /// ```
    pub fn component_value(
        &self,
        world: &World,
        name: &str,
        entity: Entity,
    ) -> Option<Box<dyn erased_serde::Serialize>> {
        let entry = self.components.iter().find(|entry| entry.name == name)?;
        (entry.save_one?)(world, entity)
    }

    /// The pool of the component registered under `name` in `world`, or `None` when no component
    /// is registered under `name` or `world` has no pool of it yet. O(log registered types) plus
    /// a hash lookup: resolve it once, then [`NamedPool::contains`] answers "does this entity
    /// have it" in O(1) per entity (an inspector's filter over every entity).
    ///
    /// # Examples
    /// ```
    /// use mosaic::serialize::SnapshotRegistry;
    /// use mosaic::{Component, World};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    /// struct Health(u32);
    ///
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register::<Health>("health");
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(7)), world.spawn(()));
    /// let pool = registry.component_pool(&world, "health").unwrap();
    /// assert!(pool.contains(a) && !pool.contains(b));
    /// // Over the live entities, the liveness check can be skipped.
    /// let with: Vec<_> = world.entities().iter().filter(|&e| pool.contains_alive(e)).collect();
    /// assert_eq!(with, [a]);
    /// assert!(registry.component_pool(&world, "mana").is_none());
    /// ```
    pub fn component_pool<'w>(&self, world: &'w World, name: &str) -> Option<NamedPool<'w>> {
        let entry = find(&self.components, name)?;
        let id = world.components().id_by_type(entry.type_id)?;
        Some(NamedPool { world, pool: world.components().pool(id) })
    }

    /// Calls `visit(entity, value)` for each live entity with the component registered under
    /// `name`, in pool row order (not entity order), with the value to serialize (a copy read
    /// through [`View::read`](crate::View::read), so struct-of-arrays pools work too). Returns
    /// `false`, calling nothing, when no component is registered under `name`. O(rows) plus a
    /// clone per row, no allocation: for tools that pick a few fields of every value (an
    /// inspector's map) without building a whole column's serialized form
    /// ([`SnapshotRegistry::component_data`]).
    ///
    /// # Examples
    /// ```
    /// use mosaic::serialize::SnapshotRegistry;
    /// use mosaic::{Component, World};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    /// struct Health(u32);
    ///
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register::<Health>("health");
    /// let mut world = World::new();
    /// world.spawn(Health(7));
    /// world.spawn(Health(9));
    /// let mut seen = Vec::new();
    /// assert!(registry.for_each_value(&world, "health", &mut |entity, value| {
    ///     seen.push((entity.index(), ron::to_string(value).unwrap()));
    /// }));
    /// assert_eq!(seen, [(0, "(7)".to_owned()), (1, "(9)".to_owned())]);
    /// assert!(!registry.for_each_value(&world, "mana", &mut |_, _| {}));
    /// ```
    pub fn for_each_value(
        &self,
        world: &World,
        name: &str,
        visit: &mut dyn FnMut(Entity, &dyn erased_serde::Serialize),
    ) -> bool {
        let Some(visit_fn) = find(&self.components, name).and_then(|entry| entry.visit) else {
            return false;
        };
        visit_fn(world, visit);
        true
    }

    /// Each registered resource `world` has, sorted by name. O(registered types).
    pub fn resource_data<'a>(&'a self, world: &'a World) -> impl Iterator<Item = NamedData<'a>> + 'a {
        self.resources.iter().filter_map(move |entry| {
            Some(NamedData {
                name: &entry.name,
                type_name: entry.type_name,
                rows: 1,
                value_bytes: entry.size,
                data: (entry.save)(world)?,
            })
        })
    }

    /// Reads one value of the component registered under `name` from `value` and inserts it on
    /// `entity` (replacing any, through the world's hooks, as a load does). Entity handles inside
    /// the value are kept as read. Returns `Ok(false)`, changing nothing, when no component is
    /// registered under `name` or `entity` is not alive.
    ///
    /// # Errors
    /// The deserializer's error if `value` is not a valid value of the type.
    ///
    /// # Examples
    /// ```
    /// use mosaic::serialize::SnapshotRegistry;
    /// use mosaic::{Component, World};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    /// struct Health(u32);
    ///
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register::<Health>("health");
    /// let mut world = World::new();
    /// let e = world.spawn(Health(1));
    /// let mut de = ron::Deserializer::from_str("(7)").unwrap();
    /// let mut de = <dyn erased_serde::Deserializer>::erase(&mut de);
    /// assert!(registry.insert_by_name(&mut world, "health", e, &mut de).unwrap());
    /// assert_eq!(world.get::<Health>(e), Ok(&Health(7)));
    /// ```
    pub fn insert_by_name(
        &self,
        world: &mut World,
        name: &str,
        entity: Entity,
        value: &mut dyn erased_serde::Deserializer<'_>,
    ) -> Result<bool, erased_serde::Error> {
        let Some(entry) = find(&self.components, name) else { return Ok(false) };
        if !world.is_alive(entity) {
            return Ok(false);
        }
        let pending = (entry.load_one)(value)?;
        pending.apply(world, &|_| entity, None);
        Ok(true)
    }
}

/// One registered component's pool in a world, from [`SnapshotRegistry::component_pool`]: which
/// entities have the component, without its type.
#[derive(Clone, Copy)]
pub struct NamedPool<'w> {
    world: &'w World,
    pool: &'w SparseSet,
}

impl std::fmt::Debug for NamedPool<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NamedPool").field("type", &self.pool.type_name()).field("rows", &self.len()).finish()
    }
}

impl NamedPool<'_> {
    /// Whether `entity` is alive and has the component. O(1).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.world.is_alive(entity) && self.pool.contains_alive(entity)
    }

    /// Whether `entity`, which the caller knows to be alive (taken from
    /// [`Entities::iter`](crate::entity::Entities::iter) of the same world), has the component:
    /// [`NamedPool::contains`] without the liveness check, for walks over every live entity.
    /// O(1). For a dead entity the answer is unspecified (a `bool`, never unsafe).
    #[inline]
    pub fn contains_alive(&self, entity: Entity) -> bool {
        self.pool.contains_alive(entity)
    }

    /// Rows in the pool, in rows: the live entities with the component, plus rows of despawned
    /// entities not yet swept from a lazily cleaned pool. O(1).
    pub fn len(&self) -> usize {
        self.pool.len()
    }

    /// Whether the pool has no rows. O(1).
    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// The live entities with the component, in pool row order (not entity order). O(rows) to
    /// walk.
    pub fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.pool.entities().iter().copied().filter(|&e| self.world.is_alive(e))
    }
}

/// The entry named `name` in `entries` (sorted by name).
fn find<'a>(entries: &'a [Entry], name: &str) -> Option<&'a Entry> {
    entries.binary_search_by(|e| e.name.as_str().cmp(name)).ok().map(|at| &entries[at])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Component;
    use serde::{Deserialize, Serialize};

    #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Health(u32);

    #[test]
    fn columns_by_name_and_inserts_by_name() {
        let mut registry = SnapshotRegistry::new();
        registry.register::<Health>("health").register_resource::<u64>("ticks");
        let mut world = World::new();
        let a = world.spawn(Health(3));
        let b = world.spawn(());
        world.insert_resource(7u64);
        let columns: Vec<_> = registry.component_data(&world).collect();
        assert_eq!((columns.len(), columns[0].name, columns[0].rows), (1, "health", 1));
        assert_eq!(columns[0].value_bytes, 4);
        let text = ron::to_string(&columns[0].data).unwrap();
        assert_eq!(text, format!("[({},(3))]", a.index()));
        let resources: Vec<_> = registry.resource_data(&world).collect();
        assert_eq!(ron::to_string(&resources[0].data).unwrap(), "7");
        drop((columns, resources));

        let mut de = ron::Deserializer::from_str("(9)").unwrap();
        let mut de = <dyn erased_serde::Deserializer>::erase(&mut de);
        assert!(registry.insert_by_name(&mut world, "health", b, &mut de).unwrap());
        assert_eq!(world.get::<Health>(b), Ok(&Health(9)));
        let mut de = ron::Deserializer::from_str("(9)").unwrap();
        let mut de = <dyn erased_serde::Deserializer>::erase(&mut de);
        assert!(!registry.insert_by_name(&mut world, "nope", b, &mut de).unwrap());
        let mut de = ron::Deserializer::from_str("\"x\"").unwrap();
        let mut de = <dyn erased_serde::Deserializer>::erase(&mut de);
        assert!(registry.insert_by_name(&mut world, "health", b, &mut de).is_err());
    }
}

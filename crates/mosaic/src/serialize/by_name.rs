//! Registered types one at a time, by name: for tools that show or edit a running world (an
//! inspector) rather than save it whole.

use super::SnapshotRegistry;
use super::registry::Entry;
use crate::entity::Entity;
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

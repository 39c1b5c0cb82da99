//! The registry of serializable components and resources, and the type-erased column code.

use std::any::TypeId;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde::ser::SerializeSeq;

use super::{MapEntities, SnapshotError};
use crate::component::{Component, View};
use crate::entity::Entity;
use crate::storage::try_for_each_row;
use crate::world::World;

/// Writes one registered column (or resource) of a world, or `None` when there is nothing to
/// write (a missing resource).
pub(crate) type SaveFn = for<'a> fn(&'a World) -> Option<Box<dyn erased_serde::Serialize + 'a>>;
/// One entity's value of a component, if it has one (components only).
pub(crate) type SaveOneFn = fn(&World, Entity) -> Option<Box<dyn erased_serde::Serialize>>;
/// Calls a visitor with each live row of one component's pool (for
/// [`SnapshotRegistry::for_each_value`]).
pub(crate) type VisitFn = fn(&World, &mut dyn FnMut(Entity, &dyn erased_serde::Serialize));
/// Reads one registered column (or resource) into a value not yet put in a world.
pub(crate) type LoadFn =
    for<'de> fn(&mut dyn erased_serde::Deserializer<'de>) -> Result<Box<dyn Pending>, erased_serde::Error>;
/// Writes one registered column (or resource) as postcard bytes, or `None` when there is nothing
/// to write. Monomorphised per type: no dynamic call per value.
pub(crate) type SaveBinaryFn = fn(&World) -> Option<Result<Vec<u8>, postcard::Error>>;
/// Reads the postcard bytes of one registered column (or resource), all of them.
pub(crate) type LoadBinaryFn = fn(&[u8]) -> Result<Box<dyn Pending>, SnapshotError>;
/// Reads one value (not a column) of a registered type, as a row for entity index 0.
pub(crate) type LoadOneFn =
    for<'de> fn(&mut dyn erased_serde::Deserializer<'de>) -> Result<Box<dyn Pending>, erased_serde::Error>;
/// One source's pairs of one kind: its targets, and their values as a sequence in the same
/// order (pair kinds only), or `None` when it has none.
pub(crate) type PairsOfFn =
    for<'a> fn(&'a World, Entity) -> Option<(Vec<Entity>, Box<dyn erased_serde::Serialize + 'a>)>;
/// Rewrites the entity handles inside one value.
type MapFn<T> = fn(&mut T, &mut dyn FnMut(Entity) -> Entity);

/// One registered type.
#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
    /// `size_of` the type, in bytes.
    pub(crate) size: usize,
    /// RON: through `erased_serde`.
    pub(crate) save: SaveFn,
    pub(crate) load: LoadFn,
    /// Binary: typed postcard code, embedded in the snapshot as a byte string.
    pub(crate) save_binary: SaveBinaryFn,
    pub(crate) load_binary: LoadBinaryFn,
    /// One value by itself, for [`SnapshotRegistry::insert_by_name`].
    pub(crate) load_one: LoadOneFn,
    /// One entity's value, for [`SnapshotRegistry::component_value`] (`None` for resources).
    pub(crate) save_one: Option<SaveOneFn>,
    /// Every live row, for [`SnapshotRegistry::for_each_value`] (`None` for resources).
    pub(crate) visit: Option<VisitFn>,
    /// One source's pairs, for [`SnapshotRegistry::pairs_of`] (pair kinds only).
    pub(crate) pairs_of: Option<PairsOfFn>,
}

impl Entry {
    /// The entry of type `T` under `name`, with its RON and binary functions.
    pub(crate) fn new<T: 'static>(
        name: &str,
        (save, load): (SaveFn, LoadFn),
        (save_binary, load_binary): (SaveBinaryFn, LoadBinaryFn),
        load_one: LoadOneFn,
    ) -> Self {
        Self {
            name: name.to_owned(),
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            size: size_of::<T>(),
            save,
            load,
            save_binary,
            load_binary,
            load_one,
            save_one: None,
            visit: None,
            pairs_of: None,
        }
    }
}

impl Entry {
    /// This component entry with its one-value and row-visiting functions.
    fn with_rows(mut self, save_one: SaveOneFn, visit: VisitFn) -> Self {
        self.save_one = Some(save_one);
        self.visit = Some(visit);
        self
    }

    /// The entry of component `T` under `name` (what [`SnapshotRegistry::register`] adds).
    pub(crate) fn component<T>(name: &str) -> Self
    where
        T: Component + Serialize + DeserializeOwned,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        Entry::new::<T>(
            name,
            (save_component::<T>, load_component::<T>),
            (save_component_binary::<T>, load_component_binary::<T>),
            load_one_component::<T>,
        )
        .with_rows(save_one_component::<T>, visit_component::<T>)
    }

    /// The entry of component `T`, whose entity handles follow their entities on load, under
    /// `name` (what [`SnapshotRegistry::register_mapped`] adds).
    pub(crate) fn mapped_component<T>(name: &str) -> Self
    where
        T: Component + Serialize + DeserializeOwned + MapEntities,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        Entry::new::<T>(
            name,
            (save_component::<T>, load_mapped_component::<T>),
            (save_component_binary::<T>, load_mapped_component_binary::<T>),
            load_one_component::<T>,
        )
        .with_rows(save_one_component::<T>, visit_component::<T>)
    }

    /// The entry of resource `R` under `name` (what [`SnapshotRegistry::register_resource`]
    /// adds).
    pub(crate) fn resource<R>(name: &str) -> Self
    where
        R: Serialize + DeserializeOwned + Send + Sync + 'static,
    {
        Entry::new::<R>(
            name,
            (save_resource::<R>, load_resource::<R>),
            (save_resource_binary::<R>, load_resource_binary::<R>),
            load_resource::<R>,
        )
    }
}

/// Data read from a snapshot, checked and then put into a world.
pub(crate) trait Pending {
    /// The entity indices the data is for, in the order read (components only).
    fn indices(&self) -> Box<dyn Iterator<Item = u32> + '_>;
    /// Checks what the generic validation does not see (a pair kind's own invariants), with
    /// `name` the registered name, `is_live` telling live saved entity indices and `is_marked`
    /// the indices the snapshot marks as pair targets.
    ///
    /// # Errors
    /// The first problem found.
    fn check(
        &self,
        _name: &str,
        _is_live: &dyn Fn(u32) -> bool,
        _is_marked: &dyn Fn(u32) -> bool,
    ) -> Result<(), SnapshotError> {
        Ok(())
    }
    /// Puts the data into `world`: row `i` of a column goes to `entity_of(index)`. `map`, when
    /// given, rewrites entity handles inside values that implement [`MapEntities`].
    fn apply(
        self: Box<Self>,
        world: &mut World,
        entity_of: &dyn Fn(u32) -> Entity,
        map: Option<&mut dyn FnMut(Entity) -> Entity>,
    );
}

/// A column as read: (entity index, value), in index order.
struct PendingRows<T> {
    rows: Vec<(u32, T)>,
    map: Option<MapFn<T>>,
}

impl<T: Component> Pending for PendingRows<T> {
    fn indices(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        Box::new(self.rows.iter().map(|&(index, _)| index))
    }

    fn apply(
        self: Box<Self>,
        world: &mut World,
        entity_of: &dyn Fn(u32) -> Entity,
        mut map: Option<&mut dyn FnMut(Entity) -> Entity>,
    ) {
        let map_fn = self.map;
        let rows = self.rows.into_iter().map(|(index, mut value)| {
            if let (Some(map_fn), Some(map)) = (map_fn, map.as_deref_mut()) {
                map_fn(&mut value, map);
            }
            (entity_of(index), value)
        });
        // A user's hook may have despawned the entity meanwhile: the value is then dropped.
        world.insert_rows(rows, |_, _| {});
    }
}

/// A resource as read.
struct PendingResource<R>(R);

impl<R: Send + Sync + 'static> Pending for PendingResource<R> {
    fn indices(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        Box::new(std::iter::empty())
    }

    fn apply(
        self: Box<Self>,
        world: &mut World,
        _: &dyn Fn(u32) -> Entity,
        _: Option<&mut dyn FnMut(Entity) -> Entity>,
    ) {
        world.insert_resource(self.0);
    }
}

/// The rows of `T` in a world, written as a sequence of (entity index, value) in index order.
struct Rows<'a, T> {
    world: &'a World,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Serialize for Rows<'_, T>
where
    T: Component + Serialize,
    for<'r> T::Ref<'r>: View<Value = T>,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let world = self.world;
        let Some(pool) = world.components().pool_of::<T>() else {
            return serializer.collect_seq(std::iter::empty::<(u32, T)>());
        };
        // (entity index, row) of the live rows, in index order.
        let mut rows: Vec<(u32, usize)> = pool
            .entities()
            .iter()
            .enumerate()
            .filter(|&(_, &entity)| world.is_alive(entity))
            .map(|(row, entity)| (entity.index(), row))
            .collect();
        rows.sort_unstable_by_key(|&(index, _)| index);
        let mut seq = serializer.serialize_seq(Some(rows.len()))?;
        let entities = pool.entities();
        try_for_each_row::<T, _>(pool, rows.iter().map(|&(_, row)| row), |row, view| {
            seq.serialize_element(&(entities[row].index(), view.read()))
        })?;
        seq.end()
    }
}

fn save_component<T>(world: &World) -> Option<Box<dyn erased_serde::Serialize + '_>>
where
    T: Component + Serialize,
    for<'r> T::Ref<'r>: View<Value = T>,
{
    Some(Box::new(Rows::<T> { world, _marker: PhantomData }))
}

fn save_one_component<T>(world: &World, entity: Entity) -> Option<Box<dyn erased_serde::Serialize>>
where
    T: Component + Serialize,
    for<'r> T::Ref<'r>: View<Value = T>,
{
    let value = world.get::<T>(entity).ok()?.read();
    Some(Box::new(value))
}

fn visit_component<T>(world: &World, visit: &mut dyn FnMut(Entity, &dyn erased_serde::Serialize))
where
    T: Component + Serialize,
    for<'r> T::Ref<'r>: View<Value = T>,
{
    let Some(pool) = world.components().pool_of::<T>() else { return };
    let entities = pool.entities();
    let _ = try_for_each_row::<T, std::convert::Infallible>(pool, 0..pool.len(), |row, view| {
        let entity = entities[row];
        if world.is_alive(entity) {
            visit(entity, &view.read());
        }
        Ok(())
    });
}

fn save_component_binary<T>(world: &World) -> Option<Result<Vec<u8>, postcard::Error>>
where
    T: Component + Serialize,
    for<'r> T::Ref<'r>: View<Value = T>,
{
    // Sized up front: growing the buffer row by row would copy it again and again.
    let rows = world.components().pool_of::<T>().map_or(0, |pool| pool.len());
    let buffer = Vec::with_capacity(rows * (size_of::<(u32, T)>() + 1) + 8);
    Some(postcard::to_extend(&Rows::<T> { world, _marker: PhantomData }, buffer))
}

/// Decodes all of `bytes` as a `V`.
pub(crate) fn decode_all<V: DeserializeOwned>(bytes: &[u8]) -> Result<V, SnapshotError> {
    let (value, rest) = postcard::take_from_bytes(bytes).map_err(SnapshotError::DecodePostcard)?;
    if rest.is_empty() { Ok(value) } else { Err(SnapshotError::TrailingBytes(rest.len())) }
}

fn load_component_binary<T: Component + DeserializeOwned>(
    bytes: &[u8],
) -> Result<Box<dyn Pending>, SnapshotError> {
    Ok(Box::new(PendingRows::<T> { rows: decode_all(bytes)?, map: None }))
}

fn load_mapped_component_binary<T: Component + DeserializeOwned + MapEntities>(
    bytes: &[u8],
) -> Result<Box<dyn Pending>, SnapshotError> {
    Ok(Box::new(PendingRows::<T> { rows: decode_all(bytes)?, map: Some(<T as MapEntities>::map_entities) }))
}

fn save_resource_binary<R: Serialize + Send + Sync + 'static>(
    world: &World,
) -> Option<Result<Vec<u8>, postcard::Error>> {
    world.get_resource::<R>().map(postcard::to_allocvec)
}

fn load_resource_binary<R: DeserializeOwned + Send + Sync + 'static>(
    bytes: &[u8],
) -> Result<Box<dyn Pending>, SnapshotError> {
    Ok(Box::new(PendingResource::<R>(decode_all(bytes)?)))
}

fn load_component<T: Component + DeserializeOwned>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Pending>, erased_serde::Error> {
    let rows: Vec<(u32, T)> = erased_serde::deserialize(deserializer)?;
    Ok(Box::new(PendingRows { rows, map: None }))
}

fn load_mapped_component<T: Component + DeserializeOwned + MapEntities>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Pending>, erased_serde::Error> {
    let rows: Vec<(u32, T)> = erased_serde::deserialize(deserializer)?;
    Ok(Box::new(PendingRows { rows, map: Some(<T as MapEntities>::map_entities) }))
}

fn load_one_component<T: Component + DeserializeOwned>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Pending>, erased_serde::Error> {
    let value: T = erased_serde::deserialize(deserializer)?;
    Ok(Box::new(PendingRows { rows: vec![(0, value)], map: None }))
}

fn save_resource<R: Serialize + Send + Sync + 'static>(
    world: &World,
) -> Option<Box<dyn erased_serde::Serialize + '_>> {
    world.get_resource::<R>().map(|r| Box::new(r) as Box<dyn erased_serde::Serialize + '_>)
}

fn load_resource<R: DeserializeOwned + Send + Sync + 'static>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Pending>, erased_serde::Error> {
    Ok(Box::new(PendingResource::<R>(erased_serde::deserialize(deserializer)?)))
}

/// Which component and resource types a snapshot holds, each under a stable name.
///
/// Names, not Rust type names, identify columns in a snapshot, so a type can be moved to another
/// module without breaking saved files, and renamed too in the binary format (RON writes struct
/// names inside values, so a RON file needs the struct's name kept). Columns are written sorted by name, so the output does not
/// depend on registration order.
///
/// # Examples
/// ```
/// use mosaic::serialize::SnapshotRegistry;
/// use mosaic::{Component, World};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
/// struct Position { x: f32, y: f32 }
///
/// let mut registry = SnapshotRegistry::new();
/// registry.register::<Position>("position");
///
/// let mut world = World::new();
/// let e = world.spawn(Position { x: 1.0, y: 2.0 });
/// let text = registry.save_ron(&mut world).unwrap();
///
/// let mut copy = World::new();
/// registry.load_ron(&mut copy, &text).unwrap();
/// assert_eq!(copy.get::<Position>(e), Ok(&Position { x: 1.0, y: 2.0 })); // same handle
/// ```
#[derive(Clone, Default)]
pub struct SnapshotRegistry {
    /// Sorted by name.
    pub(crate) components: Vec<Entry>,
    /// Sorted by name.
    pub(crate) resources: Vec<Entry>,
    /// Sorted by name.
    pub(crate) relations: Vec<super::relation::RelationEntry>,
    /// Many-to-many pair kinds ([`SnapshotRegistry::register_pair`]), sorted by name.
    pub(crate) pairs: Vec<Entry>,
}

impl std::fmt::Debug for SnapshotRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names =
            |entries: &[Entry]| entries.iter().map(|e| (e.name.clone(), e.type_name)).collect::<Vec<_>>();
        f.debug_struct("SnapshotRegistry")
            .field("components", &names(&self.components))
            .field("resources", &names(&self.resources))
            .field("relations", &self.relation_names().collect::<Vec<_>>())
            .field("pairs", &names(&self.pairs))
            .finish()
    }
}

/// Inserts `entry` into `entries` in name order.
///
/// # Panics
/// If the name or the type is already registered there.
#[track_caller]
pub(crate) fn add(entries: &mut Vec<Entry>, entry: Entry, kind: &str) {
    if let Some(other) = entries.iter().find(|e| e.type_id == entry.type_id) {
        panic!(
            "{kind} `{}` is already registered, as `{}`; register each type once",
            entry.type_name, other.name
        );
    }
    match entries.binary_search_by(|e| e.name.as_str().cmp(&entry.name)) {
        Ok(at) => panic!(
            "the {kind} name `{}` is already taken by `{}`; pick another name for `{}`",
            entry.name, entries[at].type_name, entry.type_name
        ),
        Err(at) => entries.insert(at, entry),
    }
}

impl SnapshotRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers component `T` under `name`. Values are read through the layout-agnostic
    /// [`View::read`] (a clone), so struct-of-arrays components work as well as array-of-structs.
    /// Entity handles inside `T` are kept as saved; use [`SnapshotRegistry::register_mapped`] if
    /// `T` holds handles that must follow their entities into a non-empty world.
    ///
    /// # Panics
    /// If `name` or `T` is already registered as a component.
    #[track_caller]
    pub fn register<T>(&mut self, name: &str) -> &mut Self
    where
        T: Component + Serialize + DeserializeOwned,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        add(&mut self.components, Entry::component::<T>(name), "component");
        self
    }

    /// Registers component `T`, which holds entity handles, under `name`: when a snapshot is
    /// loaded into a world that already has entities, each handle inside `T` is rewritten to the
    /// entity's new id with [`MapEntities::map_entities`].
    ///
    /// # Panics
    /// If `name` or `T` is already registered as a component.
    #[track_caller]
    pub fn register_mapped<T>(&mut self, name: &str) -> &mut Self
    where
        T: Component + Serialize + DeserializeOwned + MapEntities,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        add(&mut self.components, Entry::mapped_component::<T>(name), "component");
        self
    }

    /// Registers resource `R` under `name`: saved when the world has one, inserted (replacing any)
    /// on load. Entity handles inside a resource are not remapped.
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a resource.
    #[track_caller]
    pub fn register_resource<R>(&mut self, name: &str) -> &mut Self
    where
        R: Serialize + DeserializeOwned + Send + Sync + 'static,
    {
        add(&mut self.resources, Entry::resource::<R>(name), "resource");
        self
    }

    /// The registered component names, sorted.
    pub fn component_names(&self) -> impl Iterator<Item = &str> {
        self.components.iter().map(|e| e.name.as_str())
    }

    /// The registered resource names, sorted.
    pub fn resource_names(&self) -> impl Iterator<Item = &str> {
        self.resources.iter().map(|e| e.name.as_str())
    }
}

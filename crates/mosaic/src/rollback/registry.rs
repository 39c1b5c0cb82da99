//! The registry of what rollback saves, restores, hashes and records.

use std::any::{Any, TypeId};
use std::hash::Hash;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::hash::StableHasher;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{PoolImage, SparseSet, StorageInfo, Tick};
use crate::world::World;

/// Saves one registered pool of a world into an image (an empty image if the world has no pool).
pub(crate) type SavePoolFn = fn(&World, &mut PoolImage);
/// Puts an image back into a world's pool (creating the pool if needed).
pub(crate) type RestorePoolFn = fn(&mut World, &PoolImage);
/// Hashes the values of one pool, in row order.
pub(crate) type HashPoolFn = Arc<dyn Fn(&SparseSet, &mut StableHasher) + Send + Sync>;
/// The first row at which two images of the same type hold different values (both have at least
/// that many rows), or `None`.
pub(crate) type DiffPoolFn = Arc<dyn Fn(&PoolImage, &PoolImage) -> Option<usize> + Send + Sync>;
/// Given pairs `(row in a, row in b)` of the same entity in two images of the same type, pushes
/// the index of every pair whose values differ, in pair order.
pub(crate) type ChangedRowsFn =
    Arc<dyn Fn(&PoolImage, &PoolImage, &[(u32, u32)], &mut Vec<usize>) + Send + Sync>;

/// Hashes a resource's value (a typed function behind `dyn Any`).
pub(crate) type HashResourceFn = Arc<dyn Fn(&(dyn Any + Send + Sync), &mut StableHasher) + Send + Sync>;
/// An input as postcard bytes, or `None` if the world has none.
pub(crate) type EncodeInputFn = fn(&World) -> Option<Result<Vec<u8>, postcard::Error>>;
/// Decodes an input's postcard bytes (all of them) into a value to insert.
pub(crate) type DecodeInputFn = fn(&[u8]) -> Result<Box<dyn Any + Send>, postcard::Error>;

/// A saved resource: `None` when the world had none.
pub(crate) type SavedResource = Option<Box<dyn Any + Send + Sync>>;

/// One registered component type.
#[derive(Clone)]
pub(crate) struct ComponentEntry {
    pub(crate) name: String,
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
    pub(crate) save: SavePoolFn,
    pub(crate) restore: RestorePoolFn,
    pub(crate) hash: HashPoolFn,
    pub(crate) diff: DiffPoolFn,
    pub(crate) changed: ChangedRowsFn,
}

/// One registered resource type.
#[derive(Clone)]
pub(crate) struct ResourceEntry {
    pub(crate) name: String,
    pub(crate) type_name: &'static str,
    /// Clones the world's resource into the saved one (reusing it), or `None` if absent.
    pub(crate) save: fn(&World, &mut SavedResource),
    /// Puts the saved resource back (removing the world's if none was saved).
    pub(crate) restore: fn(&mut World, &SavedResource),
    /// Hashes a resource's value, if it is hashed (a typed function behind `dyn Any`).
    pub(crate) hash: Option<HashResourceFn>,
    /// The world's resource as `dyn Any`, if present.
    pub(crate) get: fn(&World) -> Option<&(dyn Any + Send + Sync)>,
    /// The world's resource's change ticks (added, changed), if present.
    pub(crate) ticks: fn(&World) -> Option<(Tick, Tick)>,
    /// Puts change ticks back on the world's resource, if present.
    pub(crate) set_ticks: fn(&World, (Tick, Tick)),
}

/// One registered many-to-many pair kind whose values the world hash covers.
#[derive(Clone)]
pub(crate) struct PairEntry {
    pub(crate) name: String,
    pub(crate) type_name: &'static str,
    /// The stable hash of the values of every pair of the kind, in [`World::pairs`] order;
    /// `None` when the world has none.
    pub(crate) hash: fn(&World) -> Option<u64>,
}

/// One registered input resource.
#[derive(Clone)]
pub(crate) struct InputEntry {
    pub(crate) name: String,
    pub(crate) type_name: &'static str,
    /// The world's input as postcard bytes, or `None` if the world has none.
    pub(crate) encode: EncodeInputFn,
    /// Decodes postcard bytes (all of them) into a value to insert.
    pub(crate) decode: DecodeInputFn,
    /// Inserts a decoded value into the world.
    pub(crate) insert: fn(&mut World, Box<dyn Any + Send>),
    /// Removes the world's input, if any.
    pub(crate) remove: fn(&mut World),
}

/// Which components, resources and inputs take part in rollback, each under a stable name.
///
/// Components come in two kinds:
/// - [`RollbackRegistry::register`]: plain data (`Copy` with no padding, `bytemuck::NoUninit`),
///   saved and restored by `memcpy` of whole columns and hashed as raw bytes: the fast path,
///   either layout (array-of-structs or struct-of-arrays);
/// - [`RollbackRegistry::register_clone`]: any `Clone + Hash` array-of-structs component, saved
///   and restored by `clone_from` (reusing heap buffers) and hashed through [`Hash`] with the
///   stable hasher.
///
/// The hierarchy ([`Relationship`](crate::hierarchy::Relationship) and its ordering
/// bookkeeping) is always included. Resources are cloned ([`RollbackRegistry::register_resource`]
/// and friends); inputs ([`RollbackRegistry::register_input`]) are what a
/// [`Recording`](super::Recording) records per frame.
///
/// Names, not Rust type names, identify entries in hashes, desync reports and recordings; entries
/// are kept sorted by name, so the hash does not depend on registration order.
///
/// # Examples
/// ```
/// use mosaic::rollback::{NoUninit, RollbackRegistry};
/// use mosaic::Component;
///
/// #[derive(Component, Clone, Copy, NoUninit)]
/// #[bytemuck(crate = "mosaic::rollback::bytemuck")]
/// #[repr(C)]
/// struct Position { x: f32, y: f32 }
///
/// #[derive(Component, Clone, Hash)]
/// struct Name(String);
///
/// let mut registry = RollbackRegistry::new();
/// registry.register::<Position>("position").register_clone::<Name>("name");
/// assert_eq!(registry.component_names().collect::<Vec<_>>(), ["name", "position"]);
/// ```
#[derive(Clone, Default)]
pub struct RollbackRegistry {
    /// Sorted by name.
    pub(crate) components: Vec<ComponentEntry>,
    /// Sorted by name.
    pub(crate) resources: Vec<ResourceEntry>,
    /// Sorted by name.
    pub(crate) inputs: Vec<InputEntry>,
    /// Pair kinds whose values are hashed, sorted by name.
    pub(crate) pairs: Vec<PairEntry>,
}

impl std::fmt::Debug for RollbackRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RollbackRegistry")
            .field("components", &self.components.iter().map(|e| &e.name).collect::<Vec<_>>())
            .field("resources", &self.resources.iter().map(|e| &e.name).collect::<Vec<_>>())
            .field("inputs", &self.inputs.iter().map(|e| &e.name).collect::<Vec<_>>())
            .field("pairs", &self.pairs.iter().map(|e| &e.name).collect::<Vec<_>>())
            .finish()
    }
}

/// Inserts an entry in name order, refusing a name or type registered twice.
#[track_caller]
fn add<E>(entries: &mut Vec<E>, entry: E, key: impl Fn(&E) -> (&str, &'static str), kind: &str) {
    let (name, type_name) = key(&entry);
    if let Some(other) = entries.iter().find(|e| key(e).1 == type_name) {
        panic!("{kind} `{type_name}` is already registered, as `{}`; register each type once", key(other).0);
    }
    match entries.binary_search_by(|e| key(e).0.cmp(name)) {
        Ok(at) => panic!(
            "the {kind} name `{name}` is already taken by `{}`; pick another name for `{type_name}`",
            key(&entries[at]).1
        ),
        Err(at) => entries.insert(at, entry),
    }
}

fn save_copy<T: Component + Copy>(world: &World, image: &mut PoolImage) {
    match world.components().pool_of::<T>() {
        Some(pool) => image.save_copy::<T>(pool),
        None => image.save_empty::<T>(),
    }
}

fn restore_copy<T: Component + Copy>(world: &mut World, image: &PoolImage) {
    if image.len() == 0 && world.components().id::<T>().is_none() {
        return;
    }
    let id = world.components_mut().register::<T>();
    image.restore_copy::<T>(world.components_mut().pool_mut(id));
}

fn hash_plain<T: Component + bytemuck::NoUninit>(pool: &SparseSet, hasher: &mut StableHasher) {
    if pool.is_soa() {
        for bytes in pool.soa().field_bytes::<T>() {
            hasher.write_block(bytes);
        }
    } else {
        hasher.write_block(bytemuck::cast_slice::<T, u8>(pool.values::<T>()));
    }
}

fn diff_plain<T: Component + bytemuck::NoUninit>(a: &PoolImage, b: &PoolImage) -> Option<usize> {
    let rows = a.len().min(b.len());
    if let (Some(va), Some(vb)) = (a.values::<T>(), b.values::<T>()) {
        return (0..rows).find(|&r| bytemuck::bytes_of(&va[r]) != bytemuck::bytes_of(&vb[r]));
    }
    let (fa, fb) = (a.field_bytes::<T>()?, b.field_bytes::<T>()?);
    // Only called for r < rows, so both images have rows and the divisions are defined.
    (0..rows).find(|&r| {
        fa.iter().zip(&fb).any(|(x, y)| {
            let size = x.len() / a.len();
            x[r * size..(r + 1) * size] != y[r * size..(r + 1) * size]
        })
    })
}

/// [`ChangedRowsFn`] of a plain-data type: compares the rows' bytes (per field column for
/// struct-of-arrays images).
fn changed_plain<T: Component + bytemuck::NoUninit>(
    a: &PoolImage,
    b: &PoolImage,
    pairs: &[(u32, u32)],
    out: &mut Vec<usize>,
) {
    if pairs.is_empty() {
        return;
    }
    if let (Some(va), Some(vb)) = (a.values::<T>(), b.values::<T>()) {
        out.extend(pairs.iter().enumerate().filter_map(|(i, &(ra, rb))| {
            (bytemuck::bytes_of(&va[ra as usize]) != bytemuck::bytes_of(&vb[rb as usize])).then_some(i)
        }));
        return;
    }
    let (Some(fa), Some(fb)) = (a.field_bytes::<T>(), b.field_bytes::<T>()) else { return };
    // Both images hold rows (a pair names one in each), so the divisions are defined.
    let sizes: Vec<usize> = fa.iter().map(|column| column.len() / a.len()).collect();
    out.extend(pairs.iter().enumerate().filter_map(|(i, &(ra, rb))| {
        let (ra, rb) = (ra as usize, rb as usize);
        let differs = fa
            .iter()
            .zip(&fb)
            .zip(&sizes)
            .any(|((x, y), &size)| x[ra * size..(ra + 1) * size] != y[rb * size..(rb + 1) * size]);
        differs.then_some(i)
    }));
}

/// The stable hash of one value by `hash`.
pub(crate) fn digest<T: ?Sized>(hash: &(impl Fn(&T, &mut StableHasher) + ?Sized), value: &T) -> u64 {
    let mut hasher = StableHasher::new();
    hash(value, &mut hasher);
    std::hash::Hasher::finish(&hasher)
}

fn save_clone<T: Component + Clone>(world: &World, image: &mut PoolImage) {
    match world.components().pool_of::<T>() {
        Some(pool) => image.save_clone::<T>(pool),
        None => image.save_empty::<T>(),
    }
}

fn restore_clone<T: Component + Clone>(world: &mut World, image: &PoolImage) {
    if image.len() == 0 && world.components().id::<T>().is_none() {
        return;
    }
    let id = world.components_mut().register::<T>();
    image.restore_clone::<T>(world.components_mut().pool_mut(id));
}

fn save_resource<R: Clone + Send + Sync + 'static>(world: &World, saved: &mut SavedResource) {
    match (world.get_resource::<R>(), saved.as_mut().and_then(|b| b.downcast_mut::<R>())) {
        (Some(value), Some(slot)) => slot.clone_from(value),
        (Some(value), None) => *saved = Some(Box::new(value.clone())),
        (None, _) => *saved = None,
    }
}

fn restore_resource<R: Clone + Send + Sync + 'static>(world: &mut World, saved: &SavedResource) {
    match saved.as_ref().and_then(|b| b.downcast_ref::<R>()) {
        Some(value) => match world.get_resource_mut::<R>() {
            Some(slot) => slot.clone_from(value),
            None => {
                world.insert_resource(value.clone());
            }
        },
        None => {
            world.remove_resource::<R>();
        }
    }
}

fn resource_ticks<R: Send + Sync + 'static>(world: &World) -> Option<(Tick, Tick)> {
    world.resource_change_ticks::<R>()
}

fn set_resource_ticks<R: Send + Sync + 'static>(world: &World, (added, changed): (Tick, Tick)) {
    if let Some(ticks) = world.resource_map().ticks::<R>() {
        ticks.set(added, changed);
    }
}

fn get_resource<R: Send + Sync + 'static>(world: &World) -> Option<&(dyn Any + Send + Sync)> {
    world.get_resource::<R>().map(|r| r as &(dyn Any + Send + Sync))
}

fn encode_input<R: Serialize + Send + Sync + 'static>(
    world: &World,
) -> Option<Result<Vec<u8>, postcard::Error>> {
    world.get_resource::<R>().map(postcard::to_allocvec)
}

fn decode_input<R: DeserializeOwned + Send + Sync + 'static>(
    bytes: &[u8],
) -> Result<Box<dyn Any + Send>, postcard::Error> {
    let (value, rest) = postcard::take_from_bytes::<R>(bytes)?;
    if !rest.is_empty() {
        return Err(postcard::Error::DeserializeBadEncoding);
    }
    Ok(Box::new(value))
}

fn insert_input<R: Send + Sync + 'static>(world: &mut World, value: Box<dyn Any + Send>) {
    if let Ok(value) = value.downcast::<R>() {
        world.insert_resource(*value);
    }
}

fn remove_input<R: Send + Sync + 'static>(world: &mut World) {
    world.remove_resource::<R>();
}

impl ComponentEntry {
    /// The entry of plain-data component `T` under `name` (what [`RollbackRegistry::register`]
    /// adds).
    pub(crate) fn plain<T: Component + bytemuck::NoUninit>(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            save: save_copy::<T>,
            restore: restore_copy::<T>,
            hash: Arc::new(hash_plain::<T>),
            diff: Arc::new(diff_plain::<T>),
            changed: Arc::new(changed_plain::<T>),
        }
    }

    /// The entry of component `T` saved by `clone_from` and hashed by `hash`, under `name`
    /// (what [`RollbackRegistry::register_clone_with`] adds).
    ///
    /// # Panics
    /// If `T` is stored struct-of-arrays.
    #[track_caller]
    pub(crate) fn cloned<T: Component + Clone>(
        name: &str,
        hash: impl Fn(&T, &mut StableHasher) + Clone + Send + Sync + 'static,
    ) -> Self {
        assert!(
            matches!(T::storage_info(), StorageInfo::Aos(_)),
            "`{}` is stored struct-of-arrays: rollback clones only array-of-structs components; make it plain \
             data and use `register`",
            std::any::type_name::<T>()
        );
        ComponentEntry {
            name: name.to_owned(),
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            save: save_clone::<T>,
            restore: restore_clone::<T>,
            hash: Arc::new({
                let hash = hash.clone();
                move |pool: &SparseSet, hasher: &mut StableHasher| {
                    for value in pool.values::<T>() {
                        hash(value, hasher);
                    }
                }
            }),
            diff: Arc::new({
                let hash = hash.clone();
                move |a: &PoolImage, b: &PoolImage| {
                    let (a, b) = (a.values::<T>()?, b.values::<T>()?);
                    let one = |value: &T| digest(&hash, value);
                    a.iter().zip(b).position(|(x, y)| one(x) != one(y))
                }
            }),
            changed: Arc::new(
                move |a: &PoolImage, b: &PoolImage, pairs: &[(u32, u32)], out: &mut Vec<usize>| {
                    let (Some(a), Some(b)) = (a.values::<T>(), b.values::<T>()) else { return };
                    out.extend(pairs.iter().enumerate().filter_map(|(i, &(ra, rb))| {
                        (digest(&hash, &a[ra as usize]) != digest(&hash, &b[rb as usize])).then_some(i)
                    }));
                },
            ),
        }
    }
}

impl ResourceEntry {
    /// The entry of resource `R` under `name`, saved by `clone_from` and hashed by `hash` when
    /// given.
    pub(crate) fn new<R: Clone + Send + Sync + 'static>(name: &str, hash: Option<HashResourceFn>) -> Self {
        Self {
            name: name.to_owned(),
            type_name: std::any::type_name::<R>(),
            save: save_resource::<R>,
            restore: restore_resource::<R>,
            hash,
            get: get_resource::<R>,
            ticks: resource_ticks::<R>,
            set_ticks: set_resource_ticks::<R>,
        }
    }

    /// The hash function of `R` by `hash`, type-erased.
    pub(crate) fn hash_fn<R: Send + Sync + 'static>(
        hash: impl Fn(&R, &mut StableHasher) + Send + Sync + 'static,
    ) -> HashResourceFn {
        Arc::new(move |value: &(dyn Any + Send + Sync), hasher: &mut StableHasher| {
            if let Some(value) = value.downcast_ref::<R>() {
                hash(value, hasher);
            }
        })
    }
}

impl PairEntry {
    /// The entry hashing pair kind `R`'s values under `name`.
    pub(crate) fn new<R: crate::hierarchy::PairRelation + Hash>(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            type_name: std::any::type_name::<R>(),
            hash: |world| {
                let mut values = world.pairs::<R>().map(|(_, _, value)| value).peekable();
                values.peek()?;
                let mut hasher = StableHasher::with_seed(7);
                values.for_each(|value| value.hash(&mut hasher));
                Some(std::hash::Hasher::finish(&hasher))
            },
        }
    }
}

impl InputEntry {
    /// The entry of input `I` under `name`.
    pub(crate) fn new<I: Serialize + DeserializeOwned + Send + Sync + 'static>(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            type_name: std::any::type_name::<I>(),
            encode: encode_input::<I>,
            decode: decode_input::<I>,
            insert: insert_input::<I>,
            remove: remove_input::<I>,
        }
    }
}

impl RollbackRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers plain-data component `T` under `name`: saved and restored by copying whole
    /// columns (one `memcpy` per column), hashed as its raw bytes. `NoUninit` (derive it, with
    /// `#[repr(C)]`) guarantees the bytes hold no padding, so the hash is defined and stable.
    ///
    /// # Panics
    /// If `name` or `T` is already registered as a component.
    #[track_caller]
    pub fn register<T: Component + bytemuck::NoUninit>(&mut self, name: &str) -> &mut Self {
        add(
            &mut self.components,
            ComponentEntry::plain::<T>(name),
            |e| (e.name.as_str(), e.type_name),
            "component",
        );
        self
    }

    /// Registers component `T` under `name`, saved and restored by `clone_from` (which reuses the
    /// values' heap buffers) and hashed through [`Hash`] with the stable hasher (so its `Hash`
    /// must be deterministic: no pointers, no `HashMap` iteration order).
    ///
    /// # Panics
    /// If `name` or `T` is already registered as a component, or `T` is stored struct-of-arrays
    /// (register a struct-of-arrays component with [`RollbackRegistry::register`]: it must be
    /// plain data).
    #[track_caller]
    pub fn register_clone<T: Component + Clone + Hash>(&mut self, name: &str) -> &mut Self {
        self.register_clone_with::<T>(name, |value, hasher| value.hash(hasher))
    }

    /// Registers component `T` under `name`, saved and restored as by
    /// [`RollbackRegistry::register_clone`], hashed by `hash` (for a type without [`Hash`], such
    /// as one holding floats: hash their bits).
    ///
    /// # Panics
    /// As [`RollbackRegistry::register_clone`].
    #[track_caller]
    pub fn register_clone_with<T: Component + Clone>(
        &mut self,
        name: &str,
        hash: impl Fn(&T, &mut StableHasher) + Clone + Send + Sync + 'static,
    ) -> &mut Self {
        let entry = ComponentEntry::cloned::<T>(name, hash);
        add(&mut self.components, entry, |e| (e.name.as_str(), e.type_name), "component");
        self
    }

    /// Registers resource `R` under `name`: saved and restored by `clone_from`, hashed through
    /// [`Hash`]. A world without an `R` saves "none", and restoring that removes the world's `R`.
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a resource.
    #[track_caller]
    pub fn register_resource<R: Clone + Hash + Send + Sync + 'static>(&mut self, name: &str) -> &mut Self {
        self.register_resource_with::<R>(name, |value, hasher| value.hash(hasher))
    }

    /// Registers resource `R` under `name`, saved and restored as by
    /// [`RollbackRegistry::register_resource`], hashed by `hash` (for a type without [`Hash`],
    /// such as a random generator whose state is private: hash what it would draw next from a
    /// clone).
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a resource.
    #[track_caller]
    pub fn register_resource_with<R: Clone + Send + Sync + 'static>(
        &mut self,
        name: &str,
        hash: impl Fn(&R, &mut StableHasher) + Send + Sync + 'static,
    ) -> &mut Self {
        self.resource_entry::<R>(name, Some(ResourceEntry::hash_fn(hash)))
    }

    /// Registers resource `R` under `name`, saved and restored as by
    /// [`RollbackRegistry::register_resource`] but left out of the world hash (state that is not
    /// part of the simulation's identity, such as statistics).
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a resource.
    #[track_caller]
    pub fn register_resource_unhashed<R: Clone + Send + Sync + 'static>(&mut self, name: &str) -> &mut Self {
        self.resource_entry::<R>(name, None)
    }

    #[track_caller]
    fn resource_entry<R: Clone + Send + Sync + 'static>(
        &mut self,
        name: &str,
        hash: Option<HashResourceFn>,
    ) -> &mut Self {
        add(
            &mut self.resources,
            ResourceEntry::new::<R>(name, hash),
            |e| (e.name.as_str(), e.type_name),
            "resource",
        );
        self
    }

    /// Registers input resource `I` under `name`: what the outside world injects each frame (a
    /// player's buttons, a network packet). A [`Recording`](super::Recording) stores it per frame
    /// (postcard bytes) and puts it back on replay. Inputs are not saved in the ring nor hashed:
    /// they are the cause of a frame, not its state.
    ///
    /// # Panics
    /// If `name` or `I` is already registered as an input.
    #[track_caller]
    pub fn register_input<I>(&mut self, name: &str) -> &mut Self
    where
        I: Serialize + DeserializeOwned + Send + Sync + 'static,
    {
        add(&mut self.inputs, InputEntry::new::<I>(name), |e| (e.name.as_str(), e.type_name), "input");
        self
    }

    /// Adds the values of pair kind `R` ([`World::add_pair_with`]) to the world hash
    /// ([`RollbackRegistry::hash`], the ring's hashes and desync checks), under `name`: each
    /// pair's value through [`Hash`] with the stable hasher, in [`World::pairs`] order (so its
    /// `Hash` must be deterministic). Without it the hash covers a kind's pairs (sources,
    /// targets, slots, the reverse index) but not their values, since `R` need not be `Hash`.
    /// Pairs are saved and restored by rollback whether registered or not. Hashing costs
    /// O(pairs of `R`).
    ///
    /// Desync reports ([`StateDifference`](super::StateDifference)) compare pairs without their
    /// values: two runs whose pairs differ only in a value hash differently but are not told
    /// apart by the report.
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a pair kind.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::hierarchy::PairRelation;
    /// use mosaic::rollback::RollbackRegistry;
    ///
    /// #[derive(Clone, Hash)]
    /// struct Owes(u32);
    /// impl PairRelation for Owes {}
    ///
    /// let mut world = World::new();
    /// let [a, b] = [(); 2].map(|()| world.spawn_empty());
    /// world.add_pair_with(a, b, Owes(1));
    /// let mut registry = RollbackRegistry::new();
    /// registry.register_pair::<Owes>("owes");
    /// let before = registry.hash(&world);
    /// world.add_pair_with(a, b, Owes(2));
    /// assert_ne!(registry.hash(&world), before, "the value counts");
    /// ```
    #[track_caller]
    pub fn register_pair<R: crate::hierarchy::PairRelation + Hash>(&mut self, name: &str) -> &mut Self {
        add(&mut self.pairs, PairEntry::new::<R>(name), |e| (e.name.as_str(), e.type_name), "pair kind");
        self
    }

    /// The names of the pair kinds whose values are hashed, sorted.
    pub fn pair_names(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|e| e.name.as_str())
    }

    /// The registered component names, sorted.
    pub fn component_names(&self) -> impl Iterator<Item = &str> {
        self.components.iter().map(|e| e.name.as_str())
    }

    /// The registered resource names, sorted.
    pub fn resource_names(&self) -> impl Iterator<Item = &str> {
        self.resources.iter().map(|e| e.name.as_str())
    }

    /// The registered input names, sorted.
    pub fn input_names(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(|e| e.name.as_str())
    }

    /// The first component pool of `world` that holds rows but is not registered (the hierarchy's
    /// pool is always covered): its type name.
    pub(crate) fn unregistered_pool(&self, world: &World) -> Option<&'static str> {
        // O(pools * entries) lookups and no allocation: both counts are small.
        let relationship = world.components().id::<crate::hierarchy::Relationship>();
        let relations = world.relation_index();
        let relation =
            |index: usize| relations.kinds.iter().any(|k| k.pair.index() == index || k.mark.index() == index);
        // The observer registry's markers are checked by the `ObserversPart`.
        let observer_marks = [
            world.components().id::<crate::observer::Observer>(),
            world.components().id::<crate::observer::Observed>(),
        ];
        // Run-time components with a schema are saved as bytes by the `DynamicPools` part.
        let schema_component = |index: usize| {
            world
                .components()
                .dynamic_info(ComponentId::from_index(index))
                .is_some_and(|info| info.schema.is_some())
        };
        let covered = |index: usize| {
            schema_component(index)
                || observer_marks.iter().flatten().any(|id| id.index() == index)
                || relationship.is_some_and(|id| id.index() == index)
                || relation(index)
                || world.pair_index().kinds.iter().any(|k| k.pool.index() == index)
                || world.pair_index().mark.is_some_and(|id| id.index() == index)
                || self
                    .components
                    .iter()
                    .any(|e| world.components().id_by_type(e.type_id).is_some_and(|id| id.index() == index))
        };
        let pools = world.components().pools().iter().enumerate();
        pools
            .filter(|(_, pool)| !pool.is_empty())
            .find(|&(i, _)| !covered(i))
            .map(|(_, pool)| pool.type_name())
    }
}

/// The entity `word` of a dense row: index and generation, world tag left out.
#[inline]
pub(crate) fn entity_word(entity: Entity) -> u64 {
    u64::from(entity.index()) | (u64::from(entity.generation()) << 32)
}

//! Component ids and the registry of pools.

use std::any::TypeId;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use rustc_hash::FxHashMap;

use super::schema::Schema;
use crate::storage::{Clock, ColumnInfo, SparseSet, StorageInfo, Stored};

/// A type's [`Component::register_required`].
pub(crate) type DeclareRequired = fn(&mut crate::world::RequiredComponents);

/// Plain data that can be attached to an entity.
///
/// Derive it with `#[derive(Component)]`; the `#[component(...)]` attribute is where per-type
/// options go:
/// - `storage = "aos"` (the default): values are stored whole, one after another; queries and
///   `get` hand out `&T` / `&mut T`.
/// - `storage = "soa"` (structs with named fields): every field in its own column, all columns
///   in one allocation; queries and `get` hand out generated views `TRef { field: &F, .. }` /
///   `TMut { field: &mut F, .. }`, and chunked iteration hands out per-field slices. Insert takes
///   the plain struct and remove gives it back. Switching layout is one attribute on the type, but
///   access sites change with it (`*v.x` on a view instead of `v.x`) unless they go through
///   [`View`](crate::View) / [`ViewMut`](crate::ViewMut).
///
/// - `immutable`: no `&mut` access at all. `Query<&mut T>`, `World::get_mut::<T>` and
///   `EntityMut::get_mut::<T>` do not compile for it; the value changes only by being replaced
///   whole (`World::insert`, which runs the `on_replace` hooks) or removed. Components whose
///   invariants the library keeps ([`Relationship`](crate::Relationship),
///   [`Pair`](crate::hierarchy::Pair)) are immutable. bevy's immutable components (0.16).
///
/// The layout itself is described by the [`Stored`] supertrait, which the derive implements, and
/// whether `&mut` access exists by [`MutableComponent`]. The derive accepts any
/// `Send + Sync + 'static` type (struct-of-arrays: every field `Send + Sync` too): the bounds let
/// pools move between threads and be read from several at once. Implementing the traits by hand
/// needs `unsafe` ([`Stored`] is an `unsafe` trait); use the derive.
///
/// # Examples
/// ```
/// use mosaic::Component;
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Position {
///     x: f32,
///     y: f32,
/// }
///
/// #[derive(Component, Debug, PartialEq)]
/// #[component(storage = "soa")]
/// struct Velocity {
///     x: f32,
///     y: f32,
/// }
///
/// let mut world = mosaic::World::new();
/// let e = world.spawn((Position { x: 0.0, y: 0.0 }, Velocity { x: 1.0, y: 2.0 }));
/// world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| {
///     p.x += *v.x; // `v` is a `VelocityRef { x: &f32, y: &f32 }`
///     p.y += *v.y;
/// });
/// assert_eq!(world.get::<Position>(e), Ok(&Position { x: 1.0, y: 2.0 }));
/// assert_eq!(world.remove::<Velocity>(e), Some(Velocity { x: 1.0, y: 2.0 }));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component",
    label = "not a component",
    note = "derive it: `#[derive(Component)]`",
    note = "a tuple is a bundle of components, not one: add several with `World::insert_bundle` / `EntityMut::insert_bundle` (as `spawn`, `remove` and `CommandBuffer::insert` take bundles)"
)]
pub trait Component: Stored {
    /// Declares the components an entity holding this one must also have, and how to make
    /// each: what `#[require(Velocity, Health = Health(100))]` on the derive writes (bevy 0.15's
    /// required components). Spawn and insert add the missing ones, recursively; see
    /// [`World::register_required_components`](crate::World::register_required_components) for
    /// the run-time form. Nothing by default.
    ///
    /// # Panics
    /// A world panics when it first registers a type whose declarations form a cycle (`A`
    /// requires `B`, which requires `A`), naming the cycle.
    fn register_required(_required: &mut crate::world::RequiredComponents) {}

    /// Declares what the type supports in a world's [type registry](crate::types): what
    /// `#[register(name = "health", plain, serde)]` on the derive writes, applied by
    /// [`World::register`](crate::World::register) before it hands the declaration back.
    /// Returns `decl` unchanged by default.
    ///
    /// # Panics
    /// As the declaration's methods (a name another component type has).
    fn declare(decl: crate::types::ComponentDecl<'_, Self>) -> crate::types::ComponentDecl<'_, Self> {
        decl
    }

    /// Whether [`Component::register_required`] declares anything: written by the derive.
    #[doc(hidden)]
    fn declares_required() -> bool {
        false
    }
}

/// A component that can be written in place: `&mut T` in queries, [`World::get_mut`] and
/// [`EntityMut::get_mut`](crate::EntityMut::get_mut) need it. `#[derive(Component)]` implements
/// it unless the type says `#[component(immutable)]`; an immutable component changes only by
/// being replaced whole ([`World::insert`], which runs its `on_replace` hooks) or removed. bevy's
/// immutable components (0.16), as a marker trait so the compiler's message names the rule.
///
/// Generic code that writes components in place bounds on it: `fn f<T: MutableComponent>`.
///
/// # Examples
/// ```
/// use mosaic::{Component, World};
///
/// #[derive(Component, Debug, PartialEq)]
/// #[component(immutable, storage = "soa")]
/// struct Spawnpoint { x: i32, y: i32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Spawnpoint { x: 1, y: 2 });
/// // Replaced whole, never written in place:
/// world.insert(e, Spawnpoint { x: 3, y: 4 });
/// assert_eq!(world.get::<Spawnpoint>(e).unwrap().cloned(), Spawnpoint { x: 3, y: 4 });
/// ```
/// ```compile_fail,E0277
/// # use mosaic::{Component, World};
/// # #[derive(Component)]
/// # #[component(immutable)]
/// # struct Spawnpoint(i32);
/// # let mut world = World::new();
/// # let e = world.spawn(Spawnpoint(1));
/// world.get_mut::<Spawnpoint>(e).unwrap().0 = 5; // `Spawnpoint` is an immutable component
/// ```
///
/// [`World::get_mut`]: crate::World::get_mut
/// [`World::insert`]: crate::World::insert
#[diagnostic::on_unimplemented(
    message = "`{Self}` is an immutable component: it cannot be borrowed mutably",
    label = "`&mut {Self}` is not available",
    note = "replace the value whole with `World::insert` (its `on_replace` hooks run), or drop \
            `#[component(immutable)]` from its derive; components whose links the library keeps \
            (`Relationship`, `Pair`) change only through their own API"
)]
pub trait MutableComponent: Component {}

/// A component stored array-of-structs, whose views are plain references: in generic code,
/// `T: AosComponent` lets `world.get::<T>(e)` be used as `&T` and a `Query<&mut T>` item as
/// `&mut T`. Every `#[derive(Component)]` type with the default storage implements it.
pub trait AosComponent: Component + for<'a> Stored<Ref<'a> = &'a Self, Mut<'a> = &'a mut Self> {}

impl<T> AosComponent for T where T: Component + for<'a> Stored<Ref<'a> = &'a T, Mut<'a> = &'a mut T> {}

/// A dense, per-world id for a component type, assigned on first use in `0..n` where `n` is the
/// number of types registered. There is no compile-time cap on the number of types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(u32);

impl ComponentId {
    /// The id as an index into per-type tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The id with index `index` (a position in a per-id table such as [`Components::pools`]).
    #[cfg(any(test, feature = "rollback"))]
    #[inline]
    pub(crate) const fn from_index(index: usize) -> Self {
        Self(index as u32)
    }
}

/// The component types a world knows, and their pools.
///
/// Ids are assigned in registration order; registering is O(1) amortised, looking an id up from
/// a type is one hash of its `TypeId`.
#[derive(Debug)]
pub struct Components {
    by_type: FxHashMap<TypeId, ComponentId>,
    /// By process-wide type slot (`Stored::type_slot`): the type's `ComponentId + 1`, or 0 when
    /// this world has not registered it. Index 0 is never a slot.
    by_slot: Vec<u32>,
    pools: Vec<SparseSet>,
    /// The world's change clock, which tracked pools stamp with.
    clock: Arc<Clock>,
    /// Types registered since the world last looked whose derive declares required components,
    /// with their declaring function.
    pending_required: Vec<(ComponentId, DeclareRequired)>,
    /// Components defined at run time (`mosaic::dynamic`), by id index (`None` for Rust types;
    /// shorter than `pools` when the last types registered are Rust types).
    dynamic: Vec<Option<DynamicInfo>>,
    /// Run-time components by name.
    by_name: FxHashMap<&'static str, ComponentId>,
}

/// What the registry knows of a component defined at run time.
#[derive(Clone, Debug)]
pub struct DynamicInfo {
    /// Its name, unique among the world's run-time components.
    pub name: &'static str,
    /// Its field schema; `None` for a component registered from raw parts (bytes reached only
    /// through `unsafe` functions).
    pub schema: Option<Arc<Schema>>,
}

impl Default for Components {
    fn default() -> Self {
        Self::with_clock(Clock::new(32))
    }
}

impl Components {
    /// An empty registry whose tracked pools stamp with `clock`.
    pub(crate) fn with_clock(clock: Clock) -> Self {
        Self {
            by_type: FxHashMap::default(),
            by_slot: Vec::new(),
            pools: Vec::new(),
            clock: Arc::new(clock),
            pending_required: Vec::new(),
            dynamic: Vec::new(),
            by_name: FxHashMap::default(),
        }
    }

    /// The world's change clock.
    #[inline]
    pub(crate) fn clock(&self) -> &Arc<Clock> {
        &self.clock
    }

    /// Turns change tracking on for `T`'s pool (registering `T`): from now on its pool stamps
    /// additions and changes and logs removals. The rows present count as added and changed now.
    /// O(1) when on already, else O(len).
    pub(crate) fn track_changes<T: Component>(&mut self) -> ComponentId {
        let id = self.register::<T>();
        let clock = Arc::clone(&self.clock);
        self.pools[id.index()].track_changes(&clock);
        id
    }

    /// Whether `T`'s changes are tracked in this world: its pool tracks them, or `T` is not
    /// registered yet and its derive says `#[component(track_changes)]` (its pool will from
    /// registration). O(1).
    #[inline]
    pub fn tracks_changes<T: Component>(&self) -> bool {
        match self.pool_of::<T>() {
            Some(pool) => pool.changes().is_some(),
            None => T::track_changes(),
        }
    }

    /// Checks that `T`'s changes are tracked, for a change reader (`reader`: `Changed`, `Added`,
    /// `FieldChanged`, `RemovedComponents`) being made. Readers never turn tracking on: whether a
    /// type is tracked is decided when it is registered (the derive attribute) or by an explicit
    /// [`World::track_changes`](crate::World::track_changes).
    ///
    /// # Panics
    /// If `T`'s changes are not tracked, saying how to track them.
    #[track_caller]
    pub(crate) fn check_tracked<T: Component>(&self, reader: &str) {
        if !self.tracks_changes::<T>() {
            panic!(
                "`{reader}<{0}>` reads the change ticks of `{0}`, which are not tracked: derive it with \
                 `#[component(track_changes)]`, or call `World::track_changes::<{0}>()` before the values \
                 to be seen are written (change readers never turn tracking on)",
                std::any::type_name::<T>()
            );
        }
    }

    /// The id of `T`, if registered.
    #[inline]
    pub fn id<T: Component>(&self) -> Option<ComponentId> {
        match T::type_slot() {
            // An index and a compare; a slot still 0 (never registered anywhere) reads entry 0,
            // which is never set, or nothing.
            Some(slot) => {
                let stored = self.by_slot.get(slot.load(Ordering::Relaxed) as usize).copied().unwrap_or(0);
                stored.checked_sub(1).map(ComponentId)
            }
            None => self.id_by_type(TypeId::of::<T>()),
        }
    }

    /// The id of the component type with this `TypeId`, if registered.
    #[inline]
    pub fn id_by_type(&self, type_id: TypeId) -> Option<ComponentId> {
        self.by_type.get(&type_id).copied()
    }

    /// The id of `T`, registering it (and creating its empty pool) on first use.
    ///
    /// # Panics
    /// If more than `u32::MAX` component types are registered.
    #[inline]
    pub fn register<T: Component>(&mut self) -> ComponentId {
        if let Some(id) = self.id::<T>() {
            return id;
        }
        let id = ComponentId(u32::try_from(self.pools.len()).expect("too many component types"));
        self.by_type.insert(TypeId::of::<T>(), id);
        if let Some(slot) = T::type_slot() {
            let slot = assign_slot(slot) as usize;
            if self.by_slot.len() <= slot {
                self.by_slot.resize(slot + 1, 0);
            }
            self.by_slot[slot] = id.0 + 1;
        }
        let mut pool = SparseSet::new(T::storage_info());
        pool.set_lazy(T::lazy_cleanup());
        if T::track_changes() {
            pool.track_changes(&self.clock);
        }
        self.pools.push(pool);
        if T::declares_required() {
            self.pending_required.push((id, T::register_required));
        }
        id
    }

    /// Registers a component defined at run time, named `name` (free among run-time components:
    /// the caller checked), stored in an array-of-structs pool described by `info`; tracked from
    /// the start when `track_changes`. O(1) amortised.
    ///
    /// # Panics
    /// If more than `u32::MAX` component types are registered.
    pub(crate) fn register_dynamic(
        &mut self,
        name: &'static str,
        info: ColumnInfo,
        schema: Option<Arc<Schema>>,
        track_changes: bool,
    ) -> ComponentId {
        let id = ComponentId(u32::try_from(self.pools.len()).expect("too many component types"));
        let mut pool = SparseSet::new(StorageInfo::Aos(info));
        if track_changes {
            pool.track_changes(&self.clock);
        }
        self.pools.push(pool);
        self.dynamic.resize_with(self.pools.len(), || None);
        self.dynamic[id.index()] = Some(DynamicInfo { name, schema });
        self.by_name.insert(name, id);
        id
    }

    /// Turns change tracking on for component `id`'s pool (O(len) the first time).
    ///
    /// # Panics
    /// If `id` was not made by this registry.
    pub(crate) fn track_changes_by_id(&mut self, id: ComponentId) {
        let clock = Arc::clone(&self.clock);
        self.pools[id.index()].track_changes(&clock);
    }

    /// The run-time component named `name`, if any. O(1) expected.
    #[inline]
    pub fn id_by_name(&self, name: &str) -> Option<ComponentId> {
        self.by_name.get(name).copied()
    }

    /// What the registry knows of run-time component `id`, or `None` if `id` is not one (a
    /// Rust type, or not an id of this world). O(1) expected.
    #[inline]
    pub fn dynamic_info(&self, id: ComponentId) -> Option<&DynamicInfo> {
        self.dynamic.get(id.index())?.as_ref()
    }

    /// Every run-time component, in id (registration) order. O(components).
    pub fn dynamic_components(&self) -> impl Iterator<Item = (ComponentId, &DynamicInfo)> + '_ {
        self.dynamic.iter().enumerate().filter_map(|(i, info)| Some((ComponentId(i as u32), info.as_ref()?)))
    }

    /// Whether `id` names a component of this registry (a Rust type or a run-time one). O(1).
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        id.index() < self.pools.len()
    }

    /// Whether types declaring required components were registered since the world last took
    /// them.
    #[inline]
    pub(crate) fn has_pending_required(&self) -> bool {
        !self.pending_required.is_empty()
    }

    /// The next type registered with required components the world has not read yet.
    pub(crate) fn take_pending_required(&mut self) -> Option<(ComponentId, DeclareRequired)> {
        self.pending_required.pop()
    }

    /// Number of registered component types.
    #[inline]
    pub fn len(&self) -> usize {
        self.pools.len()
    }

    /// Whether no component type is registered.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }

    /// The pool of a registered component. Read-only; for tests and diagnostics (hidden: the
    /// pool type is not part of the API).
    ///
    /// # Panics
    /// If `id` was not made by this registry.
    #[doc(hidden)]
    #[inline]
    #[track_caller]
    pub fn pool(&self, id: ComponentId) -> &SparseSet {
        &self.pools[id.index()]
    }

    /// The pool of a registered component, mutably.
    ///
    /// # Panics
    /// If `id` was not made by this registry.
    #[inline]
    #[track_caller]
    pub(crate) fn pool_mut(&mut self, id: ComponentId) -> &mut SparseSet {
        &mut self.pools[id.index()]
    }

    /// The pool of `T`, if registered.
    #[doc(hidden)]
    #[inline]
    pub fn pool_of<T: Component>(&self) -> Option<&SparseSet> {
        self.id::<T>().map(|id| self.pool(id))
    }

    /// The pool of `T` mutably, if registered.
    #[inline]
    pub(crate) fn pool_of_mut<T: Component>(&mut self) -> Option<&mut SparseSet> {
        let id = self.id::<T>()?;
        Some(self.pool_mut(id))
    }

    /// All pools, indexed by [`ComponentId::index`].
    #[doc(hidden)]
    #[inline]
    pub fn pools(&self) -> &[SparseSet] {
        &self.pools
    }

    /// All pools mutably, indexed by [`ComponentId::index`].
    #[inline]
    pub(crate) fn pools_mut(&mut self) -> &mut [SparseSet] {
        &mut self.pools
    }
}

/// The next process-wide type slot to hand out (0 means "none yet").
static NEXT_SLOT: AtomicU32 = AtomicU32::new(1);

/// The slot in `cell`, handing out a new one if it has none. Two threads registering one type at
/// once agree on the first slot stored (a lost race only skips a number).
fn assign_slot(cell: &AtomicU32) -> u32 {
    let current = cell.load(Ordering::Acquire);
    if current != 0 {
        return current;
    }
    let fresh = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
    assert!(fresh != 0 && fresh < u32::MAX / 2, "too many component types in this process");
    match cell.compare_exchange(0, fresh, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => fresh,
        Err(existing) => existing,
    }
}

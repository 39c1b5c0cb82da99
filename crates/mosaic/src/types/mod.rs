//! One type registry per world: each component and resource type says once, under one stable
//! name, what it supports, and snapshots, rollback, the world hash, entity cloning and the
//! inspector all read that one declaration.
//!
//! Declare a type with one chained call, or with the `#[register(...)]` attribute of
//! `#[derive(Component)]` and a bare [`World::register`]:
//!
//! | what the type supports | builder call | attribute | what reads it |
//! |---|---|---|---|
//! | a stable name | [`name`](ComponentDecl::name) (default: the type's name without its module path) | `name = "..."` | every consumer below; saved files and hashes use it |
//! | `Clone` | [`clone`](ComponentDecl::clone) | `clone` | [`World::clone_entity`], [`Template::from_entity`](crate::Template::from_entity) |
//! | plain bytes (`NoUninit`) | [`plain`](ComponentDecl::plain) | `plain` | rollback (copied as bytes), the world hash (hashed as bytes), cloning |
//! | `Clone + Hash` | [`hash`](ComponentDecl::hash), [`hash_with`](ComponentDecl::hash_with) | `hash` | rollback (saved by `clone_from`), the world hash |
//! | serde | [`serde`](ComponentDecl::serde), [`map_entities`](ComponentDecl::map_entities) | `serde`, `map_entities` | snapshots ([`World::save_ron`] and friends), the inspector's text/JSON form |
//!
//! Resources ([`World::register_resource`], [`ResourceDecl`]) take `name`, `serde`, `clone`
//! (saved by rollback, not hashed), `hash` / `hash_with` (saved and hashed) and `input` (what a
//! rollback [`Recording`](crate::rollback::Recording) stores per frame).
//!
//! # A forgotten type is an error, never a silent skip
//! [`World::save_ron`] / [`World::save_binary`], [`World::state_hash`] and a
//! [`World::rollback_ring`]'s saves refuse a world holding rows of a component type the
//! registry cannot save, naming the type and the line that fixes it (for example
//! ``world.register::<Health>().serde()``). Resources are opt-in: a world keeps library and
//! scratch resources that are not state, so only registered resources are saved and hashed.
//! [`Disabled`](crate::Disabled) is registered in every world (name `mosaic::Disabled`: hash and
//! serde), so disabling an entity never makes a world unsavable; a clone of a disabled entity is
//! enabled unless the program adds `world.register::<Disabled>().clone()`.
//!
//! # Why a per-world registry of function tables
//! bevy's `TypeRegistry` stores per type a set of "type data" (`ReflectComponent`,
//! `ReflectSerialize`, ...) filled by `#[reflect(...)]`; flecs' meta module stores a type's
//! layout as entities and serializes generically from it. Mosaic keeps bevy's shape (per type,
//! monomorphised functions chosen at declaration, checked by the compiler: `.serde()` on a type
//! without `Serialize` does not compile) without a reflection trait every field must implement:
//! the consumers only need whole-value operations (save, load, clone, hash), and run-time
//! components already carry a field schema of their own ([`crate::dynamic`]). The registry lives
//! in the [`World`] because the world is what is saved, hashed and inspected; the older
//! [`SnapshotRegistry`](crate::SnapshotRegistry) and
//! [`RollbackRegistry`](crate::rollback::RollbackRegistry) remain as the views
//! [`TypeRegistry::snapshot`] and [`TypeRegistry::rollback`] hand out (and can still be built by
//! hand).
//!
//! # Examples
//! ```
//! use mosaic::{Component, World};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
//! #[derive(mosaic::rollback::NoUninit)]
//! #[bytemuck(crate = "mosaic::rollback::bytemuck")]
//! #[repr(C)]
//! #[register(name = "position", plain, serde)]
//! struct Position { x: f32, y: f32 }
//!
//! #[derive(Component, Clone, Hash, Debug, PartialEq, Serialize, Deserialize)]
//! struct Name(String);
//!
//! let mut world = World::new();
//! world.register::<Position>(); // what the attribute says
//! world.register::<Name>().name("name").clone().hash().serde();
//! let e = world.spawn((Position { x: 1.0, y: 2.0 }, Name("probe".into())));
//!
//! let text = world.save_ron().unwrap(); // snapshots read the registry
//! let mut ring = world.rollback_ring(4); // so does rollback
//! ring.save(&mut world, 0).unwrap();
//! let hash = world.state_hash().unwrap(); // and the world hash
//!
//! let mut copy = World::new();
//! copy.register::<Position>();
//! copy.register::<Name>().name("name").clone().hash().serde();
//! copy.load_ron(&text).unwrap();
//! assert_eq!(copy.get::<Name>(e), Ok(&Name("probe".into())));
//! assert_eq!(copy.state_hash().unwrap(), hash);
//! ```
#![deny(unsafe_code)]

mod component;
mod name;
mod relation;
mod resource;
#[cfg(feature = "rollback")]
mod rollback;
#[cfg(feature = "serialize")]
mod snapshot;

use std::any::TypeId;

use rustc_hash::FxHashMap;

pub use component::ComponentDecl;
pub(crate) use name::short_name;
pub use relation::{PairDecl, RelationDecl};
pub use resource::ResourceDecl;

use crate::component::{Component, ComponentId};
use crate::world::{Cloner, World};

/// Whether a registered type is a component or a resource (each kind has its own names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// A component type ([`World::register`]).
    Component,
    /// A resource type ([`World::register_resource`]).
    Resource,
    /// A one-target relation kind ([`World::register_relation`]).
    Relation,
    /// A many-to-many pair kind ([`World::register_pair`]).
    Pair,
}

/// What a registered type declared it supports (see the [module docs](self) for what reads
/// each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Supports {
    /// `Clone`: entity cloning and templates (components); rollback saves it (resources).
    pub clone: bool,
    /// Plain bytes (`NoUninit`): rollback copies and hashes the bytes (components).
    pub plain: bool,
    /// A deterministic hash (`Hash` or a function): the world hash covers it.
    pub hash: bool,
    /// serde: snapshots save and load it; tools show it as text.
    pub serde: bool,
    /// Entity handles inside values follow their entities when a snapshot loads into a
    /// non-empty world (components).
    pub map_entities: bool,
    /// A rollback input, recorded per frame (resources).
    pub input: bool,
}

/// One registered type.
pub(crate) struct TypeEntry {
    pub(crate) name: String,
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
    pub(crate) kind: TypeKind,
    pub(crate) supports: Supports,
    /// A component's or resource's column, or a pair kind's values.
    #[cfg(feature = "serialize")]
    pub(crate) snapshot: Option<crate::serialize::SnapshotEntry>,
    /// A relation kind's pairs, marks and index.
    #[cfg(feature = "serialize")]
    pub(crate) snapshot_relation: Option<crate::serialize::RelationEntry>,
    #[cfg(feature = "rollback")]
    pub(crate) rollback: rollback::RollbackEntries,
}

impl TypeEntry {
    fn new<T: 'static>(kind: TypeKind, name: String) -> Self {
        Self {
            name,
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            kind,
            supports: Supports::default(),
            #[cfg(feature = "serialize")]
            snapshot: None,
            #[cfg(feature = "serialize")]
            snapshot_relation: None,
            #[cfg(feature = "rollback")]
            rollback: rollback::RollbackEntries::default(),
        }
    }

    /// Gives every per-consumer entry the type's name.
    fn rename(&mut self, name: &str) {
        name.clone_into(&mut self.name);
        #[cfg(feature = "serialize")]
        if let Some(entry) = &mut self.snapshot {
            name.clone_into(&mut entry.name);
        }
        #[cfg(feature = "serialize")]
        if let Some(entry) = &mut self.snapshot_relation {
            name.clone_into(&mut entry.name);
        }
        #[cfg(feature = "rollback")]
        self.rollback.rename(name);
    }
}

/// A registered type as the registry describes it: its name, Rust type name, kind and what it
/// supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeInfo<'a> {
    /// The stable name saved files, hashes and tools use.
    pub name: &'a str,
    /// [`std::any::type_name`] of the type (for messages; not stable across compilers).
    pub type_name: &'static str,
    /// Component or resource.
    pub kind: TypeKind,
    /// What it declared.
    pub supports: Supports,
}

/// The types a [`World`] knows how to save, restore, hash, clone and show: see the
/// [module docs](self). Reached with [`World::types`]; filled by [`World::register`] and
/// [`World::register_resource`].
///
/// Lookups are O(types) (a world registers tens of types); the snapshot and rollback views are
/// built on first use after a change, O(types log types), and shared until the next change.
pub struct TypeRegistry {
    /// In registration order.
    entries: Vec<TypeEntry>,
    /// How to copy each cloneable component type out of an entity.
    cloners: FxHashMap<ComponentId, Cloner>,
    #[cfg(feature = "serialize")]
    snapshot: std::sync::OnceLock<crate::SnapshotRegistry>,
    #[cfg(feature = "rollback")]
    rollback: std::sync::OnceLock<crate::rollback::RollbackRegistry>,
}

impl Default for TypeRegistry {
    fn default() -> Self {
        let mut registry = Self {
            entries: Vec::new(),
            cloners: FxHashMap::default(),
            #[cfg(feature = "serialize")]
            snapshot: std::sync::OnceLock::new(),
            #[cfg(feature = "rollback")]
            rollback: std::sync::OnceLock::new(),
        };
        registry.register_builtin();
        registry
    }
}

impl std::fmt::Debug for TypeRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl TypeRegistry {
    /// Registers the library's own components that are state: [`crate::Disabled`].
    fn register_builtin(&mut self) {
        // Not `clone`: a copy of a disabled entity is enabled unless the program declares
        // `world.register::<Disabled>().clone()` (the clone table is keyed by the world's ids).
        let mut entry = TypeEntry::new::<crate::Disabled>(TypeKind::Component, "mosaic::Disabled".into());
        entry.supports.hash = true;
        #[cfg(feature = "serialize")]
        {
            entry.supports.serde = true;
            entry.snapshot = Some(crate::serialize::SnapshotEntry::component::<crate::Disabled>(&entry.name));
        }
        #[cfg(feature = "rollback")]
        {
            entry.rollback.component = Some(crate::rollback::ComponentEntry::cloned::<crate::Disabled>(
                &entry.name,
                |_: &crate::Disabled, _: &mut crate::rollback::StableHasher| {},
            ));
        }
        self.entries.push(entry);
    }

    /// Every registered type, in registration order (the built-in `mosaic::Disabled` first).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = TypeInfo<'_>> + '_ {
        self.entries.iter().map(|e| TypeInfo {
            name: &e.name,
            type_name: e.type_name,
            kind: e.kind,
            supports: e.supports,
        })
    }

    /// How many types are registered. O(1).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no type is registered (never true: `mosaic::Disabled` is built in). O(1).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Component type `T`'s registration, if any. O(types).
    pub fn component<T: Component>(&self) -> Option<TypeInfo<'_>> {
        self.info(TypeKind::Component, TypeId::of::<T>())
    }

    /// Resource type `R`'s registration, if any. O(types).
    pub fn resource<R: Send + Sync + 'static>(&self) -> Option<TypeInfo<'_>> {
        self.info(TypeKind::Resource, TypeId::of::<R>())
    }

    /// The registration named `name` among the types of `kind`, if any. O(types).
    pub fn by_name(&self, kind: TypeKind, name: &str) -> Option<TypeInfo<'_>> {
        let at = self.entries.iter().position(|e| e.kind == kind && e.name == name)?;
        self.iter().nth(at)
    }

    pub(crate) fn info(&self, kind: TypeKind, type_id: TypeId) -> Option<TypeInfo<'_>> {
        let at = self.position(kind, type_id)?;
        self.iter().nth(at)
    }

    fn position(&self, kind: TypeKind, type_id: TypeId) -> Option<usize> {
        self.entries.iter().position(|e| e.kind == kind && e.type_id == type_id)
    }

    /// The entry of `T` as `kind`, added under its default name if new. Drops the cached
    /// views (the caller is about to change the entry).
    #[track_caller]
    pub(crate) fn entry<T: 'static>(&mut self, kind: TypeKind) -> &mut TypeEntry {
        self.invalidate();
        let at = match self.position(kind, TypeId::of::<T>()) {
            Some(at) => at,
            None => {
                // The short name, or the full one when another type of the kind has it (two
                // `Position`s in different modules): a default never collides.
                let type_name = std::any::type_name::<T>();
                let short = short_name(type_name);
                let taken = self.entries.iter().any(|e| e.kind == kind && e.name == short);
                let name = if taken { type_name.to_owned() } else { short };
                self.check_free(kind, &name, type_name);
                self.entries.push(TypeEntry::new::<T>(kind, name));
                self.entries.len() - 1
            }
        };
        &mut self.entries[at]
    }

    /// Renames `T`'s entry of `kind` (which exists).
    ///
    /// # Panics
    /// If another type of that kind has the name.
    #[track_caller]
    pub(crate) fn rename<T: 'static>(&mut self, kind: TypeKind, name: &str) {
        let type_name = std::any::type_name::<T>();
        let at = self.position(kind, TypeId::of::<T>()).expect("the declaration made the entry");
        if self.entries[at].name == name {
            return;
        }
        self.check_free(kind, name, type_name);
        self.invalidate();
        self.entries[at].rename(name);
    }

    /// # Panics
    /// If a type of `kind` other than `type_name` is registered as `name`.
    #[track_caller]
    fn check_free(&self, kind: TypeKind, name: &str, type_name: &str) {
        if let Some(other) =
            self.entries.iter().find(|e| e.kind == kind && e.name == name && e.type_name != type_name)
        {
            let kind = match kind {
                TypeKind::Component => "component",
                TypeKind::Resource => "resource",
                TypeKind::Relation => "relation",
                TypeKind::Pair => "pair kind",
            };
            panic!(
                "the {kind} name `{name}` is already taken by `{}`; give `{type_name}` another with `.name(\"...\")`",
                other.type_name
            );
        }
    }

    /// Makes component `id` cloneable by `cloner`.
    pub(crate) fn set_cloner(&mut self, id: ComponentId, cloner: Cloner) {
        self.cloners.insert(id, cloner);
    }

    /// How to clone component `id` out of an entity, if its type is cloneable.
    pub(crate) fn cloner(&self, id: ComponentId) -> Option<Cloner> {
        self.cloners.get(&id).copied()
    }

    fn invalidate(&mut self) {
        #[cfg(feature = "serialize")]
        self.snapshot.take();
        #[cfg(feature = "rollback")]
        self.rollback.take();
    }
}

impl World {
    /// Registers component type `T` in this world's [`TypeRegistry`] (and `T` itself, as
    /// [`World::register_component`] does), applies what its derive's `#[register(...)]`
    /// attribute declares, and returns the declaration to chain more onto:
    /// `world.register::<Health>().name("health").plain().serde()`. Registering again adds to
    /// the declaration (a later `.name` renames). O(types).
    ///
    /// The default name is the type's name without its module path, or its full path when
    /// another component type already has that name.
    ///
    /// # Panics
    /// If `#[register(name = "...")]` names a name another component type has.
    #[track_caller]
    pub fn register<T: Component>(&mut self) -> ComponentDecl<'_, T> {
        T::declare(ComponentDecl::new(self))
    }

    /// Registers resource type `R` in this world's [`TypeRegistry`] and returns the
    /// declaration to chain onto: `world.register_resource::<Score>().name("score").hash()`.
    /// O(types). The resource itself need not exist yet.
    ///
    /// The default name is as for [`World::register`].
    #[track_caller]
    pub fn register_resource<R: Send + Sync + 'static>(&mut self) -> ResourceDecl<'_, R> {
        ResourceDecl::new(self)
    }

    /// The world's type registry: what [`World::register`] and [`World::register_resource`]
    /// declared. O(1).
    pub fn types(&self) -> &TypeRegistry {
        &self.types
    }

    pub(crate) fn types_mut(&mut self) -> &mut TypeRegistry {
        &mut self.types
    }
}

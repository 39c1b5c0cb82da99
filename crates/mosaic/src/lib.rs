//! Mosaic: a data-oriented entity-component-system.
//!
//! - [`Entity`]: a generational id (32-bit index, 24-bit generation and an 8-bit world tag);
//!   stale handles never reach the entity that reused their slot, and another world's handles
//!   are reported as foreign.
//! - [`Component`]: plain data, `#[derive(Component)]`; ids are assigned on first use, with no cap
//!   on the number of types.
//! - Storage: one packed sparse set per component type (EnTT's design): O(1) insert and
//!   swap-remove, dense arrays for iteration, array-of-structs or struct-of-arrays per type.
//!   The storage layer is private; its `unsafe` sits behind typed, checked APIs.
//! - [`World`]: spawn, despawn, insert, remove, get; resources; [`CommandBuffer`] for changes
//!   recorded during iteration.
//! - [`Query`]: iterate the entities that have a set of components, with [`With`] / [`Without`]
//!   / [`Or`] filters and [`Has`] terms, driven by the smallest pool; change detection with
//!   [`Added`] / [`Changed`] filters (walking a per-pool change log: O(changed)) and
//!   [`RemovedComponents`]; named query structs with `#[derive(QueryData)]`;
//!   `iter_combinations`; `par_for_each` on rayon (feature `parallel`; without it, on the
//!   calling thread).
//! - [`Schedule`]: systems as plain functions of [`Query`], [`Res`], [`ResMut`], [`Commands`],
//!   [`Local`], [`EventReader`], [`EventWriter`]; ordered by constraints (`.after(movement)`,
//!   naming the function itself, or a set's name) and priorities, run in
//!   parallel where their accesses do not conflict (feature `parallel`), with a `tracing` span per
//!   system run (feature `trace`).
//! - [`Events`]: typed channels with a cursor per reader; component hooks
//!   ([`World::on_add`], [`World::on_replace`], [`World::on_remove`]) and watches
//!   ([`World::watch`]) for entities entering and leaving a query's set; value indexes
//!   ([`World::add_index`], [`Index`]): the entities whose component has a given value, in O(1),
//!   exact through every write.
//! - [`hierarchy`]: parent/child links with O(1) attach and detach, parents-before-children
//!   ordering, and flecs-style relationship pairs; 2D and 3D transform propagation on glam that
//!   recomputes only what changed (feature `transform`).
//! - [`Template`]: spawn copies of stored component values; [`World::clone_entity`].
//! - `serialize` (feature `serialize`): snapshots of a world in RON or postcard, loadable into an
//!   empty world (same handles) or a populated one (remapped).
//! - `rollback` (feature `rollback`): a stable world hash, an in-memory ring of the last N frames
//!   (save and restore by `memcpy`), input recording and replay, and a desync finder.
//!
//! # Cargo features
//! All are on by default. `default-features = false` leaves the ECS core (entities, storage,
//! components, world, queries, schedule, events, hierarchy links), whose only dependencies are
//! `mosaic-macros`, `thiserror`, `rustc-hash` and `smallvec`.
//!
//! | Feature | Adds | Dependencies |
//! |---|---|---|
//! | `serialize` | the `serialize` module: `SnapshotRegistry`, `SnapshotError`, `MapEntities`; serde on the transforms | serde, ron, postcard, erased-serde |
//! | `transform` | `LocalTransform`, `GlobalTransform`, `hierarchy::propagate_transforms` | glam |
//! | `parallel` | [`Query::par_for_each`] on rayon's pool, [`ExecutorKind::Parallel`] running systems there as a dependency graph (the default executor); without it both exist and run on the calling thread, and the default executor is [`ExecutorKind::SingleThreaded`] | rayon |
//! | `rollback` | the `rollback` module: `RollbackRegistry`, `RollbackRing`, `Recording`, `HashLog`, the stable world hash | bytemuck, serde, postcard |
//! | `trace` | a `tracing` span per system run, a debug event per skipped system | tracing |
//!
//! # Examples
//! ```
//! use mosaic::{Component, World};
//!
//! #[derive(Component)]
//! struct Position { x: f32, y: f32 }
//! #[derive(Component)]
//! struct Velocity { x: f32, y: f32 }
//!
//! let mut world = World::new();
//! world.spawn_batch((0..100).map(|i| (Position { x: i as f32, y: 0.0 }, Velocity { x: 1.0, y: 0.5 })));
//! world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| {
//!     p.x += v.x;
//!     p.y += v.y;
//! });
//! assert_eq!(world.query::<&Position>().into_iter().filter(|p| p.y == 0.5).count(), 100);
//! ```
#![expect(unsafe_code, reason = "type-erased component storage and query fetch need raw pointers")]
#![warn(missing_docs)]
// Examples show the current API: a doctest that calls a deprecated item fails.
#![doc(test(attr(deny(deprecated))))]

extern crate self as mosaic;

mod clock;
mod macros;

pub mod component;
pub mod dynamic;
pub mod entity;
pub mod event;
pub mod hierarchy;
pub mod observer;
pub mod query;
#[cfg(feature = "rollback")]
pub mod rollback;
pub mod schedule;
#[cfg(feature = "serialize")]
pub mod serialize;
mod storage;
pub mod types;
pub mod world;

pub use component::{
    AosComponent, Bundle, Component, ComponentId, MutableComponent, TemplateBundle, View, ViewMut,
};
pub use entity::{Entity, EntityError};
pub use event::{EventChannelInfo, EventReader, EventWriter, Events, Retention};
#[cfg(feature = "transform")]
pub use hierarchy::{GlobalTransform, LocalTransform};
pub use hierarchy::{HierarchyError, Relationship};
pub use mosaic_macros::{Bundle, Component, Event, QueryData};
pub use observer::{Add, Despawn, Discard, Event, Insert, Observer, On, Remove, Replace};
pub use query::{
    Added, Allow, AnyOf, Changed, ExclusiveQuery, FieldChanged, FieldMut, Has, Mut, Or, Query, QueryData,
    QueryError, QueryIter, Ref, With, Without,
};
pub use schedule::ParCommands;
pub use schedule::{
    Commands, ExecutorKind, Index, Local, ParamSet, Populated, Res, ResMut, Schedule, ScheduleError, Single,
};
#[cfg(feature = "serialize")]
pub use serialize::{MapEntities, SnapshotError, SnapshotRegistry};
pub use storage::{Tick, Ticks};
pub use world::ChunkedCommands;
pub use world::{
    ApplyReport, ColumnBatch, ColumnBatchError, CommandBuffer, ComponentError, ComponentIndex, Disabled,
    EntityCommands, EntityMut, EntityRef, FromWorld, HookContext, HookId, IndexError, RemovedComponents,
    ResourceError, Template, WatchId, World,
};

/// What `#[derive(Component)]` expands to names these by path. Not part of the API: no semver
/// promise, and nothing here lets safe code build a storage type from hand-made parts (every
/// constructor is typed, and [`Stored`](component::Stored) and `SoaLayout` are `unsafe` to
/// implement).
#[doc(hidden)]
pub mod __private {
    pub use crate::storage::{
        ColumnInfo, FieldColumn, RowStamp, SoaLayout, SoaReader, SoaWriter, SparseSet, StorageInfo, Stored,
    };
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
struct ReadmeDoctests;

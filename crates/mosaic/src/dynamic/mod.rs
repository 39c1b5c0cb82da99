//! Components defined at run time, for scripting, modding and editors: a component type is a
//! [`ComponentDescriptor`] (a name and a field [`Schema`]), registered with
//! [`World::register_dynamic`](crate::World::register_dynamic); its values are
//! [`DynamicValue`]s, inserted, read, written and removed by [`ComponentId`](crate::ComponentId)
//! (`World::insert_by_id`, `get_by_id`, `get_mut_by_id`, `remove_by_id`, `take_by_id`), and
//! queried with a [`QueryBuilder`] (read, write, optional, with, without by id).
//!
//! A run-time component is a component like a Rust type where the world's bookkeeping is
//! concerned: its own pool (a sparse set of its bytes), the entity's component set
//! ([`World::component_ids`](crate::World::component_ids)), despawn and `clear`, disabling,
//! change tracking (`with_change_tracking`, `World::track_changes_by_id`; writes through
//! `get_mut_by_id` and `Write` query terms are stamped), and [`World::remove_by_id`](crate::World::remove_by_id) works on
//! any component. Values with a schema are plain bytes, so the safe API checks every access
//! against the schema (a field handle carries its schema's id); components registered from raw
//! parts (a layout and a drop function, `unsafe`) are reached only through `unsafe` byte
//! functions.
//!
//! Rollback (`RollbackRing`) saves and restores run-time components with a schema, and the
//! world hash covers them, with no registration: their values are plain bytes, copied and hashed
//! as such (a world without any hashes as before). A rollback save of a world where a component
//! registered from raw parts holds rows is refused (`RollbackError::UnregisteredComponent`
//! naming it): its bytes cannot be copied safely.
//!
//! Lifecycle observers (`Add`, `Insert`, `Replace`, `Discard`, `Remove`, `Despawn`) and hooks take
//! run-time components by id: [`World::add_observer_by_id`](crate::World::add_observer_by_id),
//! [`World::on_add_by_id`](crate::World::on_add_by_id) and its `on_insert` / `on_replace` /
//! `on_discard` / `on_remove` twins.
//!
//! Snapshots (format 8) save the rows of schema components without registration and load them
//! into a world that registered the same schema under the same name; raw-parts rows are refused
//! (`SnapshotError::RunTimeComponent`). Watches take component ids
//! ([`World::add_watch`](crate::World::add_watch)), so they follow run-time components. Not yet:
//! value indexes and groups are registered by Rust type, so neither can name a run-time
//! component; templates and `clone_entity` skip them. The inspector
//! (`mosaic-inspect`) shows and edits them through their schema.
//!
//! bevy (`ComponentDescriptor`, `QueryBuilder`, `EntityRef::get_by_id`) and flecs (meta,
//! `ecs_component_init`) are the models; this keeps values to plain data with a schema.

mod descriptor;
mod error;
mod query;
mod value;
mod world;

pub use crate::component::ScalarValue;
pub use crate::component::schema::{
    Field, FieldRef, FieldType, Leaf, MAX_FIELD_NAME, MAX_SCHEMA_DEPTH, MAX_SCHEMA_LEAVES, MAX_SCHEMA_SIZE,
    Primitive, Scalar, Schema, SchemaError,
};
pub use descriptor::{ComponentDescriptor, MAX_COMPONENT_NAME};
pub use error::DynamicError;
pub use query::{DynamicQuery, DynamicRow, DynamicRowMut, QueryBuilder, TermAccess, TermField};
pub use value::{DynamicMut, DynamicRef, DynamicValue};

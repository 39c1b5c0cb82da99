//! Snapshots: save a world to RON text or postcard bytes and load it back.
//!
//! A [`SnapshotRegistry`] names the component and resource types to save, each under a stable
//! name. A snapshot holds:
//! - the entity allocator: each slot's generation and the free list, so loading into an empty
//!   world gives every entity its old handle and later spawns reuse slots in the same order;
//! - every live entity (by index; its generation is its slot's);
//! - the state of the lazy collector's sampling sequence
//!   ([`World::collect_lazy`](crate::World::collect_lazy));
//! - the hierarchy: the links as `(child, parent)` pairs, each parent's children in sibling order;
//!   the row order of the pool of [`Relationship`](crate::hierarchy::Relationship) (entities with
//!   an empty one included); and the ordering bookkeeping (the entities marked for the next
//!   ordering pass, in marking order, whether that list overflowed, and how far transform
//!   propagation last lined its pools up);
//! - every relation kind registered with
//!   [`SnapshotRegistry::register_relation`](SnapshotRegistry::register_relation): its pairs in
//!   row order, the marks on its targets, and its index (each target's sources in relate order);
//!   a world holding pairs of an unregistered kind is refused
//!   ([`SnapshotError::UnregisteredRelation`]) rather than saved without them;
//! - every many-to-many pair kind ([`World::add_pair`](crate::World::add_pair)) registered with
//!   [`SnapshotRegistry::register_pair`], in the order the world set the kinds up: per source (in
//!   the row order of its `Targets<R>` pool) its targets in order, each with its slot in the
//!   target's list of sources and the pair's value; and the pair target marks in row order. The
//!   reverse index (`World::sources`) is rebuilt from the slots, so it keeps its order. A world
//!   holding pairs of an unregistered kind is refused ([`SnapshotError::UnregisteredPair`]);
//! - one column per registered component, sorted by name, rows `(entity index, value)` in index
//!   order, and the pool's row order (the entity indices in the order queries visit them);
//! - the registered resources the world has, sorted by name.
//! - every run-time component with a schema and live rows ([`crate::dynamic`], no registration),
//!   sorted by name: its schema's leaves, its rows field by field, and its pool's row order.
//!
//! Everything that decides how later operations order pools is saved, so a world loaded into a
//! world that never had an entity (and has the same owning groups) iterates, and therefore
//! evolves, exactly as the saved one would: run both N frames and their saves are still
//! byte-identical. Loading restores each pool's saved row order; if a world loaded into has an
//! owning group the saved orders do not keep packed (the saved world had other groups), loading
//! refuses with [`SnapshotError::GroupOrder`]: create the saved world's groups before loading,
//! and others after. What the registry does not name (unregistered components and resources,
//! hooks, systems) is not saved; an unregistered component's pool starts empty.
//!
//! Hooks, observers and watches: a load inserts each saved value through the world, so the
//! `on_add` / `on_insert` hooks, `Add` / `Insert` observers and watches of the loaded components
//! fire, as they would for the same inserts by hand. A rollback restore (`RollbackRing::restore`)
//! differs: it copies pools back and fires nothing (a restore is not new gameplay).
//!
//! Everything is in a fixed order, so two saves of equal worlds are byte-identical, and
//! `save(load(save(w))) == save(w)`. Loading reads and checks the whole snapshot, and its row
//! orders against the world's groups, before changing the world: corrupt or hostile input
//! (truncated, absurd counts, duplicate or missing entities, unknown names, hierarchy cycles, row
//! orders that break a group) is a [`SnapshotError`], never a panic or a huge allocation, and
//! leaves the world as it was.
//!
//! Checksum (format 7 on): a binary snapshot ends with the CRC-32 of the bytes before it (4
//! bytes, little-endian); a RON snapshot starts with the line `// mosaic snapshot crc32
//! xxxxxxxx` holding the CRC-32 of the text after it. A flipped bit, a cut-off file or an edit is
//! [`SnapshotError::Checksum`], never different data. Snapshots of formats 5 and 6 carry no
//! checksum and still load; one that says format 7 without a matching checksum is refused. See
//! [`seal_binary`] and [`seal_ron`] (to write one for content edited by hand).
//!
//! Format, in field order (RON shows the names): `format` ([`FORMAT_VERSION`]), `world` (`u8`,
//! the saved world's tag: see [`Entity::world_tag`](crate::Entity::world_tag)), `generations`
//! (`[u32]` per slot), `free` (`[u32]`, reused from the end), `entities` (`[u32]`, increasing),
//! `sampler` (`u64`, not 0), `hierarchy` (`Hierarchy(links: [(u32, u32)], order: [u32], state:
//! Option<OrderState(dirty: [Entity], overflow: bool, aligned: (u64, u64), propagation: (u8, u8))>)`, `state` `None` if
//! the world never used a hierarchy), `relations` (`[Relation(name, pairs: [(u32, u32)], marks:
//! [u32], index: [(u32, [u32])])]`, by entity index), `pairs` (`[(name, [(u32, [(u32, u32,
//! value)])])]`: per kind, per source index its `(target index, slot, value)`s; a byte string of
//! postcard per kind in the binary format), `pair_marks` (`[u32]`), `components` (`[(name, [(u32, value)], order: [u32])]`),
//! `resources` (`[(name, value)]`), `dynamic` (format 8: `[(name, [(path, scalar)], [(u32,
//! (scalar, ...))], order: [u32])]`, nested values in both formats). In the binary format each `[(u32, value)]` and resource
//! `value` is a byte string holding its own postcard encoding, written and read by code compiled
//! for the type (the text format nests the values, read through `erased_serde`). An
//! [`Entity`](crate::Entity) inside a value is written as `Entity(index, generation, world_tag)`.
//! Loading into an empty world gives it the saved tag, so saved handles stay valid there.
#![deny(unsafe_code)]

mod by_name;
mod checksum;
mod dynamic;
mod entity;
mod error;
mod hierarchy;
mod load;
mod order;
mod pairs;
mod registry;
mod relation;
mod save;

pub use by_name::{NamedData, NamedPool};
pub use checksum::{seal_binary, seal_ron};
pub use entity::{EntityMap, MapEntities};
pub use error::SnapshotError;
pub use pairs::NamedPairs;
pub(crate) use registry::Entry as SnapshotEntry;
pub use registry::SnapshotRegistry;
pub(crate) use relation::RelationEntry;
pub use save::{FORMAT_VERSION, OLDEST_FORMAT_VERSION};

//! Rollback and replay (feature `rollback`): a stable world hash, an in-memory ring of saved
//! frames, input recordings, and a desync finder, for rollback netcode (GGPO style), replays and
//! lockstep simulations.
//!
//! - [`RollbackRegistry`]: which components, resources and inputs take part, each under a stable
//!   name. Plain-data components ([`NoUninit`], `#[repr(C)]`, derived) are copied and hashed as
//!   raw bytes; others are `Clone + Hash`.
//! - [`RollbackRegistry::hash`]: the world hash (below).
//! - [`RollbackRing`]: the last N frames, saved and restored in memory (no serialization; buffers
//!   reused), with [`RollbackRing::compare`] to find the first component and entity where two
//!   runs' saved frames differ.
//! - [`Recording`]: the inputs of each frame and the hash after it; replays check they reproduce.
//! - [`HashLog`]: per-frame hashes as text; [`HashLog::first_divergence`] finds the first frame
//!   where two runs differ.
//! - [`StableHasher`], [`hash_bytes`]: the hash function itself, written out (wyhash's mixing).
//!
//! # The world hash
//! A 64-bit hash ([`HASH_VERSION`] 1) of, in this order (each part of the world writes its own
//! share, `rollback/part.rs`):
//! 1. the entity allocator: per slot its generation and whether it is alive, the free list in
//!    order, the live count (world tags are left out, so two worlds of one process compare);
//! 2. the lazy collector's sampler state;
//! 3. each registered component, by name: the pool's length (a world without the pool counts as
//!    an empty one), its entities (index and generation) in row order, and its values in row order: raw bytes for plain data, field
//!    column by field column for struct-of-arrays; [`Hash`](std::hash::Hash) for
//!    [`register_clone`](RollbackRegistry::register_clone) types;
//! 4. the hierarchy: the [`Relationship`](crate::hierarchy::Relationship) pool's entities in row
//!    order and their links;
//! 5. each relation kind ([`World::relate`](crate::World::relate)) with a pair, a target mark or
//!    an index entry, by the relation type's name: its pairs (source and target) in row order, its
//!    target marks, and its index (each target's sources in relate order);
//! 6. each many-to-many pair kind ([`World::add_pair`](crate::World::add_pair)) with a pair, by
//!    type name: its sources in row order, each pair's source, target and slot, and the reverse
//!    index in target order; then the pair target marks; then, for each kind registered with
//!    [`register_pair`](RollbackRegistry::register_pair), by name, the pairs' values through
//!    [`Hash`](std::hash::Hash) (an unregistered kind's values are left out: they need not be
//!    `Hash`);
//! 7. each registered resource that is hashed, by name.
//!
//! Row order counts: it decides the order in which queries visit entities, and so what the next
//! frames compute. The hash leaves out unregistered components and resources, events, hooks,
//! systems and the schedule, and the change ticks (rollback saves and restores them, but they are
//! bookkeeping of readers, not the simulation's state). It is the same on every run, every thread count and every platform
//! of the same endianness (values are hashed as their bytes; integers of the structure as 64-bit
//! words, so the word size does not matter). Entity handles stored *inside* plain-data values
//! hash with their world tag: compare such worlds within one process in creation order, or
//! register the component with `register_clone` and a `Hash` that skips the tag.
//!
//! Cost: one pass over the registered columns at several bytes per cycle (see
//! `docs/benchmarks.md`).
#![deny(unsafe_code)]

mod desync;
mod dynamic_part;
mod error;
mod frame_diff;
mod hash;
mod part;
mod record;
mod registry;
mod ring;

pub use bytemuck::{self, NoUninit};
pub use desync::{FrameDivergence, HashLog, StateDifference};
pub use error::{HashLogError, RecordingError, RollbackError};
pub use frame_diff::{ComponentDiff, FrameDiff};
pub use hash::{HASH_VERSION, StableHasher, hash_bytes, hash_words};
pub use record::{RECORDING_VERSION, Recording};
pub use registry::RollbackRegistry;
pub(crate) use registry::{ComponentEntry, InputEntry, PairEntry, ResourceEntry};
pub use ring::{RollbackRing, SavedFrame};

impl RollbackRegistry {
    /// The world hash of `world` by this registry: see the [module docs](self) for what it
    /// covers. O(slots + registered rows).
    pub fn hash(&self, world: &crate::World) -> u64 {
        hash::hash_world(self, world)
    }
}

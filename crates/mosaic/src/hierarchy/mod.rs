//! Parent-child hierarchies and, with the `transform` feature, transform propagation.
//!
//! Every entity in a hierarchy has a [`Relationship`]: its parent, its first and last child and
//! child count, and its previous and next sibling, so attaching, detaching and reparenting are
//! O(1) with no per-parent vector (EnTT's "ECS back and forth", part 4, the founding design).
//! The operations are [`World`](crate::World) methods: [`set_parent`](crate::World::set_parent),
//! [`remove_parent`](crate::World::remove_parent),
//! [`despawn_recursive`](crate::World::despawn_recursive), and the readers
//! [`parent`](crate::World::parent), [`children`](crate::World::children),
//! [`ancestors`](crate::World::ancestors), [`descendants`](crate::World::descendants); the
//! changes can also be recorded in a [`CommandBuffer`](crate::CommandBuffer) (or a system's
//! [`Commands`](crate::Commands)): [`set_parent`](crate::CommandBuffer::set_parent),
//! [`remove_parent`](crate::CommandBuffer::remove_parent),
//! [`despawn_recursive`](crate::CommandBuffer::despawn_recursive).
//!
//! Invariants, kept under every operation including plain `World::despawn` and `World::remove`
//! (through hooks on `Relationship`): no link names a dead entity; despawning a parent detaches
//! its children, which become roots; despawning a child unlinks it from its siblings; no entity
//! is its own ancestor (`set_parent` refuses with [`HierarchyError::Cycle`]).
//!
//! Ordering: [`World::sort_hierarchy`](crate::World::sort_hierarchy) sorts the relationship pool
//! depth first so parents precede children;
//! [`World::update_hierarchy_order`](crate::World::update_hierarchy_order) keeps it so after
//! changes by re-placing only the entries the hooks marked dirty. `propagate_transforms` (feature
//! `transform`) then computes every `GlobalTransform` in one linear pass.
//!
//! Relationship pairs (flecs' `(R, target)`): [`World::relate`](crate::World::relate) gives a
//! source a [`Pair<R>`] naming its target; the world keeps an index from each target to its
//! sources (plain data in a world field, kept by a row subscriber on the pairs' pools), so [`World::related`](crate::World::related) answers without scanning, and despawning a target
//! removes its sources' pairs or despawns the sources, as [`Relation::CLEANUP`] says.
//!
//! Many-to-many pairs (flecs' pairs with several targets per kind, values, and the exclusive,
//! symmetric and cleanup traits): [`PairRelation`], [`World::add_pair`](crate::World::add_pair),
//! [`World::sources`](crate::World::sources), [`World::pairs`](crate::World::pairs),
//! [`World::pairs_to`](crate::World::pairs_to), the query term [`Targets`], traversal
//! ([`World::get_up`](crate::World::get_up)) and cascade order
//! ([`World::cascade`](crate::World::cascade)).
#![deny(unsafe_code)]

mod children;
mod commands;
mod component;
mod error;
mod iter;
mod ops;
mod order;
mod pairs;
mod param;
#[cfg(feature = "transform")]
mod propagate;
mod relation;
mod relation_index;
#[cfg(feature = "transform")]
mod transform;

pub use component::Relationship;
pub use error::HierarchyError;
pub use iter::{Ancestors, Children, Descendants};
pub use order::OrderReport;
pub use pairs::{OnDeleteTarget, PairRelation, Targets};
pub use param::{Hierarchy, Relations};
pub use relation::{Cleanup, Pair, Relation};
#[cfg(feature = "transform")]
pub use transform::{
    GlobalTransform, GlobalTransform3d, LocalTransform, Transform3d, propagate_transforms,
    propagate_transforms_3d,
};

pub(crate) use ops::HierarchyState;
#[cfg(any(feature = "serialize", feature = "rollback"))]
pub(crate) use ops::OrderState;
#[cfg(feature = "serialize")]
pub(crate) use pairs::PairEntry;
pub(crate) use pairs::PairIndex;
#[cfg(feature = "rollback")]
pub(crate) use pairs::PairsImage;
#[cfg(feature = "rollback")]
pub(crate) use relation::RelationImage;
#[cfg(feature = "serialize")]
pub(crate) use relation::{RelationState, relation_state, set_relation_state};
pub(crate) use relation_index::RelationIndex;

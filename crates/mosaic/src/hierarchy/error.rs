//! Errors of hierarchy operations.

use crate::entity::{Entity, EntityError};

/// Why a hierarchy operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    /// The handle names no live entity of this world: despawned, never spawned, or made by
    /// another world. The entity layer's error, with its message.
    #[error(transparent)]
    Entity(#[from] EntityError),
    /// Making `parent` the parent of `child` would close a loop: `parent` is `child` itself or
    /// one of its descendants.
    #[error(
        "cannot make {parent} the parent of {child}: {parent} is {child} itself or one of its \
         descendants, so the hierarchy would have a cycle; detach {parent} from under {child} first \
         (`World::remove_parent`) or pick another parent"
    )]
    Cycle {
        /// The entity that was to get a parent.
        child: Entity,
        /// The parent refused.
        parent: Entity,
    },
    /// Relating an entity to itself, by a relation that does not allow it
    /// ([`Relation::ALLOW_SELF`](super::Relation::ALLOW_SELF)).
    #[error(
        "cannot relate {entity} to itself by `{relation}`, which does not allow it; relate it to another \
         entity, or set `const ALLOW_SELF: bool = true` in the relation's `Relation` impl"
    )]
    SelfRelation {
        /// The entity.
        entity: Entity,
        /// The relation type's name.
        relation: &'static str,
    },
    /// The pool of [`Relationship`](super::Relationship) belongs to an owning group, which keeps
    /// its own order, so parents cannot be placed before their children.
    #[error(
        "the pool of `Relationship` is owned by a group, which keeps its order; parents-before-children \
         ordering needs a pool no group owns, so do not group `Relationship`"
    )]
    OwnedByGroup,
}

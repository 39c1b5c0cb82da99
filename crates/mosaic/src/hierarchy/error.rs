//! Errors of hierarchy operations.

use crate::entity::Entity;

/// Why a hierarchy operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    /// The entity is not alive: despawned, or never spawned in this world.
    #[error(
        "entity {0} does not exist: it was despawned or was never spawned in this world; \
         check `World::is_alive` before using a handle that may be stale"
    )]
    NoSuchEntity(Entity),
    /// The handle was made by another world (its world tag differs from this world's).
    #[error(
        "entity {entity} belongs to another world (world tag {}), not this one (world tag \
         {world_tag}); a handle is meaningful only in the world that spawned it",
        .entity.world_tag()
    )]
    ForeignEntity {
        /// The handle.
        entity: Entity,
        /// This world's tag.
        world_tag: u8,
    },
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
    /// The pool of [`Relationship`](super::Relationship) belongs to an owning group, which keeps
    /// its own order, so parents cannot be placed before their children.
    #[error(
        "the pool of `Relationship` is owned by a group, which keeps its order; parents-before-children \
         ordering needs a pool no group owns, so do not group `Relationship`"
    )]
    OwnedByGroup,
}

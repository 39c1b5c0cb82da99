//! Errors of the entity allocator.

use super::Entity;

/// What went wrong with an entity handle or with allocating one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EntityError {
    /// The handle names no live entity: it was despawned (perhaps its slot is reused now), or it
    /// was never spawned in this world.
    #[error(
        "entity {0} does not exist: it was despawned or was never spawned in this world; \
         check `World::is_alive` before using a handle that may be stale"
    )]
    NoSuchEntity(Entity),
    /// The handle was made by another world (its world tag differs from this world's).
    #[error(
        "entity {entity} belongs to another world (world tag {}), not this one (world tag \
         {world_tag}); a handle is meaningful only in the world that spawned it, so look it up \
         there, or map it with the `EntityMap` a snapshot load returns",
        .entity.world_tag()
    )]
    ForeignEntity {
        /// The handle.
        entity: Entity,
        /// This world's tag.
        world_tag: u8,
    },
    /// Every entity index is in use or retired; no more entities can be spawned.
    #[error(
        "the entity index space is exhausted ({limit} slots in use or retired); \
         despawn entities before spawning more"
    )]
    Exhausted {
        /// The number of slots the allocator can hand out.
        limit: u32,
    },
}

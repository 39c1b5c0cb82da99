//! Errors of query lookups.

use crate::entity::Entity;

/// Why [`Query::get`](crate::Query::get) returned no item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The entity is not alive.
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
    /// The entity is alive but lacks a required component or fails a filter.
    #[error(
        "entity {entity} does not match the query `{query}`: it lacks a required component or fails a filter"
    )]
    NoMatch {
        /// The entity asked about.
        entity: Entity,
        /// The query's type, e.g. `(&Position, &mut Velocity)`.
        query: &'static str,
    },
}

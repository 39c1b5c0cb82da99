//! Errors of query lookups.

use crate::entity::{Entity, EntityError};

/// Why [`Query::get`](crate::Query::get) returned no item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The handle names no live entity of this world: despawned, never spawned, or made by
    /// another world. The entity layer's error, with its message.
    #[error(transparent)]
    Entity(#[from] EntityError),
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

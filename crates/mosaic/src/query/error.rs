//! Errors of query lookups.

use crate::entity::{Entity, EntityError};

/// Why a query lookup ([`Query::get`](crate::Query::get),
/// [`Query::get_many_mut`](crate::Query::get_many_mut),
/// [`Query::get_single`](crate::Query::get_single)) returned no item.
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
    /// [`Query::get_many_mut`](crate::Query::get_many_mut) was given the same entity twice.
    #[error(
        "entity {entity} is listed more than once in `get_many_mut`; each mutable item can be \
         handed out once, so pass distinct entities (or use `get` for one at a time)"
    )]
    DuplicateEntity {
        /// The repeated entity.
        entity: Entity,
    },
    /// [`Query::get_single`](crate::Query::get_single) found no matching entity.
    #[error(
        "the query `{query}` matches no entity, but exactly one was expected; spawn it first, \
         or use `iter().next()` when none is fine"
    )]
    NoEntities {
        /// The query's type.
        query: &'static str,
    },
    /// [`Query::get_single`](crate::Query::get_single) found more than one matching entity.
    #[error(
        "the query `{query}` matches more than one entity, but exactly one was expected; \
         narrow it with a filter (a marker component and `With`), or iterate"
    )]
    MultipleEntities {
        /// The query's type.
        query: &'static str,
    },
}

impl From<EntityError> for QueryError {
    fn from(error: EntityError) -> Self {
        match error {
            EntityError::NoSuchEntity(entity) => Self::NoSuchEntity(entity),
            EntityError::ForeignEntity { entity, world_tag } => Self::ForeignEntity { entity, world_tag },
            EntityError::Exhausted { .. } => unreachable!("query lookups never allocate ids"),
        }
    }
}

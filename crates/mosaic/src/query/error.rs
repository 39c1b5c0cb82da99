//! Errors of query lookups.

use crate::entity::{Entity, EntityError};

/// Why a query lookup ([`Query::get`](crate::Query::get),
/// [`Query::get_many_mut`](crate::Query::get_many_mut),
/// [`Query::try_single`](crate::Query::try_single)) returned no item.
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
    /// [`Query::get_many_mut`](crate::Query::get_many_mut) was given the same entity twice.
    #[error(
        "entity {entity} is listed more than once in `get_many_mut`; each mutable item can be \
         handed out once, so pass distinct entities (or use `get` for one at a time)"
    )]
    DuplicateEntity {
        /// The repeated entity.
        entity: Entity,
    },
    /// [`Query::try_single`](crate::Query::try_single) found no matching entity.
    #[error(
        "the query `{query}` matches no entity, but exactly one was expected; spawn it first, \
         or use `iter().next()` when none is fine"
    )]
    NoEntities {
        /// The query's type.
        query: &'static str,
    },
    /// [`Query::try_single`](crate::Query::try_single) found more than one matching entity.
    #[error(
        "the query `{query}` matches more than one entity, but exactly one was expected; \
         narrow it with a filter (a marker component and `With`), or iterate"
    )]
    MultipleEntities {
        /// The query's type.
        query: &'static str,
    },
}

//! [`DynamicError`]: why an operation on a run-time component was refused.

use crate::component::schema::SchemaError;
use crate::entity::{Entity, EntityError};

/// Why an operation on a component defined at run time was refused. Each names the component
/// (by its registered name, or its id when it has none) and, for field errors, the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynamicError {
    /// A component name is empty, longer than [`MAX_COMPONENT_NAME`](super::MAX_COMPONENT_NAME)
    /// bytes, or has control characters.
    #[error("invalid component name {name:?}: 1 to {max} bytes without control characters", max = super::MAX_COMPONENT_NAME)]
    InvalidName {
        /// The name given (cut to 80 characters).
        name: String,
    },
    /// The world already has a run-time component of this name.
    #[error(
        "the world already has a component named `{name}`; look it up with `World::component_id_by_name`"
    )]
    NameTaken {
        /// The name.
        name: String,
    },
    /// A raw descriptor's value is larger than the limit.
    #[error("component `{name}`: a value of {size} bytes is over the limit of {max}")]
    TooLarge {
        /// The component.
        name: String,
        /// Its size.
        size: usize,
        /// The limit ([`MAX_SCHEMA_SIZE`](crate::dynamic::MAX_SCHEMA_SIZE)).
        max: usize,
    },
    /// A schema or field error (an invalid schema, a field that does not exist or has another
    /// type, bytes that are not a value), with the component it concerns.
    #[error("component `{component}`: {error}")]
    Schema {
        /// The component.
        component: String,
        /// What was wrong.
        error: SchemaError,
    },
    /// The id is not a component of this world.
    #[error("component id {index} is not registered in this world")]
    NoSuchComponent {
        /// The id's index.
        index: usize,
    },
    /// The operation needs a run-time component with a schema, and this one is a Rust type or
    /// was registered from raw parts.
    #[error(
        "component `{component}` has no field schema: it is a Rust type (use the typed API) or was registered from raw parts"
    )]
    NoSchema {
        /// The component.
        component: String,
    },
    /// A value was made for another component's schema.
    #[error(
        "the value is of schema `{found}`, not of component `{component}`; make it with `DynamicValue::new(world.dynamic_schema(id)?)`"
    )]
    SchemaMismatch {
        /// The component written.
        component: String,
        /// The value's schema's first fields, for the message.
        found: String,
    },
    /// The entity is not alive.
    #[error(transparent)]
    Entity(#[from] EntityError),
    /// The entity does not have the component.
    #[error("entity {entity:?} has no `{component}`")]
    Missing {
        /// The entity.
        entity: Entity,
        /// The component.
        component: String,
    },
    /// An observer by id was refused: no components, a custom event (observers by id are for
    /// lifecycle events), or two of its parameters alias.
    #[error("observer by id: {reason}")]
    Observer {
        /// What was wrong.
        reason: String,
    },
    /// A query names one component in two terms, or writes in a query that can only read.
    #[error("dynamic query: {reason}")]
    Query {
        /// What was wrong, naming the component or term.
        reason: String,
    },
}

//! Errors of component and resource access.

use crate::entity::{Entity, EntityError};

/// Why a component access on an entity failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ComponentError {
    /// The handle names no live entity of this world: despawned, never spawned, or made by
    /// another world. The entity layer's error, with its message.
    #[error(transparent)]
    Entity(#[from] EntityError),
    /// The entity is alive but has no component of this type.
    #[error(
        "entity {entity} has no `{component}` component; insert one first, or use \
         `World::contains` to check"
    )]
    MissingComponent {
        /// The entity asked about.
        entity: Entity,
        /// The component's type name.
        component: &'static str,
    },
}

/// Why a resource access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    /// No resource of this type is in the world.
    #[error("no `{resource}` resource in the world; add it with `World::insert_resource` first")]
    Missing {
        /// The resource's type name.
        resource: &'static str,
    },
}

/// Why a value index lookup failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// The component type has no index by this key type.
    #[error(
        "no index of `{component}` by `{key}`; add one first with `World::add_index` (key = the \
         value) or `World::add_index_by_key` (key computed from the value)"
    )]
    NoIndex {
        /// The component's type name.
        component: &'static str,
        /// The key's type name.
        key: &'static str,
    },
}

//! Errors of component and resource access.

use crate::entity::{Entity, EntityError};

/// Why a component access on an entity failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ComponentError {
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

impl From<EntityError> for ComponentError {
    fn from(error: EntityError) -> Self {
        match error {
            EntityError::NoSuchEntity(entity) => Self::NoSuchEntity(entity),
            EntityError::ForeignEntity { entity, world_tag } => Self::ForeignEntity { entity, world_tag },
            EntityError::Exhausted { .. } => unreachable!("component access never allocates ids"),
        }
    }
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

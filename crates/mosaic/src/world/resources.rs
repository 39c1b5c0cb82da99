//! Resources: typed singletons stored beside the entities.

use super::ResourceError;

/// The world's resources: one value per type, in the storage layer's `ResourceMap`.
pub(crate) type Resources = crate::storage::ResourceMap;

/// The error for a missing resource of type `R`.
pub(crate) fn missing<R>() -> ResourceError {
    ResourceError::Missing { resource: std::any::type_name::<R>() }
}

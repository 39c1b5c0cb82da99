//! Resources: typed singletons stored beside the entities.

use std::any::{Any, TypeId};

use rustc_hash::FxHashMap;

use super::ResourceError;

/// A map from type to one value of that type: the world's singletons (time, settings, score...).
///
/// Complexity: every operation is one hash of the `TypeId`.
#[derive(Default)]
pub struct Resources {
    map: FxHashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resources")
            .field("len", &self.map.len())
            .finish()
    }
}

impl Resources {
    /// Stores `value`, returning the previous value of the same type.
    pub fn insert<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let old = self.map.insert(TypeId::of::<R>(), Box::new(value))?;
        Some(
            *old.downcast::<R>()
                .expect("resource stored under its own TypeId"),
        )
    }

    /// Removes and returns the value of type `R`.
    pub fn remove<R: Send + Sync + 'static>(&mut self) -> Option<R> {
        let old = self.map.remove(&TypeId::of::<R>())?;
        Some(
            *old.downcast::<R>()
                .expect("resource stored under its own TypeId"),
        )
    }

    /// The value of type `R`.
    pub fn get<R: Send + Sync + 'static>(&self) -> Option<&R> {
        self.map.get(&TypeId::of::<R>())?.downcast_ref()
    }

    /// The value of type `R`, mutably.
    pub fn get_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        self.map.get_mut(&TypeId::of::<R>())?.downcast_mut()
    }

    /// Whether a value of type `R` is stored.
    pub fn contains<R: Send + Sync + 'static>(&self) -> bool {
        self.map.contains_key(&TypeId::of::<R>())
    }

    /// Number of resources.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there is no resource.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub(crate) fn missing<R>() -> ResourceError {
        ResourceError::Missing {
            resource: std::any::type_name::<R>(),
        }
    }
}

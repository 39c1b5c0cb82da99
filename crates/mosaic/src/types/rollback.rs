//! The rollback side of the type registry: its view as a [`RollbackRegistry`], the world hash
//! and rollback rings that read it.

use super::TypeRegistry;
use crate::rollback::{
    ComponentEntry, InputEntry, PairEntry, ResourceEntry, RollbackError, RollbackRegistry, RollbackRing,
};
use crate::world::World;

/// What rollback needs of one registered type (each `None` until declared).
#[derive(Default)]
pub(crate) struct RollbackEntries {
    /// A component saved by bytes (`plain`) or by `clone_from` (`hash`).
    pub(crate) component: Option<ComponentEntry>,
    /// A resource saved by `clone_from`, hashed or not.
    pub(crate) resource: Option<ResourceEntry>,
    /// A resource recorded as an input.
    pub(crate) input: Option<InputEntry>,
    /// A pair kind whose values are hashed.
    pub(crate) pair: Option<PairEntry>,
}

impl RollbackEntries {
    pub(super) fn rename(&mut self, name: &str) {
        if let Some(entry) = &mut self.component {
            name.clone_into(&mut entry.name);
        }
        if let Some(entry) = &mut self.resource {
            name.clone_into(&mut entry.name);
        }
        if let Some(entry) = &mut self.input {
            name.clone_into(&mut entry.name);
        }
        if let Some(entry) = &mut self.pair {
            name.clone_into(&mut entry.name);
        }
    }
}

impl TypeRegistry {
    /// The registry as a [`RollbackRegistry`]: the components declared `plain` or `hash`, the
    /// resources declared `clone` or `hash`, the inputs. Built on first use after a change
    /// (O(types log types)), then shared.
    pub fn rollback(&self) -> &RollbackRegistry {
        self.rollback.get_or_init(|| {
            let mut view = RollbackRegistry::new();
            for entry in &self.entries {
                view.components.extend(entry.rollback.component.clone());
                view.resources.extend(entry.rollback.resource.clone());
                view.inputs.extend(entry.rollback.input.clone());
                view.pairs.extend(entry.rollback.pair.clone());
            }
            view.components.sort_by(|a, b| a.name.cmp(&b.name));
            view.resources.sort_by(|a, b| a.name.cmp(&b.name));
            view.inputs.sort_by(|a, b| a.name.cmp(&b.name));
            view.pairs.sort_by(|a, b| a.name.cmp(&b.name));
            view
        })
    }
}

impl World {
    /// The world hash by this world's [`TypeRegistry`] (see
    /// [`rollback`](crate::rollback#the-world-hash) for what it covers): equal on every run,
    /// thread count and platform of one endianness. O(slots + registered rows).
    ///
    /// # Errors
    /// [`RollbackError::UnregisteredComponent`] if the world has rows of a component type the
    /// registry cannot hash (not declared `plain` or `hash`): the message names the type and the
    /// line that declares it.
    pub fn state_hash(&self) -> Result<u64, RollbackError> {
        let registry = self.types().rollback();
        if let Some(type_name) = registry.unregistered_pool(self) {
            return Err(RollbackError::UnregisteredComponent { type_name });
        }
        Ok(registry.hash(self))
    }

    /// A ring of the last `capacity` frames that saves, restores and hashes what this world's
    /// [`TypeRegistry`] declares (its registry is a copy of [`TypeRegistry::rollback`] now:
    /// declare every type before making the ring). O(types).
    ///
    /// # Panics
    /// If `capacity` is 0.
    pub fn rollback_ring(&self, capacity: usize) -> RollbackRing {
        RollbackRing::new(self.types().rollback().clone(), capacity)
    }
}

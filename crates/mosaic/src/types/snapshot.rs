//! The snapshot side of the type registry: its view as a [`SnapshotRegistry`], and the world's
//! own save and load, which refuse what the registry cannot save.

use super::{TypeKind, TypeRegistry};
use crate::component::ComponentId;
use crate::serialize::{EntityMap, SnapshotError, SnapshotRegistry};
use crate::world::World;

impl TypeRegistry {
    /// The registry as a [`SnapshotRegistry`]: the components, resources and pair kinds
    /// declared `serde`, and the registered relation kinds. Built on first use after a change
    /// (O(types log types)), then shared; clone it to hand it to a thread (the inspector).
    pub fn snapshot(&self) -> &SnapshotRegistry {
        self.snapshot.get_or_init(|| {
            let mut view = SnapshotRegistry::new();
            for entry in &self.entries {
                let list = match entry.kind {
                    TypeKind::Component => &mut view.components,
                    TypeKind::Resource => &mut view.resources,
                    TypeKind::Pair => &mut view.pairs,
                    TypeKind::Relation => {
                        view.relations.extend(entry.snapshot_relation.clone());
                        continue;
                    }
                };
                list.extend(entry.snapshot.clone());
            }
            view.components.sort_by(|a, b| a.name.cmp(&b.name));
            view.resources.sort_by(|a, b| a.name.cmp(&b.name));
            view.pairs.sort_by(|a, b| a.name.cmp(&b.name));
            view.relations.sort_by(|a, b| a.name.cmp(&b.name));
            view
        })
    }
}

/// The first component pool of `world` holding rows that neither the snapshot view saves nor
/// the snapshot writer covers another way (the hierarchy, relation and pair kinds, observers,
/// run-time components, which it saves or refuses with their own errors): its type name.
/// O(pools * types).
fn unsaved_pool(world: &World) -> Option<&'static str> {
    let components = world.components();
    let view = world.types().snapshot();
    let is = |index: usize, id: Option<ComponentId>| id.is_some_and(|id| id.index() == index);
    let covered = |index: usize| {
        let id = ComponentId::from_index(index);
        components.dynamic_info(id).is_some()
            || is(index, components.id::<crate::hierarchy::Relationship>())
            || is(index, components.id::<crate::observer::Observer>())
            || is(index, components.id::<crate::observer::Observed>())
            || world.relation_index().kinds.iter().any(|k| k.pair.index() == index || k.mark.index() == index)
            || world.pair_index().kinds.iter().any(|k| k.pool.index() == index)
            || is(index, world.pair_index().mark)
            || view.components.iter().any(|e| is(index, components.id_by_type(e.type_id)))
    };
    let pools = components.pools().iter().enumerate();
    pools.filter(|(_, pool)| !pool.is_empty()).find(|&(i, _)| !covered(i)).map(|(_, pool)| pool.type_name())
}

impl World {
    /// The snapshot view of the registry, after checking that it saves every component the
    /// world holds.
    fn checked_snapshot(&mut self) -> Result<SnapshotRegistry, SnapshotError> {
        self.flush();
        self.sweep_lazy();
        if let Some(type_name) = unsaved_pool(self) {
            return Err(SnapshotError::UnsavedComponent { type_name });
        }
        Ok(self.types().snapshot().clone())
    }

    /// Saves the world as RON text by its [`TypeRegistry`](super::TypeRegistry): what
    /// [`SnapshotRegistry::save_ron`] writes for [`TypeRegistry::snapshot`] (see
    /// [`serialize`](crate::serialize) for the content). O(slots + rows * log rows).
    ///
    /// # Errors
    /// [`SnapshotError::UnsavedComponent`] if the world has rows of a component type not
    /// declared `serde` (the message names the type and the line that declares it); otherwise
    /// as [`SnapshotRegistry::save_ron`].
    pub fn save_ron(&mut self) -> Result<String, SnapshotError> {
        self.checked_snapshot()?.save_ron(self)
    }

    /// Saves the world in the binary format by its type registry: as [`World::save_ron`], the
    /// content of [`SnapshotRegistry::save_binary`].
    ///
    /// # Errors
    /// As [`World::save_ron`], with [`SnapshotError::EncodePostcard`] for a failing `Serialize`.
    pub fn save_binary(&mut self) -> Result<Vec<u8>, SnapshotError> {
        self.checked_snapshot()?.save_binary(self)
    }

    /// Loads a RON snapshot into the world by its type registry (declare the saved types
    /// first): [`SnapshotRegistry::load_ron`] for [`TypeRegistry::snapshot`]. Nothing changes
    /// unless the whole snapshot reads and checks out.
    ///
    /// # Errors
    /// As [`SnapshotRegistry::load_ron`]; a column the registry does not declare `serde` is
    /// [`SnapshotError::Unknown`].
    pub fn load_ron(&mut self, text: &str) -> Result<EntityMap, SnapshotError> {
        self.types().snapshot().clone().load_ron(self, text)
    }

    /// Loads a binary snapshot into the world by its type registry: as [`World::load_ron`].
    ///
    /// # Errors
    /// As [`SnapshotRegistry::load_binary`].
    pub fn load_binary(&mut self, bytes: &[u8]) -> Result<EntityMap, SnapshotError> {
        self.types().snapshot().clone().load_binary(self, bytes)
    }
}

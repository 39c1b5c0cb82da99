//! Writing snapshots.

use serde::Serialize;

use super::registry::Entry;
use super::{SnapshotError, SnapshotRegistry};
use crate::entity::Entity;
use crate::world::World;

/// The snapshot format this library writes and reads.
pub const FORMAT_VERSION: u32 = 2;

/// A named resource, written as a `(name, data)` pair.
type Named<'a> = (&'a str, Box<dyn erased_serde::Serialize + 'a>);
/// A named column, written as `(name, rows, order)`: rows `(index, value)` in index order, and
/// the entity indices in the pool's row order (the order queries visit them).
type Column<'a> = (&'a str, Box<dyn erased_serde::Serialize + 'a>, Vec<u32>);

/// The snapshot as written. Field order is the format: see the module docs.
#[derive(Serialize)]
#[serde(rename = "Snapshot")]
struct SnapshotOut<'a> {
    format: u32,
    world: u8,
    generations: Vec<u32>,
    free: &'a [u32],
    entities: Vec<u32>,
    hierarchy: Vec<(u32, u32)>,
    components: Vec<Column<'a>>,
    resources: Vec<Named<'a>>,
}

fn named<'a>(entries: &'a [Entry], world: &'a World) -> Vec<Named<'a>> {
    entries.iter().filter_map(|entry| Some((entry.name.as_str(), (entry.save)(world)?))).collect()
}

fn columns<'a>(entries: &'a [Entry], world: &'a World) -> Vec<Column<'a>> {
    entries
        .iter()
        .filter_map(|entry| {
            let rows = (entry.save)(world)?;
            let order = world
                .components()
                .id_by_type(entry.type_id)
                .map(|id| {
                    let pool = world.components().pool(id);
                    pool.entities().iter().filter(|&&e| world.is_alive(e)).map(|e| e.index()).collect()
                })
                .unwrap_or_default();
            Some((entry.name.as_str(), rows, order))
        })
        .collect()
}

/// (child index, parent index) pairs: parents in index order, each one's children in sibling
/// order, so loading them in this order rebuilds the same sibling lists.
fn hierarchy_pairs(world: &World) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    if world.relationship_pool().is_none_or(|pool| pool.is_empty()) {
        return pairs;
    }
    for parent in world.entities().iter() {
        pairs.extend(world.children(parent).map(|child: Entity| (child.index(), parent.index())));
    }
    pairs
}

impl SnapshotRegistry {
    fn snapshot_out<'a>(&'a self, world: &'a World) -> SnapshotOut<'a> {
        SnapshotOut {
            format: FORMAT_VERSION,
            world: world.entities().world_tag(),
            generations: world.entities().slot_generations().collect(),
            free: world.entities().free_list(),
            entities: world.entities().iter().map(Entity::index).collect(),
            hierarchy: hierarchy_pairs(world),
            components: columns(&self.components, world),
            resources: named(&self.resources, world),
        }
    }

    /// Saves `world` as RON text: the entity allocator, every live entity, the registered
    /// components (columns sorted by name, rows in entity index order, plus each pool's row order
    /// so queries visit entities in the same order after loading), the hierarchy links, and the
    /// registered resources the world has. Equal worlds (row orders included) give identical
    /// text. Runs
    /// [`World::sweep_lazy`] first. O(slots + rows * log rows).
    ///
    /// # Errors
    /// [`SnapshotError::EncodeRon`] if a registered type's `Serialize` fails.
    pub fn save_ron(&self, world: &mut World) -> Result<String, SnapshotError> {
        world.sweep_lazy();
        let config = ron::ser::PrettyConfig::new().depth_limit(3).struct_names(true);
        ron::ser::to_string_pretty(&self.snapshot_out(world), config).map_err(SnapshotError::EncodeRon)
    }

    /// Saves `world` in the compact binary format postcard; the same content as
    /// [`SnapshotRegistry::save_ron`]. Equal worlds give identical bytes. Runs
    /// [`World::sweep_lazy`] first. O(slots + rows * log rows).
    ///
    /// # Errors
    /// [`SnapshotError::EncodePostcard`] if a registered type's `Serialize` fails.
    pub fn save_binary(&self, world: &mut World) -> Result<Vec<u8>, SnapshotError> {
        world.sweep_lazy();
        postcard::to_allocvec(&self.snapshot_out(world)).map_err(SnapshotError::EncodePostcard)
    }
}

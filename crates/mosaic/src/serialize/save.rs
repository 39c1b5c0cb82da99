//! Writing snapshots.

use serde::Serialize;

use super::hierarchy::SavedHierarchy;
use super::registry::Entry;
use super::relation::SavedRelation;
use super::{SnapshotError, SnapshotRegistry};
use crate::entity::Entity;
use crate::world::{Parts, World};

/// The snapshot format this library writes (and reads, with the older versions down to
/// [`OLDEST_FORMAT_VERSION`]). Version 6 added the many-to-many pairs (`pairs`, `pair_marks`);
/// version 7 the checksum ([`seal_binary`](super::seal_binary), [`seal_ron`](super::seal_ron));
/// version 8 the run-time components (`dynamic`, last), with the same content otherwise.
pub const FORMAT_VERSION: u32 = 8;

/// The oldest snapshot format this library still reads: version 5, the format before pairs (a
/// version 5 snapshot loads as a world without pairs). Versions 5 and 6 carry no checksum and
/// load without one.
pub const OLDEST_FORMAT_VERSION: u32 = 5;

/// The newest snapshot format without a checksum: a snapshot that says a later version must
/// carry one.
pub(super) const LAST_UNSEALED_VERSION: u32 = 6;

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
    sampler: u64,
    hierarchy: SavedHierarchy,
    relations: Vec<SavedRelation>,
    pairs: Vec<Named<'a>>,
    pair_marks: Vec<u32>,
    components: Vec<Column<'a>>,
    resources: Vec<Named<'a>>,
    dynamic: Vec<super::dynamic::DynamicColumnOut<'a>>,
}

/// Postcard bytes of one entry's data, written as a byte string inside the binary snapshot.
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

/// The data of `entry` in `world`: typed postcard bytes when `binary`, else the type-erased
/// value; `None` when there is nothing to write (a missing resource).
/// `size` grows by the bytes written (binary only), to size the snapshot's buffer.
fn data<'a>(
    entry: &'a Entry,
    world: &'a World,
    binary: bool,
    size: &mut usize,
) -> Option<Result<Box<dyn erased_serde::Serialize + 'a>, SnapshotError>> {
    if binary {
        let bytes = (entry.save_binary)(world)?;
        *size += bytes.as_ref().map_or(0, |b| b.len() + 5);
        Some(
            bytes
                .map(|b| Box::new(Bytes(b)) as Box<dyn erased_serde::Serialize>)
                .map_err(SnapshotError::EncodePostcard),
        )
    } else {
        (entry.save)(world).map(Ok)
    }
}

fn named<'a>(
    entries: &'a [Entry],
    world: &'a World,
    binary: bool,
    size: &mut usize,
) -> Result<Vec<Named<'a>>, SnapshotError> {
    entries
        .iter()
        .filter_map(|entry| Some(data(entry, world, binary, size)?.map(|data| (entry.name.as_str(), data))))
        .collect()
}

fn columns<'a>(
    entries: &'a [Entry],
    world: &'a World,
    binary: bool,
    size: &mut usize,
) -> Result<Vec<Column<'a>>, SnapshotError> {
    entries
        .iter()
        .filter_map(|entry| {
            let rows = match data(entry, world, binary, size)? {
                Ok(rows) => rows,
                Err(error) => return Some(Err(error)),
            };
            let order: Vec<u32> = world
                .components()
                .id_by_type(entry.type_id)
                .map(|id| {
                    let pool = world.components().pool(id);
                    pool.entities().iter().filter(|&&e| world.is_alive(e)).map(|e| e.index()).collect()
                })
                .unwrap_or_default();
            *size += 5 * order.len() + entry.name.len() + 10;
            Some(Ok((entry.name.as_str(), rows, order)))
        })
        .collect()
}

/// The registered pair kinds `world` has set up, in set-up order (the order
/// [`World::pairs_to`] lists kinds in), each `(name, pairs)`.
///
/// # Errors
/// [`SnapshotError::UnregisteredPair`] for a kind holding pairs that is not registered.
fn pair_kinds<'a>(
    registry: &'a SnapshotRegistry,
    index: &crate::hierarchy::PairIndex,
    world: &'a World,
    binary: bool,
    size: &mut usize,
) -> Result<Vec<Named<'a>>, SnapshotError> {
    let mut out = Vec::new();
    for kind in &index.kinds {
        let Some(entry) = registry.pairs.iter().find(|e| e.type_id == kind.type_id) else {
            if world.components().pool(kind.pool).is_empty() {
                continue;
            }
            return Err(SnapshotError::UnregisteredPair { relation: kind.name });
        };
        if let Some(data) = data(entry, world, binary, size) {
            *size += entry.name.len() + 5;
            out.push((entry.name.as_str(), data?));
        }
    }
    Ok(out)
}

impl SnapshotRegistry {
    /// The snapshot of `world`, and about how many bytes its binary form takes.
    fn snapshot_out<'a>(
        &'a self,
        world: &'a World,
        binary: bool,
    ) -> Result<(SnapshotOut<'a>, usize), SnapshotError> {
        // Every part of the world, sorted: what a snapshot writes, and why it leaves the rest out.
        let Parts {
            entities,
            // Written through the registry: the registered components, in `columns` below; and
            // the run-time components with a schema, in `dynamic` below (no registration).
            components: _,
            // Derived from the pools on load.
            component_sets: _,
            // Written through the registry: the registered resources, in `named` below.
            resources: _,
            // Not written: a loaded world has its own groups (its pools' saved row orders must
            // keep them packed, which the load checks).
            groups: _,
            // Not written: value indexes are derived from the pools; a load marks the loaded
            // world's indexes stale, and each rebuilds on its next lookup.
            indexes: _,
            // Not written: a load counts every value as added, and readers' windows start anew.
            reader_ticks: _,
            sampler,
            // Written through the registry: the registered pair kinds, in `pair_kinds` below;
            // the reverse index is rebuilt on load from each pair's slot.
            pairs,
            // Written through the registry: the registered relation kinds, in `relations` below
            // (a world holding pairs of a kind not registered is refused there).
            relations: _,
            // Written with the hierarchy (`SavedHierarchy`): the pool's row order, the links and
            // the ordering bookkeeping.
            hierarchy: _,
        } = world.parts();
        // Run-time components made from raw parts have bytes of no known meaning: refuse rather
        // than lose them. Those with a schema are written by `dynamic::columns`.
        let components_registry = world.components();
        if let Some((_, info)) = components_registry
            .dynamic_components()
            .find(|&(id, info)| info.schema.is_none() && !components_registry.pool(id).is_empty())
        {
            return Err(SnapshotError::RunTimeComponent { component: info.name });
        }
        let mut size = 16;
        let pair_kinds = pair_kinds(self, pairs, world, binary, &mut size)?;
        let pair_marks: Vec<u32> = pairs.mark.map_or_else(Vec::new, |mark| {
            world
                .components()
                .pool(mark)
                .entities()
                .iter()
                .filter(|&&e| world.is_alive(e))
                .map(|e| e.index())
                .collect()
        });
        size += 5 * pair_marks.len() + 5;
        let relations = self.saved_relations(world)?;
        size += relations
            .iter()
            .map(|r| r.name.len() + 5 * (2 * r.pairs.len() + r.marks.len() + 2 * r.index.len()) + 10)
            .sum::<usize>();
        let components = columns(&self.components, world, binary, &mut size)?;
        let resources = named(&self.resources, world, binary, &mut size)?;
        let dynamic = super::dynamic::columns(world);
        size += dynamic.iter().map(super::dynamic::DynamicColumnOut::size_hint).sum::<usize>();
        let out = SnapshotOut {
            format: FORMAT_VERSION,
            world: entities.world_tag(),
            generations: entities.slot_generations().collect(),
            free: entities.free_list(),
            entities: entities.iter().map(Entity::index).collect(),
            sampler,
            hierarchy: SavedHierarchy::of(world),
            relations,
            pairs: pair_kinds,
            pair_marks,
            components,
            resources,
            dynamic,
        };
        let hierarchy = &out.hierarchy;
        let dirty = hierarchy.state.as_ref().map_or(0, |state| 3 * state.dirty.len() + 12);
        size += 5 * (out.generations.len() + out.free.len() + out.entities.len())
            + 5 * (2 * hierarchy.links.len() + hierarchy.order.len())
            + dirty
            + 10;
        Ok((out, size))
    }

    /// Saves `world` as RON text: the entity allocator, every live entity, the lazy collector's
    /// sampling state, the hierarchy (links, the relationship pool's row order and the ordering
    /// bookkeeping), the registered components (columns sorted by name, rows in entity index
    /// order, plus each pool's row order so queries visit entities in the same order after
    /// loading), and the registered resources the world has: everything that decides how the
    /// world orders its pools later, so a loaded world continues exactly (see the
    /// [module docs](super)). The first line is the checksum of the rest
    /// ([`seal_ron`](super::seal_ron)). Equal worlds (row orders included) give identical text. Runs
    /// [`World::flush`] (reserved ids become live entities) and [`World::sweep_lazy`] first. O(slots + rows * log rows).
    ///
    /// # Errors
    /// [`SnapshotError::EncodeRon`] if a registered type's `Serialize` fails.
    /// [`SnapshotError::UnregisteredRelation`] or [`SnapshotError::UnregisteredPair`] if the
    /// world holds pairs of a relation or pair kind the registry does not name;
    /// [`SnapshotError::RunTimeComponent`] if it holds rows of a run-time component made from
    /// raw parts (those with a schema are saved).
    pub fn save_ron(&self, world: &mut World) -> Result<String, SnapshotError> {
        world.flush();
        world.sweep_lazy();
        let config = ron::ser::PrettyConfig::new().depth_limit(3).struct_names(true);
        ron::ser::to_string_pretty(&self.snapshot_out(world, false)?.0, config)
            .map(|text| super::seal_ron(&text))
            .map_err(SnapshotError::EncodeRon)
    }

    /// Saves `world` in the compact binary format postcard; the same content as
    /// [`SnapshotRegistry::save_ron`], except that each column's and resource's data is a byte
    /// string holding its postcard encoding, written by code compiled for that type (no dynamic
    /// call per value); the last 4 bytes are the checksum of the rest
    /// ([`seal_binary`](super::seal_binary)). Equal worlds give identical bytes. Runs
    /// [`World::flush`] and [`World::sweep_lazy`] first. O(slots + rows * log rows).
    ///
    /// # Errors
    /// [`SnapshotError::EncodePostcard`] if a registered type's `Serialize` fails.
    /// [`SnapshotError::UnregisteredRelation`] or [`SnapshotError::UnregisteredPair`] if the
    /// world holds pairs of a relation or pair kind the registry does not name;
    /// [`SnapshotError::RunTimeComponent`] if it holds rows of a run-time component made from
    /// raw parts (those with a schema are saved).
    pub fn save_binary(&self, world: &mut World) -> Result<Vec<u8>, SnapshotError> {
        world.flush();
        world.sweep_lazy();
        let (out, size) = self.snapshot_out(world, true)?;
        postcard::to_extend(&out, Vec::with_capacity(size + 4))
            .map(super::seal_binary)
            .map_err(SnapshotError::EncodePostcard)
    }
}

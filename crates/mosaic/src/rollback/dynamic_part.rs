//! The pools of run-time components with a schema (`mosaic::dynamic`): saved, restored and
//! hashed as bytes, with no registration (their values are plain data, so a copy is exact and
//! the bytes are a stable hash input). Components registered from raw parts are not covered:
//! the `PoolsPart` refuses a world where one holds rows.

use super::hash::{StableHasher, hash_mapped};
use super::part::{WorldPart, first_row_difference};
use super::registry::entity_word;
use super::{RollbackError, RollbackRegistry, StateDifference};
use crate::component::ComponentId;
use crate::storage::{PoolImage, SparseSet};
use crate::world::World;

/// The pools of run-time components with a schema.
pub(crate) struct DynamicPoolsPart;

/// One saved pool: the component's id and name at the save, and the pool.
#[derive(Default)]
pub(crate) struct SavedPool {
    id: Option<ComponentId>,
    name: &'static str,
    pool: PoolImage,
}

/// The schema components of `world` with their pools, in id order.
fn schema_pools(world: &World) -> impl Iterator<Item = (ComponentId, &'static str, &SparseSet)> + '_ {
    let components = world.components();
    components
        .dynamic_components()
        .filter(|(_, info)| info.schema.is_some())
        .map(move |(id, info)| (id, info.name, components.pool(id)))
}

impl WorldPart for DynamicPoolsPart {
    /// One per schema component the world had at the save, in id order.
    type Image = Vec<SavedPool>;

    fn save(world: &World, _: &RollbackRegistry, image: &mut Vec<SavedPool>) {
        let mut count = 0;
        for (at, (id, name, pool)) in schema_pools(world).enumerate() {
            if image.len() <= at {
                image.push(SavedPool::default());
            }
            let saved = &mut image[at];
            saved.id = Some(id);
            saved.name = name;
            saved.pool.save_bytes(pool);
            count = at + 1;
        }
        image.truncate(count);
    }

    fn check(world: &World, _: &RollbackRegistry, image: &Vec<SavedPool>) -> Result<(), RollbackError> {
        // Run-time components are never unregistered, so each saved one is still there (the
        // same world) unless the image comes from a world that registered others.
        for saved in image {
            let id = saved.id.expect("a saved pool names its component");
            let same = world.components().dynamic_info(id).is_some_and(|info| info.name == saved.name);
            if !same {
                return Err(RollbackError::UnregisteredComponent { type_name: saved.name });
            }
        }
        Ok(())
    }

    fn restore(world: &mut World, _: &RollbackRegistry, image: &Vec<SavedPool>) {
        let components = world.components_mut();
        for saved in image {
            let id = saved.id.expect("a saved pool names its component");
            saved.pool.restore_bytes(components.pool_mut(id));
        }
        // Schema components registered after the save held no rows then.
        let later: Vec<ComponentId> = components
            .dynamic_components()
            .filter(|(id, info)| info.schema.is_some() && !image.iter().any(|s| s.id == Some(*id)))
            .map(|(id, _)| id)
            .collect();
        for id in later {
            components.pool_mut(id).clear();
        }
    }

    fn hash(world: &World, _: &RollbackRegistry, hasher: &mut StableHasher) {
        // Nothing is written for an empty pool (a missing pool and an empty one are the same
        // state), so the hashes of worlds that use no run-time component are what they were
        // before run-time components existed.
        for (_, name, pool) in schema_pools(world).filter(|(_, _, pool)| !pool.is_empty()) {
            std::hash::Hasher::write(hasher, name.as_bytes());
            hasher.write_word(pool.len() as u64);
            hasher.write_word(hash_mapped(pool.len() as u64, pool.entities(), |&e| entity_word(e)));
            let bytes = pool.column_bytes().expect("a schema component's pool is plain bytes");
            hasher.write_block(bytes);
        }
    }

    fn compare(_: &RollbackRegistry, a: &Vec<SavedPool>, b: &Vec<SavedPool>) -> Option<StateDifference> {
        for (sa, sb) in a.iter().zip(b) {
            let values = |x: &PoolImage, y: &PoolImage| {
                let (bx, by) = (x.value_bytes()?, y.value_bytes()?);
                let rows = x.len().min(y.len());
                let size = bx.len().checked_div(x.len()).unwrap_or(0);
                (0..rows).find(|&r| size > 0 && bx[r * size..(r + 1) * size] != by[r * size..(r + 1) * size])
            };
            if let Some((row, entity)) = first_row_difference(&sa.pool, &sb.pool, values) {
                return Some(StateDifference::Component { name: sa.name.to_owned(), row, entity });
            }
        }
        (a.len() != b.len()).then(|| StateDifference::Component {
            name: a.get(b.len()).or_else(|| b.get(a.len())).map_or("", |s| s.name).to_owned(),
            row: 0,
            entity: None,
        })
    }

    fn bytes(image: &Vec<SavedPool>) -> usize {
        image.iter().map(|s| s.pool.bytes()).sum()
    }
}

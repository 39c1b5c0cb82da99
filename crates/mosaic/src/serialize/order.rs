//! Pool row orders in a snapshot: checked against the owning groups of the world loaded into
//! before anything changes, and restored after the rows are in.

use std::any::TypeId;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::SnapshotError;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::world::World;

/// Which pool a saved row order is for.
#[derive(Clone, Copy)]
pub(crate) enum PoolKey {
    /// A Rust type's pool (registered when its rows are loaded, so looked up at restore).
    Type(TypeId),
    /// A run-time component's pool.
    Id(ComponentId),
}

impl PoolKey {
    /// The pool's id in `world`, if it has one.
    fn id(self, world: &World) -> Option<ComponentId> {
        match self {
            Self::Type(type_id) => world.components().id_by_type(type_id),
            Self::Id(id) => Some(id),
        }
    }
}

/// One pool's saved row order.
pub(crate) struct SavedOrder<'a> {
    /// The stored type.
    pub(crate) key: PoolKey,
    /// How errors name it: the column's name in the snapshot.
    pub(crate) name: &'a str,
    /// The saved entity indices in row order, each live and listed once (checked before).
    pub(crate) order: &'a [u32],
}

/// The saved orders of the pools `group` owns, in the group's order, or `None` if one of them
/// has none (so no loaded entity can have all of the group's components, and the group holds no
/// loaded entity).
fn owned_orders<'s, 'a>(
    world: &World,
    owned: &[ComponentId],
    orders: &'s [SavedOrder<'a>],
) -> Option<SmallVec<[&'s SavedOrder<'a>; 4]>> {
    owned.iter().map(|&id| orders.iter().find(|o| o.key.id(world) == Some(id))).collect()
}

/// Checks, before anything changes, that restoring `orders` keeps every owning group of `world`
/// packed, in whatever order the groups were created: for each group, the saved order of every
/// pool it owns must list first the loaded entities that have all of the group's components, as
/// one same sequence (which is how a world with that group saves them). `slots` bounds the saved
/// indices. O(g * rows) for g groups.
///
/// # Errors
/// [`SnapshotError::GroupOrder`] naming the group and the first column that breaks it.
pub(crate) fn check_groups(
    world: &World,
    orders: &[SavedOrder<'_>],
    slots: usize,
) -> Result<(), SnapshotError> {
    // Per saved index: in how many of the current group's owned pools it is. Reset after each
    // group.
    let mut count = vec![0u32; slots];
    for group in &world.groups().owning {
        let Some(owned) = owned_orders(world, &group.owned, orders) else { continue };
        for saved in &owned {
            for &index in saved.order {
                count[index as usize] += 1;
            }
        }
        let all = owned.len() as u32;
        let members = owned[0].order.iter().filter(|&&index| count[index as usize] == all).count();
        let first = &owned[0].order[..members];
        let broken = owned.iter().find(|saved| {
            let prefix = &saved.order[..members.min(saved.order.len())];
            prefix != first || prefix.iter().any(|&index| count[index as usize] != all)
        });
        for saved in &owned {
            for &index in saved.order {
                count[index as usize] = 0;
            }
        }
        if let Some(saved) = broken {
            let group = group.owned.iter().map(|&id| world.components().pool(id).type_name()).collect();
            return Err(SnapshotError::GroupOrder { group, column: saved.name.to_owned() });
        }
    }
    Ok(())
}

/// Reorders each saved pool of `world` to its saved row order, once the loaded rows are in:
/// the loaded entities in the saved order, then the pool's other entities in their current order,
/// with members of the owning groups moved to the front (innermost group first), keeping
/// relative order, so that groups stay packed. `entity_of` gives the entity of a saved index.
/// O(rows) per pool no group owns; O(rows log rows) per owned pool (a stable sort), and O(g *
/// group members) per pass of the group check, which repeats only when it drops a plan.
///
/// After [`check_groups`] passed, every group's pools then list its members in one order. Should
/// a group still find its pools' new orders disagree (a hook changed what loading added), none
/// of the pools of that group, or of any group nested with it, is reordered: they keep the order
/// the group built while loading.
pub(crate) fn restore(world: &mut World, orders: &[SavedOrder<'_>], entity_of: &dyn Fn(u32) -> Entity) {
    let mut plans: FxHashMap<ComponentId, Vec<usize>> = FxHashMap::default();
    for saved in orders {
        let Some(id) = saved.key.id(world) else { continue };
        let pool = world.components().pool(id);
        let mut placed = vec![false; pool.len()];
        let mut plan = Vec::with_capacity(pool.len());
        for &index in saved.order {
            if let Some(row) = pool.row_of(entity_of(index)).filter(|&row| !placed[row]) {
                placed[row] = true;
                plan.push(row);
            }
        }
        plan.extend((0..pool.len()).filter(|&row| !placed[row]));
        // Members of more groups first; the groups owning a pool are nested, and a group's
        // members sit at rows `0..len` of every pool it owns.
        let chain = world.groups().chain(id);
        if !chain.is_empty() {
            let depth = |row: &usize| {
                std::cmp::Reverse(
                    chain.iter().filter(|&&g| *row < world.groups().owning[g as usize].len).count(),
                )
            };
            plan.sort_by_key(depth);
        }
        plans.insert(id, plan);
    }
    // Drop plans until every group agrees; each pass that changes nothing ends it.
    loop {
        let mut dropped = false;
        for group in &world.groups().owning {
            let prefix = |id: ComponentId| -> Vec<Entity> {
                let entities = world.components().pool(id).entities();
                match plans.get(&id) {
                    Some(plan) => plan[..group.len].iter().map(|&row| entities[row]).collect(),
                    None => entities[..group.len].to_vec(),
                }
            };
            let first = prefix(group.owned[0]);
            if group.owned[1..].iter().any(|&id| prefix(id) != first) {
                for id in &group.owned {
                    dropped |= plans.remove(id).is_some();
                }
            }
        }
        if !dropped {
            break;
        }
    }
    for (id, plan) in plans {
        world.components_mut().pool_mut(id).permute(&plan);
    }
}

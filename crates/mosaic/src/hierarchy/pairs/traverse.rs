//! Traversal along relations: reading a component up the graph, and cascade (parents before
//! children) orders. flecs' `up` traversal and `cascade` query terms.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{PairRelation, Targets};
use crate::component::Component;
use crate::entity::Entity;
use crate::hierarchy::HierarchyError;
use crate::world::World;

impl World {
    /// `T` from the nearest ancestor of `entity` in the parent-child hierarchy that has one
    /// (flecs' `up(ChildOf)`), with that ancestor; `entity`'s own `T` does not count. `None` if no
    /// ancestor has a `T` (or `entity` is not alive). O(depth).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Team(u8);
    ///
    /// let mut world = World::new();
    /// let ship = world.spawn(Team(2));
    /// let deck = world.spawn_empty();
    /// let crew = world.spawn_empty();
    /// world.set_parent(deck, ship).unwrap();
    /// world.set_parent(crew, deck).unwrap();
    /// let (owner, team) = world.get_up::<Team>(crew).unwrap();
    /// assert_eq!((owner, team), (ship, &Team(2)));
    /// ```
    pub fn get_up<T: Component>(&self, entity: Entity) -> Option<(Entity, T::Ref<'_>)> {
        self.ancestors(entity).find_map(|a| self.get::<T>(a).ok().map(|t| (a, t)))
    }

    /// `T` from the nearest entity reached from `entity` along pairs of `R` (each pair leads
    /// from a source to its target) that has one, with that entity: breadth first, so the
    /// nearest by pair count, ties broken by each source's target order. `entity`'s own `T` does
    /// not count; cycles are walked once. `None` if none has a `T`. O(entities and pairs
    /// visited).
    pub fn get_up_by<T: Component, R: PairRelation>(&self, entity: Entity) -> Option<(Entity, T::Ref<'_>)> {
        let mut seen = FxHashSet::default();
        seen.insert(entity);
        let mut queue: VecDeque<Entity> = self.targets::<R>(entity).collect();
        while let Some(next) = queue.pop_front() {
            if !seen.insert(next) {
                continue;
            }
            if let Ok(t) = self.get::<T>(next) {
                return Some((next, t));
            }
            queue.extend(self.targets::<R>(next));
        }
        None
    }

    /// Every entity in the graph of `R` (each source and each target), targets before their
    /// sources: a topological order (Kahn's algorithm), for passes that need each entity's
    /// targets done first (flecs' `cascade`). Entities no pair leads from come first, by
    /// entity index; then each entity after its last target, in [`World::sources`] order.
    /// Entities on a cycle come last, in the `Targets<R>` pool's row order. O(n + p) for n
    /// entities and p pairs, plus O(r log r) for the r starting entities.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::hierarchy::PairRelation;
    ///
    /// #[derive(Clone, Default)]
    /// struct DependsOn;
    /// impl PairRelation for DependsOn {}
    ///
    /// let mut world = World::new();
    /// let [app, lib, core, log] = [(); 4].map(|()| world.spawn_empty());
    /// world.add_pair::<DependsOn>(app, lib);
    /// world.add_pair::<DependsOn>(app, log);
    /// world.add_pair::<DependsOn>(lib, core);
    /// world.add_pair::<DependsOn>(lib, log);
    /// let order = world.cascade::<DependsOn>();
    /// let at = |e| order.iter().position(|&x| x == e).unwrap();
    /// assert!(at(core) < at(lib) && at(log) < at(lib) && at(lib) < at(app));
    /// ```
    pub fn cascade<R: PairRelation>(&self) -> Vec<Entity> {
        let Some(pool) = self.components().pool_of::<Targets<R>>() else { return Vec::new() };
        let Some(k) = self.pair_index().kind_of::<R>() else { return Vec::new() };
        let reverse = &self.pair_index().kinds[k].sources;
        // Pairs left to wait for, per source.
        let mut waiting: FxHashMap<Entity, usize> =
            pool.entities().iter().zip(pool.values::<Targets<R>>()).map(|(&s, t)| (s, t.len())).collect();
        let mut roots: Vec<Entity> = reverse.keys().copied().filter(|t| !waiting.contains_key(t)).collect();
        roots.sort_unstable_by_key(|e| e.index());
        let mut order = Vec::with_capacity(waiting.len() + roots.len());
        let mut queue: VecDeque<Entity> = roots.into();
        while let Some(next) = queue.pop_front() {
            order.push(next);
            for &source in reverse.get(&next).into_iter().flatten() {
                let left = waiting.get_mut(&source).expect("every source has a Targets<R>");
                *left -= 1;
                if *left == 0 {
                    queue.push_back(source);
                }
            }
        }
        order.extend(pool.entities().iter().copied().filter(|s| waiting.get(s).is_some_and(|&n| n > 0)));
        order
    }

    /// The entities of the parent-child hierarchy, parents before children: the `ChildOf`
    /// cascade. Reuses the hierarchy's own ordering ([`World::update_hierarchy_order`]), then
    /// reads the pool of [`Relationship`](crate::Relationship) in row order. O(d + s) for the
    /// update (see there) and O(n) for the copy.
    ///
    /// # Errors
    /// [`HierarchyError::OwnedByGroup`] if a group owns the relationship pool.
    pub fn cascade_hierarchy(&mut self) -> Result<Vec<Entity>, HierarchyError> {
        self.update_hierarchy_order()?;
        Ok(self.relationship_pool().map_or_else(Vec::new, |pool| pool.entities().to_vec()))
    }
}

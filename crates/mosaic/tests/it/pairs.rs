//! Many-to-many relationship pairs (`World::add_pair`), as flecs' relationship tests read: two
//! targets of one kind, values, the `(R, *)` and `(*, a)` wildcards, removing one pair, each
//! cleanup policy, symmetric and exclusive kinds, traversal up a relation, cascade order, and
//! rollback and snapshots.

use std::collections::BTreeSet;

use mosaic::hierarchy::{OnDeleteTarget, PairRelation, Targets};
use mosaic::{Component, Entity, World};

#[derive(Clone, Debug, Default, PartialEq)]
struct Likes;
impl PairRelation for Likes {}

#[derive(Clone, Debug, PartialEq)]
struct Owes(u32);
impl PairRelation for Owes {}

#[derive(Clone, Debug, Default)]
struct OwnedBy;
impl PairRelation for OwnedBy {
    const ON_DELETE_TARGET: OnDeleteTarget = OnDeleteTarget::DespawnSource;
}

#[derive(Clone, Debug, Default)]
struct DockedAt;
impl PairRelation for DockedAt {
    const ON_DELETE_TARGET: OnDeleteTarget = OnDeleteTarget::Refuse;
}

#[derive(Clone, Debug, Default)]
struct Friends;
impl PairRelation for Friends {
    const SYMMETRIC: bool = true;
}

#[derive(Clone, Debug, Default)]
struct Inside;
impl PairRelation for Inside {
    const EXCLUSIVE: bool = true;
}

#[derive(Component, Debug, PartialEq)]
struct Faction(u8);

fn spawn_n<const N: usize>(world: &mut World) -> [Entity; N] {
    [(); N].map(|()| world.spawn_empty())
}

fn targets<R: PairRelation>(world: &World, source: Entity) -> BTreeSet<Entity> {
    world.targets::<R>(source).collect()
}

/// Checks both sides agree: every pair on a source is listed under its target, and back.
fn assert_consistent<R: PairRelation>(world: &World) {
    let forward: BTreeSet<(Entity, Entity)> = world.pairs::<R>().map(|(s, t, _)| (s, t)).collect();
    assert_eq!(forward.len(), world.pairs::<R>().count(), "no pair twice");
    let mut reverse = BTreeSet::new();
    for &(_, t) in &forward {
        for &s in world.sources::<R>(t) {
            reverse.insert((s, t));
        }
    }
    assert_eq!(forward, reverse);
}

#[test]
fn two_targets_of_one_kind() {
    let mut world = World::new();
    let [alice, apples, pears] = spawn_n(&mut world);
    assert_eq!(world.add_pair::<Likes>(alice, apples), None);
    assert_eq!(world.add_pair::<Likes>(alice, pears), None);
    assert!(world.has_pair::<Likes>(alice, apples) && world.has_pair::<Likes>(alice, pears));
    assert_eq!(targets::<Likes>(&world, alice), BTreeSet::from([apples, pears]));
    assert_eq!(world.sources::<Likes>(apples), [alice]);
    assert_eq!(world.sources::<Likes>(pears), [alice]);
    assert_eq!(world.add_pair::<Likes>(alice, pears), Some(Likes), "adding again replaces the value");
    assert_eq!(world.pairs::<Likes>().count(), 2);
    assert_consistent::<Likes>(&world);
}

#[test]
fn pairs_carry_values() {
    let mut world = World::new();
    let [ann, ben, cid] = spawn_n(&mut world);
    world.add_pair_with(ann, ben, Owes(10));
    world.add_pair_with(ann, cid, Owes(3));
    assert_eq!(world.pair_value::<Owes>(ann, ben), Some(&Owes(10)));
    world.pair_value_mut::<Owes>(ann, cid).unwrap().0 = 4;
    assert_eq!(world.add_pair_with(ann, ben, Owes(11)), Some(Owes(10)));
    assert_eq!(world.pair_value::<Owes>(ann, cid), Some(&Owes(4)));
    assert_eq!(world.pair_value::<Owes>(ben, ann), None, "pairs have a direction");
    assert_eq!(world.remove_pair::<Owes>(ann, ben), Some(Owes(11)));
    assert_eq!(world.remove_pair::<Owes>(ann, ben), None);
}

#[test]
fn wildcard_walk_and_query_term() {
    let mut world = World::new();
    let [a, b, x, y, z] = spawn_n(&mut world);
    world.add_pair_with(a, x, Owes(1));
    world.add_pair_with(a, y, Owes(2));
    world.add_pair_with(b, z, Owes(3));
    let walk: BTreeSet<(Entity, Entity, u32)> = world.pairs::<Owes>().map(|(s, t, v)| (s, t, v.0)).collect();
    assert_eq!(walk, BTreeSet::from([(a, x, 1), (a, y, 2), (b, z, 3)]));
    let query = world.query::<(Entity, &Targets<Owes>)>();
    let mut seen: Vec<(Entity, Vec<(Entity, u32)>)> =
        query.iter().map(|(e, t)| (e, t.iter().map(|(t, v)| (t, v.0)).collect())).collect();
    seen.sort();
    assert_eq!(seen, [(a, vec![(x, 1), (y, 2)]), (b, vec![(z, 3)])]);
    // A source whose last pair goes leaves the query.
    world.remove_pair::<Owes>(b, z);
    assert!(!world.contains::<Targets<Owes>>(b));
    assert_eq!(world.query::<&Targets<Owes>>().iter().count(), 1);
}

#[test]
fn every_kind_pointing_at_a_target() {
    let mut world = World::new();
    let [cat, dog, mouse, owner] = spawn_n(&mut world);
    world.add_pair::<Likes>(dog, cat);
    world.add_pair_with(mouse, cat, Owes(1));
    world.add_pair::<Likes>(owner, cat);
    world.add_pair::<Likes>(owner, dog);
    let found: BTreeSet<(&str, Entity)> = world.pairs_to(cat).collect();
    let likes = std::any::type_name::<Likes>();
    let owes = std::any::type_name::<Owes>();
    assert_eq!(found, BTreeSet::from([(likes, dog), (owes, mouse), (likes, owner)]));
    assert_eq!(world.pairs_to(mouse).count(), 0);
}

#[test]
fn removing_one_pair_leaves_the_others() {
    let mut world = World::new();
    let [a, b, t, u] = spawn_n(&mut world);
    for s in [a, b] {
        for target in [t, u] {
            world.add_pair::<Likes>(s, target);
        }
    }
    world.remove_pair::<Likes>(a, t);
    assert!(!world.has_pair::<Likes>(a, t));
    assert!(world.has_pair::<Likes>(a, u) && world.has_pair::<Likes>(b, t) && world.has_pair::<Likes>(b, u));
    assert_eq!(world.sources::<Likes>(t), [b]);
    assert_consistent::<Likes>(&world);
}

#[test]
fn sources_order_is_add_order_with_swap_remove() {
    let mut world = World::new();
    let [t, a, b, c, d] = spawn_n(&mut world);
    for s in [a, b, c, d] {
        world.add_pair::<Likes>(s, t);
    }
    assert_eq!(world.sources::<Likes>(t), [a, b, c, d]);
    world.remove_pair::<Likes>(b, t);
    assert_eq!(world.sources::<Likes>(t), [a, d, c]);
    // d's slot moved: removing it still finds it.
    world.remove_pair::<Likes>(d, t);
    assert_eq!(world.sources::<Likes>(t), [a, c]);
    assert_consistent::<Likes>(&world);
}

#[test]
fn despawning_a_target_removes_its_pairs() {
    let mut world = World::new();
    let [a, b, t, u] = spawn_n(&mut world);
    world.add_pair::<Likes>(a, t);
    world.add_pair::<Likes>(a, u);
    world.add_pair::<Likes>(b, t);
    world.despawn(t);
    assert!(world.is_alive(a) && world.is_alive(b));
    assert_eq!(targets::<Likes>(&world, a), BTreeSet::from([u]));
    assert!(!world.contains::<Targets<Likes>>(b), "b's only pair went");
    assert!(world.sources::<Likes>(t).is_empty());
    assert_consistent::<Likes>(&world);
}

#[test]
fn despawning_a_source_leaves_the_reverse_side() {
    let mut world = World::new();
    let [a, b, t] = spawn_n(&mut world);
    world.add_pair::<Likes>(a, t);
    world.add_pair::<Likes>(b, t);
    world.despawn(a);
    assert_eq!(world.sources::<Likes>(t), [b]);
    assert_consistent::<Likes>(&world);
}

#[test]
fn despawning_a_target_can_despawn_the_sources_in_cascade() {
    let mut world = World::new();
    let [owner, sword, gem, other] = spawn_n(&mut world);
    world.add_pair::<OwnedBy>(sword, owner);
    world.add_pair::<OwnedBy>(gem, sword);
    let elsewhere = world.spawn_empty();
    world.add_pair::<OwnedBy>(other, elsewhere);
    world.despawn(owner);
    assert!(!world.is_alive(sword) && !world.is_alive(gem));
    assert!(world.is_alive(other));
    assert_consistent::<OwnedBy>(&world);
}

#[test]
fn a_refusing_pair_blocks_the_despawn() {
    let mut world = World::new();
    let [station, ship] = spawn_n(&mut world);
    world.add_pair::<DockedAt>(ship, station);
    let refused = world.despawn_refused_by(station).unwrap();
    assert_eq!(refused, (std::any::type_name::<DockedAt>(), ship, station));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(station)));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("refuses") && message.contains("remove the pair first"), "{message}");
    assert!(world.is_alive(station), "nothing changed");
    assert!(world.has_pair::<DockedAt>(ship, station));
    world.remove_pair::<DockedAt>(ship, station);
    assert_eq!(world.despawn_refused_by(station), None);
    world.despawn(station);
    // A source may go freely.
    let [port, boat] = spawn_n(&mut world);
    world.add_pair::<DockedAt>(boat, port);
    world.despawn(boat);
    assert!(world.sources::<DockedAt>(port).is_empty());
}

#[test]
fn a_refusal_inside_a_cascade_is_found_before_anything_goes() {
    let mut world = World::new();
    let [owner, ship, station] = spawn_n(&mut world);
    world.add_pair::<OwnedBy>(ship, owner);
    world.add_pair::<DockedAt>(station, ship);
    assert_eq!(world.despawn_refused_by(owner), Some((std::any::type_name::<DockedAt>(), station, ship)));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(owner)));
    assert!(result.is_err());
    assert!(world.is_alive(owner) && world.is_alive(ship) && world.is_alive(station));
}

#[test]
fn symmetric_pairs_go_both_ways() {
    let mut world = World::new();
    let [a, b, c] = spawn_n(&mut world);
    world.add_pair::<Friends>(a, b);
    assert!(world.has_pair::<Friends>(b, a));
    world.add_pair::<Friends>(a, c);
    world.remove_pair::<Friends>(b, a);
    assert!(!world.has_pair::<Friends>(a, b) && !world.has_pair::<Friends>(b, a));
    assert!(world.has_pair::<Friends>(c, a));
    world.despawn(a);
    assert!(!world.has_pair::<Friends>(c, a) && !world.contains::<Targets<Friends>>(c));
    assert_consistent::<Friends>(&world);
    // Removing the component itself takes the mirrors too.
    world.add_pair::<Friends>(b, c);
    world.remove::<Targets<Friends>>(b);
    assert!(!world.has_pair::<Friends>(c, b));
    assert_consistent::<Friends>(&world);
}

#[test]
fn exclusive_pairs_keep_one_target() {
    let mut world = World::new();
    let [item, box_a, box_b] = spawn_n(&mut world);
    world.add_pair::<Inside>(item, box_a);
    world.add_pair::<Inside>(item, box_b);
    assert_eq!(targets::<Inside>(&world, item), BTreeSet::from([box_b]));
    assert!(world.sources::<Inside>(box_a).is_empty());
    assert_eq!(world.sources::<Inside>(box_b), [item]);
    assert_consistent::<Inside>(&world);
}

#[test]
fn the_one_target_relation_is_unchanged() {
    use mosaic::hierarchy::Relation;
    struct Follows;
    impl Relation for Follows {}
    let mut world = World::new();
    let [fan, a, b] = spawn_n(&mut world);
    world.relate::<Follows>(fan, a).unwrap();
    world.relate::<Follows>(fan, b).unwrap();
    assert_eq!(world.target::<Follows>(fan), Some(b));
    assert!(world.related::<Follows>(a).is_empty());
}

#[test]
fn traversal_reads_the_nearest_ancestor() {
    let mut world = World::new();
    let ship = world.spawn(Faction(1));
    let [deck, crew] = spawn_n(&mut world);
    world.set_parent(deck, ship).unwrap();
    world.set_parent(crew, deck).unwrap();
    let (from, faction) = world.get_up::<Faction>(crew).unwrap();
    assert_eq!((from, faction), (ship, &Faction(1)));
    world.insert(deck, Faction(2));
    assert_eq!(world.get_up::<Faction>(crew).unwrap().0, deck);
    assert!(world.get_up::<Faction>(ship).is_none(), "own value does not count");

    // Along pairs: breadth first, nearest first, cycles walked once.
    let [a, b, c] = spawn_n(&mut world);
    let far = world.spawn(Faction(7));
    world.add_pair::<Likes>(a, b);
    world.add_pair::<Likes>(b, c);
    world.add_pair::<Likes>(c, a);
    assert!(world.get_up_by::<Faction, Likes>(a).is_none());
    world.add_pair::<Likes>(c, far);
    world.add_pair::<Likes>(a, ship);
    assert_eq!(world.get_up_by::<Faction, Likes>(a).unwrap().0, ship);
    assert_eq!(world.get_up_by::<Faction, Likes>(b).unwrap().0, far);
}

#[test]
fn cascade_puts_targets_before_sources() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..8).map(|_| world.spawn_empty()).collect();
    // A DAG, added in an order that is not topological.
    let edges = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (5, 4), (6, 0), (7, 7)];
    for (s, t) in edges {
        world.add_pair::<Likes>(es[s], es[t]);
    }
    let order = world.cascade::<Likes>();
    let at = |e: Entity| order.iter().position(|&x| x == e).unwrap();
    for (s, t) in edges.into_iter().filter(|(s, t)| s != t) {
        assert!(at(es[t]) < at(es[s]), "{t} before {s}");
    }
    assert_eq!(order.len(), 8, "each entity once, the self-loop last");
    assert_eq!(*order.last().unwrap(), es[7]);

    // The hierarchy's own order is the `ChildOf` cascade.
    let [root, mid, leaf] = spawn_n(&mut world);
    world.set_parent(leaf, mid).unwrap();
    world.set_parent(mid, root).unwrap();
    let order = world.cascade_hierarchy().unwrap();
    let at = |e: Entity| order.iter().position(|&x| x == e).unwrap();
    assert!(at(root) < at(mid) && at(mid) < at(leaf));
}

#[test]
fn clear_and_dead_entities() {
    let mut world = World::new();
    let [a, t] = spawn_n(&mut world);
    let dead = world.spawn_empty();
    world.despawn(dead);
    assert!(world.try_add_pair_with(a, dead, Likes).is_err());
    assert!(world.try_add_pair_with(dead, t, Likes).is_err());
    assert!(
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.add_pair::<Likes>(a, dead))).is_err()
    );
    world.add_pair::<Likes>(a, t);
    world.clear();
    assert!(world.is_empty());
    assert_eq!(world.pairs::<Likes>().count(), 0);
}

#[cfg(feature = "rollback")]
mod rollback {
    use mosaic::World;
    use mosaic::rollback::{RollbackRegistry, RollbackRing};

    use super::*;

    /// One frame: a deterministic mix of adds, removals and despawns.
    fn step(world: &mut World, frame: u64, pool: &mut Vec<Entity>) {
        let n = pool.len() as u64;
        for i in 0..6 {
            let s = pool[((frame * 7 + i * 3) % n) as usize];
            let t = pool[((frame * 5 + i * 11 + 1) % n) as usize];
            world.add_pair_with(s, t, Owes((frame * 10 + i) as u32));
            world.add_pair::<Friends>(s, t);
        }
        let s = pool[(frame % n) as usize];
        let t = pool[((frame * 3 + 2) % n) as usize];
        world.remove_pair::<Owes>(s, t);
        if frame % 3 == 2 {
            let victim = pool.remove(((frame * 13) % n) as usize);
            world.despawn(victim);
            pool.push(world.spawn_empty());
        }
    }

    fn run(frames: u64) -> (World, Vec<Entity>) {
        let mut world = World::new();
        let mut pool: Vec<Entity> = (0..12).map(|_| world.spawn_empty()).collect();
        for frame in 0..frames {
            step(&mut world, frame, &mut pool);
        }
        (world, pool)
    }

    /// An entity without its world's tag: two worlds' handles compare by it.
    fn key(e: Entity) -> (u32, u32) {
        (e.index(), e.generation())
    }

    /// A pair as `(source key, target key, value)`.
    type Row = ((u32, u32), (u32, u32), u32);

    fn values(world: &World) -> Vec<Row> {
        let mut v: Vec<_> = world.pairs::<Owes>().map(|(s, t, o)| (key(s), key(t), o.0)).collect();
        v.sort();
        v
    }

    #[test]
    fn restore_and_rerun_equals_the_straight_run() {
        let registry = RollbackRegistry::new();
        let (straight, straight_pool) = run(12);
        let (mut world, mut pool) = run(6);
        let mut ring = RollbackRing::new(RollbackRegistry::new(), 4);
        ring.save(&mut world, 6).unwrap();
        let saved_pool = pool.clone();
        for frame in 6..9 {
            step(&mut world, frame, &mut pool);
        }
        assert_ne!(registry.hash(&world), ring.hash(&straight));
        ring.restore(6, &mut world).unwrap();
        pool = saved_pool;
        for frame in 6..12 {
            step(&mut world, frame, &mut pool);
        }
        assert_eq!(registry.hash(&world), registry.hash(&straight));
        assert_eq!(values(&world), values(&straight));
        for (&t, &u) in pool.iter().zip(&straight_pool) {
            assert_eq!(key(t), key(u));
            let keys = |w: &World, e| w.sources::<Owes>(e).iter().map(|&s| key(s)).collect::<Vec<_>>();
            assert_eq!(keys(&world, t), keys(&straight, u), "reverse order too");
        }
        assert_consistent::<Owes>(&world);
        assert_consistent::<Friends>(&world);
    }

    #[test]
    fn the_hash_sees_pairs() {
        let registry = RollbackRegistry::new();
        let mut world = World::new();
        let [a, b] = spawn_n(&mut world);
        let before = registry.hash(&world);
        world.add_pair::<Likes>(a, b);
        let with = registry.hash(&world);
        assert_ne!(before, with);
        world.remove_pair::<Likes>(a, b);
        world.add_pair::<Likes>(b, a);
        assert_ne!(registry.hash(&world), with, "the direction counts");
    }
}

#[cfg(feature = "serialize")]
mod snapshot {
    use mosaic::{SnapshotError, SnapshotRegistry};

    use super::*;

    #[test]
    fn unregistered_pairs_are_refused_not_dropped_and_a_world_without_them_round_trips() {
        let registry = SnapshotRegistry::new();
        let mut world = World::new();
        let [a, b] = spawn_n(&mut world);
        world.add_pair::<Likes>(a, b);
        let error = registry.save_ron(&mut world).unwrap_err();
        assert!(matches!(error, SnapshotError::UnregisteredPair { relation } if relation.ends_with("Likes")));
        assert!(registry.save_binary(&mut world).is_err());
        world.remove_pair::<Likes>(a, b);
        let text = registry.save_ron(&mut world).unwrap();
        let mut copy = World::new();
        registry.load_ron(&mut copy, &text).unwrap();
        assert_eq!(copy.len(), world.len());
    }
}

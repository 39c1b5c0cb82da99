//! Relationship pairs: relate / unrelate / move, the target index, both cleanup policies, empty
//! values, and a model-based property test against a naive source -> target map.

use std::collections::HashMap;

use mosaic::hierarchy::{Cleanup, HierarchyError, Pair, Relation};
use mosaic::{Entity, EntityError, World};
use proptest::prelude::*;

struct Likes;
impl Relation for Likes {
    const ALLOW_SELF: bool = true;
}

struct OwnedBy;
impl Relation for OwnedBy {
    const CLEANUP: Cleanup = Cleanup::DespawnSource;
}

fn spawn_n<const N: usize>(world: &mut World) -> [Entity; N] {
    std::array::from_fn(|_| world.spawn_empty())
}

#[test]
fn relate_move_and_unrelate() {
    let mut world = World::new();
    let [a, b, c, t1, t2] = spawn_n(&mut world);
    for source in [a, b, c] {
        world.relate::<Likes>(source, t1).unwrap();
    }
    assert_eq!(world.related::<Likes>(t1), [a, b, c]);
    assert_eq!(world.target::<Likes>(b), Some(t1));
    // Relating again to the same target changes nothing; to another target moves the pair.
    world.relate::<Likes>(b, t1).unwrap();
    world.relate::<Likes>(b, t2).unwrap();
    assert_eq!(world.related::<Likes>(t1), [a, c]);
    assert_eq!(world.related::<Likes>(t2), [b]);
    assert_eq!(world.unrelate::<Likes>(a), Some(t1));
    assert_eq!(world.unrelate::<Likes>(a), None);
    assert_eq!(world.related::<Likes>(t1), [c]);
    // Relation kinds are independent; an entity may relate to itself where the relation allows
    // it (`Likes`), and not otherwise (`OwnedBy`).
    assert!(matches!(world.relate::<OwnedBy>(c, c), Err(HierarchyError::SelfRelation { .. })));
    world.relate::<OwnedBy>(c, t2).unwrap();
    assert_eq!(world.related::<OwnedBy>(t2), [c]);
    assert_eq!(world.target::<Likes>(c), Some(t1));
    world.relate::<Likes>(t2, t2).unwrap();
    assert_eq!(world.target::<Likes>(t2), Some(t2));
    // All sources of a kind through a plain query.
    let mut likers: Vec<Entity> =
        world.query::<(Entity, &Pair<Likes>)>().into_iter().map(|(e, _)| e).collect();
    likers.sort();
    assert_eq!(likers, [b, c, t2]);
}

#[test]
fn dead_entities_are_errors() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.despawn(b);
    assert_eq!(world.relate::<Likes>(a, b), Err(HierarchyError::Entity(EntityError::NoSuchEntity(b))));
    assert_eq!(world.relate::<Likes>(b, a), Err(HierarchyError::Entity(EntityError::NoSuchEntity(b))));
    assert_eq!(world.target::<Likes>(b), None);
    assert!(world.related::<Likes>(b).is_empty());
}

#[test]
fn despawning_a_target_removes_the_pairs() {
    let mut world = World::new();
    let [a, b, t] = spawn_n(&mut world);
    world.relate::<Likes>(a, t).unwrap();
    world.relate::<Likes>(b, t).unwrap();
    world.despawn(t);
    assert!(world.is_alive(a) && world.is_alive(b));
    assert_eq!(world.target::<Likes>(a), None);
    assert!(!world.contains::<Pair<Likes>>(b));
    assert!(world.related::<Likes>(t).is_empty());
}

#[test]
fn despawning_a_target_can_despawn_the_sources_in_cascade() {
    let mut world = World::new();
    let [king, knight, squire, horse] = spawn_n(&mut world);
    world.relate::<OwnedBy>(knight, king).unwrap();
    world.relate::<OwnedBy>(squire, knight).unwrap();
    world.relate::<Likes>(horse, squire).unwrap();
    world.despawn(king);
    assert!(!world.is_alive(knight) && !world.is_alive(squire), "the cleanup cascades");
    assert!(world.is_alive(horse));
    assert_eq!(world.target::<Likes>(horse), None, "a Likes pair to a despawned squire is removed");
}

#[test]
fn despawning_a_source_leaves_the_index() {
    let mut world = World::new();
    let [a, b, t] = spawn_n(&mut world);
    world.relate::<Likes>(a, t).unwrap();
    world.relate::<Likes>(b, t).unwrap();
    world.despawn(a);
    assert_eq!(world.related::<Likes>(t), [b]);
    // The slot's next occupant is unrelated.
    let reused = world.spawn_empty();
    assert_eq!(reused.index(), a.index());
    assert_eq!(world.target::<Likes>(reused), None);
    assert_eq!(world.related::<Likes>(t), [b]);
}

#[test]
fn removed_values_are_empty_and_do_not_relate() {
    let mut world = World::new();
    let [a, b, t] = spawn_n(&mut world);
    world.relate::<Likes>(a, t).unwrap();
    let pair = world.remove::<Pair<Likes>>(a).unwrap();
    assert_eq!(pair.target(), None);
    assert!(world.related::<Likes>(t).is_empty());
    world.insert(b, pair);
    assert!(!world.contains::<Pair<Likes>>(b), "an empty pair is dropped");
    assert!(world.related::<Likes>(t).is_empty());
    world.relate::<Likes>(a, t).unwrap();
    let unrelated = world.spawn_empty();
    assert!(world.remove::<Pair<Likes>>(unrelated).is_none());
    world.relate::<Likes>(b, t).unwrap();
    let taken = world.remove::<Pair<Likes>>(b).unwrap();
    world.insert(a, taken); // replacing a's pair with an empty one removes it
    assert!(!world.contains::<Pair<Likes>>(a));
    assert!(world.related::<Likes>(t).is_empty());
}

// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Relate(usize, usize, bool),
    Unrelate(usize, bool),
    Despawn(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Spawn),
        5 => (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(s, t, k)| Op::Relate(s, t, k)),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(s, k)| Op::Unrelate(s, k)),
        2 => any::<usize>().prop_map(Op::Despawn),
    ]
}

/// The naive model: per relation kind (false: Likes, true: OwnedBy), source -> target.
#[derive(Default)]
struct Model {
    handles: Vec<Entity>,
    alive: HashMap<Entity, bool>,
    pairs: [HashMap<Entity, Entity>; 2],
    /// Per kind and target, sources in relate order.
    order: [HashMap<Entity, Vec<Entity>>; 2],
}

impl Model {
    fn live(&self, e: Entity) -> bool {
        self.alive.get(&e).copied().unwrap_or(false)
    }

    fn unrelate(&mut self, kind: usize, source: Entity) {
        if let Some(t) = self.pairs[kind].remove(&source) {
            self.order[kind].get_mut(&t).unwrap().retain(|&s| s != source);
        }
    }

    fn despawn(&mut self, e: Entity) {
        if !self.live(e) {
            return;
        }
        self.alive.insert(e, false);
        for kind in 0..2 {
            self.unrelate(kind, e);
        }
        let likers = self.order[0].remove(&e).unwrap_or_default();
        for s in likers {
            self.pairs[0].remove(&s);
        }
        let owned = self.order[1].remove(&e).unwrap_or_default();
        for s in owned {
            self.pairs[1].remove(&s);
            self.despawn(s);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 128 }))]

    #[test]
    fn relations_match_a_map(ops in prop::collection::vec(op(), 1..if cfg!(miri) { 16 } else { 100 })) {
        let mut world = World::new();
        let mut model = Model::default();
        for op in ops {
            let pick = |i: usize| model.handles.get(i % model.handles.len().max(1)).copied();
            match op {
                Op::Spawn => {
                    let e = world.spawn_empty();
                    model.handles.push(e);
                    model.alive.insert(e, true);
                }
                Op::Relate(s, t, owned) => {
                    let (Some(s), Some(t)) = (pick(s), pick(t)) else { continue };
                    let result = if owned { world.relate::<OwnedBy>(s, t) } else { world.relate::<Likes>(s, t) };
                    // `Likes` allows self-relations, `OwnedBy` does not.
                    prop_assert_eq!(result.is_ok(), model.live(s) && model.live(t) && (s != t || !owned));
                    let kind = usize::from(owned);
                    if result.is_ok() && model.pairs[kind].get(&s) != Some(&t) {
                        model.unrelate(kind, s);
                        model.pairs[kind].insert(s, t);
                        model.order[kind].entry(t).or_default().push(s);
                    }
                }
                Op::Unrelate(s, owned) => {
                    let Some(s) = pick(s) else { continue };
                    let old = if owned { world.unrelate::<OwnedBy>(s) } else { world.unrelate::<Likes>(s) };
                    let kind = usize::from(owned);
                    prop_assert_eq!(old, model.pairs[kind].get(&s).copied());
                    model.unrelate(kind, s);
                }
                Op::Despawn(e) => {
                    let Some(e) = pick(e) else { continue };
                    prop_assert_eq!(world.try_despawn(e).is_ok(), model.live(e));
                    model.despawn(e);
                }
            }
            for &e in &model.handles {
                prop_assert_eq!(world.is_alive(e), model.live(e), "{}", e);
                prop_assert_eq!(world.target::<Likes>(e), model.pairs[0].get(&e).copied());
                prop_assert_eq!(world.target::<OwnedBy>(e), model.pairs[1].get(&e).copied());
                prop_assert_eq!(world.related::<Likes>(e), model.order[0].get(&e).cloned().unwrap_or_default());
                prop_assert_eq!(world.related::<OwnedBy>(e), model.order[1].get(&e).cloned().unwrap_or_default());
            }
        }
    }
}

/// Relations in snapshots: saved with the registry's name, loaded with the same pairs, targets,
/// index order and cleanup, in both formats and into a world that already has entities.
#[cfg(feature = "serialize")]
mod snapshots {
    use mosaic::hierarchy::{Cleanup, Relation};
    use mosaic::serialize::seal_ron;
    use mosaic::{SnapshotError, SnapshotRegistry, World};

    struct Orbits;
    impl Relation for Orbits {}

    struct CrewOf;
    impl Relation for CrewOf {
        const CLEANUP: Cleanup = Cleanup::DespawnSource;
    }

    fn registry() -> SnapshotRegistry {
        let mut registry = SnapshotRegistry::new();
        registry.register_relation::<Orbits>("orbits").register_relation::<CrewOf>("crew_of");
        registry
    }

    #[test]
    fn pairs_round_trip_in_both_formats() {
        let mut world = World::new();
        let [sun, earth, mars, moon, ship, pilot, cook] = [(); 7].map(|()| world.spawn_empty());
        world.relate::<Orbits>(mars, sun).unwrap();
        world.relate::<Orbits>(earth, sun).unwrap();
        world.relate::<Orbits>(moon, earth).unwrap();
        world.relate::<CrewOf>(cook, ship).unwrap();
        world.relate::<CrewOf>(pilot, ship).unwrap();
        world.unrelate::<Orbits>(mars);
        world.relate::<Orbits>(mars, sun).unwrap(); // now after earth in the index
        let registry = registry();
        let text = registry.save_ron(&mut world).unwrap();
        let bytes = registry.save_binary(&mut world).unwrap();
        for binary in [false, true] {
            let mut copy = World::new();
            if binary {
                registry.load_binary(&mut copy, &bytes).unwrap();
            } else {
                registry.load_ron(&mut copy, &text).unwrap();
            }
            assert_eq!(copy.related::<Orbits>(sun), [earth, mars], "relate order kept");
            assert_eq!(copy.target::<Orbits>(moon), Some(earth));
            assert_eq!(copy.related::<CrewOf>(ship), [cook, pilot]);
            assert_eq!(registry.save_ron(&mut copy).unwrap(), text, "save(load(save(w))) == save(w)");
            // The loaded relations clean up as the saved ones would.
            copy.despawn(ship);
            assert!(!copy.is_alive(pilot) && !copy.is_alive(cook), "crew despawned with the ship");
            copy.despawn(earth);
            assert_eq!(copy.target::<Orbits>(moon), None, "the pair left with its target");
            assert!(copy.is_alive(moon));
        }
        // Into a world that has entities: handles are remapped, relations follow them.
        let mut busy = World::new();
        busy.spawn_batch((0..5).map(|_| ()));
        let map = registry.load_ron(&mut busy, &text).unwrap();
        let (sun2, earth2) = (map.get(sun).unwrap(), map.get(earth).unwrap());
        assert_eq!(busy.related::<Orbits>(sun2), [earth2, map.get(mars).unwrap()]);
    }

    #[test]
    fn pairs_of_an_unregistered_relation_are_refused_not_dropped() {
        let mut world = World::new();
        let [a, b] = [(); 2].map(|()| world.spawn_empty());
        world.relate::<Orbits>(a, b).unwrap();
        let mut registry = SnapshotRegistry::new();
        registry.register_relation::<CrewOf>("crew_of");
        let error = registry.save_ron(&mut world).unwrap_err();
        assert!(matches!(error, SnapshotError::UnregisteredRelation { .. }), "{error}");
        assert!(error.to_string().contains("register_relation"), "{error}");
        // With no pair left, there is nothing to lose.
        world.unrelate::<Orbits>(a);
        assert!(registry.save_ron(&mut world).is_ok());
    }

    #[test]
    fn corrupt_relations_are_named_errors_and_leave_the_world_unchanged() {
        let mut world = World::new();
        let [sun, earth, moon] = [(); 3].map(|()| world.spawn_empty());
        world.relate::<Orbits>(earth, sun).unwrap();
        world.relate::<Orbits>(moon, earth).unwrap();
        let registry = registry();
        // One line, single spaces: the relation's fields are easy to find and replace. Without
        // the checksum line; each edit is sealed again (`seal_ron`) so the load checks content.
        let saved = registry.save_ron(&mut world).unwrap();
        let text = saved.split_once('\n').unwrap().1.split_whitespace().collect::<Vec<_>>().join(" ");
        let good = "pairs: [(1, 0), (2, 1)], marks: [0, 1], index: [(0, [1]), (1, [2])]";
        assert!(text.contains(good), "{text}");
        let cases = [
            ("pairs: [(1, 0), (2, 9)], marks: [0, 1], index: [(0, [1]), (1, [2])]", "not a live entity"),
            ("pairs: [(1, 0), (1, 1)], marks: [0, 1], index: [(0, [1]), (1, [1])]", "twice"),
            ("pairs: [(1, 0), (2, 1)], marks: [0], index: [(0, [1]), (1, [2])]", "not marked"),
            ("pairs: [(1, 0), (2, 1)], marks: [0, 1], index: [(0, [1, 2])]", "exactly the pairs"),
            ("pairs: [(1, 0), (2, 1)], marks: [0, 1], index: [(1, [2]), (0, [1])]", "twice"),
        ];
        for (bad, what) in cases {
            let corrupt = seal_ron(&text.replace(good, bad));
            let mut copy = World::new();
            let error = registry.load_ron(&mut copy, &corrupt).unwrap_err();
            assert!(error.to_string().contains(what), "{bad}: {error}");
            assert_eq!(copy.len(), 0, "nothing loaded");
        }
        let unknown = seal_ron(&text.replace("name: \"orbits\"", "name: \"circles\""));
        let error = registry.load_ron(&mut World::new(), &unknown).unwrap_err();
        assert!(matches!(error, SnapshotError::Unknown { kind: "relation", .. }), "{error}");
    }
}

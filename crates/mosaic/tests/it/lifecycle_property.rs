//! Model-based property test of the lifecycle features under rollback: random spawns (with
//! required components), despawns, inserts, in-place writes, many-to-many pairs, triggers whose
//! observers change the world, disabling, saves and restores. After every restore the world must
//! be exactly what it was at that save (entities, components, pairs with their values, the hash),
//! its value index must equal one rebuilt from scratch, and the observers must keep working.
#![cfg(feature = "rollback")]

use mosaic::hierarchy::PairRelation;
use mosaic::rollback::{RollbackRegistry, RollbackRing};
use mosaic::{Add, Commands, Component, Disabled, Entity, Event, Has, On, Query, World};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Team(u8);

/// A soldier: spawning one adds `Health(10)` (a required component).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[require(Health = Health(10))]
struct Soldier;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Health(i32);

/// Added by an observer of `Add, Soldier` through its commands.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Enlisted(u32);

#[derive(Clone, Debug, PartialEq)]
struct Likes(i32);
impl PairRelation for Likes {}

#[derive(Event)]
struct Hit(i32);

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8, bool),
    Despawn(usize),
    SetTeam(usize, u8),
    NudgeTeam(usize),
    AddPair(usize, usize, i32),
    RemovePair(usize, usize),
    Hit(usize, i32),
    Disable(usize),
    Enable(usize),
    Save,
    Restore(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..4, any::<bool>()).prop_map(|(t, s)| Op::Spawn(t, s)),
        2 => any::<usize>().prop_map(Op::Despawn),
        2 => (any::<usize>(), 0u8..4).prop_map(|(i, t)| Op::SetTeam(i, t)),
        2 => any::<usize>().prop_map(Op::NudgeTeam),
        2 => (any::<usize>(), any::<usize>(), -5i32..5).prop_map(|(a, b, v)| Op::AddPair(a, b, v)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::RemovePair(a, b)),
        2 => (any::<usize>(), 1i32..4).prop_map(|(i, d)| Op::Hit(i, d)),
        1 => any::<usize>().prop_map(Op::Disable),
        1 => any::<usize>().prop_map(Op::Enable),
        1 => Just(Op::Save),
        1 => (0u64..8).prop_map(Op::Restore),
    ]
}

type Key = (u32, u32);

/// Everything observable about the world, sorted by entity.
#[derive(Debug, PartialEq)]
struct State {
    hash: u64,
    live: Vec<Key>,
    teams: Vec<(Key, u8)>,
    health: Vec<(Key, i32)>,
    enlisted: Vec<(Key, u32)>,
    disabled: Vec<Key>,
    pairs: Vec<(Key, Key, i32)>,
}

fn key(e: Entity) -> Key {
    (e.index(), e.generation())
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

fn state(world: &mut World, registry: &RollbackRegistry) -> State {
    let hash = registry.hash(world);
    let live = sorted(world.entities().iter().map(key).collect());
    let teams = sorted(
        world.query::<(Entity, &Team, Has<Disabled>)>().into_iter().map(|(e, t, _)| (key(e), t.0)).collect(),
    );
    let health = sorted(
        world
            .query::<(Entity, &Health, Has<Disabled>)>()
            .into_iter()
            .map(|(e, h, _)| (key(e), h.0))
            .collect(),
    );
    let enlisted = sorted(
        world
            .query::<(Entity, &Enlisted, Has<Disabled>)>()
            .into_iter()
            .map(|(e, n, _)| (key(e), n.0))
            .collect(),
    );
    let disabled = sorted(world.query::<(Entity, &Disabled)>().into_iter().map(|(e, _)| key(e)).collect());
    let pairs = sorted(world.pairs::<Likes>().map(|(s, t, v)| (key(s), key(t), v.0)).collect());
    State { hash, live, teams, health, enlisted, disabled, pairs }
}

/// The team index must file exactly the entities that have each team, disabled ones included.
fn check_index(world: &mut World) {
    let mut expected: Vec<(u8, Vec<Key>)> = Vec::new();
    for team in 0..5 {
        let members = sorted(
            world
                .query::<(Entity, &Team, Has<Disabled>)>()
                .into_iter()
                .filter(|(_, t, _)| t.0 == team)
                .map(|(e, _, _)| key(e))
                .collect(),
        );
        expected.push((team, members));
    }
    let index = world.index::<Team>();
    for (team, members) in expected {
        assert_eq!(sorted(index.get(&Team(team)).iter().copied().map(key).collect()), members, "team {team}");
    }
}

fn registry() -> RollbackRegistry {
    let mut registry = RollbackRegistry::new();
    registry
        .register_clone::<Team>("team")
        .register_clone::<Soldier>("soldier")
        .register_clone::<Health>("health")
        .register_clone::<Enlisted>("enlisted")
        .register_clone::<Disabled>("disabled");
    registry
}

fn world() -> World {
    let mut world = World::new();
    world.add_index::<Team>();
    world.add_observer(|on: On<Add, Soldier>, mut commands: Commands| {
        commands.insert(on.entity(), Enlisted(on.entity().index()));
    });
    world.add_observer(|hit: On<Hit>, mut health: Query<&mut Health>| {
        if let Ok(h) = health.get_mut(hit.entity()) {
            h.0 -= hit.0;
        }
    });
    world
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 96 }, ..ProptestConfig::default() })]

    #[test]
    fn restores_equal_the_straight_run_and_the_index_its_rebuild(
        ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 140 })
    ) {
        let registry = registry();
        let mut ring = RollbackRing::new(self::registry(), 4);
        let mut world = world();
        let mut saved: Vec<State> = Vec::new();
        let mut frame = 0u64;
        let pick = |world: &World, i: usize| {
            let live: Vec<Entity> =
                world.entities().iter().filter(|&e| world.get::<mosaic::Observer>(e).is_err()).collect();
            (!live.is_empty()).then(|| live[i % live.len()])
        };
        for op in ops {
            match op {
                Op::Spawn(team, soldier) => {
                    let e = world.spawn(Team(team));
                    if soldier {
                        world.insert(e, Soldier);
                        prop_assert_eq!(world.get::<Health>(e), Ok(&Health(10)));
                        prop_assert_eq!(world.get::<Enlisted>(e), Ok(&Enlisted(e.index())));
                    }
                }
                Op::Despawn(i) => {
                    if let Some(e) = pick(&world, i) {
                        world.despawn(e);
                    }
                }
                Op::SetTeam(i, team) => {
                    if let Some(e) = pick(&world, i) {
                        world.insert(e, Team(team));
                    }
                }
                Op::NudgeTeam(i) => {
                    if let Some(e) = pick(&world, i)
                        && let Ok(t) = world.get_mut::<Team>(e)
                    {
                        t.0 = (t.0 + 1) % 5;
                    }
                }
                Op::AddPair(a, b, v) => {
                    if let (Some(s), Some(t)) = (pick(&world, a), pick(&world, b)) {
                        world.add_pair_with(s, t, Likes(v));
                    }
                }
                Op::RemovePair(a, b) => {
                    if let (Some(s), Some(t)) = (pick(&world, a), pick(&world, b)) {
                        world.remove_pair::<Likes>(s, t);
                    }
                }
                Op::Hit(i, d) => {
                    if let Some(e) = pick(&world, i) {
                        let before = world.get::<Health>(e).ok().map(|h| h.0);
                        world.trigger_targets(Hit(d), e);
                        let expected = if world.is_disabled(e) { before } else { before.map(|h| h - d) };
                        prop_assert_eq!(world.get::<Health>(e).ok().map(|h| h.0), expected);
                    }
                }
                Op::Disable(i) => {
                    if let Some(e) = pick(&world, i) {
                        world.disable(e);
                    }
                }
                Op::Enable(i) => {
                    if let Some(e) = pick(&world, i) {
                        world.enable(e);
                    }
                }
                Op::Save => {
                    ring.save(&mut world, frame).unwrap();
                    let slot = frame as usize;
                    saved.resize_with(saved.len().max(slot + 1), || State {
                        hash: 0, live: vec![], teams: vec![], health: vec![], enlisted: vec![], disabled: vec![], pairs: vec![],
                    });
                    saved[slot] = state(&mut world, &registry);
                    frame += 1;
                }
                Op::Restore(back) => {
                    let Some(target) = frame.checked_sub(back + 1) else { continue };
                    let result = ring.restore(target, &mut world);
                    if !ring.contains(target) {
                        prop_assert!(result.is_err());
                        continue;
                    }
                    prop_assert!(result.is_ok(), "{:?}", result);
                    prop_assert_eq!(&state(&mut world, &registry), &saved[target as usize]);
                }
            }
            check_index(&mut world);
        }
        // The observers survive every restore: a new soldier is still enlisted.
        let e = world.spawn(Soldier);
        prop_assert!(world.contains::<Enlisted>(e));
    }
}

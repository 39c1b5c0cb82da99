//! Model-based property test of rollback: random sequences of spawns, despawns, inserts,
//! removes, value changes, reparenting, saves and restores. After every restore the world must be
//! exactly what it was at that save (every entity, its components and values, its parent, the
//! row order of every pool, the hash), its pools and hierarchy must pass their invariant checks,
//! and the next spawn must reuse the id it would have reused then.
#![cfg(feature = "rollback")]

use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
use mosaic::{Component, Entity, World};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Pos(i32, i32);

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[component(storage = "soa")]
#[repr(C)]
struct Vel {
    dx: i32,
    dy: i32,
}

#[derive(Component, Clone, Debug, PartialEq, Hash)]
struct Name(String);

#[derive(Clone, Debug)]
enum Op {
    Spawn(i32, bool, bool),
    Despawn(usize),
    InsertVel(usize, i32),
    RemoveVel(usize),
    InsertName(usize, u8),
    RemoveName(usize),
    Nudge(usize, i32),
    SetParent(usize, usize),
    Save,
    Restore(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<i32>(), any::<bool>(), any::<bool>()).prop_map(|(x, v, n)| Op::Spawn(x, v, n)),
        2 => any::<usize>().prop_map(Op::Despawn),
        1 => (any::<usize>(), any::<i32>()).prop_map(|(i, d)| Op::InsertVel(i, d)),
        1 => any::<usize>().prop_map(Op::RemoveVel),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, n)| Op::InsertName(i, n)),
        1 => any::<usize>().prop_map(Op::RemoveName),
        2 => (any::<usize>(), any::<i32>()).prop_map(|(i, d)| Op::Nudge(i, d)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(c, p)| Op::SetParent(c, p)),
        1 => Just(Op::Save),
        1 => (0u64..12).prop_map(Op::Restore),
    ]
}

/// Everything observable about a world's registered state, in row order per pool.
#[derive(Debug, PartialEq)]
struct State {
    hash: u64,
    live: Vec<(u32, u32)>,
    pos: Vec<(u32, u32, Pos)>,
    vel: Vec<(u32, u32, i32, i32)>,
    names: Vec<(u32, u32, Name)>,
    parents: Vec<(u32, Option<u32>)>,
}

fn key(e: Entity) -> (u32, u32) {
    (e.index(), e.generation())
}

fn state(world: &mut World, registry: &RollbackRegistry) -> State {
    let hash = registry.hash(world);
    let live: Vec<(u32, u32)> = world.entities().iter().map(key).collect();
    let pos =
        world.query::<(Entity, &Pos)>().into_iter().map(|(e, p)| (e.index(), e.generation(), *p)).collect();
    let vel = world
        .query::<(Entity, &Vel)>()
        .into_iter()
        .map(|(e, v)| (e.index(), e.generation(), *v.dx, *v.dy))
        .collect();
    let names = world
        .query::<(Entity, &Name)>()
        .into_iter()
        .map(|(e, n)| (e.index(), e.generation(), n.clone()))
        .collect();
    let alive: Vec<Entity> = world.entities().iter().collect();
    let parents = alive.iter().map(|&e| (e.index(), world.parent(e).map(|p| p.index()))).collect();
    State { hash, live, pos, vel, names, parents }
}

fn registry() -> RollbackRegistry {
    let mut registry = RollbackRegistry::new();
    registry.register::<Pos>("pos").register::<Vel>("vel").register_clone::<Name>("name");
    registry
}

fn check(world: &World) {
    world.components().pools().iter().for_each(|pool| pool.assert_invariants());
    world.assert_hierarchy_invariants();
    // Each live entity's component set is exactly the pools that hold it.
    for entity in world.entities().iter() {
        let ids = world.component_ids(entity).unwrap();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{entity}: ids ascending and distinct");
        assert!(ids.iter().all(|&id| world.components().pool(id).contains(entity)), "{entity}: {ids:?}");
        let holding = world.components().pools().iter().filter(|pool| pool.contains(entity)).count();
        assert_eq!(ids.len(), holding, "{entity}: every pool holding it is in its set");
    }
}

proptest! {
    // Under Miri, a smaller variant: 8 cases of at most 40 operations.
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 8 } else { 128 }, ..ProptestConfig::default() })]

    #[test]
    fn restore_gives_back_exactly_the_saved_world(ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 40 } else { 160 })) {
        let registry = registry();
        let mut ring = RollbackRing::new(self::registry(), 4);
        let mut world = World::new();
        let mut saved: Vec<Option<(State, (u32, u32))>> = Vec::new();
        let mut frame = 0u64;
        let pick = |world: &World, i: usize| {
            let live: Vec<Entity> = world.entities().iter().collect();
            (!live.is_empty()).then(|| live[i % live.len()])
        };
        for op in ops {
            match op {
                Op::Spawn(x, vel, name) => {
                    let e = world.spawn(Pos(x, 0));
                    if vel {
                        world.insert(e, Vel { dx: x, dy: 1 });
                    }
                    if name {
                        world.insert(e, Name(format!("n{x}")));
                    }
                }
                Op::Despawn(i) => {
                    if let Some(e) = pick(&world, i) {
                        world.despawn(e);
                    }
                }
                Op::InsertVel(i, d) => {
                    if let Some(e) = pick(&world, i) {
                        world.insert(e, Vel { dx: d, dy: -d });
                    }
                }
                Op::RemoveVel(i) => {
                    if let Some(e) = pick(&world, i) {
                        world.remove::<Vel>(e);
                    }
                }
                Op::InsertName(i, n) => {
                    if let Some(e) = pick(&world, i) {
                        world.insert(e, Name("x".repeat(usize::from(n % 40))));
                    }
                }
                Op::RemoveName(i) => {
                    if let Some(e) = pick(&world, i) {
                        world.remove::<Name>(e);
                    }
                }
                Op::Nudge(i, d) => {
                    if let Some(e) = pick(&world, i)
                        && let Ok(p) = world.get_mut::<Pos>(e) {
                            p.1 = p.1.wrapping_add(d);
                        }
                }
                Op::SetParent(c, p) => {
                    if let (Some(child), Some(parent)) = (pick(&world, c), pick(&world, p)) {
                        let _ = world.set_parent(child, parent);
                    }
                }
                Op::Save => {
                    ring.save(&mut world, frame).unwrap();
                    // What the next spawn would be, probed on the state itself after the save.
                    let now = state(&mut world, &registry);
                    let probe = world.spawn(Pos(0, 0));
                    ring.restore(frame, &mut world).unwrap();
                    let slot = frame as usize;
                    saved.resize_with(saved.len().max(slot + 1), || None);
                    saved[slot] = Some((now, key(probe)));
                    frame += 1;
                }
                Op::Restore(back) => {
                    let Some(target) = frame.checked_sub(back + 1) else { continue };
                    let result = ring.restore(target, &mut world);
                    if !ring.contains(target) {
                        prop_assert!(result.is_err());
                        continue;
                    }
                    prop_assert!(result.is_ok(), "{result:?}");
                    check(&world);
                    let (expected, next) = saved[target as usize].as_ref().unwrap();
                    prop_assert_eq!(&state(&mut world, &registry), expected);
                    let spawned = world.spawn(Pos(0, 0));
                    prop_assert_eq!(key(spawned), *next);
                    world.despawn(spawned);
                    // Undo the probe so later restores of the same frame still compare.
                    ring.restore(target, &mut world).unwrap();
                }
            }
        }
        check(&world);
    }
}

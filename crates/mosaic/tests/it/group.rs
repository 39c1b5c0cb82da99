//! Owning groups: members packed at the front of each owned pool, kept so through every change.

use std::collections::BTreeSet;

use mosaic::world::GroupError;
use mosaic::{Component, Entity, World};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "soa")]
struct C {
    value: u32,
}
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct D(u32);

fn members(world: &mut World) -> BTreeSet<Entity> {
    world.query::<(Entity, &A, &B)>().into_iter().map(|(e, _, _)| e).collect()
}

#[test]
fn creation_packs_existing_members() {
    let mut world = World::new();
    let mut expected = BTreeSet::new();
    for i in 0..200u32 {
        let e = world.spawn(A(i));
        if i % 3 == 0 {
            world.insert(e, B(i));
            expected.insert(e);
        }
    }
    world.spawn_batch((0..50).map(B));
    let group = world.group::<(A, B)>();
    assert_eq!(world.group_len(group), expected.len());
    world.assert_group_invariants();
    assert_eq!(members(&mut world), expected);
    // The group serves the query: one chunk, no lookups, exactly the members.
    let mut chunks = Vec::new();
    world.query::<(Entity, &A, &B)>().for_each_chunk(|(es, a, b)| {
        assert!(a.iter().zip(b).all(|(a, b)| a.0 == b.0));
        chunks.push(es.len());
    });
    assert_eq!(chunks, [expected.len()]);
}

#[test]
fn changes_keep_the_group_packed() {
    let mut world = World::new();
    let group = world.group::<(A, B)>();
    let entities: Vec<Entity> = (0..100).map(|i| world.spawn((A(i), B(i)))).collect();
    assert_eq!(world.group_len(group), 100);
    for &e in entities.iter().step_by(3) {
        world.remove::<B>(e);
    }
    world.assert_group_invariants();
    for &e in entities.iter().step_by(5) {
        world.despawn(e);
    }
    world.assert_group_invariants();
    let alive: Vec<Entity> = entities.iter().step_by(3).copied().filter(|&e| world.is_alive(e)).collect();
    for e in alive {
        world.insert(e, B(7));
    }
    world.assert_group_invariants();
    let expected: usize = entities.iter().filter(|e| world.is_alive(**e)).count();
    assert_eq!(world.group_len(group), expected);
    let mut chunks = 0;
    world.query::<(&A, &B)>().for_each_chunk(|_| chunks += 1);
    assert_eq!(chunks, 1, "still one packed run after churn");
}

#[test]
fn nested_groups_in_either_order() {
    for inner_first in [false, true] {
        let mut world = World::new();
        for i in 0..120u32 {
            let e = world.spawn(A(i));
            if i % 2 == 0 {
                world.insert(e, B(i));
            }
            if i % 3 == 0 {
                world.insert(e, C { value: i });
            }
        }
        let (ab, abc) = if inner_first {
            let abc = world.group::<(A, B, C)>();
            (world.group::<(A, B)>(), abc)
        } else {
            let ab = world.group::<(A, B)>();
            (ab, world.group::<(A, B, C)>())
        };
        world.assert_group_invariants();
        assert_eq!(world.group_len(ab), 60);
        assert_eq!(world.group_len(abc), 20);
        let all: Vec<Entity> = world.query::<Entity>().into_iter().collect();
        for &e in &all[..40] {
            world.remove::<B>(e);
            world.assert_group_invariants();
        }
        for &e in &all[..40] {
            world.insert(e, B(0));
            world.insert(e, C { value: 1 });
            world.assert_group_invariants();
        }
        let with_abc = world.query::<(&A, &B, &C)>().into_iter().count();
        assert_eq!(world.group_len(abc), with_abc);
    }
}

/// A bundle that names the inner group's own components before the outer group's: the entity
/// must join the outer group first, or joining the inner one swaps an outer-only member out of
/// the outer range.
#[test]
fn nested_groups_join_outermost_first_whatever_the_bundle_order() {
    let mut world = World::new();
    let ab = world.group::<(A, B)>();
    let abcd = world.group::<(A, B, C, D)>();
    // Members of (A, B) only, and A alone, so neither range ends at a pool's end.
    for i in 0..10 {
        world.spawn((A(i), B(i)));
        world.spawn((A(100 + i),));
    }
    for i in 0..10 {
        let e = world.spawn((D(i), C { value: i }, B(i), A(i)));
        world.assert_group_invariants();
        assert!(world.query::<(&A, &B, &C, &D)>().get(e).is_ok());
        let mut commands = mosaic::CommandBuffer::new();
        commands.spawn(&world, (C { value: 50 + i }, D(50 + i), A(50 + i), B(50 + i)));
        commands.apply(&mut world);
        world.assert_group_invariants();
    }
    assert_eq!((world.group_len(ab), world.group_len(abcd)), (30, 20));
    // Despawns and removes in the same worlds leave both groups packed too.
    let members: Vec<Entity> = world.query::<(Entity, &D)>().into_iter().map(|(e, _)| e).collect();
    for (k, e) in members.into_iter().enumerate() {
        if k % 2 == 0 {
            world.despawn(e);
        } else {
            world.remove::<(D, B)>(e);
        }
        world.assert_group_invariants();
    }
    assert_eq!((world.group_len(ab), world.group_len(abcd)), (10, 0));
}

#[test]
fn conflicting_groups_are_refused_naming_both() {
    let mut world = World::new();
    world.group::<(A, B)>();
    let error = world.try_group::<(B, D)>().unwrap_err();
    let GroupError::Conflict { .. } = &error else { panic!("{error}") };
    let message = error.to_string();
    assert!(
        message.contains("group::B") && message.contains("group::D") && message.contains("group::A"),
        "{message}"
    );
    // The same group again is the same group; a nested one is fine.
    let again = world.group::<(B, A)>();
    assert_eq!(again, world.group::<(A, B)>());
    world.group::<(A, B, D)>();
    assert!(matches!(world.try_group::<(A,)>(), Err(GroupError::TooFewComponents { .. })));
}

#[derive(Debug, Clone)]
enum Op {
    Spawn(u8),
    Insert(usize, u8),
    Remove(usize, u8),
    Despawn(usize),
    /// Spawns with one of the bundles of [`bundle`], whose components come in varied orders.
    SpawnBundle(u8),
    /// Inserts one of the bundles of [`bundle`] into a live entity.
    InsertBundle(usize, u8),
    /// Sorts one of the three nested groups (by a scrambled key of `A`, or by buckets of `B`).
    Sort(u8, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..16).prop_map(Op::Spawn),
        (any::<usize>(), 0u8..4).prop_map(|(i, c)| Op::Insert(i, c)),
        (any::<usize>(), 0u8..4).prop_map(|(i, c)| Op::Remove(i, c)),
        any::<usize>().prop_map(Op::Despawn),
        (0u8..6).prop_map(Op::SpawnBundle),
        (any::<usize>(), 0u8..6).prop_map(|(i, k)| Op::InsertBundle(i, k)),
        (0u8..3, any::<bool>()).prop_map(|(g, bucket)| Op::Sort(g, bucket)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 128 }))]

    /// Random spawns, inserts, removes and despawns keep nested groups packed, and group-driven
    /// queries see exactly the entities a naive check finds.
    #[test]
    fn groups_stay_packed(ops in prop::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 150 })) {
        let mut world = World::new();
        let groups = [world.group::<(A, B)>(), world.group::<(A, B, C)>(), world.group::<(D, C, A, B)>()];
        let mut live: Vec<Entity> = Vec::new();
        for op in ops {
            match op {
                Op::Spawn(mask) => {
                    let e = world.spawn_empty();
                    for c in 0..4 {
                        if mask & (1 << c) != 0 {
                            insert(&mut world, e, c);
                        }
                    }
                    live.push(e);
                }
                Op::Insert(i, c) if !live.is_empty() => insert(&mut world, live[i % live.len()], c),
                Op::Remove(i, c) if !live.is_empty() => remove(&mut world, live[i % live.len()], c),
                Op::Despawn(i) if !live.is_empty() => {
                    let e = live.swap_remove(i % live.len());
                    world.despawn(e);
                }
                Op::SpawnBundle(k) => {
                    // Placeholder values (the index is not known before the spawn), then each
                    // value set to the entity's index by replacing it (no row moves).
                    let e = bundle(&mut world, None, k, 0);
                    for c in 0..4 {
                        if has_component(&world, e, c) {
                            insert(&mut world, e, c);
                        }
                    }
                    live.push(e);
                }
                Op::InsertBundle(i, k) if !live.is_empty() => {
                    let e = live[i % live.len()];
                    bundle(&mut world, Some(e), k, e.index());
                }
                Op::Sort(g, bucket) => {
                    let group = groups[usize::from(g)];
                    if bucket {
                        world.sort_group_by_bucket::<B>(group, 16, |b| (b.0 % 16) as usize).unwrap();
                    } else {
                        world.sort_group_by_key::<A, _>(group, |a| a.0.wrapping_mul(2_654_435_761) % 101).unwrap();
                    }
                }
                _ => {}
            }
            world.assert_group_invariants();
            for pool in world.components().pools() {
                pool.assert_invariants();
            }
            let naive: BTreeSet<Entity> = live.iter().copied().filter(|&e| world.contains::<A>(e) && world.contains::<B>(e) && world.contains::<C>(e)).collect();
            let queried: BTreeSet<Entity> = world.query::<(Entity, &A, &B, &C)>().into_iter().map(|(e, ..)| e).collect();
            prop_assert_eq!(queried, naive);
            // Queries over part of a group's components walk a pool, not the group, and read
            // the others by index where a group lines them up: each row's values are its own.
            let has = has_component;
            let expect = |world: &World, cs: [u8; 2]| -> BTreeSet<Entity> {
                live.iter().copied().filter(|&e| cs.iter().all(|&c| has(world, e, c))).collect()
            };
            let mut seen = BTreeSet::new();
            for (e, b, c) in world.query::<(Entity, &B, &C)>().into_iter() {
                prop_assert_eq!((b.0, *c.value), (e.index(), e.index()));
                seen.insert(e);
            }
            prop_assert_eq!(&seen, &expect(&world, [1, 2]));
            seen.clear();
            for (e, c, d) in world.query::<(Entity, &C, &D)>().into_iter() {
                prop_assert_eq!((*c.value, d.0), (e.index(), e.index()));
                seen.insert(e);
            }
            prop_assert_eq!(&seen, &expect(&world, [2, 3]));
            seen.clear();
            for (e, a, d) in world.query::<(Entity, &mut A, &D)>().into_iter() {
                prop_assert_eq!((a.0, d.0), (e.index(), e.index()));
                seen.insert(e);
            }
            prop_assert_eq!(&seen, &expect(&world, [0, 3]));
        }
    }
}

fn has_component(world: &World, e: Entity, c: u8) -> bool {
    match c {
        0 => world.contains::<A>(e),
        1 => world.contains::<B>(e),
        2 => world.contains::<C>(e),
        _ => world.contains::<D>(e),
    }
}

/// Spawns (`target` `None`) or inserts into `target` bundle `k` of six, with every value `v`:
/// whole and partial sets of the groups' components, several naming an inner group's own
/// components before the outer group's.
fn bundle(world: &mut World, target: Option<Entity>, k: u8, v: u32) -> Entity {
    fn put<T: mosaic::Bundle>(world: &mut World, target: Option<Entity>, bundle: T) -> Entity {
        match target {
            Some(e) => {
                world.insert_bundle(e, bundle);
                e
            }
            None => world.spawn(bundle),
        }
    }
    let c = C { value: v };
    match k {
        0 => put(world, target, (D(v), c, B(v), A(v))),
        1 => put(world, target, (c, A(v), D(v), B(v))),
        2 => put(world, target, (c, B(v))),
        3 => put(world, target, (D(v), c)),
        4 => put(world, target, (B(v), D(v), A(v))),
        _ => put(world, target, (c, A(v), B(v))),
    }
}

fn insert(world: &mut World, e: Entity, c: u8) {
    match c {
        0 => drop(world.insert(e, A(e.index()))),
        1 => drop(world.insert(e, B(e.index()))),
        2 => drop(world.insert(e, C { value: e.index() })),
        _ => drop(world.insert(e, D(e.index()))),
    }
}

fn remove(world: &mut World, e: Entity, c: u8) {
    match c {
        0 => drop(world.remove::<A>(e)),
        1 => drop(world.remove::<B>(e)),
        2 => drop(world.remove::<C>(e)),
        _ => drop(world.remove::<D>(e)),
    }
}

/// What the pools of `A`, `B` and `D` hold, row by row (entities by index and generation, to
/// compare two worlds).
fn rows_of(world: &mut World) -> [Vec<crate::common::Key>; 3] {
    use crate::common::key;
    [
        world.query::<(Entity, &A)>().into_iter().map(|(e, _)| key(e)).collect(),
        world.query::<(Entity, &B)>().into_iter().map(|(e, _)| key(e)).collect(),
        world.query::<(Entity, &D)>().into_iter().map(|(e, _)| key(e)).collect(),
    ]
}

/// Batches into grouped pools (`spawn_batch`, `insert_batch`) write their rows first and replay
/// the group joins after: the same rows, in the same order, as the same changes one by one.
#[test]
fn batches_into_grouped_pools_equal_one_by_one() {
    let build = || {
        let mut world = World::new();
        world.group::<(A, B)>();
        world.group::<(A, B, D)>();
        let early: Vec<Entity> =
            (0..30).map(|i| world.spawn(if i % 2 == 0 { A(i) } else { A(i + 100) })).collect();
        (world, early)
    };
    let (mut batched, early) = build();
    let (mut single, early_single) = build();
    let keys = |es: &[Entity]| es.iter().map(|&e| crate::common::key(e)).collect::<Vec<_>>();
    assert_eq!(keys(&early), keys(&early_single));
    // Give every third one a `D`, then `B` to all: the second batch completes both groups.
    batched.insert_batch(early.iter().step_by(3).map(|&e| (e, D(e.index()))));
    batched.insert_batch(early.iter().map(|&e| (e, B(e.index()))));
    let spawned = batched.spawn_batch((0..20).map(|i| (A(i), B(i), D(i))));
    for &e in early_single.iter().step_by(3) {
        single.insert(e, D(e.index()));
    }
    for &e in &early_single {
        single.insert(e, B(e.index()));
    }
    let spawned_single: Vec<Entity> = (0..20).map(|i| single.spawn((A(i), B(i), D(i)))).collect();
    assert_eq!(keys(&spawned), keys(&spawned_single));
    batched.assert_group_invariants();
    assert_eq!(rows_of(&mut batched), rows_of(&mut single));
    let (outer, inner) = (batched.group::<(A, B)>(), batched.group::<(A, B, D)>());
    assert_eq!((batched.group_len(outer), batched.group_len(inner)), (50, 30));
}

/// A batch that panics part-way (a dead entity in `insert_batch`) leaves the rows written so far
/// in their groups.
#[test]
fn a_panicking_batch_leaves_groups_packed() {
    let mut world = World::new();
    world.group::<(A, B)>();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn(A(i))).collect();
    let dead = world.spawn(A(99));
    world.despawn(dead);
    let rows: Vec<(Entity, B)> = entities[..5]
        .iter()
        .map(|&e| (e, B(1)))
        .chain([(dead, B(2))])
        .chain(entities[5..].iter().map(|&e| (e, B(3))))
        .collect();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert_batch(rows)));
    assert!(result.is_err(), "a dead entity panics");
    world.assert_group_invariants();
    let group = world.group::<(A, B)>();
    assert_eq!(world.group_len(group), 5, "the rows before the dead entity joined");
}

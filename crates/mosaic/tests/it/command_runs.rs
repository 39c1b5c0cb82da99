//! Runs of spawns, inserts and removals in a command buffer (consecutive commands of one kind
//! and one bundle type, applied as one batch) against the same commands one by one: the world
//! afterwards must be the same (pools' row order and values, groups, drops in order, hooks and
//! observers in order with what they saw, required components, change detection, the index,
//! the allocator), and so must the apply report.

use std::sync::{Arc, Mutex};

use mosaic::{Add, ApplyReport, CommandBuffer, Component, Entity, On, ResMut, World};
use proptest::prelude::*;

use crate::common::{Key, Logged, in_threads, key};

#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct A(u32);
/// Change-tracked.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct C(u32);
/// Indexed.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct D(u32);
/// Has add and remove hooks whose deferred commands read the world: a run must apply them
/// where one-by-one commands do.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Hooked(u32);
/// Observed on `Add`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Watched(u32);
/// Requires `A`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[require(A)]
struct Needy(u32);

/// What hooks and observers saw, in order: (what, value, entities with an `A` then).
#[derive(Default)]
struct Log(Vec<(&'static str, u32, usize)>);

fn log_later(commands: &mut CommandBuffer, what: &'static str, value: u32) {
    commands.queue(move |world: &mut World| {
        let with_a = world.query::<&A>().into_iter().count();
        world.resource_mut::<Log>().0.push((what, value, with_a));
    });
}

/// A world of `n` entities with components chosen by `kinds[i]` (bits: A, C, D, Hooked,
/// Logged), two nested groups ((A, C) inside (A, C, D)), change tracking on `C`, an index on
/// `D`, hooks on `Hooked` and an observer of `Watched`.
fn world(kinds: &[u8], drops: &Arc<Mutex<Vec<u32>>>) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.group::<(A, C)>();
    world.group::<(A, C, D)>();
    world.track_changes::<C>();
    world.add_index::<D>();
    world.insert_resource(Log::default());
    world.on_add::<Hooked>(|ctx| {
        let value = ctx.world.get::<Hooked>(ctx.entity).expect("an add hook sees the value").0;
        log_later(ctx.commands, "add hooked", value);
    });
    world.on_remove::<Hooked>(|ctx| {
        let value = ctx.world.get::<Hooked>(ctx.entity).expect("a remove hook sees the value").0;
        log_later(ctx.commands, "remove hooked", value);
    });
    world.add_observer(|on: On<Add, Watched>, mut log: ResMut<Log>| {
        log.0.push(("add watched", on.entity().index(), 0));
    });
    let entities = kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| {
            let i = i as u32;
            let e = world.spawn_empty();
            if kind & 1 != 0 {
                world.insert(e, A(i));
            }
            if kind & 2 != 0 {
                world.insert(e, C(i));
            }
            if kind & 4 != 0 {
                world.insert(e, D(i % 5));
            }
            if kind & 8 != 0 {
                world.insert(e, Hooked(i));
            }
            if kind & 16 != 0 {
                world.insert(e, Logged(i, drops.clone()));
            }
            e
        })
        .collect();
    world.clear_trackers();
    (world, entities)
}

/// Everything the two worlds must agree on.
#[derive(Debug, PartialEq)]
struct State {
    report: ApplyReport,
    a: Vec<(Key, u32)>,
    c: Vec<(Key, u32)>,
    d: Vec<(Key, u32)>,
    hooked: Vec<(Key, u32)>,
    watched: Vec<(Key, u32)>,
    needy: Vec<(Key, u32)>,
    logged: Vec<(Key, u32)>,
    groups: (usize, usize),
    drops: Vec<u32>,
    log: Vec<(&'static str, u32, usize)>,
    alive: Vec<(Key, Vec<mosaic::ComponentId>)>,
    next: Vec<Key>,
    index: Vec<(u32, Vec<Key>)>,
    added: Vec<Key>,
    changed: Vec<Key>,
}

fn values<T: mosaic::AosComponent + Copy>(world: &mut World, value: impl Fn(T) -> u32) -> Vec<(Key, u32)> {
    world.query::<(Entity, &T)>().into_iter().map(|(e, v)| (key(e), value(*v))).collect()
}

fn state(mut world: World, report: ApplyReport, drops: &Arc<Mutex<Vec<u32>>>) -> State {
    world.assert_group_invariants();
    let (outer, inner) = (world.group::<(A, C)>(), world.group::<(A, C, D)>());
    let groups = (world.group_len(outer), world.group_len(inner));
    let logged = world.query::<(Entity, &Logged)>().into_iter().map(|(e, v)| (key(e), v.0)).collect();
    let added = world.query_filtered::<Entity, mosaic::Added<C>>().into_iter().map(key).collect();
    let changed = world.query_filtered::<Entity, mosaic::Changed<C>>().into_iter().map(key).collect();
    let index =
        (0..5).map(|k| (k, world.index::<D>().get(&D(k)).iter().copied().map(key).collect())).collect();
    let mut alive: Vec<(Key, Vec<mosaic::ComponentId>)> = world
        .query::<Entity>()
        .into_iter()
        .collect::<Vec<_>>()
        .into_iter()
        .map(|e| (key(e), world.component_ids(e).expect("alive").to_vec()))
        .collect();
    alive.sort();
    let state = State {
        report,
        a: values::<A>(&mut world, |v| v.0),
        c: values::<C>(&mut world, |v| v.0),
        d: values::<D>(&mut world, |v| v.0),
        hooked: values::<Hooked>(&mut world, |v| v.0),
        watched: values::<Watched>(&mut world, |v| v.0),
        needy: values::<Needy>(&mut world, |v| v.0),
        logged,
        groups,
        drops: Vec::new(),
        log: std::mem::take(&mut world.resource_mut::<Log>().0),
        alive,
        next: (0..4).map(|_| key(world.spawn_empty())).collect(),
        index,
        added,
        changed,
    };
    drop(world);
    State { drops: std::mem::take(&mut drops.lock().unwrap()), ..state }
}

/// A command, repeated `count` times on consecutive targets (so runs form): the target is an
/// index into the world's first entities, then the entities spawned by earlier ops.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `CommandBuffer::spawn` of a bundle chosen by the byte.
    Spawn(u8),
    /// `CommandBuffer::spawn_at_apply` of a bundle chosen by the byte.
    SpawnAtApply(u8),
    /// `CommandBuffer::insert` of a component (or bundle) chosen by the byte.
    Insert(usize, u8),
    /// `CommandBuffer::remove` of a component (or bundle) chosen by the byte.
    Remove(usize, u8),
    Despawn(usize),
}

fn op() -> impl Strategy<Value = (Op, usize)> {
    let op = prop_oneof![
        2 => any::<u8>().prop_map(Op::Spawn),
        1 => any::<u8>().prop_map(Op::SpawnAtApply),
        4 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::Insert(i, b)),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::Remove(i, b)),
        1 => any::<usize>().prop_map(Op::Despawn),
    ];
    (op, 1..12usize)
}

/// Records bundle `choice` for `target` (spawned now when `None`).
fn record_insert(
    commands: &mut CommandBuffer,
    world: &World,
    target: Option<Entity>,
    choice: u8,
    v: u32,
    drops: &Arc<Mutex<Vec<u32>>>,
) -> Option<Entity> {
    macro_rules! put {
        ($bundle:expr) => {
            match target {
                Some(e) => {
                    commands.insert(e, $bundle);
                    None
                }
                None => Some(commands.spawn(world, $bundle)),
            }
        };
    }
    match choice % 9 {
        0 => put!(A(v)),
        1 => put!(C(v)),
        2 => put!(D(v % 5)),
        3 => put!(Hooked(v)),
        4 => put!(Watched(v)),
        5 => put!(Needy(v)),
        6 => put!(Logged(v, drops.clone())),
        7 => put!((A(v), C(v))),
        _ => put!((A(v), C(v), D(v % 5), Hooked(v))),
    }
}

fn record_remove(commands: &mut CommandBuffer, e: Entity, choice: u8) {
    match choice % 8 {
        0 => commands.remove::<A>(e),
        1 => commands.remove::<C>(e),
        2 => commands.remove::<D>(e),
        3 => commands.remove::<Hooked>(e),
        4 => commands.remove::<Watched>(e),
        5 => commands.remove::<Logged>(e),
        6 => commands.remove::<(A, C)>(e),
        _ => commands.remove::<Needy>(e),
    }
}

/// Records `ops` into a buffer and applies it on a pool of `threads` threads. With
/// `one_by_one`, a no-op closure goes between every two commands, so no two consecutive
/// commands form a run: each is applied alone, as before runs existed (the no-ops are taken out
/// of the report).
fn run(kinds: &[u8], ops: &[(Op, usize)], one_by_one: bool, threads: usize) -> State {
    let drops = Arc::new(Mutex::new(Vec::new()));
    let (mut world, mut targets) = world(kinds, &drops);
    drops.lock().unwrap().clear();
    let mut commands = CommandBuffer::new();
    let mut noops = 0;
    let mut v = 1000;
    for &(op, count) in ops {
        for k in 0..count {
            if one_by_one && !commands.is_empty() {
                commands.queue(|_: &mut World| {});
                noops += 1;
            }
            v += 1;
            let at = |i: usize| targets[(i + k) % targets.len()];
            match op {
                Op::Spawn(b) => {
                    let e = record_insert(&mut commands, &world, None, b, v, &drops);
                    targets.extend(e);
                }
                Op::SpawnAtApply(b) => match b % 3 {
                    0 => commands.spawn_at_apply(A(v)),
                    1 => commands.spawn_at_apply((A(v), C(v), Hooked(v))),
                    _ => commands.spawn_at_apply((Watched(v), Needy(v))),
                },
                Op::Insert(i, b) => {
                    record_insert(&mut commands, &world, Some(at(i)), b, v, &drops);
                }
                Op::Remove(i, b) => record_remove(&mut commands, at(i), b),
                Op::Despawn(i) => commands.despawn(at(i)),
            }
        }
    }
    let mut report = in_threads(threads, || commands.apply(&mut world));
    report.applied -= noops;
    state(world, report, &drops)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 64 }))]

    /// Runs of every kind and length, over entities with and without listeners, dead targets
    /// among them.
    #[test]
    fn runs_equal_the_commands_one_by_one(
        kinds in proptest::collection::vec(0u8..32, 1..40),
        ops in proptest::collection::vec(op(), 0..24),
    ) {
        let reference = run(&kinds, &ops, true, 1);
        prop_assert_eq!(&run(&kinds, &ops, false, 1), &reference);
        prop_assert_eq!(&run(&kinds, &ops, false, 2), &reference);
    }
}

/// A long run of each kind on a world with no listener on the types written takes the batch
/// path, with the counts one by one gives.
#[test]
fn long_runs_report_what_they_did() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let spawned: Vec<Entity> = (0..100).map(|i| commands.spawn(&world, (A(i), D(i)))).collect();
    commands.despawn(spawned[7]);
    for &e in &spawned {
        commands.insert(e, C(e.index()));
    }
    for &e in &spawned[..50] {
        commands.remove::<A>(e);
    }
    for i in 0..10 {
        commands.spawn_at_apply(A(1000 + i));
    }
    let report = commands.apply(&mut world);
    // 100 spawns, 1 despawn, 99 of 100 inserts and 49 of 50 removals (the despawned one is
    // skipped), 10 spawns at apply.
    assert_eq!(
        report,
        ApplyReport { applied: 100 + 1 + 99 + 49 + 10, skipped: 2, refused: 0, spawned: 110, despawned: 1 }
    );
    assert_eq!(world.len(), 109);
    assert_eq!(world.query::<&C>().into_iter().count(), 99);
    assert_eq!(world.query::<&A>().into_iter().count(), 50 + 10);
    let order: Vec<u32> = world.query::<&C>().into_iter().map(|c| c.0).collect();
    let expected: Vec<u32> = spawned.iter().filter(|&&e| e != spawned[7]).map(|e| e.index()).collect();
    assert_eq!(order, expected, "inserted in command order");
}

/// A spawn whose entity was given components before the spawn was applied (by another buffer
/// applied first) adds its bundle to them, as one by one, in a run as well as alone.
#[test]
fn a_run_of_spawns_keeps_what_its_entities_already_have() {
    let mut world = World::new();
    let mut spawns = CommandBuffer::new();
    let mut early = CommandBuffer::new();
    let entities: Vec<Entity> = (0..8).map(|i| spawns.spawn(&world, (A(i), D(i)))).collect();
    early.insert(entities[3], C(30));
    early.insert(entities[5], (C(50), A(99)));
    early.apply(&mut world);
    let report = spawns.apply(&mut world);
    assert_eq!((report.applied, report.spawned, report.skipped), (8, 8, 0));
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Ok(&A(i as u32)), "the spawn's value replaces the early one");
        assert_eq!(world.get::<D>(e), Ok(&D(i as u32)));
    }
    assert_eq!(world.get::<C>(entities[3]), Ok(&C(30)));
    assert_eq!(world.get::<C>(entities[5]), Ok(&C(50)));
    assert_eq!(world.query::<&C>().into_iter().count(), 2);
}

/// An appended buffer's commands are this buffer's now: each counts in the report, runs form
/// across the seam, and values of one bundle type from both buffers come in command order.
#[test]
fn appended_commands_count_and_keep_their_order() {
    let mut world = World::new();
    let targets: Vec<Entity> = (0..6).map(|_| world.spawn_empty()).collect();
    let mut first = CommandBuffer::new();
    let mut second = CommandBuffer::new();
    for &e in &targets[..3] {
        first.insert(e, A(e.index()));
    }
    first.despawn(targets[5]);
    for &e in &targets[3..] {
        second.insert(e, A(100 + e.index()));
    }
    let spawned = second.spawn(&world, C(7));
    second.queue(|world: &mut World| {
        world.spawn(D(1));
    });
    first.append(&mut second);
    assert!(second.is_empty());
    assert_eq!(first.len(), 9);
    let report = first.apply(&mut world);
    assert_eq!(
        report,
        ApplyReport { applied: 8, skipped: 1, refused: 0, spawned: 1, despawned: 1 },
        "the insert into the despawned entity is skipped"
    );
    let a: Vec<(u32, u32)> =
        world.query::<(Entity, &A)>().into_iter().map(|(e, a)| (e.index(), a.0)).collect();
    assert_eq!(a, [(0, 0), (1, 1), (2, 2), (3, 103), (4, 104)]);
    assert_eq!(world.get::<C>(spawned), Ok(&C(7)));
    assert_eq!(world.query::<&D>().into_iter().count(), 1);
    // The emptied buffer still records and applies.
    second.insert(targets[0], D(2));
    assert_eq!(second.apply(&mut world).applied, 1);
}

//! Despawns in runs (`World::despawn_batch`, and the runs of despawns command buffers apply at
//! once) against the same despawns one by one: the world afterwards must be the same, bit for
//! bit (pools' row order, groups, drops in order, hooks, events, the allocator, indexes), on
//! one thread and on several.

use std::sync::{Arc, Mutex};

use mosaic::{CommandBuffer, Component, Entity, World};
use proptest::prelude::*;

use crate::common::{Key, Logged, in_threads, key};

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct A(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct C(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct D(u32);
/// Has a hook on removal: an entity holding one is despawned alone, in its place.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Hooked(u32);

/// An event sent between despawns.
#[derive(Clone, Debug, PartialEq)]
struct Died(u32);

/// The hook's log: which entities' `Hooked` left, in order.
#[derive(Default)]
struct HookLog(Vec<u32>);

/// A world of `n` entities with components chosen by `kinds[i]` (bits: A, C, D, Logged,
/// Hooked), two nested groups ((A, C) inside... (A, C, D)), change tracking on `C` and an index
/// on `D`.
fn world(kinds: &[u8], drops: &Arc<Mutex<Vec<u32>>>) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.group::<(A, C)>();
    world.group::<(A, C, D)>();
    world.track_changes::<C>();
    world.add_index::<D>();
    world.insert_resource(HookLog::default());
    world.on_remove::<Hooked>(|ctx| {
        let value = ctx.world.get::<Hooked>(ctx.entity).expect("a remove hook sees the value").0;
        ctx.commands.queue(move |world: &mut World| world.resource_mut::<HookLog>().0.push(value));
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
                world.insert(e, Logged(i, drops.clone()));
            }
            if kind & 16 != 0 && i.is_multiple_of(3) {
                world.insert(e, Hooked(i));
            }
            e
        })
        .collect();
    world.add_event::<Died>();
    (world, entities)
}

/// Everything the two worlds must agree on.
#[derive(Debug, PartialEq)]
struct State {
    a: Vec<(Key, u32)>,
    c: Vec<(Key, u32)>,
    d: Vec<(Key, u32)>,
    logged: Vec<(Key, u32)>,
    groups: (usize, usize),
    drops: Vec<u32>,
    hooks: Vec<u32>,
    events: Vec<Died>,
    alive: Vec<Key>,
    next: Vec<Key>,
    index: Vec<(u32, Vec<Key>)>,
    changed: Vec<Key>,
}

fn state(mut world: World, drops: &Arc<Mutex<Vec<u32>>>) -> State {
    world.assert_group_invariants();
    let (outer, inner) = (world.group::<(A, C)>(), world.group::<(A, C, D)>());
    let groups = (world.group_len(outer), world.group_len(inner));
    let a = world.query::<(Entity, &A)>().into_iter().map(|(e, v)| (key(e), v.0)).collect();
    let c = world.query::<(Entity, &C)>().into_iter().map(|(e, v)| (key(e), v.0)).collect();
    let d = world.query::<(Entity, &D)>().into_iter().map(|(e, v)| (key(e), v.0)).collect();
    let logged = world.query::<(Entity, &Logged)>().into_iter().map(|(e, v)| (key(e), v.0)).collect();
    let changed = world.query_filtered::<Entity, mosaic::Changed<C>>().into_iter().map(key).collect();
    let index =
        (0..5).map(|k| (k, world.index::<D>().get(&D(k)).iter().copied().map(key).collect())).collect();
    let hooks = std::mem::take(&mut world.resource_mut::<HookLog>().0);
    let mut cursor = world.resource_mut::<mosaic::Events<Died>>().register_reader();
    let events = world.resource::<mosaic::Events<Died>>().read(&mut cursor).cloned().collect();
    let mut alive: Vec<Key> = world.query::<Entity>().into_iter().map(key).collect();
    alive.sort();
    let next = (0..4).map(|_| key(world.spawn_empty())).collect();
    drop(world);
    State {
        a,
        c,
        d,
        logged,
        groups,
        drops: std::mem::take(&mut drops.lock().unwrap()),
        hooks,
        events,
        alive,
        next,
        index,
        changed,
    }
}

/// What the commands do: despawn the entity at an index (of the spawned ones, so some repeat
/// and some are dead by then), send an event, or spawn.
#[derive(Clone, Copy, Debug)]
enum Op {
    Despawn(usize),
    Send(u32),
    Spawn(u32),
}

/// `ops` with every despawn naming one of `n` entities.
fn fit(ops: Vec<Op>, n: usize) -> Vec<Op> {
    ops.into_iter()
        .map(|op| match op {
            Op::Despawn(i) => Op::Despawn(i % n),
            other => other,
        })
        .collect()
}

fn op(n: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..n).prop_map(Op::Despawn),
        1 => any::<u32>().prop_map(Op::Send),
        1 => any::<u32>().prop_map(Op::Spawn),
    ]
}

/// Records `ops` into a command buffer and applies it (in a rayon pool of `threads` threads).
/// The reference (`threads` `None`) records each despawn and send as a closure instead, which
/// the buffer applies alone, in its place: the commands one by one, `World::try_despawn` each.
fn run(kinds: &[u8], ops: &[Op], threads: Option<usize>) -> State {
    let drops = Arc::new(Mutex::new(Vec::new()));
    let (mut world, entities) = world(kinds, &drops);
    drops.lock().unwrap().clear();
    let mut commands = CommandBuffer::new();
    for op in ops {
        match (*op, threads) {
            (Op::Despawn(i), Some(_)) => commands.despawn(entities[i]),
            (Op::Despawn(i), None) => {
                let entity = entities[i];
                commands.queue(move |world: &mut World| {
                    let _ = world.try_despawn(entity);
                });
            }
            (Op::Send(v), Some(_)) => commands.send_event(Died(v)),
            (Op::Send(v), None) => commands.queue(move |world: &mut World| world.send_event(Died(v))),
            (Op::Spawn(v), _) => {
                commands.spawn(&world, (A(v), C(v)));
            }
        }
    }
    in_threads(threads.unwrap_or(1), || commands.apply(&mut world));
    state(world, &drops)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 24 }))]

    /// Small worlds: runs of every shape, mixed with hooked entities, sends and spawns.
    #[test]
    fn a_run_equals_the_despawns_one_by_one(
        kinds in proptest::collection::vec(0u8..32, 1..60),
        ops in proptest::collection::vec(op(60), 0..80),
    ) {
        let ops = fit(ops, kinds.len());
        let reference = run(&kinds, &ops, None);
        prop_assert_eq!(&run(&kinds, &ops, Some(1)), &reference);
        prop_assert_eq!(&run(&kinds, &ops, Some(2)), &reference);
    }
}

/// The same ops as world calls: each despawn `World::try_despawn` (`batched` false), or each run
/// of consecutive despawns one `World::despawn_batch` (`batched` true), on this thread.
fn run_world_calls(kinds: &[u8], ops: &[Op], batched: bool) -> State {
    let drops = Arc::new(Mutex::new(Vec::new()));
    let (mut world, entities) = world(kinds, &drops);
    drops.lock().unwrap().clear();
    let mut pending = Vec::new();
    for op in ops.iter().copied().map(Some).chain([None]) {
        if let Some(Op::Despawn(i)) = op {
            if batched {
                pending.push(entities[i]);
            } else {
                let _ = world.try_despawn(entities[i]);
            }
            continue;
        }
        world.despawn_batch(pending.drain(..));
        match op {
            Some(Op::Send(v)) => world.send_event(Died(v)),
            Some(Op::Spawn(v)) => {
                world.spawn((A(v), C(v)));
            }
            _ => {}
        }
    }
    state(world, &drops)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 24 }))]

    /// `World::despawn_batch` on this thread against `World::try_despawn` one by one.
    #[test]
    fn despawn_batch_equals_try_despawn_one_by_one(
        kinds in proptest::collection::vec(0u8..32, 1..60),
        ops in proptest::collection::vec(op(60), 0..80),
    ) {
        let ops = fit(ops, kinds.len());
        prop_assert_eq!(run_world_calls(&kinds, &ops, true), run_world_calls(&kinds, &ops, false));
    }
}

/// A run large enough for one task per pool (past the parallel threshold), on 1, 2 and 4
/// threads, against one by one.
#[test]
fn a_large_run_is_the_same_on_every_thread_count() {
    let n = if cfg!(miri) { 300 } else { 6000 };
    let kinds: Vec<u8> = (0..n).map(|i| [15u8, 7, 3, 1, 31, 13][i % 6]).collect();
    let mut ops: Vec<Op> = (0..n).filter(|i| i % 3 != 1).map(Op::Despawn).collect();
    ops.insert(ops.len() / 2, Op::Send(7));
    ops.push(Op::Despawn(0));
    let reference = run(&kinds, &ops, None);
    assert!(reference.drops.len() > n / 4, "the run drops values");
    for threads in [1, 2, 4] {
        assert_eq!(run(&kinds, &ops, Some(threads)), reference, "{threads} threads");
    }
}

#[test]
fn despawn_batch_counts_and_skips() {
    let drops = Arc::new(Mutex::new(Vec::new()));
    let (mut world, entities) = world(&[15; 10], &drops);
    let dead = entities[9];
    world.despawn(dead);
    let gone = world.despawn_batch([entities[0], dead, entities[1], entities[0], entities[2]]);
    assert_eq!(gone, 3);
    assert_eq!(world.len(), 6);
    assert_eq!(&drops.lock().unwrap()[1..], [0, 1, 2], "dropped in order, after the first despawn's");
    world.assert_group_invariants();
}

/// A `Drop` that panics in the middle of a run: every entity of the run is still despawned and
/// the world is consistent (groups packed, no dead rows).
#[test]
fn a_panicking_drop_leaves_the_world_consistent() {
    #[derive(Component)]
    struct Bomb(bool);
    impl Drop for Bomb {
        fn drop(&mut self) {
            if self.0 && !std::thread::panicking() {
                panic!("boom");
            }
        }
    }
    let mut world = World::new();
    world.group::<(A, C)>();
    let entities: Vec<Entity> = (0..20).map(|i| world.spawn((A(i), C(i), Bomb(i == 5)))).collect();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.despawn_batch(entities[..10].iter().copied());
    }));
    assert!(result.is_err(), "the bomb went off");
    assert_eq!(world.len(), 10, "every entity of the run is despawned");
    assert!(entities[..10].iter().all(|&e| !world.is_alive(e)));
    world.assert_group_invariants();
    assert_eq!(world.query::<&A>().iter().count(), 10);
    assert_eq!(world.query::<&Bomb>().iter().count(), 10);
    let group = world.group::<(A, C)>();
    assert_eq!(world.group_len(group), 10);
}

//! bevy_ecs's command tests (`system/commands/mod.rs`), ported to Mosaic's API where
//! `command_buffer.rs` and `insert_remove.rs` do not already cover them. Each test is named after
//! the bevy test it ports.
//!
//! Names: bevy's `CommandQueue` plus `Commands::new(&mut queue, &world)` is a `CommandBuffer`
//! (`Commands` is its system-parameter form); `commands.spawn(x).id()` is
//! `commands.spawn(&world, x)`, which returns the `Entity` at once; `commands.entity(e).op(..)`
//! is `commands.op(e, ..)`; `queue.apply(&mut world)` is `commands.apply(&mut world)`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::{Added, CommandBuffer, Commands, Component, World};

#[derive(Component)]
struct DropCk(Arc<AtomicUsize>);

impl DropCk {
    fn new_pair() -> (Self, Arc<AtomicUsize>) {
        let atomic = Arc::new(AtomicUsize::new(0));
        (DropCk(atomic.clone()), atomic)
    }
}

impl Drop for DropCk {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

// bevy's `SparseSet`-stored twin; every Mosaic component is a sparse set.
#[derive(Component)]
struct SparseDropCk(#[allow(dead_code, reason = "held for its drop")] DropCk);

#[derive(Component, Debug, PartialEq)]
struct W<T>(T);

struct V<T>(T);

fn simple_command(world: &mut World) {
    world.spawn((W(0u32), W(42u64)));
}

fn pairs(world: &World) -> Vec<(u32, u64)> {
    world.query_ref::<(&W<u32>, &W<u64>)>().iter().map(|(a, b)| (a.0, b.0)).collect()
}

// bevy: commands
#[test]
fn commands() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let entity = commands.spawn(&world, (W(1u32), W(2u64)));
    commands.apply(&mut world);
    assert_eq!(world.query_ref::<&W<u32>>().iter().count(), 1);
    assert_eq!(pairs(&world), vec![(1u32, 2u64)]);

    // despawn, twice: the second is skipped, not a panic
    commands.despawn(entity);
    commands.despawn(entity);
    commands.apply(&mut world);
    assert_eq!(pairs(&world), vec![]);

    // closures and functions as commands
    commands.queue(|world: &mut World| {
        world.spawn((W(42u32), W(0u64)));
    });
    commands.queue(simple_command);
    commands.apply(&mut world);
    let mut results = pairs(&world);
    results.sort();
    // bevy compares in spawn order; Mosaic's query order is arbitrary, so sorted.
    assert_eq!(results, vec![(0u32, 42u64), (42u32, 0u64)]);
}

// bevy: insert_components. Mosaic has no `insert_if(bundle, condition)` or
// `insert_if_new_and`: the condition is an `if` around `insert` / `insert_if_new`.
#[test]
fn insert_components() {
    let mut world = World::new();
    let mut commands1 = CommandBuffer::new();
    let entity = commands1.spawn(&world, ());
    for (value, condition) in [(1u8, true), (2u8, false)] {
        if condition {
            commands1.insert(entity, W(value));
        }
    }
    commands1.insert_if_new(entity, W(1u16));
    commands1.insert_if_new(entity, W(2u16));
    for (value, condition) in [(1u32, false), (2u32, true), (3u32, true)] {
        if condition {
            commands1.insert_if_new(entity, W(value));
        }
    }
    commands1.apply(&mut world);
    let results: Vec<(u8, u16, u32)> =
        world.query_ref::<(&W<u8>, &W<u16>, &W<u32>)>().iter().map(|(a, b, c)| (a.0, b.0, c.0)).collect();
    assert_eq!(results, vec![(1u8, 1u16, 2u32)]);

    // an insert recorded before the entity is despawned by another buffer is skipped
    commands1.insert_if_new(entity, W(1u64));
    let mut commands2 = CommandBuffer::new();
    commands2.despawn(entity);
    commands2.apply(&mut world);
    let report = commands1.apply(&mut world);
    assert_eq!(report.skipped, 1);
    assert!(!world.is_alive(entity));
}

// bevy: insert_component_if_not_equal
#[test]
fn insert_component_if_not_equal() {
    #[derive(Component, PartialEq)]
    #[component(track_changes)]
    struct P(u8);

    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let entity = commands.spawn(&world, P(41u8));
    commands.insert_if_neq(entity, P(42u8));
    commands.apply(&mut world);
    let n_added = world.query_filtered::<(), Added<P>>().iter().count();
    assert_eq!(n_added, 1);
    assert_eq!(world.get::<P>(entity).unwrap().0, 42);

    world.clear_trackers();
    commands.insert_if_neq(entity, P(42u8));
    commands.apply(&mut world);
    assert_eq!(world.query_filtered::<(), Added<P>>().iter().count(), 0);
    assert_eq!(world.get::<P>(entity).unwrap().0, 42);

    world.clear_trackers();
    commands.insert_if_neq(entity, P(42u8));
    let entity2 = commands.spawn(&world, ());
    commands.insert_if_neq(entity2, P(42u8));
    commands.apply(&mut world);
    assert_eq!(world.query_filtered::<(), Added<P>>().iter().count(), 1);
    assert_eq!(world.get::<P>(entity2).unwrap().0, 42);
}

// bevy: remove_components
#[test]
fn remove_components() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let (dense_dropck, dense_is_dropped) = DropCk::new_pair();
    let (sparse_dropck, sparse_is_dropped) = DropCk::new_pair();
    let sparse_dropck = SparseDropCk(sparse_dropck);
    let entity = commands.spawn(&world, (W(1u32), W(2u64), dense_dropck, sparse_dropck));
    commands.apply(&mut world);
    assert_eq!(pairs(&world), vec![(1u32, 2u64)]);

    commands.remove::<W<u32>>(entity);
    commands.remove::<(W<u32>, W<u64>, SparseDropCk, DropCk)>(entity);
    assert_eq!(dense_is_dropped.load(Ordering::Relaxed), 0);
    assert_eq!(sparse_is_dropped.load(Ordering::Relaxed), 0);
    commands.apply(&mut world);
    assert_eq!(dense_is_dropped.load(Ordering::Relaxed), 1);
    assert_eq!(sparse_is_dropped.load(Ordering::Relaxed), 1);
    assert_eq!(pairs(&world), vec![]);
    assert_eq!(world.query_ref::<&W<u64>>().iter().count(), 0);
    assert!(world.is_alive(entity), "removing every component keeps the entity");
}

// bevy: remove_resources
#[test]
fn remove_resources() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    commands.insert_resource(V(123i32));
    commands.insert_resource(V(456.0f64));
    commands.apply(&mut world);
    assert!(world.contains_resource::<V<i32>>());
    assert!(world.contains_resource::<V<f64>>());

    commands.remove_resource::<V<i32>>();
    commands.apply(&mut world);
    assert!(!world.contains_resource::<V<i32>>());
    assert!(world.contains_resource::<V<f64>>());
}

// bevy: remove_component_with_required_components
#[test]
fn remove_component_with_required_components() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;
    #[derive(Component)]
    struct Z;

    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let e = commands.spawn(&world, (X, Z));
    commands.apply(&mut world);
    assert!(world.get::<Y>(e).is_ok());
    assert!(world.get::<X>(e).is_ok());
    assert!(world.get::<Z>(e).is_ok());

    commands.remove_with_requires::<X>(e);
    commands.apply(&mut world);
    assert!(world.get::<Y>(e).is_err());
    assert!(world.get::<X>(e).is_err());
    assert!(world.get::<Z>(e).is_ok());
}

// bevy: test_commands_are_send_and_sync
#[test]
fn test_commands_are_send_and_sync() {
    fn is_send<T: Send>() {}
    fn is_sync<T: Sync>() {}
    is_send::<CommandBuffer>();
    is_sync::<CommandBuffer>();
    is_send::<Commands<'static, 'static>>();
    is_sync::<Commands<'static, 'static>>();
}

// bevy: append
#[test]
fn append() {
    let mut world = World::new();
    let mut commands_1 = CommandBuffer::new();
    commands_1.insert_resource(V(123i32));
    let mut commands_2 = CommandBuffer::new();
    commands_2.insert_resource(V(456.0f64));
    commands_1.append(&mut commands_2);
    assert!(commands_2.is_empty());
    commands_1.apply(&mut world);
    assert!(world.contains_resource::<V<i32>>());
    assert!(world.contains_resource::<V<f64>>());
}

// bevy's command_queue.rs tests: a command is a closure (`CommandBuffer::queue`) here, not a
// type implementing `Command`; the drop checks ride in the closure's captures.
#[derive(Component)]
struct Marker;

fn spawn_command(world: &mut World) {
    world.spawn(Marker);
}

// bevy: test_command_queue_inner_drop (world/command_queue.rs)
#[test]
fn test_command_queue_inner_drop() {
    let mut commands = CommandBuffer::new();
    let (dropcheck_a, drops_a) = DropCk::new_pair();
    let (dropcheck_b, drops_b) = DropCk::new_pair();
    commands.queue(move |_: &mut World| drop(dropcheck_a));
    commands.queue(move |_: &mut World| {
        let _keep = &dropcheck_b;
    });
    assert_eq!(drops_a.load(Ordering::Relaxed), 0);
    assert_eq!(drops_b.load(Ordering::Relaxed), 0);
    let mut world = World::new();
    commands.apply(&mut world);
    assert_eq!(drops_a.load(Ordering::Relaxed), 1);
    assert_eq!(drops_b.load(Ordering::Relaxed), 1);
}

// bevy: test_command_queue_inner_drop_early (world/command_queue.rs)
#[test]
fn test_command_queue_inner_drop_early() {
    let mut commands = CommandBuffer::new();
    let (dropcheck_a, drops_a) = DropCk::new_pair();
    let (dropcheck_b, drops_b) = DropCk::new_pair();
    commands.queue(move |_: &mut World| drop(dropcheck_a));
    // A component value in a recorded insert is dropped with the buffer too.
    let world = World::new();
    let e = commands.spawn(&world, ());
    commands.insert(e, dropcheck_b);
    assert_eq!(drops_a.load(Ordering::Relaxed), 0);
    assert_eq!(drops_b.load(Ordering::Relaxed), 0);
    drop(commands);
    assert_eq!(drops_a.load(Ordering::Relaxed), 1);
    assert_eq!(drops_b.load(Ordering::Relaxed), 1);
}

// bevy: test_command_queue_inner (world/command_queue.rs)
#[test]
fn test_command_queue_inner() {
    let mut commands = CommandBuffer::new();
    commands.queue(spawn_command);
    commands.queue(spawn_command);
    let mut world = World::new();
    commands.apply(&mut world);
    assert_eq!(world.query_ref::<&Marker>().iter().count(), 2);
    // apply emptied the buffer: a second apply does nothing
    commands.apply(&mut world);
    assert_eq!(world.query_ref::<&Marker>().iter().count(), 2);
}

// bevy: test_command_queue_inner_panic_safe_panic (world/command_queue.rs)
#[test]
fn test_command_queue_inner_panic_safe_panic() {
    let mut commands = CommandBuffer::new();
    let message = String::from("I panic!");
    commands.queue(move |_: &mut World| panic!("command is panicking: {message}"));
    commands.queue(spawn_command); // skipped: the panic drops the rest
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        commands.apply(&mut world);
    }));
    assert!(result.is_err());
    commands.queue(spawn_command);
    commands.queue(spawn_command);
    commands.apply(&mut world);
    assert_eq!(world.query_ref::<&Marker>().iter().count(), 2);
}

// bevy: spawn_batch_does_not_leak_entities (world/spawn_batch.rs): a batch whose iterator's
// size hint is only an upper bound (a filter) takes no more entity indices than it spawns.
#[test]
fn spawn_batch_does_not_leak_entities() {
    let mut world = World::new();
    let entities = world.spawn_batch((0u32..50).filter(|&i| i & 1 > 0).map(|_| Marker));
    assert_eq!(entities.len(), 25);
    let next = world.spawn(Marker);
    assert_eq!(next.index(), 25, "the next spawn takes the next index: none was leaked");
}

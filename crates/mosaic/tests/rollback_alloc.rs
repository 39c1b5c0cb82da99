//! Rollback allocates nothing once warm: after every slot of the ring has held the largest state
//! it sees (the hierarchy's dirty list varies from frame to frame), saving
//! and restoring (plain struct-of-arrays and array-of-structs components, a hierarchy, a resource,
//! an owning group) allocate no heap block, while the world keeps spawning and despawning.
//!
//! One test in this file, so no other test allocates concurrently under the counting allocator.
#![cfg(feature = "rollback")]

use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
use mosaic::{Component, Entity, World};

/// dhat's allocator counts every heap block (its testing mode makes the counts exact).
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

fn allocations() -> u64 {
    dhat::HeapStats::get().total_blocks
}

#[derive(Component, Clone, Copy, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Position(f32, f32);

#[derive(Component, Clone, Copy, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[component(storage = "soa")]
#[repr(C)]
struct Velocity {
    dx: f32,
    dy: f32,
}

#[derive(Clone, Copy, Hash)]
struct Tick(u64);

/// Moves everything, then replaces the oldest five entities with five new ones (children of the
/// oldest left; a despawned parent's children become roots), so the population, the slot count
/// and the free list stay constant.
fn step(world: &mut World, spawned: &mut std::collections::VecDeque<Entity>) {
    world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| {
        p.0 += *v.dx;
        p.1 += *v.dy;
    });
    for _ in 0..5 {
        let old = spawned.pop_front().expect("the world is populated");
        world.despawn(old);
        let new = world.spawn((Position(1.0, 2.0), Velocity { dx: 0.5, dy: -0.5 }));
        if let Some(&parent) = spawned.front() {
            world.set_parent(new, parent).unwrap();
        }
        spawned.push_back(new);
    }
    world.update_hierarchy_order().unwrap();
    world.resource_mut::<Tick>().0 += 1;
}

#[test]
#[cfg_attr(miri, ignore = "dhat's allocator hooks are not meant for Miri")]
fn warm_save_and_restore_allocate_nothing() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let mut registry = RollbackRegistry::new();
    registry
        .register::<Position>("position")
        .register::<Velocity>("velocity")
        .register_resource::<Tick>("tick");
    let mut ring = RollbackRing::new(registry, 4);
    let mut world = World::new();
    world.group::<(Position, Velocity)>();
    world.insert_resource(Tick(0));
    let mut spawned: std::collections::VecDeque<Entity> =
        (0..2_000).map(|i| world.spawn((Position(i as f32, 0.0), Velocity { dx: 1.0, dy: 0.0 }))).collect();
    spawned.reserve(16);
    let mut counted = 0;
    for frame in 0..120u64 {
        step(&mut world, &mut spawned);
        let before = allocations();
        ring.save(&mut world, frame).unwrap();
        if frame >= 2 {
            ring.restore(frame - 2, &mut world).unwrap();
            ring.restore(frame, &mut world).unwrap();
        }
        let during = allocations() - before;
        if frame >= 40 {
            counted += 1;
            assert_eq!(during, 0, "frame {frame}: save and restores allocated {during} blocks");
        }
    }
    assert_eq!(counted, 80);
    world.assert_hierarchy_invariants();
}

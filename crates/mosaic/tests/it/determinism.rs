//! Determinism with parallel spawns: systems that spawn through `Commands` in one parallel
//! segment give the same world (ids included) on every run, executor and thread count.
#![cfg(all(feature = "rollback", feature = "parallel"))]

use std::time::Duration;

use mosaic::rollback::{NoUninit, RollbackRegistry};
use mosaic::{Commands, Component, Entity, ExecutorKind, Query, Schedule, World};

#[derive(Component, Clone, Copy, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Seed(u32);

#[derive(Component, Clone, Copy, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Spark(u32);

#[derive(Component, Clone, Copy, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Link(u64);

/// Spawns per frame (300 of each system; 20 under Miri).
const SPAWNS: usize = if cfg!(miri) { 20 } else { 300 };
/// Frames of each run (20; 4 under Miri).
const FRAMES: usize = if cfg!(miri) { 4 } else { 20 };

/// Spawns `SPAWNS` `Seed`s a frame (each holding its own handle), and despawns those two frames old.
fn seeds(mut commands: Commands, mut q: Query<(Entity, &mut Seed)>) {
    for (e, seed) in q.iter_mut() {
        seed.0 += 1;
        if seed.0 > 2 {
            commands.despawn(e);
        }
    }
    for _ in 0..SPAWNS {
        let e = commands.spawn(Seed(0));
        // A handle stored in a value: the ids must match for the values to.
        commands.insert(e, Link(e.to_bits() & 0xffff_ffff));
    }
}

/// As `seeds`, for `Spark`s; touches nothing `seeds` does, so the two would run at the same time
/// (and interleave their reservations) if spawning did not order them.
fn sparks(mut commands: Commands, mut q: Query<(Entity, &mut Spark)>) {
    for (e, spark) in q.iter_mut() {
        spark.0 += 1;
        if spark.0 > 3 {
            commands.despawn(e);
        }
    }
    for _ in 0..SPAWNS {
        commands.spawn(Spark(0));
    }
}

/// A system with neither commands nor shared data: runs beside either spawner.
fn idle(q: Query<&Link>) {
    std::hint::black_box(q.count());
}

fn hash_after(frames: usize, executor: ExecutorKind, threads: usize) -> u64 {
    let mut registry = RollbackRegistry::new();
    registry.register::<Seed>("seed").register::<Spark>("spark").register::<Link>("link");
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
    schedule.add_system(seeds);
    schedule.add_system(sparks);
    schedule.add_system(idle);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        for _ in 0..frames {
            schedule.run(&mut world);
        }
    });
    assert!(world.len() as usize > 2 * SPAWNS, "the systems spawned");
    registry.hash(&world)
}

#[test]
fn parallel_spawners_give_the_same_world_on_every_thread_count() {
    let expected = hash_after(FRAMES, ExecutorKind::SingleThreaded, 1);
    for threads in [1, 2, 4] {
        for run in 0..if cfg!(miri) { 1 } else { 8 } {
            assert_eq!(
                hash_after(FRAMES, ExecutorKind::Parallel, threads),
                expected,
                "{threads} threads, run {run}"
            );
        }
    }
}

#[test]
fn spawners_take_turns_other_systems_do_not() {
    let mut schedule = Schedule::new();
    schedule.add_system(seeds);
    schedule.add_system(sparks);
    schedule.add_system(idle);
    let mut world = World::new();
    schedule.run(&mut world);
    let batches = schedule.batches().unwrap();
    // `seeds` and `sparks` conflict on the entity allocator alone; `idle` shares a batch.
    let batch_of = |name: &str| batches.iter().position(|b| b.contains(&name)).unwrap();
    assert_ne!(batch_of("seeds"), batch_of("sparks"));
    assert!(batch_of("idle") == batch_of("seeds") || batch_of("idle") == batch_of("sparks"));
}

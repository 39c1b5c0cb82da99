//! A warmed-up frame allocates nothing: systems with queries, events, hooks and a command buffer
//! that spawns and despawns every frame, and per-chunk commands recorded inside parallel iteration
//! (`ParCommands`), on both executors.
//!
//! One test in this file, so no other test allocates concurrently under the counting allocator.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mosaic::{
    Commands, Component, Entity, EventReader, EventWriter, ExecutorKind, Local, ParCommands, Query, ResMut,
    Schedule, With, World,
};

/// dhat's allocator counts every heap block (its testing mode makes the counts exact).
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

fn allocations() -> u64 {
    dhat::HeapStats::get().total_blocks
}

#[derive(Component, Clone, Copy)]
struct Position(f32);
#[derive(Component, Clone, Copy)]
#[component(storage = "soa")]
struct Velocity {
    dx: f32,
}
#[derive(Component, Clone, Copy)]
struct Life(u32);
#[derive(Component, Clone, Copy)]
struct Spawner;

#[derive(Component, Clone, Copy)]
struct Spark;

struct Died;

#[derive(Default)]
struct Sparks(u64);

/// Marks, from inside parallel iteration, every entity three frames from its end.
fn sparks(mut query: Query<(Entity, &Life)>, mut commands: ParCommands) {
    query.par_for_each_deferred(&mut commands, |(entity, life), buffer| {
        if life.0 == 3 {
            buffer.insert(entity, Spark);
        }
    });
}

fn count_sparks(query: Query<Entity, With<Spark>>, mut sparks: ResMut<Sparks>) {
    sparks.0 += query.into_iter().count() as u64;
}

#[derive(Default)]
struct Deaths(u64);

fn movement(mut query: Query<(&mut Position, &Velocity)>) {
    query.par_for_each(|(p, v)| p.0 += *v.dx);
}

fn age(mut query: Query<(Entity, &mut Life)>, mut commands: Commands, mut died: EventWriter<Died>) {
    for (entity, life) in query.iter_mut() {
        life.0 -= 1;
        if life.0 == 0 {
            commands.despawn(entity);
            died.send(Died);
        }
    }
}

fn spawn(query: Query<Entity, With<Spawner>>, mut commands: Commands, mut tick: Local<u32>) {
    *tick += 1;
    for _ in query {
        for i in 0..10 {
            commands.spawn((Position(0.0), Velocity { dx: 1.0 }, Life(20 + (*tick + i) % 5)));
        }
    }
}

fn count(mut died: EventReader<Died>, mut deaths: ResMut<Deaths>) {
    deaths.0 += died.read().len() as u64;
}

/// Runs 200 frames to warm up, then 100 more: the allocations and the deaths in those 100.
fn warm_frames(schedule: &mut Schedule, world: &mut World) -> (u64, u64) {
    for _ in 0..200 {
        schedule.run(world);
    }
    let before = allocations();
    let deaths_before = world.resource::<Deaths>().0;
    for _ in 0..100 {
        schedule.run(world);
    }
    (allocations() - before, world.resource::<Deaths>().0 - deaths_before)
}

#[test]
#[cfg_attr(miri, ignore = "dhat's allocator hooks are not meant for Miri; the frames run in other tests")]
fn warm_frames_allocate_nothing() {
    let _profiler = dhat::Profiler::builder().testing().build();
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut world = World::new();
        world.insert_resource(Deaths::default());
        world.insert_resource(Sparks::default());
        let removed = Arc::new(AtomicU64::new(0));
        let counter = removed.clone();
        world.on_remove::<Life>(move |ctx| {
            assert_eq!(
                ctx.world.get::<Life>(ctx.entity).map(|l| l.0),
                Ok(0),
                "removed at the end of its life"
            );
            counter.fetch_add(1, Ordering::Relaxed);
        });
        world.spawn_batch((0..5).map(|_| Spawner));
        world.spawn_batch((0..2000).map(|i| (Position(0.0), Velocity { dx: 1.0 }, Life(1 + i % 20))));
        world.group::<(Position, Life)>();
        let mut schedule = Schedule::new();
        schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO).enable_profiling(16);
        schedule.add_system(movement);
        schedule.add_system(age).after("movement");
        schedule.add_system(spawn).after("age");
        schedule.add_system(count).after("age");
        schedule.add_system(sparks).after("age");
        schedule.add_system(count_sparks).after("sparks");
        // The frame loop runs inside the pool, as a game loop would: jobs injected into rayon
        // from outside its threads go through a queue that allocates a block per 63 jobs.
        #[cfg(feature = "parallel")]
        let (allocations, deaths) = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| warm_frames(&mut schedule, &mut world));
        // Without rayon both executors run on this thread.
        #[cfg(not(feature = "parallel"))]
        let (allocations, deaths) = warm_frames(&mut schedule, &mut world);
        assert!(deaths > 1000, "{executor:?}: the frames did structural work ({deaths} deaths)");
        assert!(removed.load(Ordering::Relaxed) >= deaths, "the remove hook ran for every death");
        assert!(world.resource::<Sparks>().0 > 1000, "{executor:?}: the parallel commands ran");
        assert_eq!(allocations, 0, "{executor:?}: {allocations} allocations in 100 warm frames");
        world.assert_group_invariants();
    }
}

//! Data-layout workloads, side by side in one run:
//! - `simple_iter_group`: 10,000 entities, `pos += vel`, through an owning group, ungrouped
//!   (pools filled together, so aligned) and ungrouped after churn (pools out of step), beside a
//!   plain `Vec` loop.
//! - `field_subset`: 10,000 entities with a 64-byte component of which one `f32` field is
//!   updated: struct-of-arrays, array-of-structs, and a plain `Vec<f32>`.
//! - `add_remove_group`: add then remove a grouped component on 10,000 entities, beside the same
//!   on an ungrouped one.
//! - `founding_*`: create, iterate with a system, and create-then-destroy at 10^3..10^6 entities
//!   under profiles A (32 component types, 16 systems), AA (128, 32) and AAA (512, 64), with
//!   eager and lazy cleanup.
//!
//! Run: `cargo bench -p mosaic-ecs --bench layouts` (`MOSAIC_BENCH_MILLION=1` adds 10^6 entities).

#![allow(missing_docs, reason = "criterion_group! and criterion_main! generate undocumented items")]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mosaic::{Component, Entity, Query, Schedule, World};

#[derive(Component, Clone, Copy)]
struct Position {
    x: f32,
    y: f32,
    z: f32,
}
#[derive(Component, Clone, Copy)]
struct Velocity {
    x: f32,
    y: f32,
    z: f32,
}

fn step(p: &mut Position, v: &Velocity) {
    p.x += v.x;
    p.y += v.y;
    p.z += v.z;
}

fn simple_iter_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter_group");
    let spawn = |world: &mut World| {
        world.extend(
            (0..10_000)
                .map(|i| (Position { x: i as f32, y: 0.0, z: 0.0 }, Velocity { x: 1.0, y: 1.0, z: 1.0 })),
        )
    };
    let mut grouped = World::new();
    grouped.group::<(Position, Velocity)>();
    spawn(&mut grouped);
    let mut aligned = World::new();
    spawn(&mut aligned);
    // Churn: remove and re-add every third velocity, so the pools fall out of step.
    let mut churned = World::new();
    spawn(&mut churned);
    let entities: Vec<Entity> = churned.query::<Entity>().into_iter().collect();
    for &e in entities.iter().step_by(3) {
        let v = churned.remove::<Velocity>(e).unwrap();
        churned.insert(e, v);
    }
    let mut grouped_churned = World::new();
    grouped_churned.group::<(Position, Velocity)>();
    spawn(&mut grouped_churned);
    // This world's own handles: another world's would be refused as foreign.
    let entities: Vec<Entity> = grouped_churned.query::<Entity>().into_iter().collect();
    for &e in entities.iter().step_by(3) {
        let v = grouped_churned.remove::<Velocity>(e).unwrap();
        grouped_churned.insert(e, v);
    }
    for (name, world) in [
        ("mosaic_group", &mut grouped),
        ("mosaic_group_after_churn", &mut grouped_churned),
        ("mosaic_aligned_pools", &mut aligned),
        ("mosaic_pools_after_churn", &mut churned),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| step(p, v)))
        });
    }
    let mut positions: Vec<Position> =
        (0..10_000).map(|i| Position { x: i as f32, y: 0.0, z: 0.0 }).collect();
    let velocities = vec![Velocity { x: 1.0, y: 1.0, z: 1.0 }; 10_000];
    group.bench_function("plain_vec", |b| {
        b.iter(|| {
            for (p, v) in black_box(&mut positions).iter_mut().zip(black_box(&velocities)) {
                step(p, v);
            }
        })
    });
    group.finish();
}

/// A 64-byte component: sixteen `f32` fields, of which the workload updates `health` only.
macro_rules! body {
    ($name:ident, $storage:literal) => {
        #[derive(Component, Clone, Copy, Default)]
        #[component(storage = $storage)]
        #[allow(dead_code, reason = "payload: only `health` is updated")]
        struct $name {
            health: f32,
            a: f32,
            b: f32,
            c: f32,
            d: f32,
            e: f32,
            f: f32,
            g: f32,
            h: f32,
            i: f32,
            j: f32,
            k: f32,
            l: f32,
            m: f32,
            n: f32,
            o: f32,
        }
    };
}
body!(BodyAos, "aos");
body!(BodySoa, "soa");

fn field_subset(c: &mut Criterion) {
    let mut group = c.benchmark_group("field_subset_64b");
    let mut aos = World::new();
    aos.extend((0..10_000).map(|_| BodyAos::default()));
    let mut soa = World::new();
    soa.extend((0..10_000).map(|_| BodySoa::default()));
    group.bench_function("mosaic_soa_chunks", |b| {
        b.iter(|| {
            soa.query::<&mut BodySoa>().for_each_chunk(|body| {
                for h in body.health.iter_mut() {
                    *h += 1.0;
                }
            })
        })
    });
    group.bench_function("mosaic_soa_views", |b| {
        b.iter(|| soa.query::<&mut BodySoa>().for_each(|body| *body.health += 1.0))
    });
    group.bench_function("mosaic_aos", |b| {
        b.iter(|| aos.query::<&mut BodyAos>().for_each(|body| body.health += 1.0))
    });
    let mut health = vec![0.0f32; 10_000];
    group.bench_function("plain_vec_f32", |b| {
        b.iter(|| {
            for h in black_box(&mut health).iter_mut() {
                *h += 1.0;
            }
        })
    });
    group.finish();
}

#[derive(Component, Clone, Copy)]
struct Marker(#[allow(dead_code, reason = "payload")] u32);

fn add_remove_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove_group_10k");
    for grouped in [false, true] {
        let mut world = World::new();
        if grouped {
            world.group::<(Position, Marker)>();
        }
        let entities = world.spawn_batch((0..10_000).map(|i| Position { x: i as f32, y: 0.0, z: 0.0 }));
        group.bench_function(if grouped { "mosaic_grouped" } else { "mosaic_ungrouped" }, |b| {
            b.iter(|| {
                for &e in &entities {
                    world.insert(e, Marker(1));
                }
                for &e in &entities {
                    world.remove::<Marker>(e);
                }
            })
        });
    }
    group.finish();
}

// --- the founding benchmarks: profiles of component types and systems ---

#[derive(Component, Clone, Copy)]
struct Filler<const N: usize>(#[allow(dead_code, reason = "payload")] u32);

#[derive(Component, Clone, Copy)]
#[component(cleanup = "lazy")]
#[allow(dead_code, reason = "payload")]
struct LazyPosition {
    x: f32,
    y: f32,
}
#[derive(Component, Clone, Copy)]
#[component(cleanup = "lazy")]
#[allow(dead_code, reason = "payload")]
struct LazyVelocity {
    x: f32,
    y: f32,
}

/// Registers `types` filler component types (32, 128 or 512).
fn register_fillers(world: &mut World, types: usize) {
    seq_macro::seq!(N in 0..512 {
        if N < types {
            world.register_component::<Filler<N>>();
        }
    });
}

fn move_system(mut q: Query<(&mut Position, &Velocity)>) {
    q.for_each(|(p, v)| step(p, v));
}
fn idle_system(_: Query<&Filler<0>>) {}

/// (name, component types, systems)
const PROFILES: [(&str, usize, usize); 3] = [("A", 32, 16), ("AA", 128, 32), ("AAA", 512, 64)];

fn counts() -> Vec<usize> {
    let mut counts = vec![1_000, 10_000, 100_000];
    if std::env::var_os("MOSAIC_BENCH_MILLION").is_some() {
        counts.push(1_000_000);
    }
    counts
}

fn profiled_world(types: usize) -> World {
    let mut world = World::new();
    register_fillers(&mut world, types);
    world
}

fn founding(c: &mut Criterion) {
    let mut create = c.benchmark_group("founding_create");
    create.sample_size(10).measurement_time(Duration::from_secs(2));
    for (profile, types, _) in PROFILES {
        for n in counts() {
            create.bench_with_input(BenchmarkId::new(profile, n), &n, |b, &n| {
                b.iter_with_large_drop(|| {
                    let mut world = profiled_world(types);
                    world.extend(
                        (0..n).map(|_| {
                            (Position { x: 0.0, y: 0.0, z: 0.0 }, Velocity { x: 1.0, y: 1.0, z: 1.0 })
                        }),
                    );
                    world
                })
            });
        }
    }
    create.finish();

    let mut iterate = c.benchmark_group("founding_iterate");
    iterate.sample_size(10).measurement_time(Duration::from_secs(2));
    for (profile, types, systems) in PROFILES {
        for n in counts() {
            let mut world = profiled_world(types);
            world.extend(
                (0..n).map(|_| (Position { x: 0.0, y: 0.0, z: 0.0 }, Velocity { x: 1.0, y: 1.0, z: 1.0 })),
            );
            let mut schedule = Schedule::new();
            schedule.add_system(move_system);
            for i in 1..systems {
                schedule.add_system(idle_system).named(format!("idle_system {i}"));
            }
            iterate.bench_with_input(BenchmarkId::new(profile, n), &n, |b, _| {
                b.iter(|| schedule.run(&mut world))
            });
        }
    }
    iterate.finish();

    let mut churn = c.benchmark_group("founding_create_destroy");
    churn.sample_size(10).measurement_time(Duration::from_secs(2));
    for (profile, types, _) in PROFILES {
        for n in counts() {
            let mut eager = profiled_world(types);
            churn.bench_with_input(BenchmarkId::new(format!("{profile}_eager"), n), &n, |b, &n| {
                b.iter(|| {
                    let entities =
                        eager.spawn_batch((0..n).map(|_| {
                            (Position { x: 0.0, y: 0.0, z: 0.0 }, Velocity { x: 1.0, y: 1.0, z: 1.0 })
                        }));
                    for e in entities {
                        eager.despawn(e);
                    }
                })
            });
            let mut lazy = profiled_world(types);
            churn.bench_with_input(BenchmarkId::new(format!("{profile}_lazy_then_sweep"), n), &n, |b, &n| {
                b.iter(|| {
                    let entities = lazy.spawn_batch(
                        (0..n).map(|_| (LazyPosition { x: 0.0, y: 0.0 }, LazyVelocity { x: 1.0, y: 1.0 })),
                    );
                    for e in entities {
                        lazy.despawn(e);
                    }
                    lazy.sweep_lazy();
                })
            });
        }
    }
    churn.finish();
}

criterion_group!(benches, simple_iter_group, field_subset, add_remove_group, founding);
criterion_main!(benches);

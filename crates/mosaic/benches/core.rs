//! Core workloads, each beside a plain-`Vec` baseline doing the same work in the same group:
//! spawn 10,000 entities with four components, iterate 10,000 (`pos += vel`), and add then remove
//! a component on 10,000 entities. Component shapes follow the community ecs_bench_suite
//! (Transform 4x4 f32, Position/Rotation/Velocity 3 x f32).
//!
//! Run: `cargo bench -p mosaic-ecs --bench core`. Compare the two lines of each group: the ratio
//! Mosaic / baseline is the figure that matters, not the absolute times on a shared machine.
#![allow(missing_docs, reason = "criterion_group! and criterion_main! generate undocumented items")]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mosaic::{Component, Entity, World};

const N: usize = 10_000;

#[derive(Component, Clone, Copy)]
#[allow(dead_code, reason = "payload: moved, never read")]
struct Transform([[f32; 4]; 4]);
#[derive(Component, Clone, Copy)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
#[allow(dead_code, reason = "payload: moved, never read")]
struct Rotation([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
#[allow(dead_code, reason = "payload: moved, never read")]
struct Marker(f32);

fn bundle(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let f = i as f32;
    (Transform([[f; 4]; 4]), Position([f, 0.0, 0.0]), Rotation([0.0, 1.0, 0.0]), Velocity([1.0, 0.5, 0.25]))
}

fn spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("spawn_10k_four_components");
    group.bench_function("mosaic", |b| {
        b.iter_with_large_drop(|| {
            let mut world = World::new();
            world.extend((0..N).map(bundle));
            world
        })
    });
    group.bench_function("plain_vec", |b| {
        b.iter_with_large_drop(|| {
            let (mut t, mut p, mut r, mut v) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (ti, pi, ri, vi) in (0..N).map(bundle) {
                t.push(ti);
                p.push(pi);
                r.push(ri);
                v.push(vi);
            }
            (t, p, r, v)
        })
    });
    group.finish();
}

fn step(p: &mut Position, v: &Velocity) {
    for k in 0..3 {
        p.0[k] += v.0[k];
    }
}

fn iterate(c: &mut Criterion) {
    let mut group = c.benchmark_group("iterate_10k_pos_plus_vel");
    let mut world = World::new();
    world.extend((0..N).map(bundle));
    group.bench_function("mosaic_for_each", |b| {
        b.iter(|| world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| step(p, v)))
    });
    group.bench_function("mosaic_iter", |b| {
        b.iter(|| {
            for (p, v) in world.query::<(&mut Position, &Velocity)>() {
                step(p, v);
            }
        })
    });
    let mut positions: Vec<Position> = (0..N).map(|i| bundle(i).1).collect();
    let velocities: Vec<Velocity> = (0..N).map(|i| bundle(i).3).collect();
    group.bench_function("plain_vec", |b| {
        b.iter(|| {
            for (p, v) in black_box(&mut positions).iter_mut().zip(black_box(&velocities)) {
                step(p, v);
            }
        })
    });
    group.finish();
}

fn add_remove(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove_10k");
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..N).map(|i| Position([i as f32, 0.0, 0.0])));
    group.bench_function("mosaic", |b| {
        b.iter(|| {
            for &e in &entities {
                world.insert(e, Marker(1.0));
            }
            for &e in &entities {
                world.remove::<Marker>(e);
            }
        })
    });
    // Baseline: a dense Vec<Option<Marker>> indexed by entity, set then cleared.
    let mut markers: Vec<Option<Marker>> = vec![None; N];
    group.bench_function("plain_vec", |b| {
        b.iter(|| {
            for slot in black_box(&mut markers).iter_mut() {
                *slot = Some(Marker(1.0));
            }
            for slot in black_box(&mut markers).iter_mut() {
                black_box(slot.take());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, spawn, iterate, add_remove);
criterion_main!(benches);

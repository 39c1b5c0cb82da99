//! Scheduler workloads beside plain baselines, in one run:
//! - `schedule`: 10,000 entities each of (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); systems AB, CD, CE
//!   swap values. Mosaic's parallel and single-threaded executors against the three loops on
//!   plain `Vec`s run one after another.
//! - `heavy_compute`: 1,000 entities with a 4x4 matrix and a position; in parallel, invert the
//!   matrix 100 times, then transform the position. Mosaic's `par_for_each` against rayon over a
//!   plain `Vec`; the `threads` groups repeat it on pools of 1, 2, 4, ... threads up to the cores.
//! - `overhead`: 100 and 1,000 empty systems, time per frame.
//!
//! Run: `cargo bench -p mosaic-ecs --bench schedule`.
#![allow(missing_docs, reason = "criterion_group! and criterion_main! generate undocumented items")]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use mosaic::{Component, ExecutorKind, Query, Schedule, World};
use rayon::prelude::*;

#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);
#[derive(Component, Clone, Copy)]
struct C(f32);
#[derive(Component, Clone, Copy)]
struct D(f32);
#[derive(Component, Clone, Copy)]
struct E(f32);

fn ab(mut q: Query<(&mut A, &mut B)>) {
    q.for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn cd(mut q: Query<(&mut C, &mut D)>) {
    q.for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}
fn ce(mut q: Query<(&mut C, &mut E)>) {
    q.for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
}

fn schedule_world() -> World {
    let mut world = World::new();
    world.extend((0..10_000).map(|_| (A(0.0), B(1.0))));
    world.extend((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.extend((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.extend((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    world
}

fn schedule(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");
    for (label, executor) in
        [("mosaic_parallel", ExecutorKind::Parallel), ("mosaic_single", ExecutorKind::SingleThreaded)]
    {
        let mut world = schedule_world();
        let mut schedule = Schedule::new();
        schedule.set_executor(executor);
        schedule.add_system(ab);
        schedule.add_system(cd);
        schedule.add_system(ce);
        group.bench_function(label, |b| b.iter(|| schedule.run(&mut world)));
    }
    // Baseline: per component a Vec; rows 0..40k have A,B; C rows 10k..40k; D and E 10k each.
    let (mut a, mut b_) = (vec![A(0.0); 40_000], vec![B(1.0); 40_000]);
    let mut c_ = vec![C(2.0); 30_000];
    let (mut d, mut e) = (vec![D(3.0); 10_000], vec![E(4.0); 10_000]);
    group.bench_function("plain_vec_sequential", |bench| {
        bench.iter(|| {
            for (a, b) in black_box(&mut a).iter_mut().zip(black_box(&mut b_).iter_mut()) {
                std::mem::swap(&mut a.0, &mut b.0);
            }
            for (c, d) in black_box(&mut c_[10_000..20_000]).iter_mut().zip(black_box(&mut d).iter_mut()) {
                std::mem::swap(&mut c.0, &mut d.0);
            }
            for (c, e) in black_box(&mut c_[20_000..30_000]).iter_mut().zip(black_box(&mut e).iter_mut()) {
                std::mem::swap(&mut c.0, &mut e.0);
            }
        })
    });
    group.finish();
}

#[derive(Component, Clone, Copy)]
struct Transform(Mat4);
#[derive(Component, Clone, Copy)]
struct Position(Vec3);

fn heavy(transform: &mut Transform, position: &mut Position) {
    for _ in 0..100 {
        transform.0 = transform.0.inverse();
    }
    position.0 = transform.0.transform_vector3(position.0);
}

fn heavy_world() -> World {
    let mut world = World::new();
    world.extend((0..1000).map(|_| (Transform(Mat4::from_axis_angle(Vec3::X, 1.2)), Position(Vec3::ONE))));
    world
}

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    let mut world = heavy_world();
    group.bench_function("mosaic_par_for_each", |b| {
        b.iter(|| world.query::<(&mut Transform, &mut Position)>().par_for_each(|(t, p)| heavy(t, p)))
    });
    let mut rows: Vec<(Transform, Position)> =
        (0..1000).map(|_| (Transform(Mat4::from_axis_angle(Vec3::X, 1.2)), Position(Vec3::ONE))).collect();
    group
        .bench_function("plain_vec_rayon", |b| b.iter(|| rows.par_iter_mut().for_each(|(t, p)| heavy(t, p))));
    group.finish();

    let mut group = c.benchmark_group("heavy_compute_threads");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = 1;
    while threads <= cores {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        group.bench_with_input(BenchmarkId::new("mosaic", threads), &threads, |b, _| {
            b.iter(|| {
                pool.install(|| {
                    world.query::<(&mut Transform, &mut Position)>().par_for_each(|(t, p)| heavy(t, p))
                })
            })
        });
        group.bench_with_input(BenchmarkId::new("plain_vec", threads), &threads, |b, _| {
            b.iter(|| pool.install(|| rows.par_iter_mut().for_each(|(t, p)| heavy(t, p))))
        });
        threads *= 2;
    }
    group.finish();
}

fn empty() {}

fn overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("overhead_empty_systems");
    for count in [100, 1000] {
        let mut world = World::new();
        let mut schedule = Schedule::new();
        for i in 0..count {
            schedule.add_system(empty).named(format!("empty {i}"));
        }
        group.bench_with_input(BenchmarkId::new("mosaic", count), &count, |b, _| {
            b.iter(|| schedule.run(&mut world))
        });
    }
    group.finish();
}

criterion_group!(benches, schedule, heavy_compute, overhead);
criterion_main!(benches);

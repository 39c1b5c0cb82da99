//! Change detection: what a `Changed<T>` query costs against a full iteration of the same rows,
//! and what change tracking costs the writers.
//!
//! - `changed_1pct_of_1m`: 10^6 entities with `Position`, 1% of them (spread evenly: every 100th)
//!   changed since the window opened; `full` sums every position, `changed` sums the changed ones
//!   through `Changed<Position>` (a world-level query), `changed_random` the same with the 1%
//!   picked at random (no locality in the log walk); `plain_vec_indexed*` reads the same rows
//!   from a plain `Vec` by index, the floor for touching one cache line per changed row.
//!   `par_fold_full` and `par_fold_changed` do the same through `par_fold`, which walks the
//!   change log's candidates in parallel chunks as the sequential forms do.
//! - `write_10k_tracked_vs_not`: `pos += vel` over 10^4 entities, for a component whose changes
//!   are tracked and one whose are not (the cost of stamping each row handed out), then the
//!   tracked one followed by a `Changed` count (which moves the stamps into the change log),
//!   beside a plain-`Vec` loop.
//!
//! Run: `cargo bench -p mosaic-ecs --bench change`. Compare within a group: ratios, not absolute
//! times, on a shared machine.
#![allow(missing_docs, reason = "criterion_group! and criterion_main! generate undocumented items")]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mosaic::{Changed, Component, Entity, World};

#[derive(Component, Clone, Copy)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
#[component(track_changes)]
struct TrackedPosition([f32; 3]);

fn changed_query(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let mut group = c.benchmark_group("changed_1pct_of_1m");
    for random in [false, true] {
        let mut world = World::new();
        world.track_changes::<Position>();
        let entities: Vec<Entity> = (0..N).map(|i| world.spawn(Position([i as f32, 0.0, 0.0]))).collect();
        world.clear_trackers();
        let mut state = 7u64;
        for k in 0..N / 100 {
            let e = if random {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                entities[(state >> 33) as usize % N]
            } else {
                entities[k * 100]
            };
            world.get_mut::<Position>(e).unwrap().0[1] += 1.0;
        }
        // The floor: the same changed rows read from a plain `Vec` by index (one cache line per
        // changed row, which any change detection has to touch to hand the value out).
        let picked: Vec<usize> = if random {
            let mut state = 7u64;
            (0..N / 100)
                .map(|_| {
                    state =
                        state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    (state >> 33) as usize % N
                })
                .collect()
        } else {
            (0..N / 100).map(|k| k * 100).collect()
        };
        let plain: Vec<[f32; 3]> = (0..N).map(|i| [i as f32, 0.0, 0.0]).collect();
        group.bench_function(if random { "plain_vec_indexed_random" } else { "plain_vec_indexed" }, |b| {
            b.iter(|| {
                let mut sum = 0.0f32;
                for &i in &picked {
                    sum += plain[i][0];
                }
                black_box(sum)
            })
        });
        if !random {
            group.bench_function("full", |b| {
                b.iter(|| {
                    let mut sum = 0.0f32;
                    world.query_ref::<&Position>().for_each(|p| sum += p.0[0]);
                    black_box(sum)
                })
            });
        }
        group.bench_function(if random { "changed_random" } else { "changed" }, |b| {
            b.iter(|| {
                let mut sum = 0.0f32;
                for p in world.query_filtered::<&Position, Changed<Position>>() {
                    sum += p.0[0];
                }
                black_box(sum)
            })
        });
        if !random {
            // The parallel forms take the same plan: `par_fold` over the change log's candidates,
            // beside a `par_fold` over every row.
            group.bench_function("par_fold_full", |b| {
                b.iter(|| {
                    black_box(world.query::<&Position>().par_fold(|| 0.0f32, |s, p| s + p.0[0], |a, b| a + b))
                })
            });
            group.bench_function("par_fold_changed", |b| {
                b.iter(|| {
                    black_box(world.query_filtered::<&Position, Changed<Position>>().par_fold(
                        || 0.0f32,
                        |s, p| s + p.0[0],
                        |a, b| a + b,
                    ))
                })
            });
        }
    }
    group.finish();
}

fn tracked_writes(c: &mut Criterion) {
    const N: usize = 10_000;
    let mut group = c.benchmark_group("write_10k_tracked_vs_not");
    let mut world = World::new();
    for i in 0..N {
        world.spawn((Position([i as f32; 3]), TrackedPosition([i as f32; 3]), Velocity([1.0, 0.5, 0.25])));
    }
    let step = |p: &mut [f32; 3], v: &[f32; 3]| {
        for k in 0..3 {
            p[k] += v[k];
        }
    };
    group.bench_function("untracked_for_each", |b| {
        b.iter(|| world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| step(&mut p.0, &v.0)))
    });
    group.bench_function("tracked_for_each", |b| {
        b.iter(|| {
            world.clear_trackers();
            world.query::<(&mut TrackedPosition, &Velocity)>().for_each(|(p, v)| step(&mut p.0, &v.0))
        })
    });
    group.bench_function("tracked_for_each_then_count_changed", |b| {
        b.iter(|| {
            world.clear_trackers();
            world.query::<(&mut TrackedPosition, &Velocity)>().for_each(|(p, v)| step(&mut p.0, &v.0));
            black_box(world.query_filtered::<(), Changed<TrackedPosition>>().count())
        })
    });
    group.bench_function("untracked_iter", |b| {
        b.iter(|| {
            for (p, v) in world.query::<(&mut Position, &Velocity)>() {
                step(&mut p.0, &v.0);
            }
        })
    });
    let mut positions: Vec<[f32; 3]> = (0..N).map(|i| [i as f32; 3]).collect();
    let velocities = vec![[1.0f32, 0.5, 0.25]; N];
    group.bench_function("plain_vec", |b| {
        b.iter(|| {
            for (p, v) in positions.iter_mut().zip(&velocities) {
                step(p, v);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, changed_query, tracked_writes);
criterion_main!(benches);

//! Hierarchy workloads on 100,000 nodes (1,000 trees of 100 nodes) of depth 1, 5 and 20:
//! - `propagate`: change 1% of the `LocalTransform`s (a different 1,000 nodes each frame), then
//!   run `propagate_transforms` (ordering pass with nothing dirty, then one linear pass over the
//!   relationship pool, computing every global).
//! - `reparent_1pct_then_propagate`: reparent 1% of the nodes (each under a random node of another
//!   tree at the same level, so depth stays bounded), then propagate: the ordering pass re-places
//!   only the moved subtrees.
//! - `sort_hierarchy`: the full depth-first sort of the pool, for scale.
//!
//! The bevy comparison of `propagate` is `benches/peers`' `peers-transform` binary.
//!
//! Run: `cargo bench -p mosaic-ecs --bench hierarchy`.

#![allow(missing_docs, reason = "criterion_group! and criterion_main! generate undocumented items")]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{Affine2, Vec2};
use mosaic::hierarchy::{GlobalTransform, LocalTransform, propagate_transforms};
use mosaic::{Entity, World};

const TREES: usize = 1_000;
const TREE_SIZE: usize = 100;

/// A small deterministic generator (PCG-style LCG step, high bits out).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// 100,000 nodes with transforms in trees of depth `depth`; returns the world, the nodes, and
/// per tree its nodes by level.
fn forest(depth: usize) -> (World, Vec<Entity>, Vec<Vec<Vec<Entity>>>) {
    let mut world = World::new();
    let mut rng = Lcg(depth as u64);
    let mut nodes = Vec::with_capacity(TREES * TREE_SIZE);
    let mut trees = Vec::with_capacity(TREES);
    for _ in 0..TREES {
        let mut levels: Vec<Vec<Entity>> = vec![Vec::new(); depth + 1];
        for k in 0..TREE_SIZE {
            let local = LocalTransform(
                Affine2::from_angle(0.01 * k as f32) * Affine2::from_translation(Vec2::new(1.0, 0.5)),
            );
            let e = world.spawn((local, GlobalTransform::default()));
            nodes.push(e);
            let level = if k == 0 { 0 } else { 1 + (k - 1) * depth / (TREE_SIZE - 1) };
            if level > 0 {
                let above = &levels[level - 1];
                world.set_parent(e, above[rng.below(above.len())]).unwrap();
            }
            levels[level].push(e);
        }
        trees.push(levels);
    }
    world.sort_hierarchy().unwrap();
    propagate_transforms(&mut world);
    (world, nodes, trees)
}

fn propagate(c: &mut Criterion) {
    let mut group = c.benchmark_group("propagate");
    group.measurement_time(Duration::from_secs(3));
    for depth in [1, 5, 20] {
        let (mut world, nodes, _) = forest(depth);
        let mut frame = 0usize;
        group.bench_function(BenchmarkId::new("change_1pct", depth), |b| {
            b.iter(|| {
                frame += 1;
                let start = (frame * 997) % nodes.len();
                for i in 0..nodes.len() / 100 {
                    let e = nodes[(start + i * 100) % nodes.len()];
                    let local = world.get_mut::<LocalTransform>(e).unwrap();
                    local.0.translation.x += 0.001;
                }
                propagate_transforms(&mut world);
                black_box(world.get::<GlobalTransform>(nodes[start]).unwrap().0.translation)
            })
        });
    }
    group.finish();
}

fn reparent(c: &mut Criterion) {
    let mut group = c.benchmark_group("reparent_1pct_then_propagate");
    group.measurement_time(Duration::from_secs(3));
    for depth in [1, 5, 20] {
        let (mut world, _, trees) = forest(depth);
        let mut rng = Lcg(99);
        group.bench_function(BenchmarkId::new("depth", depth), |b| {
            b.iter(|| {
                for _ in 0..TREES * TREE_SIZE / 100 {
                    let from = &trees[rng.below(TREES)];
                    let to = &trees[rng.below(TREES)];
                    let level = 1 + rng.below(depth);
                    let child = from[level][rng.below(from[level].len())];
                    let parent = to[level - 1][rng.below(to[level - 1].len())];
                    // A cycle (parent under child) is refused: skip it.
                    let _ = world.set_parent(child, parent);
                }
                propagate_transforms(&mut world);
            })
        });
    }
    group.finish();
}

fn sort(c: &mut Criterion) {
    let mut group = c.benchmark_group("sort_hierarchy");
    group.measurement_time(Duration::from_secs(3));
    for depth in [1, 5, 20] {
        let (mut world, _, _) = forest(depth);
        group
            .bench_function(BenchmarkId::new("depth", depth), |b| b.iter(|| world.sort_hierarchy().unwrap()));
    }
    group.finish();
}

criterion_group!(benches, propagate, reparent, sort);
criterion_main!(benches);

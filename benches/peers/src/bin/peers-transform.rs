//! `peers-transform [--out DIR] [--rounds N]`: transform propagation, Mosaic beside bevy
//! (`bevy_transform` 0.20 on `bevy_ecs`), on the same forests, in one run.
//!
//! Workload (issue 6): 100,000 nodes in 1,000 trees of 100 nodes, of depth 1, 5 and 20; each
//! frame changes the local transform of 1% of the nodes (a different 1,000 each frame, the same
//! nodes in both libraries), then propagates. Both sides use 3D transforms (translation,
//! quaternion and scale, composed into an `Affine3A`). Mosaic runs `propagate_transforms_3d`
//! (ordering pass, then the subtrees of the changed nodes, from the change log); bevy runs its
//! `PostUpdate` chain `mark_dirty_trees`, `propagate_parent_transforms`,
//! `sync_simple_transforms` on its multi-threaded compute pool, with its static-scene
//! optimisation on (the default), so it recomputes only the trees that changed. Mosaic's frame
//! with no change, and its full propagation (the first call on a fresh forest), are timed too.
//!
//! Method: both forests are built first; after the timed rounds, every node's global is checked
//! against its parent's global times its local, in both libraries; then `--rounds` rounds (default 15), each timing one
//! sample of 10 frames per library, the order alternating per round; the figure is the median
//! over samples of the time per frame. With `--out DIR`, writes `DIR/transform-propagation.md`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::schedule::{IntoScheduleConfigs, Schedule};
use bevy_math::{Quat, Vec3};
use bevy_tasks::{ComputeTaskPool, TaskPool};
use bevy_transform::components::{GlobalTransform, Transform};
use bevy_transform::systems::{
    StaticTransformOptimizations, mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms,
};
use mosaic::hierarchy::{GlobalTransform3d as MGlobal, Transform3d, propagate_transforms_3d};
use mosaic_peers::timing::median;

const TREES: usize = 1_000;
const TREE_SIZE: usize = 100;
const FRAMES_PER_SAMPLE: usize = 10;

/// A small deterministic generator (PCG-style LCG step, high bits out).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The forest's shape: per node (in spawn order) its parent's position in that order, if any.
fn shape(depth: usize) -> Vec<Option<usize>> {
    let mut rng = Lcg(depth as u64);
    let mut parents = Vec::with_capacity(TREES * TREE_SIZE);
    for tree in 0..TREES {
        let mut levels: Vec<Vec<usize>> = vec![Vec::new(); depth + 1];
        for k in 0..TREE_SIZE {
            let node = tree * TREE_SIZE + k;
            let level = if k == 0 { 0 } else { 1 + (k - 1) * depth / (TREE_SIZE - 1) };
            let parent = (level > 0).then(|| {
                let above = &levels[level - 1];
                above[rng.below(above.len())]
            });
            parents.push(parent);
            levels[level].push(node);
        }
    }
    parents
}

/// The nodes changed in frame `frame`: 1% of them, a different set each frame.
fn changed(frame: usize, n: usize) -> impl Iterator<Item = usize> {
    let start = (frame * 997) % n;
    (0..n / 100).map(move |i| (start + i * 100) % n)
}

/// One library's forest and its frame.
trait Forest {
    fn frame(&mut self, frame: usize);
    /// Panics unless the global of every node with a parent equals its parent's global times its
    /// local (so the timed work is the real work).
    fn check(&self, parents: &[Option<usize>]);
}

struct MosaicForest {
    world: mosaic::World,
    nodes: Vec<mosaic::Entity>,
}

/// Node `k` of a tree's local transform: a rotation about z by `0.01 k`, then a unit step.
fn local_parts(k: usize) -> (Quat, Vec3) {
    (Quat::from_rotation_z(0.01 * k as f32), Vec3::new(1.0, 0.5, 0.0))
}

impl MosaicForest {
    /// The forest, built and sorted, not yet propagated.
    fn build(parents: &[Option<usize>]) -> Self {
        let mut world = mosaic::World::new();
        let mut nodes = Vec::with_capacity(parents.len());
        for (i, parent) in parents.iter().enumerate() {
            let (rotation, step) = local_parts(i % TREE_SIZE);
            // bevy's `from_rotation(q).mul_transform(from_translation(t))`: translation `q * t`.
            let local = Transform3d {
                translation: glam::Vec3::from_array((rotation * step).to_array()),
                rotation: glam::Quat::from_array(rotation.to_array()),
                scale: glam::Vec3::ONE,
            };
            let e = world.spawn((local, MGlobal::default()));
            if let Some(p) = parent {
                world.set_parent(e, nodes[*p]).expect("a tree has no cycle");
            }
            nodes.push(e);
        }
        world.sort_hierarchy().expect("the relationship pool is not grouped");
        Self { world, nodes }
    }

    fn new(parents: &[Option<usize>]) -> Self {
        let mut forest = Self::build(parents);
        propagate_transforms_3d(&mut forest.world);
        forest
    }

    /// Seconds of one full propagation: the first call on a freshly built forest.
    fn full_propagation(parents: &[Option<usize>]) -> f64 {
        let mut forest = Self::build(parents);
        let start = Instant::now();
        propagate_transforms_3d(&mut forest.world);
        start.elapsed().as_secs_f64()
    }

    /// Seconds per frame of a sample of frames with no change.
    fn idle_sample(&mut self) -> f64 {
        let start = Instant::now();
        for _ in 0..FRAMES_PER_SAMPLE {
            propagate_transforms_3d(&mut self.world);
        }
        start.elapsed().as_secs_f64() / FRAMES_PER_SAMPLE as f64
    }
}

impl Forest for MosaicForest {
    fn frame(&mut self, frame: usize) {
        for i in changed(frame, self.nodes.len()) {
            self.world.get_mut::<Transform3d>(self.nodes[i]).expect("a live node").translation.x += 0.001;
        }
        propagate_transforms_3d(&mut self.world);
        black_box(self.world.get::<MGlobal>(self.nodes[frame % self.nodes.len()]).expect("a live node"));
    }

    fn check(&self, parents: &[Option<usize>]) {
        let global = |i: usize| self.world.get::<MGlobal>(self.nodes[i]).expect("a live node").0;
        for (i, parent) in parents.iter().enumerate() {
            if let Some(p) = parent {
                let local = self.world.get::<Transform3d>(self.nodes[i]).expect("a live node").matrix();
                assert!(global(i).abs_diff_eq(global(*p) * local, 1e-3), "mosaic node {i}");
            }
        }
    }
}

struct BevyForest {
    world: bevy_ecs::world::World,
    schedule: Schedule,
    nodes: Vec<bevy_ecs::entity::Entity>,
}

impl BevyForest {
    fn new(parents: &[Option<usize>]) -> Self {
        ComputeTaskPool::get_or_init(TaskPool::default);
        let mut world = bevy_ecs::world::World::new();
        world.init_resource::<StaticTransformOptimizations>();
        let mut nodes: Vec<bevy_ecs::entity::Entity> = Vec::with_capacity(parents.len());
        for (i, parent) in parents.iter().enumerate() {
            let (rotation, step) = local_parts(i % TREE_SIZE);
            let local = Transform::from_rotation(rotation).mul_transform(Transform::from_translation(step));
            let e = match parent {
                Some(p) => world.spawn((local, ChildOf(nodes[*p]))).id(),
                None => world.spawn(local).id(),
            };
            nodes.push(e);
        }
        let mut schedule = Schedule::default();
        schedule.add_systems((mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms).chain());
        schedule.run(&mut world);
        Self { world, schedule, nodes }
    }
}

impl Forest for BevyForest {
    fn frame(&mut self, frame: usize) {
        for i in changed(frame, self.nodes.len()) {
            self.world.get_mut::<Transform>(self.nodes[i]).expect("a live node").translation.x += 0.001;
        }
        self.schedule.run(&mut self.world);
        black_box(
            self.world.get::<GlobalTransform>(self.nodes[frame % self.nodes.len()]).expect("a live node"),
        );
    }

    fn check(&self, parents: &[Option<usize>]) {
        let global = |i: usize| *self.world.get::<GlobalTransform>(self.nodes[i]).expect("a live node");
        for (i, parent) in parents.iter().enumerate() {
            if let Some(p) = parent {
                let local = *self.world.get::<Transform>(self.nodes[i]).expect("a live node");
                let expected = global(*p).mul_transform(local).affine();
                assert!(global(i).affine().abs_diff_eq(expected, 1e-3), "bevy node {i}");
            }
        }
    }
}

/// Seconds per frame of one sample.
fn sample(forest: &mut dyn Forest, frame: &mut usize) -> f64 {
    let start = Instant::now();
    for _ in 0..FRAMES_PER_SAMPLE {
        *frame += 1;
        forest.frame(*frame);
    }
    start.elapsed().as_secs_f64() / FRAMES_PER_SAMPLE as f64
}

fn format_time(seconds: f64) -> String {
    if seconds >= 1e-3 { format!("{:.2} ms", seconds * 1e3) } else { format!("{:.0} us", seconds * 1e6) }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut out, mut rounds) = (None::<PathBuf>, 15usize);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--out", Some(dir)) => out = Some(dir.into()),
            ("--rounds", Some(n)) if n.parse::<usize>().is_ok_and(|n| n > 0) => {
                rounds = n.parse().expect("checked by the guard")
            }
            _ => {
                eprintln!("usage: peers-transform [--out DIR] [--rounds N]");
                std::process::exit(2);
            }
        }
    }
    let mut rows = Vec::new();
    for depth in [1, 5, 20] {
        let parents = shape(depth);
        let mut mosaic = MosaicForest::new(&parents);
        let mut bevy = BevyForest::new(&parents);
        let (mut ours, mut theirs, mut idle) = (Vec::new(), Vec::new(), Vec::new());
        let (mut frame_a, mut frame_b) = (0, 0);
        for round in 0..rounds {
            if round % 2 == 0 {
                ours.push(sample(&mut mosaic, &mut frame_a));
                theirs.push(sample(&mut bevy, &mut frame_b));
            } else {
                theirs.push(sample(&mut bevy, &mut frame_b));
                ours.push(sample(&mut mosaic, &mut frame_a));
            }
            idle.push(mosaic.idle_sample());
        }
        mosaic.check(&parents);
        bevy.check(&parents);
        let full: Vec<f64> = (0..3).map(|_| MosaicForest::full_propagation(&parents)).collect();
        let (m, b) = (median(&ours).unwrap_or(f64::NAN), median(&theirs).unwrap_or(f64::NAN));
        let (i, f) = (median(&idle).unwrap_or(f64::NAN), median(&full).unwrap_or(f64::NAN));
        println!(
            "depth {depth:>2}: mosaic {} bevy {} mosaic/bevy {:.2}; mosaic idle frame {} full {} idle/full {:.4}",
            format_time(m),
            format_time(b),
            m / b,
            format_time(i),
            format_time(f),
            i / f
        );
        rows.push((depth, m, b, i, f));
    }
    if let Some(dir) = out {
        let machine = mosaic_peers::machine::Machine::detect();
        let mut text = String::from(
            "# Transform propagation: Mosaic beside bevy\n\n\
             Written by `cargo run --release -p mosaic-peers --bin peers-transform -- --out docs`; do not \
             edit by hand.\n\n\
             100,000 nodes in 1,000 trees of 100 nodes; each frame changes the local transform of 1% of \
             the nodes (a different 1,000 each frame, the same nodes for both), then propagates. Median \
             over interleaved samples of 10 frames.\n\n",
        );
        text += &format!(
            "- Machine: {} logical cores, {}; {}\n- Toolchain: {}\n- Rounds: {rounds}\n\n",
            machine.cores, machine.cpu, machine.os, machine.rustc
        );
        text += "| depth | mosaic | bevy | mosaic / bevy | mosaic, frame with no change | mosaic, full propagation | no change / full |\n|---:|---:|---:|---:|---:|---:|---:|\n";
        for (depth, m, b, i, f) in &rows {
            text += &format!(
                "| {depth} | {} | {} | {:.2} | {} | {} | {:.2}% |\n",
                format_time(*m),
                format_time(*b),
                m / b,
                format_time(*i),
                format_time(*f),
                100.0 * i / f
            );
        }
        text += "\nThe same work on both sides: 3D transforms (translation, quaternion, scale into \
                 `Affine3A`), recomputing only what changed. bevy marks dirty trees and recomputes those \
                 (with 1% of nodes changed, most of the 1,000 trees hold a change) on its compute task \
                 pool; Mosaic walks the change log of `Transform3d` and recomputes each changed node's \
                 subtree, on one thread. The full propagation is the first call on a freshly built forest \
                 (one linear pass that also sorts the transform pools into hierarchy order).\n";
        let path = dir.join("transform-propagation.md");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        println!("wrote {}", path.display());
    }
}

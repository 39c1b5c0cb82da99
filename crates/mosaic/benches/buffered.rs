//! Structural changes through a command buffer, as systems make them: what recording and
//! applying `n` spawns, `n` inserts and `n` removals costs against the world's own calls.
//!
//! A world of `n` entities with `(Pos, Vel)`; each round spawns `n` more with `(Pos, Vel)`,
//! gives every one of them a `Stunned(u32)`, takes it off again, and despawns them, four ways,
//! timed in interleaved rounds (the despawns, the same for every way, are not timed):
//! - `commands`: each change recorded into a `CommandBuffer` (`spawn`, `insert`, `remove`), the
//!   buffer applied after each kind (the runs of one kind are applied as batches);
//! - `world`: `World::spawn`, `World::insert`, `World::remove` one by one;
//! - `batch`: `World::spawn_batch`, `World::insert_batch`, `World::remove_batch`;
//! - `vec`: the baseline, a plain `Vec` of structs pushed to and written in place.
//!
//! Prints each way's median time per change (recording included for `commands`) and the ratios
//! to `batch` and to `vec`. Run: `cargo bench -p mosaic-ecs --bench buffered` (add
//! `-- --entities N`, `--rounds N`; `--grouped` makes `(Pos, Vel)` an owning group; `--only WAY`
//! times one way, for profilers).
#![allow(missing_docs, reason = "a benchmark binary")]
#![allow(
    dead_code,
    reason = "the components' values are written, never read: the cost measured is moving them"
)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{arg, median};
use mosaic::{CommandBuffer, Component, Entity, World};

#[derive(Component, Clone, Copy)]
struct Pos(f32, f32);
#[derive(Component, Clone, Copy)]
struct Vel(f32, f32);
#[derive(Component, Clone, Copy)]
struct Stunned(u32);

/// The baseline's row.
#[derive(Clone, Copy)]
struct Row {
    pos: (f32, f32),
    vel: (f32, f32),
    stunned: Option<u32>,
}

const NAMES: [&str; 4] = ["commands", "world", "batch", "vec"];

fn bundle(i: usize) -> (Pos, Vel) {
    (Pos(i as f32, 0.0), Vel(1.0, 0.5))
}

fn main() {
    let n = arg("--entities").and_then(|n| n.parse().ok()).unwrap_or(100_000usize).max(1);
    let rounds = arg("--rounds").and_then(|n| n.parse().ok()).unwrap_or(15usize);
    let only = arg("--only");
    // `--grouped`: `(Pos, Vel)` is an owning group, so every spawn joins it (a listener on both
    // pools, which batches replay after the rows are pushed).
    let grouped = std::env::args().any(|a| a == "--grouped");
    let new_world = || {
        let mut world = World::new();
        if grouped {
            world.group::<(Pos, Vel)>();
        }
        world.spawn_batch((0..n).map(bundle));
        world
    };
    let (mut buffered, mut direct, mut batched) = (new_world(), new_world(), new_world());
    let mut commands = CommandBuffer::new();
    let mut rows: Vec<Row> =
        (0..n).map(|i| Row { pos: (i as f32, 0.0), vel: (1.0, 0.5), stunned: None }).collect();
    let mut times_of: [Vec<Duration>; 4] = Default::default();
    for round in 0..rounds {
        let ways: [&mut dyn FnMut() -> Duration; 4] = [
            &mut || {
                let start = Instant::now();
                let spawned: Vec<Entity> = (0..n).map(|i| commands.spawn(&buffered, bundle(i))).collect();
                commands.apply(&mut buffered);
                for &e in &spawned {
                    commands.insert(e, Stunned(e.index()));
                }
                commands.apply(&mut buffered);
                for &e in &spawned {
                    commands.remove::<Stunned>(e);
                }
                commands.apply(&mut buffered);
                let time = start.elapsed();
                buffered.despawn_batch(spawned);
                time
            },
            &mut || {
                let start = Instant::now();
                let spawned: Vec<Entity> = (0..n).map(|i| direct.spawn(bundle(i))).collect();
                for &e in &spawned {
                    direct.insert(e, Stunned(e.index()));
                }
                for &e in &spawned {
                    black_box(direct.remove::<Stunned>(e));
                }
                let time = start.elapsed();
                direct.despawn_batch(spawned);
                time
            },
            &mut || {
                let start = Instant::now();
                let spawned = batched.spawn_batch((0..n).map(bundle));
                batched.insert_batch(spawned.iter().map(|&e| (e, Stunned(e.index()))));
                batched.remove_batch::<Stunned>(spawned.iter().copied());
                let time = start.elapsed();
                batched.despawn_batch(spawned);
                time
            },
            &mut || {
                let start = Instant::now();
                let first = rows.len();
                rows.extend((0..n).map(|i| Row { pos: (i as f32, 0.0), vel: (1.0, 0.5), stunned: None }));
                for (i, row) in rows[first..].iter_mut().enumerate() {
                    row.stunned = Some(i as u32);
                }
                for row in &mut rows[first..] {
                    black_box(row.stunned.take());
                }
                let time = start.elapsed();
                rows.truncate(first);
                time
            },
        ];
        for k in 0..NAMES.len() {
            let way = (k + round) % NAMES.len();
            if only.as_deref().is_none_or(|only| only == NAMES[way]) {
                times_of[way].push((ways[way])());
            }
        }
    }
    if only.is_some() {
        return;
    }
    let per_change = |d: Duration| d.as_secs_f64() * 1e9 / (3 * n) as f64;
    let [c, w, b, v] = times_of.map(|mut t| per_change(median(&mut t)));
    println!(
        "{n} spawns, inserts and removals a round, in a world of {n}; medians of {rounds} interleaved rounds"
    );
    println!("| way | ns per change | vs batch | vs vec |");
    println!("|---|---:|---:|---:|");
    for (name, t) in NAMES.into_iter().zip([c, w, b, v]) {
        println!("| {name} | {t:.1} | {:.2} | {:.1} |", t / b, t / v);
    }
}

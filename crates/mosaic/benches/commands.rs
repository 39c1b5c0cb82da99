//! Structural changes in a large world: what a frame's despawns and spawns cost when the pools
//! no longer fit in cache.
//!
//! A world shaped like the arena's: entities with `(Pos, Vel, Team, Health)` (two in five) or
//! `(Pos, Vel, Life)`, in two nested owning groups, `(Pos, Vel)` and `(Pos, Vel, Team, Health)`,
//! `Pos` stored as struct of arrays. Each round despawns 2,500 random entities and spawns 2,500
//! new ones, three ways, timed in interleaved rounds:
//! - `world`: `World::despawn` and `World::spawn`, one at a time;
//! - `commands`: the same changes recorded into a `CommandBuffer` and applied (it prefetches the
//!   memory of the commands ahead of the one it applies);
//! - `batch`: the despawns as one `World::despawn_batch`, the spawns as `world`'s;
//! - `vec`: the baseline, a plain `Vec` of structs (swap-remove at the same random positions,
//!   push), what the bookkeeping of an ECS is measured against.
//!
//! The table gives each way's median per change over the rounds, and the ratios to `world` and
//! to `vec`. Run: `cargo bench -p mosaic-ecs --bench commands` (add `-- --entities N` and
//! `--rounds N`; default 10^6 entities, 21 rounds; `--only WAY` times one way, for profilers).
#![allow(missing_docs, reason = "a benchmark binary")]
#![allow(
    dead_code,
    reason = "the components' values are written, never read: the cost measured is moving them"
)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{Rng, arg, median};
use mosaic::{CommandBuffer, Component, Entity, World};

#[derive(Component, Clone, Copy)]
#[component(storage = "soa")]
struct Pos {
    x: f32,
    y: f32,
}
#[derive(Component, Clone, Copy)]
struct Vel(f32, f32);
#[derive(Component, Clone, Copy)]
struct Team(u8);
#[derive(Component, Clone, Copy)]
struct Health(i32);
#[derive(Component, Clone, Copy)]
struct Life(u32);

/// The ways timed, in table order.
const NAMES: [&str; 4] = ["world", "commands", "batch", "vec"];

/// Changes of each kind per round.
const CHANGES: usize = 2_500;

/// The baseline's row: what one entity of the world holds.
#[derive(Clone, Copy)]
struct Row {
    pos: (f32, f32),
    vel: (f32, f32),
    team: u8,
    health: i32,
    life: u32,
}

fn spawn_one(world: &mut World, i: usize) -> Entity {
    let (pos, vel) = (Pos { x: i as f32, y: 1.0 }, Vel(0.5, -0.5));
    if i % 5 < 2 { world.spawn((pos, vel, Team(1), Health(3))) } else { world.spawn((pos, vel, Life(100))) }
}

fn record_one(commands: &mut CommandBuffer, world: &World, i: usize) -> Entity {
    let (pos, vel) = (Pos { x: i as f32, y: 1.0 }, Vel(0.5, -0.5));
    if i % 5 < 2 {
        commands.spawn(world, (pos, vel, Team(1), Health(3)))
    } else {
        commands.spawn(world, (pos, vel, Life(100)))
    }
}

fn new_world(n: usize) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.group::<(Pos, Vel)>();
    world.group::<(Pos, Vel, Team, Health)>();
    let alive = (0..n).map(|i| spawn_one(&mut world, i)).collect();
    (world, alive)
}

fn main() {
    let n = arg("--entities").and_then(|n| n.parse().ok()).unwrap_or(1_000_000usize).max(CHANGES);
    let rounds = arg("--rounds").and_then(|n| n.parse().ok()).unwrap_or(21usize);
    let (mut direct, mut direct_alive) = new_world(n);
    let (mut buffered, mut buffered_alive) = new_world(n);
    let (mut batched, mut batched_alive) = new_world(n);
    let only = arg("--only");
    let mut rows: Vec<Row> = (0..n)
        .map(|i| Row { pos: (i as f32, 1.0), vel: (0.5, -0.5), team: 1, health: 3, life: 100 })
        .collect();
    let mut commands = CommandBuffer::new();
    let mut times_of: [Vec<Duration>; 4] = Default::default();
    for round in 0..rounds {
        // The same random positions for every way in a round.
        let picks: Vec<usize> = {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ round as u64);
            let mut len = n;
            (0..CHANGES)
                .map(|_| {
                    let at = rng.below(len);
                    len -= 1;
                    at
                })
                .collect()
        };
        let ways: [&mut dyn FnMut() -> Duration; 4] = [
            &mut || {
                let start = Instant::now();
                for &at in &picks {
                    direct.despawn(direct_alive.swap_remove(at));
                }
                for i in 0..CHANGES {
                    direct_alive.push(spawn_one(&mut direct, i));
                }
                start.elapsed()
            },
            &mut || {
                let start = Instant::now();
                for &at in &picks {
                    commands.despawn(buffered_alive.swap_remove(at));
                }
                commands.apply(&mut buffered);
                for i in 0..CHANGES {
                    buffered_alive.push(record_one(&mut commands, &buffered, i));
                }
                commands.apply(&mut buffered);
                start.elapsed()
            },
            &mut || {
                let start = Instant::now();
                let doomed: Vec<Entity> = picks.iter().map(|&at| batched_alive.swap_remove(at)).collect();
                batched.despawn_batch(doomed);
                for i in 0..CHANGES {
                    batched_alive.push(spawn_one(&mut batched, i));
                }
                start.elapsed()
            },
            &mut || {
                let start = Instant::now();
                for &at in &picks {
                    black_box(rows.swap_remove(at));
                }
                for i in 0..CHANGES {
                    rows.push(Row { pos: (i as f32, 1.0), vel: (0.5, -0.5), team: 1, health: 3, life: 100 });
                }
                start.elapsed()
            },
        ];
        // Interleaved, the order rotating with the round.
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
    assert_eq!(
        (direct.len() as usize, buffered.len() as usize, batched.len() as usize, rows.len()),
        (n, n, n, n)
    );
    let per_change = |d: Duration| d.as_secs_f64() * 1e9 / (2 * CHANGES) as f64;
    let [w, c, b, v] = times_of.map(|mut t| per_change(median(&mut t)));
    println!(
        "{n} entities, {CHANGES} despawns and {CHANGES} spawns a round; medians of {rounds} interleaved rounds"
    );
    println!("| way | ns per change | vs world | vs vec |");
    println!("|---|---:|---:|---:|");
    for (name, t) in NAMES.into_iter().zip([w, c, b, v]) {
        println!("| {name} | {t:.0} | {:.2} | {:.1} |", t / w, t / v);
    }
}

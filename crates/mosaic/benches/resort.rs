//! Re-sorting a large group by grid cell, as the arena does every few frames: what
//! `World::sort_group_by_bucket` costs against a plain `Vec` of rows sorted the same way.
//!
//! A world shaped like the arena's fighters: `n` entities with `(Pos, Vel, Team, Health)` in two
//! nested owning groups, `(Pos, Vel)` and `(Pos, Vel, Team, Health)`, `Pos` stored as struct of
//! arrays, spread at random over a grid of about 1.5 cells per entity (the bundled scene's
//! density) and sorted by cell once, so entity indices are at random in row order, as they are
//! after a few thousand frames of spawns and deaths. Each round moves a fraction of the
//! entities (`--moved`, default 0.05: the arena re-sorts past 5% disorder) one cell over, then
//! times one sort of the nested group, two ways, interleaved:
//! - `world`: `World::sort_group_by_bucket` over the four pools;
//! - `vec`: the baseline, a plain `Vec` of the same rows (moved alike) sorted by the same stable
//!   counting sort into a second `Vec`: the values' moves without any index to keep.
//!
//! Prints each way's median per sort and the ratio. Run: `cargo bench -p mosaic-ecs --bench
//! resort` (add `-- --entities N`, `--rounds N`, `--moved F`; `--only WAY` times one way, for
//! profilers).
#![allow(missing_docs, reason = "a benchmark binary")]
#![allow(
    dead_code,
    reason = "the components' values are moved, never read: the cost measured is moving them"
)]

mod common;

use std::time::{Duration, Instant};

use common::{Rng, arg, median};
use mosaic::{Component, Entity, View, World};

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

/// The baseline's row: what one entity of the world holds.
#[derive(Clone, Copy)]
struct Row {
    pos: (f32, f32),
    vel: (f32, f32),
    team: u8,
    health: i32,
}

/// A square grid of unit cells.
#[derive(Clone, Copy)]
struct Cells {
    side: usize,
}

impl Cells {
    fn count(self) -> usize {
        self.side * self.side
    }
    fn of(self, x: f32, y: f32) -> usize {
        (y as usize).min(self.side - 1) * self.side + (x as usize).min(self.side - 1)
    }
    /// One cell over from `x`, in the grid.
    fn step(self, x: f32, right: bool) -> f32 {
        if right && x + 1.0 < self.side as f32 {
            x + 1.0
        } else if x >= 1.0 {
            x - 1.0
        } else {
            x + 1.0
        }
    }
}

fn main() {
    let n = arg("--entities").and_then(|n| n.parse().ok()).unwrap_or(1_000_000usize).max(1);
    let rounds = arg("--rounds").and_then(|n| n.parse().ok()).unwrap_or(15usize);
    let moved = arg("--moved").and_then(|f| f.parse().ok()).unwrap_or(0.05f64);
    let only = arg("--only");
    let cells = Cells { side: ((n as f64 * 1.5).sqrt() as usize).max(1) };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start: Vec<(f32, f32)> =
        (0..n).map(|_| (rng.below(cells.side) as f32 + 0.5, rng.below(cells.side) as f32 + 0.5)).collect();

    let mut world = World::new();
    world.group::<(Pos, Vel)>();
    let group = world.group::<(Pos, Vel, Team, Health)>();
    let entities: Vec<Entity> =
        start.iter().map(|&(x, y)| world.spawn((Pos { x, y }, Vel(0.5, -0.5), Team(1), Health(3)))).collect();
    let sort_world = |world: &mut World| {
        world
            .sort_group_by_bucket::<Pos>(group, cells.count(), |p| {
                let p = p.read();
                cells.of(p.x, p.y)
            })
            .expect("every cell is below the count");
    };
    sort_world(&mut world);

    let mut rows: Vec<Row> =
        start.iter().map(|&(x, y)| Row { pos: (x, y), vel: (0.5, -0.5), team: 1, health: 3 }).collect();
    let mut sorted: Vec<Row> = Vec::with_capacity(n);
    let mut counts: Vec<u32> = Vec::new();
    let mut sort_vec = |rows: &mut Vec<Row>| {
        counts.clear();
        counts.resize(cells.count() + 1, 0);
        for row in rows.iter() {
            counts[cells.of(row.pos.0, row.pos.1) + 1] += 1;
        }
        for c in 1..counts.len() {
            counts[c] += counts[c - 1];
        }
        sorted.clear();
        sorted.resize(rows.len(), rows[0]);
        for row in rows.iter() {
            let at = &mut counts[cells.of(row.pos.0, row.pos.1)];
            sorted[*at as usize] = *row;
            *at += 1;
        }
        std::mem::swap(rows, &mut sorted);
    };
    sort_vec(&mut rows);

    let per_round = ((n as f64 * moved) as usize).max(1);
    let names = ["world", "vec"];
    let mut times_of: [Vec<Duration>; 2] = Default::default();
    for round in 0..rounds {
        // The same moves for both ways: `per_round` random entities one cell left or right.
        let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ round as u64);
        let picks: Vec<(usize, bool)> = (0..per_round).map(|_| (rng.below(n), rng.below(2) == 0)).collect();
        for &(at, right) in &picks {
            let e = entities[at];
            let mut p = world.get::<Pos>(e).expect("alive").read();
            p.x = cells.step(p.x, right);
            world.insert(e, p);
        }
        // The baseline's rows: the same number moved, at random rows of its sorted order.
        for &(at, right) in &picks {
            let row = &mut rows[at];
            row.pos.0 = cells.step(row.pos.0, right);
        }
        let ways: [&mut dyn FnMut() -> Duration; 2] = [
            &mut || {
                let start = Instant::now();
                sort_world(&mut world);
                start.elapsed()
            },
            &mut || {
                let start = Instant::now();
                sort_vec(&mut rows);
                start.elapsed()
            },
        ];
        for k in 0..names.len() {
            let way = (k + round) % names.len();
            if only.as_deref().is_none_or(|only| only == names[way]) {
                times_of[way].push((ways[way])());
            }
        }
    }
    if only.is_some() {
        return;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let [w, v] = times_of.map(|mut t| ms(median(&mut t)));
    println!("{n} entities, {per_round} moved one cell a round; medians of {rounds} interleaved rounds");
    println!("| way | ms per sort | vs vec |");
    println!("|---|---:|---:|");
    for (name, t) in names.into_iter().zip([w, v]) {
        println!("| {name} | {t:.2} | {:.2} |", t / v);
    }
}

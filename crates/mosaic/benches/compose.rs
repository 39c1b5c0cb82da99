//! Features that compose: what a hook, a group or a hierarchy on *other* component types costs
//! the structural changes of a type that has none of them.
//!
//! Four worlds, each with 10,000 entities holding (A, B):
//! - `plain`: nothing else;
//! - `hook`: plus one `on_add` hook on an unrelated type `H`;
//! - `group`: plus one owning group of two unrelated types (G1, G2);
//! - `hierarchy`: plus one `set_parent` between two other entities;
//! - `observed`: all three at once.
//!
//! Two operations, each timed per world: `add/remove C` (insert C on every entity, then remove
//! it, one entity at a time) and `spawn/despawn` (spawn 10,000 (A, B) entities, then despawn
//! them). The worlds are timed in interleaved rounds (one sample of each world per round, the
//! order rotating), and the table gives each world's median over the rounds and its ratio to the
//! plain world's median: rows near 1.00 mean the feature costs nothing where it is not used.
//!
//! Run: `cargo bench -p mosaic-ecs --bench compose` (add `-- --rounds N` for more rounds, and
//! `--only KIND` to time one world alone, e.g. under callgrind).
#![allow(missing_docs, reason = "a benchmark binary")]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{arg, median};
use mosaic::{Component, Entity, World};

#[derive(Component)]
struct A(#[allow(dead_code)] u64);
#[derive(Component)]
struct B(#[allow(dead_code)] u64);
#[derive(Component)]
struct C(#[allow(dead_code)] u64);
#[derive(Component)]
struct H;
#[derive(Component)]
struct G1;
#[derive(Component)]
struct G2;

const N: usize = 10_000;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Plain,
    Hook,
    Group,
    Hierarchy,
    Observed,
}

const KINDS: [Kind; 5] = [Kind::Plain, Kind::Hook, Kind::Group, Kind::Hierarchy, Kind::Observed];

fn world(kind: Kind) -> World {
    let mut world = World::new();
    let hook = matches!(kind, Kind::Hook | Kind::Observed);
    let group = matches!(kind, Kind::Group | Kind::Observed);
    let hierarchy = matches!(kind, Kind::Hierarchy | Kind::Observed);
    if hook {
        world.on_add::<H>(|ctx| {
            black_box(ctx.entity);
        });
        world.spawn(H);
    }
    if group {
        world.group::<(G1, G2)>();
        world.spawn((G1, G2));
    }
    if hierarchy {
        let parent = world.spawn_empty();
        let child = world.spawn_empty();
        world.set_parent(child, parent).expect("both alive");
    }
    world.register_component::<C>();
    world
}

/// Time of one `f` call.
fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn main() {
    let rounds = arg("--rounds").and_then(|n| n.parse().ok()).unwrap_or(31usize);
    let only = arg("--only");
    let kinds: Vec<Kind> = KINDS
        .into_iter()
        .filter(|k| only.as_ref().is_none_or(|o| format!("{k:?}").eq_ignore_ascii_case(o)))
        .collect();
    // add/remove C: the worlds hold their entities across rounds.
    let mut add_worlds: Vec<(World, Vec<Entity>)> = kinds
        .iter()
        .map(|&kind| {
            let mut w = world(kind);
            let es = w.spawn_batch((0..N as u64).map(|i| (A(i), B(i))));
            (w, es)
        })
        .collect();
    let mut spawn_worlds: Vec<World> = kinds.iter().map(|&kind| world(kind)).collect();
    let mut add = vec![Vec::new(); kinds.len()];
    let mut spawn = vec![Vec::new(); kinds.len()];
    for round in 0..rounds {
        for k in 0..kinds.len() {
            let i = (k + round) % kinds.len();
            let (w, es) = &mut add_worlds[i];
            add[i].push(time(|| {
                for &e in es.iter() {
                    w.insert(e, C(1));
                }
                for &e in es.iter() {
                    black_box(w.remove::<C>(e));
                }
            }));
            let w = &mut spawn_worlds[i];
            spawn[i].push(time(|| {
                let es: Vec<Entity> = (0..N as u64).map(|i| w.spawn((A(i), B(i)))).collect();
                for e in es {
                    w.despawn(e);
                }
            }));
        }
    }
    let add: Vec<Duration> = add.iter_mut().map(|s| median(s)).collect();
    let spawn: Vec<Duration> = spawn.iter_mut().map(|s| median(s)).collect();
    println!("{N} entities with (A, B); medians of {rounds} interleaved rounds");
    println!("| world | add/remove C | ratio | spawn/despawn | ratio |");
    println!("|---|---:|---:|---:|---:|");
    for (i, kind) in kinds.iter().enumerate() {
        println!(
            "| {kind:?} | {:.1} us | {:.2} | {:.1} us | {:.2} |",
            add[i].as_secs_f64() * 1e6,
            add[i].as_secs_f64() / add[0].as_secs_f64(),
            spawn[i].as_secs_f64() * 1e6,
            spawn[i].as_secs_f64() / spawn[0].as_secs_f64(),
        );
    }
}

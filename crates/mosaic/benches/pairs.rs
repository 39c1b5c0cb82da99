//! What many-to-many pairs cost against the plain code a user would write instead (issue 39's
//! targets), in interleaved rounds with medians:
//! - `wildcard`: the `(Likes, *)` wildcard over 10^5 sources with 3 targets each, read as
//!   `Query<(Entity, &Targets<Likes>)>` yielding every `(source, target)`, against
//!   `plain3`: a plain query over 3 x 10^5 rows of a component holding one target each
//!   (`Query<(Entity, &Link)>`), the same number of pairs (target: at most 2x);
//! - `pairs_iter`: the same wildcard through `World::pairs::<Likes>()`;
//! - `despawn_target`: despawning one target that 10^4 sources point at (the default cleanup:
//!   the pairs are removed), against `remove_each`: removing those 10^4 pairs one by one with
//!   `World::remove_pair` (target: at most 2x);
//! - `add_remove_small` / `add_remove_large`: adding then removing one pair per source over
//!   10^3 and 10^5 sources that already hold 3 pairs each, in ns per pair: O(1) amortised means
//!   the two stay close.
//!
//! Run: `cargo bench -p mosaic-ecs --bench pairs` (`-- --rounds N`, default 11).
#![allow(missing_docs, reason = "a benchmark binary")]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{arg, median};
use mosaic::hierarchy::{PairRelation, Targets};
use mosaic::{Component, Entity, World};

#[derive(Clone, Default)]
struct Likes;
impl PairRelation for Likes {}

#[derive(Clone, Default)]
struct Knows;
impl PairRelation for Knows {}

/// One target per row: what a user without pairs stores.
#[derive(Component)]
struct Link(Entity);

/// Sources of the wildcard.
const SOURCES: usize = 100_000;
/// Targets per source.
const PER_SOURCE: usize = 3;
/// Sources of the despawned target.
const FAN_IN: usize = 10_000;

/// A world of `sources` sources with `PER_SOURCE` pairs of `R` each, to a pool of 1,000
/// targets; returns the world and the targets.
fn pair_world<R: PairRelation + Default>(sources: usize) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let targets: Vec<Entity> = (0..1_000).map(|_| world.spawn_empty()).collect();
    for i in 0..sources {
        let source = world.spawn_empty();
        for k in 0..PER_SOURCE {
            world.add_pair::<R>(source, targets[(i * 7 + k * 13) % targets.len()]);
        }
    }
    (world, targets)
}

/// The same pairs as plain rows: one entity per pair holding `Link(target)`.
fn link_world(targets: &[Entity]) -> World {
    let mut world = World::new();
    world.spawn_batch(
        (0..SOURCES * PER_SOURCE)
            .map(|n| Link(targets[((n / PER_SOURCE) * 7 + (n % PER_SOURCE) * 13) % targets.len()])),
    );
    world
}

/// Sums the pairs' target indices and hands each source to `black_box` (so nothing is
/// optimised away; the plain query does the same).
fn wildcard(world: &mut World) -> u64 {
    let mut sum = 0u64;
    world.query::<(Entity, &Targets<Likes>)>().for_each(|(source, targets)| {
        for target in targets.targets() {
            sum += u64::from(target.index());
            black_box(source);
        }
    });
    sum
}

fn plain3(world: &mut World) -> u64 {
    let mut sum = 0u64;
    world.query::<(Entity, &Link)>().for_each(|(source, link)| {
        sum += u64::from(link.0.index());
        black_box(source);
    });
    sum
}

fn pairs_iter(world: &World) -> u64 {
    world
        .pairs::<Likes>()
        .map(|(source, target, _)| {
            black_box(source);
            u64::from(target.index())
        })
        .sum()
}

/// A world where `FAN_IN` sources point at one target (and each at one other), fresh per round.
fn fan_in_world() -> (World, Entity, Vec<Entity>) {
    let mut world = World::new();
    let target = world.spawn_empty();
    let other = world.spawn_empty();
    let sources: Vec<Entity> = (0..FAN_IN).map(|_| world.spawn_empty()).collect();
    for &source in &sources {
        world.add_pair::<Likes>(source, target);
        world.add_pair::<Likes>(source, other);
    }
    (world, target, sources)
}

/// Adds then removes one `Knows` pair per source (the sources hold 3 `Likes` pairs and one
/// `Knows` pair already); returns the time per pair operation.
fn add_remove(world: &mut World, sources: &[Entity], target: Entity) -> Duration {
    let start = Instant::now();
    for &source in sources {
        world.add_pair::<Knows>(source, target);
    }
    for &source in sources {
        world.remove_pair::<Knows>(source, target);
    }
    start.elapsed() / (2 * sources.len()) as u32
}

/// A world for `add_remove`: `n` sources with 3 `Likes` pairs and one `Knows` pair each.
fn add_remove_world(n: usize) -> (World, Vec<Entity>, Entity) {
    let (mut world, targets) = pair_world::<Likes>(n);
    let sources: Vec<Entity> = world.query::<(Entity, &Targets<Likes>)>().iter().map(|(e, _)| e).collect();
    for (i, &source) in sources.iter().enumerate() {
        world.add_pair::<Knows>(source, targets[i % targets.len()]);
    }
    let target = world.spawn_empty();
    (world, sources, target)
}

fn main() {
    let rounds: usize = arg("--rounds").and_then(|r| r.parse().ok()).unwrap_or(11);
    let (mut pairs, targets) = pair_world::<Likes>(SOURCES);
    let mut links = link_world(&targets);
    assert_eq!(wildcard(&mut pairs), plain3(&mut links), "the two worlds hold the same pairs");
    assert_eq!(pairs_iter(&pairs), plain3(&mut links));
    let (mut small, small_sources, small_target) = add_remove_world(1_000);
    let (mut large, large_sources, large_target) = add_remove_world(SOURCES);

    let mut times: [Vec<Duration>; 7] = Default::default();
    for _ in 0..rounds {
        let start = Instant::now();
        black_box(plain3(&mut links));
        times[0].push(start.elapsed());

        let start = Instant::now();
        black_box(wildcard(&mut pairs));
        times[1].push(start.elapsed());

        let start = Instant::now();
        black_box(pairs_iter(&pairs));
        times[2].push(start.elapsed());

        let (mut world, target, sources) = fan_in_world();
        assert_eq!(world.sources::<Likes>(target).len(), FAN_IN);
        let start = Instant::now();
        for &source in &sources {
            world.remove_pair::<Likes>(source, target);
        }
        times[3].push(start.elapsed());
        drop(world);

        let (mut world, target, sources) = fan_in_world();
        let start = Instant::now();
        world.despawn(target);
        times[4].push(start.elapsed());
        assert!(sources.iter().all(|&s| world.targets::<Likes>(s).len() == 1));
        drop(world);

        times[5].push(add_remove(&mut small, &small_sources, small_target));
        times[6].push(add_remove(&mut large, &large_sources, large_target));
    }

    let [plain, wild, iter, remove_each, despawn, small_t, large_t] = times.map(|mut t| median(&mut t));
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let ns = |d: Duration| d.as_secs_f64() * 1e9;
    println!("| way | median of {rounds} rounds | ratio | target |");
    println!("|---|---:|---:|---|");
    println!("| plain3 (3x10^5 rows) | {:.0} us | 1.00 | |", us(plain));
    println!("| wildcard query (10^5 x 3) | {:.0} us | {:.2} | <= 2x plain3 |", us(wild), ratio(wild, plain));
    println!("| World::pairs | {:.0} us | {:.2} | |", us(iter), ratio(iter, plain));
    println!("| remove 10^4 pairs one by one | {:.0} us | 1.00 | |", us(remove_each));
    println!(
        "| despawn their target | {:.0} us | {:.2} | <= 2x remove_each |",
        us(despawn),
        ratio(despawn, remove_each)
    );
    println!("| add+remove a pair, 10^3 sources | {:.1} ns | 1.00 | |", ns(small_t));
    println!(
        "| add+remove a pair, 10^5 sources | {:.1} ns | {:.2} | O(1): close to 1 |",
        ns(large_t),
        ratio(large_t, small_t)
    );
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

//! Timing of many-to-many pairs against their plain alternatives (issue 39, item 3): medians of
//! interleaved rounds, printed as ratios.
//!
//! `cargo run --release -p mosaic-ecs --no-default-features --example pairs_timing`

use std::hint::black_box;
use std::time::{Duration, Instant};

use mosaic::hierarchy::{PairRelation, Targets};
use mosaic::{Component, Entity, World};

#[derive(Clone, Default)]
struct Likes;
impl PairRelation for Likes {}

/// The plain alternative: one edge entity per pair.
#[derive(Component)]
struct Edge {
    source: Entity,
    target: Entity,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn wildcard() {
    const SOURCES: usize = 100_000;
    let mut world = World::new();
    let targets: Vec<Entity> = (0..1_000).map(|_| world.spawn_empty()).collect();
    let sources: Vec<Entity> = (0..SOURCES).map(|_| world.spawn_empty()).collect();
    for (i, &s) in sources.iter().enumerate() {
        for j in 0..3 {
            world.add_pair::<Likes>(s, targets[(i * 7 + j * 13) % targets.len()]);
        }
    }
    let mut edges = World::new();
    for (i, &s) in sources.iter().enumerate() {
        for j in 0..3 {
            edges.spawn(Edge { source: s, target: targets[(i * 7 + j * 13) % targets.len()] });
        }
    }
    let (mut walk, mut term, mut plain) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..31 {
        let start = Instant::now();
        let sum: u64 = world.pairs::<Likes>().map(|(s, t, _)| u64::from(s.index() ^ t.index())).sum();
        walk.push(start.elapsed());
        black_box(sum);

        let start = Instant::now();
        let query = world.query::<(Entity, &Targets<Likes>)>();
        let sum: u64 = query
            .iter()
            .flat_map(|(s, ts)| ts.targets().map(move |t| u64::from(s.index() ^ t.index())))
            .sum();
        term.push(start.elapsed());
        black_box(sum);

        let start = Instant::now();
        let query = edges.query::<&Edge>();
        let sum: u64 = query.iter().map(|e| u64::from(e.source.index() ^ e.target.index())).sum();
        plain.push(start.elapsed());
        black_box(sum);
    }
    let (walk, term, plain) = (median(walk), median(term), median(plain));
    println!("wildcard walk, 1e5 sources x 3 targets: pairs() {walk:?}, Query<(Entity, &Targets)> {term:?}");
    println!("plain query over 3e5 edge rows: {plain:?}");
    println!(
        "ratio pairs()/plain {:.2}, query term/plain {:.2} (target <= 2)",
        walk.as_secs_f64() / plain.as_secs_f64(),
        term.as_secs_f64() / plain.as_secs_f64()
    );
}

fn despawn_target() {
    const SOURCES: usize = 10_000;
    let setup = || {
        let mut world = World::new();
        let target = world.spawn_empty();
        let other = world.spawn_empty();
        let sources: Vec<Entity> = (0..SOURCES).map(|_| world.spawn_empty()).collect();
        for (i, &s) in sources.iter().enumerate() {
            world.add_pair::<Likes>(s, target);
            if i % 2 == 0 {
                world.add_pair::<Likes>(s, other);
            }
        }
        (world, target, sources)
    };
    let (mut despawn, mut one_by_one) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        let (mut world, target, _) = setup();
        let start = Instant::now();
        world.despawn(target);
        despawn.push(start.elapsed());
        assert_eq!(world.pairs::<Likes>().count(), SOURCES / 2);

        let (mut world, target, sources) = setup();
        let start = Instant::now();
        for &s in &sources {
            world.remove_pair::<Likes>(s, target);
        }
        one_by_one.push(start.elapsed());
        assert_eq!(world.pairs::<Likes>().count(), SOURCES / 2);
    }
    let (despawn, one_by_one) = (median(despawn), median(one_by_one));
    println!("despawn a target of 1e4 sources: {despawn:?}; remove_pair one by one: {one_by_one:?}");
    println!(
        "ratio despawn/one-by-one {:.2} (target <= 2)",
        despawn.as_secs_f64() / one_by_one.as_secs_f64()
    );
}

fn main() {
    wildcard();
    despawn_target();
}

//! What an observer costs beside the code it runs: triggers of an entity event against the same
//! closure called through a `Vec<Box<dyn FnMut>>` (the cheapest dynamic dispatch a user could
//! write by hand), and an event propagating 8 levels up a hierarchy.
//!
//! Each round times, in turn:
//! - `boxed`: 10^5 calls of a boxed closure that adds the event's value to a counter;
//! - `boxed_world`: the same closure reaching the counter as a resource of the world
//!   (`Vec<Box<dyn FnMut(&mut World, Entity, u64)>>`), what a hand-written event bus over a
//!   world does;
//! - `trigger`: 10^5 `World::trigger_targets` of an entity event with one observer doing the
//!   same through `ResMut` (the observer of that one entity, as `World::observe` makes);
//! - `propagate8`: 10^5 triggers at the leaf of an 8-deep chain, an `#[event(propagate)]`
//!   event with an observer of every entity, so it runs at each of the 8 levels.
//!
//! The table gives each way's median over the rounds and its ratio to `boxed` (the issue's
//! targets: `trigger` at most 3x, `propagate8` at most 8x that). Run:
//! `cargo bench -p mosaic-ecs --bench observers` (`-- --rounds N`, default 21; `--only WAY`
//! times one way and prints nothing, for a profiler such as callgrind).
#![allow(missing_docs, reason = "a benchmark binary")]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{arg, median};
use mosaic::{Entity, Event, On, ResMut, World};

#[derive(Event)]
struct Hit(u64);

#[derive(Event)]
#[event(propagate)]
struct Bubble(u64);

/// The hand-written baseline: a boxed closure adding a value to a counter.
type Handler = Box<dyn FnMut(&mut u64, u64)>;
/// The same reaching the counter as a resource of a world.
type WorldHandler = Box<dyn FnMut(&mut World, Entity, u64)>;

/// Triggers per round.
const TRIGGERS: u64 = 100_000;

fn main() {
    let rounds: usize = arg("--rounds").and_then(|r| r.parse().ok()).unwrap_or(21);
    // `--only NAME` times one way (for profilers); the others still run their setup.
    let only = arg("--only");
    let runs = |name: &str| only.as_deref().is_none_or(|only| only == name);

    let mut counter = 0u64;
    let mut boxed: Vec<Handler> = vec![Box::new(|total: &mut u64, v: u64| *total += v)];

    let mut world = World::new();
    world.insert_resource(0u64);
    let target = world.spawn_empty();
    world.observe(target, |hit: On<Hit>, mut total: ResMut<u64>| *total += hit.0);

    let mut chain = World::new();
    chain.insert_resource(0u64);
    let mut leaf: Entity = chain.spawn_empty();
    for _ in 1..8 {
        let child = chain.spawn_empty();
        chain.set_parent(child, leaf).unwrap();
        leaf = child;
    }
    chain.add_observer(|b: On<Bubble>, mut total: ResMut<u64>| *total += b.0);

    let mut by_hand = World::new();
    by_hand.insert_resource(0u64);
    let by_hand_target = by_hand.spawn_empty();
    let mut handlers: Vec<WorldHandler> =
        vec![Box::new(|world: &mut World, _: Entity, v: u64| *world.resource_mut::<u64>() += v)];

    let (mut t_boxed, mut t_world, mut t_trigger, mut t_propagate) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        if runs("boxed") {
            let start = Instant::now();
            for i in 0..TRIGGERS {
                for f in boxed.iter_mut() {
                    f(&mut counter, black_box(i));
                }
            }
            t_boxed.push(start.elapsed());
        }

        if runs("boxed_world") {
            let start = Instant::now();
            for i in 0..TRIGGERS {
                for f in handlers.iter_mut() {
                    f(&mut by_hand, black_box(by_hand_target), black_box(i));
                }
            }
            t_world.push(start.elapsed());
        }

        if runs("trigger") {
            let start = Instant::now();
            for i in 0..TRIGGERS {
                world.trigger_targets(Hit(black_box(i)), target);
            }
            t_trigger.push(start.elapsed());
        }

        if runs("propagate8") {
            let start = Instant::now();
            for i in 0..TRIGGERS {
                chain.trigger_targets(Bubble(black_box(i)), leaf);
            }
            t_propagate.push(start.elapsed());
        }
    }
    black_box(counter);
    if runs("trigger") {
        assert_eq!(*world.resource::<u64>(), (0..TRIGGERS).sum::<u64>() * rounds as u64);
    }
    if runs("propagate8") {
        assert_eq!(*chain.resource::<u64>(), 8 * (0..TRIGGERS).sum::<u64>() * rounds as u64);
    }

    if only.is_some() {
        return;
    }
    let boxed = median(&mut t_boxed);
    let per = |d: Duration| d.as_secs_f64() * 1e9 / TRIGGERS as f64;
    println!("| way | ns per trigger (median of {rounds} rounds) | / boxed |");
    println!("|---|---|---|");
    for (name, samples) in [
        ("boxed", &mut t_boxed),
        ("boxed_world", &mut t_world),
        ("trigger", &mut t_trigger),
        ("propagate8", &mut t_propagate),
    ] {
        let m = median(samples);
        println!("| {name} | {:.1} | {:.2} |", per(m), m.as_secs_f64() / boxed.as_secs_f64());
    }
}

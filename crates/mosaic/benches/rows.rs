//! The peer suite's Mosaic rows (and `core`'s and `compose`'s structural changes) as a plain
//! binary with a fixed amount of work, for instruction counts under callgrind and whole-process
//! timings: `rows WORKLOAD ITERS` runs WORKLOAD's setup once, then its measured body ITERS times,
//! and prints a checksum. Workloads: simple_iter, simple_iter_for, filter_iter, option_iter,
//! frag_iter, simple_insert, add_remove, add_remove_each, spawn_despawn, and with `observed_`
//! before simple_insert / add_remove / spawn_despawn, the same in the peer suite's observed world;
//! tracked_add_remove, indexed_add_remove, indexed_add_remove_lookup, change_detect, indexed_change_detect.
#![allow(missing_docs, reason = "a benchmark binary")]

use std::hint::black_box;

use mosaic::{Component, Entity, With, World};

#[derive(Component, Clone, Copy)]
struct Transform(#[allow(dead_code)] [[f32; 4]; 4]);
#[derive(Component, Clone, Copy)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Rotation(#[allow(dead_code)] [f32; 3]);
#[derive(Component, Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Tag;
#[derive(Component, Clone, Copy)]
struct A(#[allow(dead_code)] f32);
#[derive(Component, Clone, Copy)]
struct B(#[allow(dead_code)] f32);

mod frag {
    macro_rules! newtypes {
        ($($t:ident)*) => { $( #[derive(mosaic::Component)] pub struct $t(#[allow(dead_code)] pub f32); )* };
    }
    newtypes!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Data);
}

const N: usize = 10_000;

fn row(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let f = i as f32;
    (Transform([[1.0; 4]; 4]), Position([f, 0.0, 0.0]), Rotation([1.0, 0.0, 0.0]), Velocity([1.0, 0.5, 0.25]))
}

fn step(p: &mut Position, v: &Velocity) {
    for k in 0..3 {
        p.0[k] += v.0[k];
    }
}

fn tagged_world() -> World {
    let mut world = World::new();
    let entities =
        world.spawn_batch((0..N).map(|i| (Position([i as f32, 0.0, 0.0]), Velocity([1.0, 0.5, 0.25]))));
    world.insert_batch(entities.iter().enumerate().filter(|&(i, _)| i % 2 == 0).map(|(_, &e)| (e, Tag)));
    world
}

fn checksum(world: &mut World) -> f32 {
    let mut sum = 0.0;
    world.query::<&Position>().for_each(|p| sum += p.0[0]);
    sum
}

fn add_remove(world: &mut World, iters: usize) {
    let entities = world.spawn_batch((0..N).map(|_| A(0.0)));
    for _ in 0..iters {
        measured(|| {
            world.insert_batch(entities.iter().map(|&e| (e, B(0.0))));
            world.remove_batch::<B>(entities.iter().copied());
        });
    }
}

fn spawn_despawn(world: &mut World, iters: usize) {
    for _ in 0..iters {
        measured(|| {
            let es: Vec<Entity> = (0..N).map(|i| world.spawn((A(i as f32), B(i as f32)))).collect();
            for e in es {
                world.despawn(e);
            }
        });
    }
}

/// Change detection on the written type: each iteration writes `B` on every other entity of
/// 10^4 through a query, then counts the `Changed<B>` rows; with `indexed`, `B` has a value
/// index (by a key of its value) that is looked up after the writes, which catches it up.
fn change_detect(indexed: bool, iters: usize) -> f32 {
    let mut world = World::new();
    world.track_changes::<B>();
    if indexed {
        world.add_index_by_key::<B, u32>(|b| b.0 as u32);
    }
    world.spawn_batch((0..N).map(|i| (A(i as f32), B(0.0))));
    world.clear_trackers();
    let mut total = 0usize;
    for round in 0..iters {
        measured(|| {
            let mut i = 0usize;
            world.query::<&mut B>().for_each(|b| {
                if i.is_multiple_of(2) {
                    b.0 = (round % 7) as f32;
                }
                i += 1;
            });
            total += world.query_filtered::<&B, mosaic::Changed<B>>().count();
            if indexed {
                total += world.index_by_key::<B, u32>().get(&0).len();
            }
            world.clear_trackers();
        });
    }
    total as f32
}

/// The measured part of a workload: callgrind counts only inside this function
/// (`--toggle-collect='*measured*'`), so setup and teardown stay out, as in the peer suite.
#[inline(never)]
fn measured<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// The peer suite's `fresh`: the worlds are made before and dropped after, untimed.
fn simple_insert(make: fn() -> World, iters: usize) -> f32 {
    let mut worlds: Vec<World> = (0..iters).map(|_| make()).collect();
    for world in &mut worlds {
        measured(|| world.extend((0..N).map(row)));
    }
    worlds.iter().map(|w| w.len() as f32).sum()
}

// BEGIN observed
/// The peer suite's observed world: a hierarchy, an `on_add` hook on `Hooked`, an owning group
/// of (`GroupedA`, `GroupedB`), an observer of a custom event, a many-to-many relation and a
/// value index, each in use by an entity; none of them touches the workloads' types.
mod observed {
    use mosaic::hierarchy::PairRelation;
    use mosaic::{Component, Event, On, World};

    #[derive(Component)]
    struct Hooked;
    #[derive(Component)]
    struct GroupedA;
    #[derive(Component)]
    struct GroupedB;
    #[derive(Event)]
    struct Ping;
    #[derive(Clone, Default)]
    struct Likes;
    impl PairRelation for Likes {}
    #[derive(Component, Clone, PartialEq, Eq, Hash)]
    struct Team(u32);

    pub fn world() -> World {
        let mut world = World::new();
        let parent = world.spawn_empty();
        let child = world.spawn_empty();
        world.set_parent(child, parent).expect("both alive");
        world.on_add::<Hooked>(|ctx| {
            std::hint::black_box(ctx.entity);
        });
        world.spawn(Hooked);
        world.group::<(GroupedA, GroupedB)>();
        world.spawn((GroupedA, GroupedB));
        world.add_observer(|_: On<Ping>| {
            std::hint::black_box(());
        });
        world.add_pair::<Likes>(parent, child);
        world.add_index::<Team>();
        world.spawn(Team(1));
        world
    }
}

fn observed(workload: &str, iters: usize) -> Option<f32> {
    Some(match workload {
        "observed_simple_insert" => simple_insert(observed::world, iters),
        "observed_add_remove" => {
            let mut world = observed::world();
            add_remove(&mut world, iters);
            world.len() as f32
        }
        "observed_spawn_despawn" => {
            let mut world = observed::world();
            spawn_despawn(&mut world, iters);
            world.len() as f32
        }
        _ => return None,
    })
}
// END observed

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let workload = args.get(1).map(String::as_str).unwrap_or("simple_iter");
    let iters: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(100);
    let sum = match workload {
        "simple_iter" => {
            let mut world = World::new();
            world.extend((0..N).map(row));
            for _ in 0..iters {
                measured(|| world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| step(p, v)));
            }
            checksum(&mut world)
        }
        "simple_iter_for" => {
            let mut world = World::new();
            world.extend((0..N).map(row));
            for _ in 0..iters {
                measured(|| {
                    for (p, v) in world.query::<(&mut Position, &Velocity)>() {
                        step(p, v);
                    }
                });
            }
            checksum(&mut world)
        }
        "filter_iter" => {
            let mut world = tagged_world();
            for _ in 0..iters {
                measured(|| {
                    world
                        .query_filtered::<(&mut Position, &Velocity), With<Tag>>()
                        .for_each(|(p, v)| step(p, v))
                });
            }
            checksum(&mut world)
        }
        "option_iter" => {
            let mut world = tagged_world();
            for _ in 0..iters {
                measured(|| {
                    world
                        .query::<(&mut Position, &Velocity, Option<&Tag>)>()
                        .for_each(|(p, v, t)| if t.is_some() { step(p, v) } else { p.0[0] -= v.0[0] })
                });
            }
            checksum(&mut world)
        }
        "frag_iter" => {
            let mut world = World::new();
            macro_rules! spawn {
                ($($t:ident)*) => { $( world.extend((0..20).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
            }
            spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
            let mut sum = 0.0;
            for _ in 0..iters {
                measured(|| world.query::<&mut frag::Data>().for_each(|d| d.0 *= 1.000_001));
            }
            world.query::<&frag::Data>().for_each(|d| sum += d.0);
            sum
        }
        "simple_insert" => simple_insert(World::new, iters),
        "add_remove" => {
            let mut world = World::new();
            add_remove(&mut world, iters);
            world.len() as f32
        }
        "add_remove_each" => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..N).map(|i| Position([i as f32, 0.0, 0.0])));
            for _ in 0..iters {
                measured(|| {
                    for &e in &entities {
                        world.insert(e, A(1.0));
                    }
                    for &e in &entities {
                        black_box(world.remove::<A>(e));
                    }
                });
            }
            world.len() as f32
        }
        "spawn_despawn" => {
            let mut world = World::new();
            spawn_despawn(&mut world, iters);
            world.len() as f32
        }
        "indexed_add_remove" => {
            let mut world = World::new();
            world.add_index_by_key::<B, u32>(|b| b.0 as u32);
            add_remove(&mut world, iters);
            world.index_by_key::<B, u32>().len() as f32
        }
        "tracked_add_remove" => {
            // add_remove with `B`'s changes tracked (what an index turns on), no index.
            let mut world = World::new();
            world.track_changes::<B>();
            add_remove(&mut world, iters);
            world.len() as f32
        }
        "indexed_add_remove_lookup" => {
            // As indexed_add_remove, with a lookup of the index after the inserts and after the
            // removals (a reader between every two changes: every row is filed and unfiled),
            // inside the measured body.
            let mut world = World::new();
            world.add_index_by_key::<B, u32>(|b| b.0 as u32);
            let entities: Vec<Entity> = world.spawn_batch((0..N).map(|i| A(i as f32)));
            let mut found = 0;
            for _ in 0..iters {
                measured(|| {
                    world.insert_batch(entities.iter().map(|&e| (e, B(0.0))));
                    found += world.index_by_key::<B, u32>().get(&0).len();
                    world.remove_batch::<B>(entities.iter().copied());
                    found += world.index_by_key::<B, u32>().get(&0).len();
                });
            }
            found as f32
        }
        "change_detect" => change_detect(false, iters),
        "indexed_change_detect" => change_detect(true, iters),
        other => observed(other, iters).unwrap_or_else(|| panic!("unknown workload {other}")),
    };
    println!("{sum}");
}

//! flecs (flecs_ecs, the Rust binding of the C library): `entity_bulk` with one slice per
//! component, cached queries with `each`, a `par_each` system on flecs' worker threads
//! (heavy_compute), three systems run by `World::progress` on one thread, `set`/`remove` per
//! entity; serialization is plain serde of query results (flecs' JSON is not postcard or RON).

use std::any::Any;

use flecs_ecs::prelude::*;

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE, Workload,
    fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!(#[derive(::flecs_ecs::prelude::Component)]);

/// flecs under test.
pub struct Flecs;

/// Spawns `rows` through one `entity_bulk` call (one slice per component).
fn spawn_rows(world: &World, rows: impl Iterator<Item = Row>) -> Vec<Entity> {
    let (mut ts, mut ps, mut rs, mut vs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (t, p, r, v) in rows {
        ts.push(t);
        ps.push(p);
        rs.push(r);
        vs.push(v);
    }
    world.entity_bulk(ts.len() as u32).set(&ts).set(&ps).set(&rs).set(&vs).build()
}

/// Spawns `n` entities holding copies of `x` and `y` through one `entity_bulk` call.
fn spawn_pairs<X: ComponentId + DataComponent + Copy, Y: ComponentId + DataComponent + Copy>(
    world: &World,
    n: usize,
    x: X,
    y: Y,
) -> Vec<Entity> {
    let (xs, ys) = (vec![x; n], vec![y; n]);
    world.entity_bulk(n as u32).set(&xs).set(&ys).build()
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let world = World::new();
    let ps: Vec<Position> = (0..N_FILTER).map(|i| Position(start_position(i))).collect();
    let vs = vec![Velocity(START_VELOCITY); N_FILTER];
    let entities = world.entity_bulk(N_FILTER as u32).set(&ps).set(&vs).build();
    for (i, &e) in entities.iter().enumerate() {
        if tagged(i) {
            world.entity_from_id(e).add(Tag);
        }
    }
    world
}

impl Library for Flecs {
    fn name(&self) -> &'static str {
        "flecs"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("flecs_ecs")
    }

    fn notes(&self) -> &'static str {
        "`entity_bulk` with one slice per component (built in the timed region), cached queries with \
         `each`, a `par_each` system on `set_threads(cores)` workers run by `progress` (heavy_compute), three \
         `each` systems run by `progress` on one thread (schedule), `set`/`remove` per entity; serialize: \
         query results into a `Vec`, serde, `entity_bulk` into a new world (its `World::new` is timed, as for \
         everyone); `with(Tag)` (filter_iter); no Rust iterator over a query (simple_iter_for) and no \
         `Option<&Tag>` of a zero-sized tag in `each` (option_iter)"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => return None,
            Workload::SimpleInsert => fresh(World::new, |w| {
                spawn_rows(w, (0..N_SIMPLE).map(row));
            }),
            Workload::SimpleIter => {
                let world = World::new();
                spawn_rows(&world, (0..N_SIMPLE).map(row));
                let query = world.query::<(&mut Position, &Velocity)>().set_cached().build();
                // (query, world): the query drops first; flecs panics if a world dies under a live query.
                repeat((query, world), |(q, _)| q.each(|(p, v)| p.0 += v.0))
            }
            // flecs_ecs has no Rust `Iterator` over a query: its loops are the `each`/`run` callbacks.
            Workload::SimpleIterFor => return None,
            Workload::FilterIter => {
                let world = tagged_world();
                let query = world.query::<(&mut Position, &Velocity)>().with(Tag).set_cached().build();
                repeat((query, world), |(q, _)| q.each(|(p, v)| p.0 += v.0))
            }
            // flecs_ecs cannot fetch a zero-sized tag as `Option<&Tag>` (a compile-time error in `each`);
            // its form is an optional term tested per table in `run`, a different loop.
            Workload::OptionIter => return None,
            Workload::FragIter => {
                let world = World::new();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( spawn_pairs(&world, N_FRAG, frag::$t(0.0), frag::Data(1.0)); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                let query = world.query::<&mut frag::Data>().set_cached().build();
                repeat((query, world), |(q, _)| q.each(|d| d.0 *= 2.0))
            }
            Workload::HeavyCompute => {
                let world = World::new();
                spawn_rows(&world, (0..N_HEAVY).map(row));
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                world.set_threads(cores as i32);
                world
                    .system::<(&mut Position, &mut Transform)>()
                    .par_each(|(p, t)| heavy_step(&mut t.0, &mut p.0));
                repeat(world, |w| {
                    w.progress();
                })
            }
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                let world = World::new();
                let n = N_SCHEDULE as u32;
                let (a, b, c) =
                    (vec![A(0.0); N_SCHEDULE], vec![B(1.0); N_SCHEDULE], vec![C(2.0); N_SCHEDULE]);
                let (d, e) = (vec![D(3.0); N_SCHEDULE], vec![E(4.0); N_SCHEDULE]);
                world.entity_bulk(n).set(&a).set(&b).build();
                world.entity_bulk(n).set(&a).set(&b).set(&c).build();
                world.entity_bulk(n).set(&a).set(&b).set(&c).set(&d).build();
                world.entity_bulk(n).set(&a).set(&b).set(&c).set(&e).build();
                world.system::<(&mut A, &mut B)>().each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
                world.system::<(&mut C, &mut D)>().each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
                world.system::<(&mut C, &mut E)>().each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
                repeat(world, |w| {
                    w.progress();
                })
            }
            Workload::AddRemove => {
                let world = World::new();
                let a = vec![sched::A(0.0); N_ADD_REMOVE];
                let entities = world.entity_bulk(N_ADD_REMOVE as u32).set(&a).build();
                repeat((world, entities), |(w, entities)| {
                    for &e in entities.iter() {
                        w.entity_from_id(e).set(sched::B(0.0));
                    }
                    for &e in entities.iter() {
                        w.entity_from_id(e).remove(sched::B::id());
                    }
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let text = workload == Workload::SerializeText;
                let world = World::new();
                spawn_rows(&world, (0..N_SERIALIZE).map(row));
                let query =
                    world.query::<(&Transform, &Position, &Rotation, &Velocity)>().set_cached().build();
                keep((query, world), move |(q, _)| {
                    let mut rows: Vec<Row> = Vec::new();
                    q.each(|(t, p, r, v)| rows.push((*t, *p, *r, *v)));
                    let back: Vec<Row> = serde_rows::round_trip(&rows, text);
                    let out = World::new();
                    spawn_rows(&out, back.into_iter());
                    out
                })
            }
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let world = World::new();
        // Chunks bound the input slices, so they add little to the peak.
        const CHUNK: usize = 1 << 16;
        let mut done = 0;
        while done < n {
            let len = CHUNK.min(n - done);
            let ps: Vec<Position> = (done..done + len).map(|i| Position(start_position(i))).collect();
            let vs = vec![Velocity(START_VELOCITY); len];
            world.entity_bulk(len as u32).set(&ps).set(&vs).build();
            done += len;
        }
        Some(Box::new(world))
    }
}

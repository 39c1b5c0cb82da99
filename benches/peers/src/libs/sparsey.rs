//! sparsey: `extend`, `World::for_each`, `par_for_each` (heavy_compute), `insert`/`delete`, no
//! groups (the default layout, as for every other library). sparsey 0.13 has no scheduler: its
//! systems are plain functions called in sequence; serialization is plain serde of query results.

use std::any::Any;

use sparsey::World;

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE, Workload,
    fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!();

/// sparsey under test.
pub struct Sparsey;

/// A world with every workload component registered (sparsey requires registration first).
fn world() -> World {
    let mut builder = World::builder();
    builder.register::<Transform>().register::<Position>().register::<Rotation>().register::<Velocity>();
    builder.register::<Tag>();
    macro_rules! register {
        ($module:ident: $($t:ident)*) => { $( builder.register::<$module::$t>(); )* };
    }
    register!(frag: A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Data);
    register!(sched: A B C D E);
    builder.build()
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = world();
    let entities =
        world.extend((0..N_FILTER).map(|i| (Position(start_position(i)), Velocity(START_VELOCITY)))).to_vec();
    for (i, &e) in entities.iter().enumerate() {
        if tagged(i) {
            world.insert(e, (Tag,));
        }
    }
    world
}

impl Library for Sparsey {
    fn name(&self) -> &'static str {
        "sparsey"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("sparsey")
    }

    fn notes(&self) -> &'static str {
        "`extend`, `World::for_each`, `par_for_each` (heavy_compute), `insert`/`delete`, no groups; no \
         scheduler in 0.13: schedule calls the three systems in sequence; serialize: query results into a \
         `Vec`, serde, `extend`"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => return None,
            Workload::SimpleInsert => fresh(world, |w| {
                w.extend((0..N_SIMPLE).map(row));
            }),
            Workload::SimpleIter => {
                let mut world = world();
                world.extend((0..N_SIMPLE).map(row));
                repeat(world, |w| w.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0))
            }
            Workload::SimpleIterFor => {
                let mut world = world();
                world.extend((0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    for (p, v) in w.query_all::<(&mut Position, &Velocity)>().iter() {
                        p.0 += v.0;
                    }
                })
            }
            Workload::FilterIter => repeat(tagged_world(), |w| {
                w.query_all::<(&mut Position, &Velocity)>().include::<&Tag>().for_each(|(p, v)| p.0 += v.0)
            }),
            Workload::OptionIter => repeat(tagged_world(), |w| {
                w.for_each::<(&mut Position, &Velocity, Option<&Tag>)>(|(p, v, t)| {
                    if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 }
                })
            }),
            Workload::FragIter => {
                let mut world = world();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( world.extend((0..N_FRAG).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                repeat(world, |w| w.for_each::<&mut frag::Data>(|d| d.0 *= 2.0))
            }
            Workload::HeavyCompute => {
                let mut world = world();
                world.extend((0..N_HEAVY).map(row));
                repeat(world, |w| {
                    w.par_for_each::<(&mut Position, &mut Transform)>(|(p, t)| heavy_step(&mut t.0, &mut p.0))
                })
            }
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                let mut world = world();
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
                repeat(world, |w| {
                    w.for_each::<(&mut A, &mut B)>(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
                    w.for_each::<(&mut C, &mut D)>(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
                    w.for_each::<(&mut C, &mut E)>(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
                })
            }
            Workload::AddRemove => {
                let mut world = world();
                let entities = world.extend((0..N_ADD_REMOVE).map(|_| (sched::A(0.0),))).to_vec();
                repeat((world, entities), |(w, entities)| {
                    for &e in entities.iter() {
                        w.insert(e, (sched::B(0.0),));
                    }
                    for &e in entities.iter() {
                        w.delete::<(sched::B,)>(e);
                    }
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let text = workload == Workload::SerializeText;
                let mut world = world();
                world.extend((0..N_SERIALIZE).map(row));
                keep(world, move |w| {
                    let mut rows: Vec<Row> = Vec::new();
                    w.for_each::<(&Transform, &Position, &Rotation, &Velocity)>(|(t, p, r, v)| {
                        rows.push((*t, *p, *r, *v))
                    });
                    let back: Vec<Row> = serde_rows::round_trip(&rows, text);
                    let mut out = World::builder()
                        .register::<Transform>()
                        .register::<Position>()
                        .register::<Rotation>()
                        .register::<Velocity>()
                        .build();
                    out.extend(back);
                    out
                })
            }
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let mut world = World::builder().register::<Position>().register::<Velocity>().build();
        world.extend((0..n).map(|i| (Position(start_position(i)), Velocity(START_VELOCITY))));
        Some(Box::new(world))
    }
}

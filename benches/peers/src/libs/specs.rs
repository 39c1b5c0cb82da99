//! specs: `VecStorage` for every component, entities created and components inserted through
//! storages fetched once (specs has no batch spawn), `join().for_each`, `par_join` (heavy_compute),
//! a `Dispatcher` of three systems (rayon), insert/remove through one `WriteStorage`;
//! serialization is plain serde of a join (saveload would add marker components to the workload).

use std::any::Any;

use specs::prelude::*;

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE,
    Workload as Kind, fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!();

macro_rules! vec_storage {
    ($($t:ty),*) => { $( impl Component for $t { type Storage = VecStorage<Self>; } )* };
}
impl Component for Tag {
    type Storage = NullStorage<Self>;
}
vec_storage!(Transform, Position, Rotation, Velocity, sched::A, sched::B, sched::C, sched::D, sched::E);
vec_storage!(
    frag::A,
    frag::B,
    frag::C,
    frag::D,
    frag::E,
    frag::F,
    frag::G,
    frag::H,
    frag::I,
    frag::J,
    frag::K,
    frag::L,
    frag::M,
    frag::N,
    frag::O,
    frag::P,
    frag::Q,
    frag::R,
    frag::S,
    frag::T,
    frag::U,
    frag::V,
    frag::W,
    frag::X,
    frag::Y,
    frag::Z,
    frag::Data
);

/// specs under test.
pub struct Specs;

fn four_world() -> World {
    let mut world = World::new();
    world.register::<Transform>();
    world.register::<Position>();
    world.register::<Rotation>();
    world.register::<Velocity>();
    world
}

/// Creates one entity per row, fetching the entity allocator and the storages once.
fn spawn_rows(world: &mut World, rows: impl Iterator<Item = Row>) {
    let (entities, mut ts, mut ps, mut rs, mut vs) = world.system_data::<(
        Entities,
        WriteStorage<Transform>,
        WriteStorage<Position>,
        WriteStorage<Rotation>,
        WriteStorage<Velocity>,
    )>();
    for (t, p, r, v) in rows {
        let e = entities.create();
        ts.insert(e, t).expect("fresh entity");
        ps.insert(e, p).expect("fresh entity");
        rs.insert(e, r).expect("fresh entity");
        vs.insert(e, v).expect("fresh entity");
    }
}

/// Creates `n` entities holding an `X` and a `Y`.
fn spawn_pairs<X: Component, Y: Component>(
    world: &mut World,
    n: usize,
    mut x: impl FnMut() -> X,
    mut y: impl FnMut() -> Y,
) {
    let (entities, mut xs, mut ys) = world.system_data::<(Entities, WriteStorage<X>, WriteStorage<Y>)>();
    for _ in 0..n {
        let e = entities.create();
        xs.insert(e, x()).expect("fresh entity");
        ys.insert(e, y()).expect("fresh entity");
    }
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = World::new();
    world.register::<Position>();
    world.register::<Velocity>();
    world.register::<Tag>();
    {
        let (entities, mut ps, mut vs, mut ts) =
            world
                .system_data::<(Entities, WriteStorage<Position>, WriteStorage<Velocity>, WriteStorage<Tag>)>(
                );
        for i in 0..N_FILTER {
            let e = entities.create();
            ps.insert(e, Position(start_position(i))).expect("fresh entity");
            vs.insert(e, Velocity(START_VELOCITY)).expect("fresh entity");
            if tagged(i) {
                ts.insert(e, Tag).expect("fresh entity");
            }
        }
    }
    world
}

struct Ab;
impl<'a> System<'a> for Ab {
    type SystemData = (WriteStorage<'a, sched::A>, WriteStorage<'a, sched::B>);
    fn run(&mut self, (mut a, mut b): Self::SystemData) {
        (&mut a, &mut b).join().for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
    }
}
struct Cd;
impl<'a> System<'a> for Cd {
    type SystemData = (WriteStorage<'a, sched::C>, WriteStorage<'a, sched::D>);
    fn run(&mut self, (mut c, mut d): Self::SystemData) {
        (&mut c, &mut d).join().for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
    }
}
struct Ce;
impl<'a> System<'a> for Ce {
    type SystemData = (WriteStorage<'a, sched::C>, WriteStorage<'a, sched::E>);
    fn run(&mut self, (mut c, mut e): Self::SystemData) {
        (&mut c, &mut e).join().for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
    }
}

impl Library for Specs {
    fn name(&self) -> &'static str {
        "specs"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("specs")
    }

    fn notes(&self) -> &'static str {
        "`VecStorage`; `Entities::create` + `WriteStorage::insert` with storages fetched once (no batch \
         spawn); `join().for_each`, `par_join` (heavy_compute), a `Dispatcher` of three systems, insert/remove \
         through one `WriteStorage`; serialize: a join into a `Vec`, serde, inserts (saveload needs markers)"
    }

    fn bench(&self, workload: Kind) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Kind::ChangeDetect => return None,
            Kind::SimpleInsert => fresh(four_world, |w| spawn_rows(w, (0..N_SIMPLE).map(row))),
            Kind::SimpleIter => {
                let mut world = four_world();
                spawn_rows(&mut world, (0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    let (mut p, v) = w.system_data::<(WriteStorage<Position>, ReadStorage<Velocity>)>();
                    (&mut p, &v).join().for_each(|(p, v)| p.0 += v.0);
                })
            }
            Kind::SimpleIterFor => {
                let mut world = four_world();
                spawn_rows(&mut world, (0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    let (mut p, v) = w.system_data::<(WriteStorage<Position>, ReadStorage<Velocity>)>();
                    for (p, v) in (&mut p, &v).join() {
                        p.0 += v.0;
                    }
                })
            }
            Kind::FilterIter => repeat(tagged_world(), |w| {
                let (mut p, v, t) =
                    w.system_data::<(WriteStorage<Position>, ReadStorage<Velocity>, ReadStorage<Tag>)>();
                (&mut p, &v, &t).join().for_each(|(p, v, _)| p.0 += v.0);
            }),
            Kind::OptionIter => repeat(tagged_world(), |w| {
                let (mut p, v, t) =
                    w.system_data::<(WriteStorage<Position>, ReadStorage<Velocity>, ReadStorage<Tag>)>();
                (&mut p, &v, t.maybe())
                    .join()
                    .for_each(|(p, v, t)| if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 });
            }),
            Kind::FragIter => {
                let mut world = World::new();
                world.register::<frag::Data>();
                macro_rules! spawn {
                    ($($t:ident)*) => { $(
                        world.register::<frag::$t>();
                        spawn_pairs(&mut world, N_FRAG, || frag::$t(0.0), || frag::Data(1.0));
                    )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                repeat(world, |w| {
                    let mut d = w.write_storage::<frag::Data>();
                    (&mut d).join().for_each(|d| d.0 *= 2.0);
                })
            }
            Kind::HeavyCompute => {
                let mut world = four_world();
                spawn_rows(&mut world, (0..N_HEAVY).map(row));
                repeat(world, |w| {
                    let (mut p, mut t) = w.system_data::<(WriteStorage<Position>, WriteStorage<Transform>)>();
                    (&mut p, &mut t).par_join().for_each(|(p, t)| heavy_step(&mut t.0, &mut p.0));
                })
            }
            Kind::Schedule => {
                use sched::{A, B, C, D, E};
                let mut world = World::new();
                let mut dispatcher = DispatcherBuilder::new()
                    .with(Ab, "ab", &[])
                    .with(Cd, "cd", &[])
                    .with(Ce, "ce", &[])
                    .build();
                dispatcher.setup(&mut world);
                {
                    let (entities, mut a, mut b, mut c, mut d, mut e) = world.system_data::<(
                        Entities,
                        WriteStorage<A>,
                        WriteStorage<B>,
                        WriteStorage<C>,
                        WriteStorage<D>,
                        WriteStorage<E>,
                    )>();
                    for kind in 0..4 {
                        for _ in 0..N_SCHEDULE {
                            let id = entities.create();
                            a.insert(id, A(0.0)).expect("fresh");
                            b.insert(id, B(1.0)).expect("fresh");
                            if kind >= 1 {
                                c.insert(id, C(2.0)).expect("fresh");
                            }
                            if kind == 2 {
                                d.insert(id, D(3.0)).expect("fresh");
                            }
                            if kind == 3 {
                                e.insert(id, E(4.0)).expect("fresh");
                            }
                        }
                    }
                }
                repeat((world, dispatcher), |(w, d)| d.dispatch(w))
            }
            Kind::AddRemove => {
                let mut world = World::new();
                world.register::<sched::A>();
                world.register::<sched::B>();
                let entities: Vec<Entity> = {
                    let (all, mut a) = world.system_data::<(Entities, WriteStorage<sched::A>)>();
                    (0..N_ADD_REMOVE)
                        .map(|_| {
                            let e = all.create();
                            a.insert(e, sched::A(0.0)).expect("fresh");
                            e
                        })
                        .collect()
                };
                repeat((world, entities), |(w, entities)| {
                    let mut b = w.write_storage::<sched::B>();
                    for &e in entities.iter() {
                        b.insert(e, sched::B(0.0)).expect("live entity");
                    }
                    for &e in entities.iter() {
                        b.remove(e);
                    }
                })
            }
            Kind::SerializeBinary | Kind::SerializeText => {
                let text = workload == Kind::SerializeText;
                let mut world = four_world();
                spawn_rows(&mut world, (0..N_SERIALIZE).map(row));
                keep(world, move |w| {
                    let rows: Vec<Row> = {
                        let (t, p, r, v) = w.system_data::<(
                            ReadStorage<Transform>,
                            ReadStorage<Position>,
                            ReadStorage<Rotation>,
                            ReadStorage<Velocity>,
                        )>();
                        (&t, &p, &r, &v).join().map(|(t, p, r, v)| (*t, *p, *r, *v)).collect()
                    };
                    let back: Vec<Row> = serde_rows::round_trip(&rows, text);
                    let mut out = four_world();
                    spawn_rows(&mut out, back.into_iter());
                    out
                })
            }
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let mut world = World::new();
        world.register::<Position>();
        world.register::<Velocity>();
        let mut i = 0;
        spawn_pairs(
            &mut world,
            n,
            || {
                i += 1;
                Position(start_position(i))
            },
            || Velocity(START_VELOCITY),
        );
        Some(Box::new(world))
    }
}

//! legion: `extend` from struct-of-arrays vectors (`into_soa`), prepared queries with
//! `for_each_mut`, `par_for_each_mut` (heavy_compute), a `Schedule` of three `#[system(for_each)]`
//! systems (rayon), `Entry::add_component`/`remove_component`, legion's own `Registry`
//! serialization for postcard (entity ids included, as legion writes them) and query rows for RON.

use std::any::Any;

use legion::serialize::Canon;
use legion::storage::IntoSoa;
use legion::{IntoQuery, Read, Registry, Resources, Schedule, TryRead, World, Write, any, component};
use serde::de::DeserializeSeed;

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE, Workload,
    fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!();

/// legion under test.
pub struct Legion;

#[legion::system(for_each)]
fn ab(a: &mut sched::A, b: &mut sched::B) {
    std::mem::swap(&mut a.0, &mut b.0);
}
#[legion::system(for_each)]
fn cd(c: &mut sched::C, d: &mut sched::D) {
    std::mem::swap(&mut c.0, &mut d.0);
}
#[legion::system(for_each)]
fn ce(c: &mut sched::C, e: &mut sched::E) {
    std::mem::swap(&mut c.0, &mut e.0);
}

/// Spawns rows `0..n` through legion's struct-of-arrays path (the vectors are built in the timed
/// region, as every library builds its input there).
fn spawn_rows(world: &mut World, n: usize) {
    let (mut ts, mut ps, mut rs, mut vs) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for (t, p, r, v) in (0..n).map(row) {
        ts.push(t);
        ps.push(p);
        rs.push(r);
        vs.push(v);
    }
    world.extend((ts, ps, rs, vs).into_soa());
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = World::default();
    let entities =
        world.extend((0..N_FILTER).map(|i| (Position(start_position(i)), Velocity(START_VELOCITY)))).to_vec();
    for (i, &e) in entities.iter().enumerate() {
        if tagged(i) {
            world.entry(e).expect("live entity").add_component(Tag);
        }
    }
    world
}

/// The registry's component keys. An enum rather than legion's usual `u8`: legion reads keys with
/// `deserialize_identifier`, which RON 0.10 answers only for identifiers, not for numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
enum Key {
    Transform,
    Position,
    Rotation,
    Velocity,
}

fn registry() -> Registry<Key> {
    let mut registry = Registry::default();
    registry.register::<Transform>(Key::Transform);
    registry.register::<Position>(Key::Position);
    registry.register::<Rotation>(Key::Rotation);
    registry.register::<Velocity>(Key::Velocity);
    registry
}

impl Library for Legion {
    fn name(&self) -> &'static str {
        "legion"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("legion")
    }

    fn notes(&self) -> &'static str {
        "`extend` of `into_soa` vectors, prepared queries with `for_each_mut`, `par_for_each_mut` \
         (heavy_compute), a `Schedule` of `#[system(for_each)]` systems, `Entry::add_component`/\
         `remove_component`; serialize_binary: legion's `Registry` serialization with `Canon` entity ids; \
         serialize_text: query rows into a `Vec`, serde, `extend` (legion's own format does not read back \
         under RON 0.10: `ExpectedIdentifier` at the first component key)"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => return None,
            Workload::SimpleInsert => fresh(World::default, |w| spawn_rows(w, N_SIMPLE)),
            Workload::SimpleIter => {
                let mut world = World::default();
                spawn_rows(&mut world, N_SIMPLE);
                let query = <(Write<Position>, Read<Velocity>)>::query();
                repeat((world, query), |(w, q)| q.for_each_mut(w, |(p, v)| p.0 += v.0))
            }
            Workload::SimpleIterFor => {
                let mut world = World::default();
                spawn_rows(&mut world, N_SIMPLE);
                let query = <(Write<Position>, Read<Velocity>)>::query();
                repeat((world, query), |(w, q)| {
                    for (p, v) in q.iter_mut(w) {
                        p.0 += v.0;
                    }
                })
            }
            Workload::FilterIter => {
                let query = <(Write<Position>, Read<Velocity>)>::query().filter(component::<Tag>());
                repeat((tagged_world(), query), |(w, q)| q.for_each_mut(w, |(p, v)| p.0 += v.0))
            }
            Workload::OptionIter => {
                let query = <(Write<Position>, Read<Velocity>, TryRead<Tag>)>::query();
                repeat((tagged_world(), query), |(w, q)| {
                    q.for_each_mut(w, |(p, v, t)| if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 })
                })
            }
            Workload::FragIter => {
                let mut world = World::default();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( world.extend((0..N_FRAG).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                let query = <Write<frag::Data>>::query();
                repeat((world, query), |(w, q)| q.for_each_mut(w, |d| d.0 *= 2.0))
            }
            Workload::HeavyCompute => {
                let mut world = World::default();
                spawn_rows(&mut world, N_HEAVY);
                let query = <(Write<Position>, Write<Transform>)>::query();
                repeat((world, query), |(w, q)| {
                    q.par_for_each_mut(w, |(p, t)| heavy_step(&mut t.0, &mut p.0))
                })
            }
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                let mut world = World::default();
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
                let schedule = Schedule::builder()
                    .add_system(ab_system())
                    .add_system(cd_system())
                    .add_system(ce_system())
                    .build();
                repeat((world, schedule, Resources::default()), |(w, s, r)| s.execute(w, r))
            }
            Workload::AddRemove => {
                let mut world = World::default();
                let entities = world.extend((0..N_ADD_REMOVE).map(|_| (sched::A(0.0),))).to_vec();
                repeat((world, entities), |(w, entities)| {
                    for &e in entities.iter() {
                        w.entry(e).expect("live entity").add_component(sched::B(0.0));
                    }
                    for &e in entities.iter() {
                        w.entry(e).expect("live entity").remove_component::<sched::B>();
                    }
                })
            }
            Workload::SerializeBinary => {
                let mut world = World::default();
                spawn_rows(&mut world, N_SERIALIZE);
                keep((world, registry(), Canon::default()), |(w, registry, canon)| {
                    let encoded = postcard::to_allocvec(&w.as_serializable(any(), &*registry, &*canon))
                        .expect("postcard serialization");
                    let mut de = postcard::Deserializer::from_bytes(&encoded);
                    registry.as_deserialize(&*canon).deserialize(&mut de).expect("postcard deserialization")
                })
            }
            Workload::SerializeText => {
                // legion's own human-readable format does not read back under RON 0.10 (it fails with
                // ExpectedIdentifier at the first component key), so text goes through query rows.
                let mut world = World::default();
                spawn_rows(&mut world, N_SERIALIZE);
                let query = <(Read<Transform>, Read<Position>, Read<Rotation>, Read<Velocity>)>::query();
                keep((world, query), |(w, q)| {
                    let rows: Vec<Row> = q.iter(w).map(|(t, p, r, v)| (*t, *p, *r, *v)).collect();
                    let back: Vec<Row> = serde_rows::round_trip(&rows, true);
                    let mut out = World::default();
                    out.extend(back);
                    out
                })
            }
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let mut world = World::default();
        world.extend((0..n).map(|i| (Position(start_position(i)), Velocity(START_VELOCITY))));
        Some(Box::new(world))
    }
}

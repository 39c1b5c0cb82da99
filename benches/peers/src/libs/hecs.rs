//! hecs: `spawn_batch`, `query_mut` iterated with `for_each`, `into_iter_batched(64)` bridged to
//! rayon for heavy_compute (hecs has no parallel iterator of its own), `insert_one`/`remove_one`,
//! and hecs' own column serialization. hecs has no scheduler: its systems are plain functions
//! called in sequence.

use std::any::{Any, TypeId};

use hecs::serialize::column::{DeserializeContext, SerializeContext, deserialize_column, try_serialize};
use hecs::{Archetype, ColumnBatchBuilder, ColumnBatchType, World};
use rayon::iter::{ParallelBridge, ParallelIterator};
use serde::de::SeqAccess;
use serde::ser::SerializeTuple;
use serde::{Deserialize, Serialize};

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_CHANGE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE,
    Profile, Scale, Workload, fresh, keep, repeat,
};

crate::components!();
crate::fillers!();

/// `change_detect`'s component (hecs' `ChangeTracker` compares with a copy: `Clone + PartialEq`).
#[derive(Clone, PartialEq)]
struct Health(f32);

/// hecs under test.
pub struct Hecs;

fn ab(world: &mut World) {
    world
        .query_mut::<(&mut sched::A, &mut sched::B)>()
        .into_iter()
        .for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn cd(world: &mut World) {
    world
        .query_mut::<(&mut sched::C, &mut sched::D)>()
        .into_iter()
        .for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}
fn ce(world: &mut World) {
    world
        .query_mut::<(&mut sched::C, &mut sched::E)>()
        .into_iter()
        .for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = World::new();
    let entities: Vec<_> = world.spawn_batch((0..N_FILTER).map(pos_vel)).collect();
    for (i, &e) in entities.iter().enumerate() {
        if tagged(i) {
            world.insert_one(e, Tag).expect("live entity");
        }
    }
    world
}

fn pos_vel(i: usize) -> (Position, Velocity) {
    (Position(start_position(i)), Velocity(START_VELOCITY))
}

/// The ids hecs' column format writes for our four component types.
#[derive(Clone, Copy, Serialize, Deserialize)]
enum Id {
    Transform,
    Position,
    Rotation,
    Velocity,
}

struct SerContext;

impl SerializeContext for SerContext {
    fn component_count(&self, archetype: &Archetype) -> usize {
        let ours = [
            TypeId::of::<Transform>(),
            TypeId::of::<Position>(),
            TypeId::of::<Rotation>(),
            TypeId::of::<Velocity>(),
        ];
        archetype.component_types().filter(|t| ours.contains(t)).count()
    }

    fn serialize_component_ids<S: SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        hecs::serialize::column::try_serialize_id::<Transform, _, _>(archetype, &Id::Transform, &mut out)?;
        hecs::serialize::column::try_serialize_id::<Position, _, _>(archetype, &Id::Position, &mut out)?;
        hecs::serialize::column::try_serialize_id::<Rotation, _, _>(archetype, &Id::Rotation, &mut out)?;
        hecs::serialize::column::try_serialize_id::<Velocity, _, _>(archetype, &Id::Velocity, &mut out)?;
        out.end()
    }

    fn serialize_components<S: SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize::<Transform, _>(archetype, &mut out)?;
        try_serialize::<Position, _>(archetype, &mut out)?;
        try_serialize::<Rotation, _>(archetype, &mut out)?;
        try_serialize::<Velocity, _>(archetype, &mut out)?;
        out.end()
    }
}

#[derive(Default)]
struct DeContext {
    ids: Vec<Id>,
}

impl DeserializeContext for DeContext {
    fn deserialize_component_ids<'de, A: SeqAccess<'de>>(
        &mut self,
        mut seq: A,
    ) -> Result<ColumnBatchType, A::Error> {
        self.ids.clear();
        let mut batch = ColumnBatchType::new();
        while let Some(id) = seq.next_element::<Id>()? {
            match id {
                Id::Transform => batch.add::<Transform>(),
                Id::Position => batch.add::<Position>(),
                Id::Rotation => batch.add::<Rotation>(),
                Id::Velocity => batch.add::<Velocity>(),
            };
            self.ids.push(id);
        }
        Ok(batch)
    }

    fn deserialize_components<'de, A: SeqAccess<'de>>(
        &mut self,
        count: u32,
        mut seq: A,
        batch: &mut ColumnBatchBuilder,
    ) -> Result<(), A::Error> {
        for &id in &self.ids {
            match id {
                Id::Transform => deserialize_column::<Transform, _>(count, &mut seq, batch)?,
                Id::Position => deserialize_column::<Position, _>(count, &mut seq, batch)?,
                Id::Rotation => deserialize_column::<Rotation, _>(count, &mut seq, batch)?,
                Id::Velocity => deserialize_column::<Velocity, _>(count, &mut seq, batch)?,
            }
        }
        Ok(())
    }
}

/// The world as hecs' column format, for any serde serializer.
struct Columns<'a>(&'a World);

impl Serialize for Columns<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        hecs::serialize::column::serialize(self.0, &mut SerContext, serializer)
    }
}

fn round_trip(world: &World, text: bool) -> World {
    let mut context = DeContext::default();
    if text {
        let encoded = ron::to_string(&Columns(world)).expect("RON serialization");
        let mut de = ron::Deserializer::from_str(&encoded).expect("RON input");
        hecs::serialize::column::deserialize(&mut context, &mut de).expect("RON deserialization")
    } else {
        let encoded = postcard::to_allocvec(&Columns(world)).expect("postcard serialization");
        let mut de = postcard::Deserializer::from_bytes(&encoded);
        hecs::serialize::column::deserialize(&mut context, &mut de).expect("postcard deserialization")
    }
}

impl Library for Hecs {
    fn name(&self) -> &'static str {
        "hecs"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("hecs")
    }

    fn notes(&self) -> &'static str {
        "`spawn_batch`, `query_mut().into_iter().for_each`, `into_iter_batched(64)` + rayon `par_bridge` \
         (heavy_compute), `insert_one`/`remove_one`, hecs' column serialization; no scheduler: schedule \
         calls the three systems in sequence; the founding profiles' types need no registration in hecs"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => {
                let mut world = World::new();
                let entities: Vec<_> =
                    world.spawn_batch((0..N_CHANGE).map(|i| (Health(i as f32),))).collect();
                let mut tracker = hecs::ChangeTracker::<Health>::new();
                drop(tracker.track(&mut world)); // takes the first copies
                keep((world, tracker, entities, 0usize), |(w, tracker, entities, frame)| {
                    *frame = (*frame + 1) % 100;
                    for &e in entities.iter().skip(*frame).step_by(100) {
                        w.get::<&mut Health>(e).expect("alive").0 += 1.0;
                    }
                    let mut changes = tracker.track(w);
                    let _ = changes.added().count();
                    let changed = changes.changed().count();
                    let _ = changes.removed().count();
                    changed
                })
            }
            Workload::SimpleInsert => fresh(World::new, |w| {
                w.spawn_batch((0..N_SIMPLE).map(row));
            }),
            Workload::SimpleIter => {
                let mut world = World::new();
                world.spawn_batch((0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    w.query_mut::<(&mut Position, &Velocity)>().into_iter().for_each(|(p, v)| p.0 += v.0)
                })
            }
            Workload::SimpleIterFor => {
                let mut world = World::new();
                world.spawn_batch((0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    for (p, v) in w.query_mut::<(&mut Position, &Velocity)>() {
                        p.0 += v.0;
                    }
                })
            }
            Workload::FilterIter => repeat(tagged_world(), |w| {
                w.query_mut::<(&mut Position, &Velocity)>()
                    .with::<&Tag>()
                    .into_iter()
                    .for_each(|(p, v)| p.0 += v.0)
            }),
            Workload::OptionIter => repeat(tagged_world(), |w| {
                w.query_mut::<(&mut Position, &Velocity, Option<&Tag>)>()
                    .into_iter()
                    .for_each(|(p, v, t)| if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 })
            }),
            Workload::FragIter => {
                let mut world = World::new();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( world.spawn_batch((0..N_FRAG).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                repeat(world, |w| w.query_mut::<&mut frag::Data>().into_iter().for_each(|d| d.0 *= 2.0))
            }
            Workload::HeavyCompute => {
                let mut world = World::new();
                world.spawn_batch((0..N_HEAVY).map(row));
                repeat(world, |w| {
                    w.query_mut::<(&mut Position, &mut Transform)>()
                        .into_iter_batched(64)
                        .par_bridge()
                        .for_each(|batch| {
                            for (p, t) in batch {
                                heavy_step(&mut t.0, &mut p.0);
                            }
                        })
                })
            }
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                let mut world = World::new();
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0))));
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0))));
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
                repeat(world, |w| {
                    ab(w);
                    cd(w);
                    ce(w);
                })
            }
            Workload::AddRemove => {
                let mut world = World::new();
                let entities: Vec<_> =
                    world.spawn_batch((0..N_ADD_REMOVE).map(|_| (sched::A(0.0),))).collect();
                repeat((world, entities), |(w, entities)| {
                    for &e in entities.iter() {
                        w.insert_one(e, sched::B(0.0)).expect("live entity");
                    }
                    for &e in entities.iter() {
                        w.remove_one::<sched::B>(e).expect("has B");
                    }
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let text = workload == Workload::SerializeText;
                let mut world = World::new();
                world.spawn_batch((0..N_SERIALIZE).map(row));
                keep(world, move |w| round_trip(w, text))
            }
        })
    }

    fn scale(&self, op: Scale, n: usize, profile: Profile) -> Option<Box<dyn Bench>> {
        Some(match op {
            Scale::Create => fresh(World::new, move |w| {
                w.spawn_batch((0..n).map(pos_vel));
            }),
            Scale::Iterate => {
                let mut world = World::new();
                world.spawn_batch((0..n).map(pos_vel));
                let systems = profile.systems;
                repeat(world, move |w| {
                    w.query_mut::<(&mut Position, &Velocity)>().into_iter().for_each(|(p, v)| p.0 += v.0);
                    for _ in 1..systems {
                        w.query_mut::<&Filler<0>>().into_iter().for_each(|f| {
                            std::hint::black_box(f);
                        });
                    }
                })
            }
            Scale::CreateDestroy => repeat(World::new(), move |w| {
                let entities: Vec<_> = w.spawn_batch((0..n).map(pos_vel)).collect();
                for e in entities {
                    w.despawn(e).expect("live entity");
                }
            }),
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(pos_vel));
        Some(Box::new(world))
    }
}

/// hecs' column-wise batch spawn, as a variant row beside `mosaic (column batch)`.
pub struct HecsColumnBatch;

impl Library for HecsColumnBatch {
    fn name(&self) -> &'static str {
        "hecs (column batch)"
    }

    fn crate_name(&self) -> Option<&'static str> {
        None
    }

    fn notes(&self) -> &'static str {
        "`simple_insert` only: each run builds a `ColumnBatchType` of the four types, fills each column \
         through its `BatchWriter` from the same rows, and spawns it with `spawn_column_batch`"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        (workload == Workload::SimpleInsert).then(|| {
            fresh(World::new, |w| {
                let mut ty = ColumnBatchType::new();
                ty.add::<Transform>().add::<Position>().add::<Rotation>().add::<Velocity>();
                let batch = ty.into_batch(N_SIMPLE as u32);
                macro_rules! fill {
                    ($t:ty, $field:tt) => {{
                        let mut writer = batch.writer::<$t>().expect("column in the batch type");
                        for i in 0..N_SIMPLE {
                            if writer.push(row(i).$field).is_err() {
                                unreachable!("the batch holds N_SIMPLE rows");
                            }
                        }
                    }};
                }
                fill!(Transform, 0);
                fill!(Position, 1);
                fill!(Rotation, 2);
                fill!(Velocity, 3);
                w.spawn_column_batch(batch.build().expect("every column filled"));
            })
        })
    }
}

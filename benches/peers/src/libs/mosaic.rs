//! Mosaic: `World::extend` / `spawn_batch`, `Query::for_each`, `par_for_each`, `Schedule` of
//! function systems; serialization is plain serde of query results, and, as a variant row, Mosaic's
//! own snapshots.

use std::any::Any;

use mosaic::hierarchy::PairRelation;
use mosaic::{
    Changed, ColumnBatch, Entity, Event, ExecutorKind, On, Query, Schedule, SnapshotRegistry, With, World,
};

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, MAX_FILLERS, N_ADD_REMOVE, N_CHANGE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE,
    N_SIMPLE, Profile, Scale, Workload, fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!(#[derive(::mosaic::Component)]);
crate::fillers!(#[derive(::mosaic::Component)]);

/// `change_detect`'s component, tracked from registration.
#[derive(::mosaic::Component)]
#[component(track_changes)]
struct Health(f32);

/// How Mosaic is run: plainly, with an owning group for `simple_iter`, or with the
/// single-threaded executor for `schedule`. Each variant is its own row; the plain one is the
/// figure the ratios use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Default storage and the parallel executor.
    Plain,
    /// `simple_iter` through an owning group of (Position, Velocity) (only that workload).
    Group,
    /// `schedule` on `ExecutorKind::SingleThreaded` (only that workload).
    SingleThreaded,
    /// The serialize workloads through Mosaic's own snapshots (`SnapshotRegistry`), which also
    /// save and restore the entity allocator and each pool's row order.
    Snapshot,
    /// `add_remove` and `simple_insert` in a world that also has a hierarchy, a hook on another
    /// type, an owning group of two other types, an observer of a custom event, a many-to-many
    /// relation and a value index on another type, as real programs do: what those features cost
    /// the structural changes of types that use none of them.
    Observed,
    /// `simple_insert` through a column-wise batch (`ColumnBatch`, `spawn_column_batch`), beside
    /// hecs' `spawn_column_batch` (the `hecs (column batch)` row).
    ColumnBatch,
}

/// A type with an `on_add` hook, in the observed world.
#[derive(::mosaic::Component)]
struct Hooked;
/// The two types of the observed world's owning group.
#[derive(::mosaic::Component)]
struct GroupedA;
#[derive(::mosaic::Component)]
struct GroupedB;
/// The observed world's custom event, with one observer (never triggered by the workloads).
#[derive(Event)]
struct Ping;
/// The observed world's many-to-many relation, with one pair.
#[derive(Clone, Default)]
struct Likes;
impl PairRelation for Likes {}
/// The observed world's indexed type, on one entity.
#[derive(::mosaic::Component, Clone, PartialEq, Eq, Hash)]
struct Team(u32);

/// A world with a hierarchy (one parent and child), an `on_add` hook on `Hooked`, an owning
/// group of (`GroupedA`, `GroupedB`), an observer of `Ping`, a `Likes` pair (parent to child)
/// and a value index of `Team`, each in use by an entity; none of them touches the workloads'
/// types.
fn observed_world() -> World {
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

/// Mosaic under test.
pub struct Mosaic(pub Variant);

fn spawn_four(world: &mut World, n: usize) {
    world.extend((0..n).map(row));
}

fn step(p: &mut Position, v: &Velocity) {
    p.0 += v.0;
}

fn ab(mut q: Query<(&mut sched::A, &mut sched::B)>) {
    q.for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn cd(mut q: Query<(&mut sched::C, &mut sched::D)>) {
    q.for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}
fn ce(mut q: Query<(&mut sched::C, &mut sched::E)>) {
    q.for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
}

fn move_system(mut q: Query<(&mut Position, &Velocity)>) {
    q.for_each(|(p, v)| step(p, v));
}
fn idle_system(q: Query<&Filler<0>>) {
    q.for_each(|f| {
        std::hint::black_box(f);
    });
}

/// A world with `types` filler component types registered.
fn profiled_world(types: usize) -> World {
    let mut world = World::new();
    seq_macro::seq!(N in 0..512 {
        if N < types {
            world.register_component::<Filler<N>>();
        }
    });
    debug_assert!(types <= MAX_FILLERS);
    world
}

fn pos_vel(i: usize) -> (Position, Velocity) {
    (Position(start_position(i)), Velocity(START_VELOCITY))
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = World::new();
    let entities = world.spawn_batch((0..N_FILTER).map(pos_vel));
    world.insert_batch(entities.iter().enumerate().filter(|&(i, _)| tagged(i)).map(|(_, &e)| (e, Tag)));
    world
}

impl Mosaic {
    fn plain(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => {
                let mut world = World::new();
                let entities: Vec<Entity> = (0..N_CHANGE).map(|i| world.spawn(Health(i as f32))).collect();
                world.clear_trackers();
                keep((world, entities, 0usize), |(w, entities, frame)| {
                    *frame = (*frame + 1) % 100;
                    for &e in entities.iter().skip(*frame).step_by(100) {
                        w.get_mut::<Health>(e).expect("alive").0 += 1.0;
                    }
                    let changed = w.query_filtered::<Entity, Changed<Health>>().into_iter().count();
                    w.clear_trackers();
                    changed
                })
            }
            Workload::SimpleInsert => fresh(World::new, |w| spawn_four(w, N_SIMPLE)),
            Workload::SimpleIter => {
                let mut world = World::new();
                spawn_four(&mut world, N_SIMPLE);
                repeat(world, |w| w.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| step(p, v)))
            }
            Workload::SimpleIterFor => {
                let mut world = World::new();
                spawn_four(&mut world, N_SIMPLE);
                repeat(world, |w| {
                    for (p, v) in w.query::<(&mut Position, &Velocity)>() {
                        step(p, v);
                    }
                })
            }
            Workload::FilterIter => repeat(tagged_world(), |w| {
                w.query_filtered::<(&mut Position, &Velocity), With<Tag>>().for_each(|(p, v)| step(p, v))
            }),
            Workload::OptionIter => repeat(tagged_world(), |w| {
                w.query::<(&mut Position, &Velocity, Option<&Tag>)>()
                    .for_each(|(p, v, t)| if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 })
            }),
            Workload::FragIter => {
                let mut world = World::new();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( world.extend((0..N_FRAG).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                repeat(world, |w| w.query::<&mut frag::Data>().for_each(|d| d.0 *= 2.0))
            }
            Workload::HeavyCompute => {
                let mut world = World::new();
                world.extend((0..N_HEAVY).map(row));
                repeat(world, |w| {
                    w.query::<(&mut Position, &mut Transform)>()
                        .par_for_each(|(p, t)| heavy_step(&mut t.0, &mut p.0))
                })
            }
            Workload::Schedule => {
                let mut schedule = Schedule::new();
                if self.0 == Variant::SingleThreaded {
                    schedule.set_executor(ExecutorKind::SingleThreaded);
                }
                schedule.add_system(ab);
                schedule.add_system(cd);
                schedule.add_system(ce);
                let mut world = World::new();
                use sched::{A, B, C, D, E};
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
                world.extend((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
                repeat((world, schedule), |(w, s)| s.run(w))
            }
            Workload::AddRemove => {
                let mut world = World::new();
                let entities = world.spawn_batch((0..N_ADD_REMOVE).map(|_| sched::A(0.0)));
                // The batch forms, as bevy's row uses `insert_batch` and specs' and shipyard's
                // fetch the storage once; the per-entity `insert`/`remove` loop is measured
                // beside it in analysis.md.
                repeat((world, entities), |(w, entities)| {
                    w.insert_batch(entities.iter().map(|&e| (e, sched::B(0.0))));
                    w.remove_batch::<sched::B>(entities.iter().copied());
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let mut world = World::new();
                world.extend((0..N_SERIALIZE).map(row));
                let text = workload == Workload::SerializeText;
                keep(world, move |w| {
                    let rows: Vec<Row> = {
                        let mut rows = Vec::with_capacity(w.len() as usize);
                        w.query::<(&Transform, &Position, &Rotation, &Velocity)>()
                            .for_each(|(t, p, r, v)| rows.push((*t, *p, *r, *v)));
                        rows
                    };
                    let back: Vec<Row> = serde_rows::round_trip(&rows, text);
                    let mut out = World::new();
                    out.extend(back);
                    out
                })
            }
        })
    }
}

impl Library for Mosaic {
    fn name(&self) -> &'static str {
        match self.0 {
            Variant::Plain => "mosaic",
            Variant::Group => "mosaic (group)",
            Variant::SingleThreaded => "mosaic (1 thread)",
            Variant::Snapshot => "mosaic (snapshot)",
            Variant::Observed => "mosaic (observed world)",
            Variant::ColumnBatch => "mosaic (column batch)",
        }
    }

    fn crate_name(&self) -> Option<&'static str> {
        (self.0 == Variant::Plain).then_some("mosaic-ecs")
    }

    fn notes(&self) -> &'static str {
        match self.0 {
            Variant::Plain => {
                "`World::extend` (batch spawn), `Query::for_each`, a `for` loop over the query (simple_iter_for), \
                 `With<Tag>` / `Option<&Tag>` filters, `par_for_each` (heavy_compute), `Schedule` \
                 with the parallel executor, `insert_batch` then `remove_batch` (add_remove); serialize: query results copied \
                 into a `Vec` of rows, serde, `extend` into a new world (its snapshots are the `mosaic (snapshot)` row)"
            }
            Variant::Group => {
                "`simple_iter` only, through an owning group of (Position, Velocity) made before spawning"
            }
            Variant::SingleThreaded => "`schedule` only, on `ExecutorKind::SingleThreaded`",
            Variant::Snapshot => {
                "serialize workloads only, through `SnapshotRegistry::save_binary`/`save_ron` and \
                 `load_binary`/`load_ron` into a new world (entity allocator and pool row order included)"
            }
            Variant::Observed => {
                "`add_remove` and `simple_insert` only, as the plain row, in a world that also has a \
                 hierarchy, an `on_add` hook on another type, an owning group of two other types, an \
                 observer of a custom event, a many-to-many relation and a value index on another type"
            }
            Variant::ColumnBatch => {
                "`simple_insert` only: each run collects one `Vec` per component from the same rows, a column \
                 at a time, and spawns them with `ColumnBatch` / `spawn_column_batch`, as the \
                 `hecs (column batch)` row fills hecs' writers"
            }
        }
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        match (self.0, workload) {
            (Variant::Plain, _) => self.plain(workload),
            (Variant::Group, Workload::SimpleIter) => {
                let mut world = World::new();
                world.group::<(Position, Velocity)>();
                spawn_four(&mut world, N_SIMPLE);
                Some(repeat(world, |w| w.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| step(p, v))))
            }
            (Variant::SingleThreaded, Workload::Schedule) => self.plain(workload),
            (Variant::ColumnBatch, Workload::SimpleInsert) => Some(fresh(World::new, |w| {
                // One column at a time, as the hecs row fills one writer at a time.
                let batch = ColumnBatch::new()
                    .with((0..N_SIMPLE).map(|i| row(i).0).collect())
                    .and_then(|b| b.with((0..N_SIMPLE).map(|i| row(i).1).collect()))
                    .and_then(|b| b.with((0..N_SIMPLE).map(|i| row(i).2).collect()))
                    .and_then(|b| b.with((0..N_SIMPLE).map(|i| row(i).3).collect()))
                    .expect("columns of one length");
                w.spawn_column_batch(batch).expect("entities left");
            })),
            (Variant::Observed, Workload::SimpleInsert) => {
                Some(fresh(observed_world, |w| spawn_four(w, N_SIMPLE)))
            }
            (Variant::Observed, Workload::AddRemove) => {
                let mut world = observed_world();
                let entities = world.spawn_batch((0..N_ADD_REMOVE).map(|_| sched::A(0.0)));
                Some(repeat((world, entities), |(w, entities)| {
                    w.insert_batch(entities.iter().map(|&e| (e, sched::B(0.0))));
                    w.remove_batch::<sched::B>(entities.iter().copied());
                }))
            }
            (Variant::Snapshot, Workload::SerializeBinary | Workload::SerializeText) => {
                let text = workload == Workload::SerializeText;
                let mut world = World::new();
                world.extend((0..N_SERIALIZE).map(row));
                let mut registry = SnapshotRegistry::new();
                registry
                    .register::<Transform>("Transform")
                    .register::<Position>("Position")
                    .register::<Rotation>("Rotation")
                    .register::<Velocity>("Velocity");
                Some(keep((world, registry), move |(w, registry)| {
                    let mut out = World::new();
                    if text {
                        let saved = registry.save_ron(w).expect("snapshot save");
                        registry.load_ron(&mut out, &saved).expect("snapshot load");
                    } else {
                        let saved = registry.save_binary(w).expect("snapshot save");
                        registry.load_binary(&mut out, &saved).expect("snapshot load");
                    }
                    out
                }))
            }
            _ => None,
        }
    }

    fn scale(&self, op: Scale, n: usize, profile: Profile) -> Option<Box<dyn Bench>> {
        if self.0 != Variant::Plain {
            return None;
        }
        let types = profile.types;
        Some(match op {
            Scale::Create => fresh(move || profiled_world(types), move |w| w.extend((0..n).map(pos_vel))),
            Scale::Iterate => {
                let mut world = profiled_world(types);
                world.extend((0..n).map(pos_vel));
                let mut schedule = Schedule::new();
                schedule.add_system(move_system);
                for i in 1..profile.systems {
                    schedule.add_system(idle_system).named(format!("idle_system {i}"));
                }
                repeat((world, schedule), |(w, s)| s.run(w))
            }
            Scale::CreateDestroy => repeat(profiled_world(types), move |w| {
                let entities = w.spawn_batch((0..n).map(pos_vel));
                for e in entities {
                    w.despawn(e);
                }
            }),
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        if self.0 != Variant::Plain {
            return None;
        }
        let mut world = World::new();
        world.extend((0..n).map(pos_vel));
        Some(Box::new(world))
    }
}

/// For `cachegrind`: the founding `iterate` workload under profile A, alone, `frames` times over
/// `n` entities. Returns a checksum so the work cannot be optimised away.
pub fn iterate_only(n: usize, frames: usize) -> f32 {
    let profile = crate::library::PROFILES[0];
    let mut world = profiled_world(profile.types);
    world.extend((0..n).map(pos_vel));
    let mut schedule = Schedule::new();
    schedule.add_system(move_system);
    for i in 1..profile.systems {
        schedule.add_system(idle_system).named(format!("idle_system {i}"));
    }
    for _ in 0..frames {
        schedule.run(&mut world);
    }
    let mut sum = 0.0;
    world.query::<&Position>().for_each(|p| sum += p.0.x);
    sum
}

//! bevy_ecs: `spawn_batch`, cached `QueryState`s iterated with `for_each`, `par_iter_mut` on the
//! compute task pool, `Schedule` on the multi-threaded executor, `insert_batch` then per-entity
//! `remove`; serialization is plain serde of query results (scenes live outside bevy_ecs).

use std::any::Any;

use bevy_ecs::prelude::{Changed, Entity, Query, Schedule, With, World};
use bevy_tasks::{ComputeTaskPool, TaskPool};

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_CHANGE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE,
    Profile, Scale, Workload, fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!(#[derive(::bevy_ecs::component::Component)]);
crate::fillers!(#[derive(::bevy_ecs::component::Component)]);

/// `change_detect`'s component.
#[derive(::bevy_ecs::component::Component)]
struct Health(f32);

/// bevy_ecs under test.
pub struct Bevy;

/// Starts bevy's compute task pool (one thread per core), which `par_iter_mut` and the
/// multi-threaded executor use.
fn task_pool() {
    ComputeTaskPool::get_or_init(TaskPool::default);
}

fn ab(mut q: Query<(&mut sched::A, &mut sched::B)>) {
    q.iter_mut().for_each(|(mut a, mut b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn cd(mut q: Query<(&mut sched::C, &mut sched::D)>) {
    q.iter_mut().for_each(|(mut c, mut d)| std::mem::swap(&mut c.0, &mut d.0));
}
fn ce(mut q: Query<(&mut sched::C, &mut sched::E)>) {
    q.iter_mut().for_each(|(mut c, mut e)| std::mem::swap(&mut c.0, &mut e.0));
}

fn move_system(mut q: Query<(&mut Position, &Velocity)>) {
    q.iter_mut().for_each(|(mut p, v)| p.0 += v.0);
}
fn idle_system(q: Query<&Filler<0>>) {
    q.iter().for_each(|f| {
        std::hint::black_box(f);
    });
}

fn profiled_world(types: usize) -> World {
    let mut world = World::new();
    seq_macro::seq!(N in 0..512 {
        if N < types {
            world.register_component::<Filler<N>>();
        }
    });
    world
}

fn pos_vel(i: usize) -> (Position, Velocity) {
    (Position(start_position(i)), Velocity(START_VELOCITY))
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = World::new();
    let entities: Vec<_> = world.spawn_batch((0..N_FILTER).map(pos_vel)).collect();
    for (i, &e) in entities.iter().enumerate() {
        if tagged(i) {
            world.entity_mut(e).insert(Tag);
        }
    }
    world
}

impl Library for Bevy {
    fn name(&self) -> &'static str {
        "bevy"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("bevy_ecs")
    }

    fn notes(&self) -> &'static str {
        "`spawn_batch`, `QueryState::iter_mut().for_each`, `par_iter_mut` (heavy_compute), `Schedule` on \
         the multi-threaded executor, `insert_batch` then `EntityWorldMut::remove` (no batch remove); \
         serialize: query results into a `Vec`, serde, `spawn_batch` (bevy_ecs has no scene format)"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        task_pool();
        Some(match workload {
            Workload::ChangeDetect => {
                let mut world = World::new();
                let entities: Vec<Entity> =
                    world.spawn_batch((0..N_CHANGE).map(|i| Health(i as f32))).collect();
                world.clear_trackers();
                let query = world.query_filtered::<Entity, Changed<Health>>();
                keep((world, query, entities, 0usize), |(w, q, entities, frame)| {
                    *frame = (*frame + 1) % 100;
                    for &e in entities.iter().skip(*frame).step_by(100) {
                        w.get_mut::<Health>(e).expect("alive").0 += 1.0;
                    }
                    let changed = q.iter(w).count();
                    w.clear_trackers();
                    changed
                })
            }
            Workload::SimpleInsert => fresh(World::new, |w| {
                w.spawn_batch((0..N_SIMPLE).map(row));
            }),
            Workload::SimpleIter => {
                let mut world = World::new();
                world.spawn_batch((0..N_SIMPLE).map(row));
                let query = world.query::<(&mut Position, &Velocity)>();
                repeat((world, query), |(w, q)| q.iter_mut(w).for_each(|(mut p, v)| p.0 += v.0))
            }
            Workload::SimpleIterFor => {
                let mut world = World::new();
                world.spawn_batch((0..N_SIMPLE).map(row));
                let query = world.query::<(&mut Position, &Velocity)>();
                repeat((world, query), |(w, q)| {
                    for (mut p, v) in q.iter_mut(w) {
                        p.0 += v.0;
                    }
                })
            }
            Workload::FilterIter => {
                let mut world = tagged_world();
                let query = world.query_filtered::<(&mut Position, &Velocity), With<Tag>>();
                repeat((world, query), |(w, q)| q.iter_mut(w).for_each(|(mut p, v)| p.0 += v.0))
            }
            Workload::OptionIter => {
                let mut world = tagged_world();
                let query = world.query::<(&mut Position, &Velocity, Option<&Tag>)>();
                repeat((world, query), |(w, q)| {
                    q.iter_mut(w).for_each(|(mut p, v, t)| if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 })
                })
            }
            Workload::FragIter => {
                let mut world = World::new();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( world.spawn_batch((0..N_FRAG).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                let query = world.query::<&mut frag::Data>();
                repeat((world, query), |(w, q)| q.iter_mut(w).for_each(|mut d| d.0 *= 2.0))
            }
            Workload::HeavyCompute => {
                let mut world = World::new();
                world.spawn_batch((0..N_HEAVY).map(row));
                let query = world.query::<(&mut Position, &mut Transform)>();
                repeat((world, query), |(w, q)| {
                    q.par_iter_mut(w).for_each(|(mut p, mut t)| heavy_step(&mut t.0, &mut p.0))
                })
            }
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                let mut world = World::new();
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0))));
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0))));
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
                world.spawn_batch((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
                let mut schedule = Schedule::default();
                schedule.add_systems((ab, cd, ce));
                repeat((world, schedule), |(w, s)| s.run(w))
            }
            Workload::AddRemove => {
                let mut world = World::new();
                let entities: Vec<_> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| sched::A(0.0))).collect();
                repeat((world, entities), |(w, entities)| {
                    w.insert_batch(entities.iter().map(|&e| (e, sched::B(0.0))));
                    for &e in entities.iter() {
                        w.entity_mut(e).remove::<sched::B>();
                    }
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let text = workload == Workload::SerializeText;
                let mut world = World::new();
                world.spawn_batch((0..N_SERIALIZE).map(row));
                let query = world.query::<(&Transform, &Position, &Rotation, &Velocity)>();
                keep((world, query), move |(w, q)| {
                    let rows: Vec<Row> = q.iter(w).map(|(t, p, r, v)| (*t, *p, *r, *v)).collect();
                    let back: Vec<Row> = serde_rows::round_trip(&rows, text);
                    let mut out = World::new();
                    out.spawn_batch(back);
                    out
                })
            }
        })
    }

    fn scale(&self, op: Scale, n: usize, profile: Profile) -> Option<Box<dyn Bench>> {
        task_pool();
        let types = profile.types;
        Some(match op {
            Scale::Create => fresh(
                move || profiled_world(types),
                move |w| {
                    w.spawn_batch((0..n).map(pos_vel));
                },
            ),
            Scale::Iterate => {
                let mut world = profiled_world(types);
                world.spawn_batch((0..n).map(pos_vel));
                let mut schedule = Schedule::default();
                schedule.add_systems(move_system);
                for _ in 1..profile.systems {
                    schedule.add_systems(idle_system);
                }
                repeat((world, schedule), |(w, s)| s.run(w))
            }
            Scale::CreateDestroy => repeat(profiled_world(types), move |w| {
                let entities: Vec<_> = w.spawn_batch((0..n).map(pos_vel)).collect();
                for e in entities {
                    w.despawn(e);
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

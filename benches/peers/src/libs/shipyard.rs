//! shipyard: `bulk_add_entity`, views iterated with `for_each` inside one `World::run`, `par_iter`
//! (heavy_compute), a `Workload` of three systems (rayon), `add_component`/`delete` through views
//! borrowed once; serialization is plain serde of view iteration.

use std::any::Any;

use rayon::iter::ParallelIterator;
use shipyard::{Delete, EntitiesView, Get, IntoIter, View, ViewMut, Workload as ShipyardWorkload, World};

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_CHANGE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE,
    Workload, fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!(#[derive(::shipyard::Component)]);

/// `change_detect`'s component, with modification tracking.
#[derive(::shipyard::Component)]
#[track(Modification)]
struct Health(f32);

/// shipyard under test.
pub struct Shipyard;

fn ab(mut a: ViewMut<sched::A>, mut b: ViewMut<sched::B>) {
    (&mut a, &mut b).iter().for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn cd(mut c: ViewMut<sched::C>, mut d: ViewMut<sched::D>) {
    (&mut c, &mut d).iter().for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}
fn ce(mut c: ViewMut<sched::C>, mut e: ViewMut<sched::E>) {
    (&mut c, &mut e).iter().for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
}

/// `filter_iter`'s world: (Position, Velocity) on every entity, `Tag` on every second one.
fn tagged_world() -> World {
    let mut world = World::new();
    let entities: Vec<_> = world
        .bulk_add_entity((0..N_FILTER).map(|i| (Position(start_position(i)), Velocity(START_VELOCITY))))
        .collect();
    for (i, &e) in entities.iter().enumerate() {
        if tagged(i) {
            world.add_component(e, Tag);
        }
    }
    world
}

impl Library for Shipyard {
    fn name(&self) -> &'static str {
        "shipyard"
    }

    fn crate_name(&self) -> Option<&'static str> {
        Some("shipyard")
    }

    fn notes(&self) -> &'static str {
        "`bulk_add_entity`, `(&mut ViewMut, &View).iter().for_each` in one `World::run`, `par_iter` \
         (heavy_compute), a `Workload` of three systems, `EntitiesView::add_component` and `ViewMut::delete`; \
         serialize: view iteration into a `Vec`, serde, `bulk_add_entity`"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => {
                let mut world = World::new();
                let entities: Vec<_> =
                    world.bulk_add_entity((0..N_CHANGE).map(|i| (Health(i as f32),))).collect();
                world.borrow::<ViewMut<Health>>().expect("storage").clear_all_modified();
                keep((world, entities, 0usize), |(w, entities, frame)| {
                    *frame = (*frame + 1) % 100;
                    let mut health = w.borrow::<ViewMut<Health>>().expect("storage");
                    for &e in entities.iter().skip(*frame).step_by(100) {
                        (&mut health).get(e).expect("alive").0 += 1.0;
                    }
                    let changed = health.modified().iter().count();
                    health.clear_all_modified();
                    changed
                })
            }
            Workload::SimpleInsert => fresh(World::new, |w| {
                w.bulk_add_entity((0..N_SIMPLE).map(row));
            }),
            Workload::SimpleIter => {
                let mut world = World::new();
                world.bulk_add_entity((0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    w.run(|mut p: ViewMut<Position>, v: View<Velocity>| {
                        (&mut p, &v).iter().for_each(|(p, v)| p.0 += v.0)
                    })
                })
            }
            Workload::SimpleIterFor => {
                let mut world = World::new();
                world.bulk_add_entity((0..N_SIMPLE).map(row));
                repeat(world, |w| {
                    w.run(|mut p: ViewMut<Position>, v: View<Velocity>| {
                        for (p, v) in (&mut p, &v).iter() {
                            p.0 += v.0;
                        }
                    })
                })
            }
            Workload::FilterIter => repeat(tagged_world(), |w| {
                w.run(|mut p: ViewMut<Position>, v: View<Velocity>, t: View<Tag>| {
                    (&mut p, &v, &t).iter().for_each(|(p, v, _)| p.0 += v.0)
                })
            }),
            Workload::OptionIter => repeat(tagged_world(), |w| {
                w.run(|mut p: ViewMut<Position>, v: View<Velocity>, t: View<Tag>| {
                    (&mut p, &v, t.as_optional())
                        .iter()
                        .for_each(|(p, v, t)| if t.is_some() { p.0 += v.0 } else { p.0 -= v.0 })
                })
            }),
            Workload::FragIter => {
                let mut world = World::new();
                macro_rules! spawn {
                    ($($t:ident)*) => { $( world.bulk_add_entity((0..N_FRAG).map(|_| (frag::$t(0.0), frag::Data(1.0)))); )* };
                }
                spawn!(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z);
                repeat(world, |w| {
                    w.run(|mut d: ViewMut<frag::Data>| (&mut d).iter().for_each(|d| d.0 *= 2.0))
                })
            }
            Workload::HeavyCompute => {
                let mut world = World::new();
                world.bulk_add_entity((0..N_HEAVY).map(row));
                repeat(world, |w| {
                    w.run(|mut p: ViewMut<Position>, mut t: ViewMut<Transform>| {
                        (&mut p, &mut t).par_iter().for_each(|(p, t)| heavy_step(&mut t.0, &mut p.0))
                    })
                })
            }
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                let mut world = World::new();
                world.bulk_add_entity((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0))));
                world.bulk_add_entity((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0))));
                world.bulk_add_entity((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
                world.bulk_add_entity((0..N_SCHEDULE).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
                ShipyardWorkload::new("schedule")
                    .with_system(ab)
                    .with_system(cd)
                    .with_system(ce)
                    .add_to_world(&world)
                    .expect("workload");
                repeat(world, |w| w.run_workload("schedule").expect("run workload"))
            }
            Workload::AddRemove => {
                let mut world = World::new();
                let entities: Vec<_> =
                    world.bulk_add_entity((0..N_ADD_REMOVE).map(|_| (sched::A(0.0),))).collect();
                repeat((world, entities), |(w, entities)| {
                    w.run(|all: EntitiesView, mut b: ViewMut<sched::B>| {
                        for &e in entities.iter() {
                            all.add_component(e, &mut b, sched::B(0.0));
                        }
                    });
                    w.run(|mut b: ViewMut<sched::B>| {
                        for &e in entities.iter() {
                            b.delete(e);
                        }
                    });
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let text = workload == Workload::SerializeText;
                let mut world = World::new();
                world.bulk_add_entity((0..N_SERIALIZE).map(row));
                keep(world, move |w| {
                    let rows: Vec<Row> = w.run(
                        |t: View<Transform>, p: View<Position>, r: View<Rotation>, v: View<Velocity>| {
                            (&t, &p, &r, &v).iter().map(|(t, p, r, v)| (*t, *p, *r, *v)).collect()
                        },
                    );
                    let back: Vec<Row> = serde_rows::round_trip(&rows, text);
                    let mut out = World::new();
                    out.bulk_add_entity(back.into_iter());
                    out
                })
            }
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let mut world = World::new();
        world.bulk_add_entity((0..n).map(|i| (Position(start_position(i)), Velocity(START_VELOCITY))));
        Some(Box::new(world))
    }
}

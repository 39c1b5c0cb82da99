//! The same tests over array-of-structs and struct-of-arrays storage: switching a component's
//! layout is one attribute, and behaviour must not change.

#![allow(
    dead_code,
    reason = "fields are read through derived Clone and the views, which dead-code analysis ignores"
)]

macro_rules! layout_tests {
    ($module:ident, $storage:literal) => {
        mod $module {
            use std::collections::BTreeMap;
            use std::sync::Arc;
            use std::sync::atomic::{AtomicUsize, Ordering};

            use super::{ChunkSlots, VelocityX};
            use mosaic::{CommandBuffer, Component, Entity, View, ViewMut, With, Without, World};

            #[derive(Component, Clone, Debug, PartialEq)]
            #[component(storage = $storage)]
            pub struct Position {
                pub x: f32,
                pub y: f32,
            }

            #[derive(Component, Clone, Debug, PartialEq)]
            #[component(storage = $storage)]
            pub struct Velocity {
                pub x: f32,
                pub y: f32,
            }

            /// A drop-counting field beside a zero-sized and an over-aligned one.
            #[derive(Clone, Debug)]
            struct Counted(Arc<AtomicUsize>);
            impl Drop for Counted {
                fn drop(&mut self) {
                    self.0.fetch_add(1, Ordering::Relaxed);
                }
            }
            impl PartialEq for Counted {
                fn eq(&self, other: &Self) -> bool {
                    Arc::ptr_eq(&self.0, &other.0)
                }
            }
            #[derive(Clone, Copy, Debug, PartialEq)]
            #[repr(align(64))]
            struct Wide(u64);
            #[derive(Clone, Copy, Debug, PartialEq)]
            struct Nothing;

            #[derive(Component, Clone, Debug, PartialEq)]
            #[component(storage = $storage)]
            struct Mixed {
                name: String,
                counted: Counted,
                nothing: Nothing,
                wide: Wide,
            }

            #[derive(Component, Clone, Debug, PartialEq)]
            struct Frozen;

            fn pos(x: f32) -> Position {
                Position { x, y: -x }
            }

            #[test]
            fn insert_get_replace_remove() {
                let mut world = World::new();
                let e = world.spawn(pos(1.0));
                assert_eq!(world.get::<Position>(e).unwrap().read(), pos(1.0));
                let old = world.insert(e, pos(2.0));
                assert_eq!(old, Some(pos(1.0)));
                world.get_mut::<Position>(e).unwrap().write(pos(3.0));
                assert_eq!(world.entity(e).get::<Position>().unwrap().read(), pos(3.0));
                assert_eq!(world.remove::<Position>(e), Some(pos(3.0)));
                assert_eq!(world.remove::<Position>(e), None);
                assert!(world.get::<Position>(e).is_err());
            }

            #[test]
            fn query_updates_through_views() {
                let mut world = World::new();
                let entities =
                    world.spawn_batch((0..100).map(|i| (pos(i as f32), Velocity { x: 1.0, y: 2.0 })));
                world.spawn_batch((0..10).map(|i| pos(i as f32)));
                for (mut p, v) in world.query::<(&mut Position, &Velocity)>() {
                    let (mut value, velocity) = (p.read(), v.read());
                    value.x += velocity.x;
                    value.y += velocity.y;
                    p.write(value);
                }
                for (i, &e) in entities.iter().enumerate() {
                    let i = i as f32;
                    assert_eq!(world.get::<Position>(e).unwrap().read(), Position { x: i + 1.0, y: 2.0 - i });
                }
                assert_eq!(world.query::<&Position>().into_iter().count(), 110);
                assert_eq!(world.query_filtered::<&Position, Without<Velocity>>().into_iter().count(), 10);
                let with_v: Vec<Entity> =
                    world.query_filtered::<Entity, With<Velocity>>().into_iter().collect();
                assert_eq!(with_v.len(), 100);
                let optional = world
                    .query::<(&Position, Option<&Velocity>)>()
                    .into_iter()
                    .filter(|(_, v)| v.is_some())
                    .count();
                assert_eq!(optional, 100);
            }

            #[test]
            fn chunks_cover_every_match_once() {
                let mut world = World::new();
                let entities =
                    world.spawn_batch((0..300).map(|i| (pos(i as f32), Velocity { x: 1.0, y: 0.0 })));
                // Pools filled together line up: one chunk covers them all.
                let mut lens = Vec::new();
                world
                    .query::<(Entity, &Position, &Velocity)>()
                    .for_each_chunk(|(es, _, _)| lens.push(es.len()));
                assert_eq!(lens, [300]);
                // Break the alignment: remove some velocities and re-add a few in another order.
                for &e in entities.iter().step_by(7) {
                    world.remove::<Velocity>(e);
                }
                for &e in entities.iter().step_by(14).rev() {
                    world.insert(e, Velocity { x: 1.0, y: 0.0 });
                }
                world.insert(entities[3], Frozen);
                let mut seen = BTreeMap::new();
                let mut chunks = 0;
                world.query_filtered::<(Entity, &mut Position, &Velocity), Without<Frozen>>().for_each_chunk(
                    |(es, p, v)| {
                        chunks += 1;
                        let mut p = p;
                        for i in 0..es.len() {
                            *seen.entry(es[i]).or_insert(0) += 1;
                            let mut value = p.item(i);
                            value.x += v.x(i);
                            p.set(i, value);
                        }
                    },
                );
                let expected: Vec<Entity> =
                    world.query_filtered::<Entity, (With<Velocity>, Without<Frozen>)>().into_iter().collect();
                assert_eq!(seen.len(), expected.len());
                assert!(seen.values().all(|&n| n == 1));
                assert!(chunks <= expected.len());
                for &e in &expected {
                    let index = entities.iter().position(|&x| x == e).unwrap() as f32;
                    assert_eq!(world.get::<Position>(e).unwrap().read().x, index + 1.0);
                }
            }

            #[test]
            fn every_value_dropped_once() {
                let drops = Arc::new(AtomicUsize::new(0));
                let mixed = |i: u64| Mixed {
                    name: format!("m{i}"),
                    counted: Counted(drops.clone()),
                    nothing: Nothing,
                    wide: Wide(i),
                };
                {
                    let mut world = World::new();
                    // Growth past every small capacity, with alignment checked on the way.
                    let entities: Vec<Entity> = (0..300).map(|i| world.spawn(mixed(i))).collect();
                    for (i, &e) in entities.iter().enumerate() {
                        let value = world.get::<Mixed>(e).unwrap().read();
                        assert_eq!(value.wide, Wide(i as u64));
                        assert_eq!(value.name, format!("m{i}"));
                        drop(value);
                    }
                    let read_clones = drops.load(Ordering::Relaxed);
                    assert_eq!(read_clones, 300, "each clone read out was dropped");
                    world.insert(entities[0], mixed(1000)); // replace: old value returned and dropped
                    assert_eq!(drops.load(Ordering::Relaxed), 301);
                    let taken = world.remove::<Mixed>(entities[1]).unwrap();
                    assert_eq!(taken.wide, Wide(1));
                    drop(taken);
                    assert_eq!(drops.load(Ordering::Relaxed), 302);
                    world.despawn(entities[2]);
                    assert_eq!(drops.load(Ordering::Relaxed), 303);
                    let mut commands = CommandBuffer::new();
                    commands.insert(entities[2], mixed(5)); // dead: skipped, bundle dropped
                    commands.apply(&mut world);
                    assert_eq!(drops.load(Ordering::Relaxed), 304);
                    for (i, &e) in entities.iter().enumerate().skip(3) {
                        let value = world.get::<Mixed>(e).unwrap();
                        let wide = View::read(&value).wide;
                        assert_eq!(wide, Wide(i as u64));
                    }
                    assert_eq!(drops.load(Ordering::Relaxed), 304 + 297);
                }
                // 298 values left in the world when it dropped.
                assert_eq!(drops.load(Ordering::Relaxed), 304 + 297 + 298);
            }

            #[test]
            fn swap_remove_keeps_the_rest_intact() {
                let mut world = World::new();
                let entities = world.spawn_batch((0..64).map(|i| pos(i as f32)));
                for &e in entities.iter().filter(|e| e.index() % 3 == 0) {
                    world.despawn(e);
                }
                for &e in entities.iter().filter(|e| e.index() % 3 != 0) {
                    assert_eq!(world.get::<Position>(e).unwrap().read(), pos(e.index() as f32));
                }
                for pool in world.components().pools() {
                    pool.assert_invariants();
                }
            }
        }
    };
}

layout_tests!(array_of_structs, "aos");
layout_tests!(struct_of_arrays, "soa");

/// The per-layout glue for `chunks_cover_every_match_once`: slices differ by layout (one slice of
/// structs, or one slice per field), so the test reads and writes rows through this.
trait ChunkSlots {
    type Item: Clone;
    fn item(&mut self, i: usize) -> Self::Item;
    fn set(&mut self, i: usize, value: Self::Item);
}
trait VelocityX {
    fn x(&self, i: usize) -> f32;
}

mod glue {
    use super::array_of_structs as aos;
    use super::struct_of_arrays as soa;
    use super::*;

    impl ChunkSlots for &mut [aos::Position] {
        type Item = aos::Position;
        fn item(&mut self, i: usize) -> aos::Position {
            self[i].clone()
        }
        fn set(&mut self, i: usize, value: aos::Position) {
            self[i] = value;
        }
    }
    impl ChunkSlots for soa::PositionSlicesMut<'_> {
        type Item = soa::Position;
        fn item(&mut self, i: usize) -> soa::Position {
            soa::Position { x: self.x[i], y: self.y[i] }
        }
        fn set(&mut self, i: usize, value: soa::Position) {
            self.x[i] = value.x;
            self.y[i] = value.y;
        }
    }
    impl VelocityX for &[aos::Velocity] {
        fn x(&self, i: usize) -> f32 {
            self[i].x
        }
    }
    impl VelocityX for soa::VelocitySlices<'_> {
        fn x(&self, i: usize) -> f32 {
            self.x[i]
        }
    }
}

//! Sorted query iteration (`QueryIter::sort` and its family, bevy's): items in the order of a
//! key read through a second, read-only query data, each item once.

use mosaic::{Changed, Component, Disabled, Entity, With, World};

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Depth(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Layer(u8);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Pos(f32);
#[derive(Component)]
struct Visible;

fn world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = (0..20u32)
        .map(|i| {
            let e = world.spawn((Depth((i * 7) % 20), Pos(i as f32)));
            if i % 3 == 0 {
                world.insert(e, Layer((i % 2) as u8));
            }
            if i % 4 != 0 {
                world.insert(e, Visible);
            }
            e
        })
        .collect();
    (world, entities)
}

#[test]
fn sorts_by_a_key_the_items_do_not_fetch() {
    let (mut world, _) = world();
    let mut expected: Vec<(u32, f32)> =
        world.query::<(&Depth, &Pos)>().into_iter().map(|(d, p)| (d.0, p.0)).collect();
    expected.sort_by_key(|&(d, _)| d);
    let query = world.query_ref::<&Pos>();
    let sorted: Vec<f32> = query.iter().sort::<&Depth>().map(|p| p.0).collect();
    assert_eq!(sorted, expected.iter().map(|&(_, p)| p).collect::<Vec<_>>());
    assert_eq!(query.iter().sort::<&Depth>().len(), 20, "exact size");
    let backwards: Vec<f32> = query.iter().sort_by::<&Depth>(|a, b| b.cmp(a)).map(|p| p.0).collect();
    assert_eq!(backwards, sorted.iter().rev().copied().collect::<Vec<_>>());
}

#[test]
fn a_mutable_walk_in_key_order_writes_each_item_once() {
    let (mut world, _) = world();
    world.track_changes::<Pos>();
    world.clear_trackers();
    let mut order = Vec::new();
    for (entity, pos) in
        world.query_filtered::<(Entity, &mut Pos), With<Visible>>().into_iter().sort::<&Depth>()
    {
        pos.0 += 100.0;
        order.push(entity);
    }
    let depths: Vec<u32> = order.iter().map(|&e| world.get::<Depth>(e).unwrap().0).collect();
    assert!(depths.is_sorted());
    assert_eq!(order.len(), 15);
    let mut changed: Vec<Entity> = world.query_filtered::<Entity, Changed<Pos>>().into_iter().collect();
    changed.sort();
    order.sort();
    assert_eq!(changed, order, "exactly the items handed out are marked");
}

#[test]
fn entities_the_key_refuses_come_last_in_walk_order() {
    let (mut world, entities) = world();
    let walk: Vec<Entity> = world.query::<Entity>().into_iter().collect();
    let query = world.query_ref::<Entity>();
    let sorted: Vec<Entity> = query.iter().sort::<(&Layer, &Depth)>().collect();
    assert_eq!(sorted.len(), entities.len());
    let layered = entities.iter().filter(|&&e| world.contains::<Layer>(e)).count();
    let keys: Vec<(u8, u32)> = sorted[..layered]
        .iter()
        .map(|&e| (world.get::<Layer>(e).unwrap().0, world.get::<Depth>(e).unwrap().0))
        .collect();
    assert!(keys.is_sorted());
    let rest: Vec<Entity> = walk.iter().copied().filter(|&e| !world.contains::<Layer>(e)).collect();
    assert_eq!(&sorted[layered..], rest.as_slice());
}

#[test]
fn every_walk_sorts_the_same_items() {
    let (mut world, entities) = world();
    world.insert(entities[5], Disabled);
    world.track_changes::<Depth>();
    world.clear_trackers();
    world.get_mut::<Depth>(entities[2]).unwrap().0 = 50;
    world.get_mut::<Depth>(entities[9]).unwrap().0 = 40;
    // A change walk.
    let changed: Vec<u32> =
        world.query_filtered::<&Depth, Changed<Depth>>().into_iter().sort::<&Depth>().map(|d| d.0).collect();
    assert_eq!(changed, [40, 50]);
    // Every live entity (no component required), disabled ones skipped.
    let all: Vec<Entity> =
        world.query::<Entity>().into_iter().sort_by_key::<Entity, _>(|e| std::cmp::Reverse(*e)).collect();
    assert_eq!(all.len(), 19);
    assert!(all.windows(2).all(|w| w[0] > w[1]));
    assert!(!all.contains(&entities[5]));
    // Lookups: a filtered walk over a pool not aligned with the key's.
    let visible_layers: Vec<u8> = world
        .query_filtered::<&Layer, With<Visible>>()
        .into_iter()
        .sort_unstable_by_key::<&Depth, _>(|d| d.0)
        .map(|l| l.0)
        .collect();
    assert_eq!(visible_layers.len(), world.query_filtered::<&Layer, With<Visible>>().count());
    // A partly consumed iterator sorts what is left.
    let mut iter = world.query::<&Pos>().into_iter();
    iter.next();
    assert_eq!(iter.sort::<&Depth>().len(), 18);
}

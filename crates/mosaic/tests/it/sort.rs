//! Sorting pools: `sort_by` and `sort_as`, in both layouts.

use mosaic::world::SortError;
use mosaic::{Component, Entity, World};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Depth(i32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "soa")]
struct Pos {
    x: f32,
    y: f32,
}
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag(u32);

/// A deterministic shuffle of 0..n.
fn shuffled(n: u32) -> Vec<u32> {
    let mut state = 0x9e37_79b9_u32;
    let mut values: Vec<u32> = (0..n).collect();
    for i in (1..values.len()).rev() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        values.swap(i, state as usize % (i + 1));
    }
    values
}

#[test]
fn sort_by_orders_iteration() {
    let mut world = World::new();
    let values = shuffled(500);
    let entities: Vec<Entity> =
        values.iter().map(|&v| world.spawn((Depth(v as i32), Pos { x: v as f32, y: 0.0 }))).collect();
    world.sort_by::<Depth>(|a, b| a.0.cmp(&b.0)).unwrap();
    let depths: Vec<i32> = world.query::<&Depth>().into_iter().map(|d| d.0).collect();
    assert_eq!(depths, (0..500).collect::<Vec<_>>());
    // Struct-of-arrays pools sort through their views, descending here.
    world.sort_by::<Pos>(|a, b| b.x.total_cmp(a.x)).unwrap();
    let xs: Vec<f32> = world.query::<&Pos>().into_iter().map(|p| *p.x).collect();
    assert!(xs.windows(2).all(|w| w[0] > w[1]));
    // Values stay with their entities.
    for (&e, &v) in entities.iter().zip(&values) {
        assert_eq!(world.get::<Depth>(e), Ok(&Depth(v as i32)));
        assert_eq!(*world.get::<Pos>(e).unwrap().x, v as f32);
    }
    for pool in world.components().pools() {
        pool.assert_invariants();
    }
}

#[test]
fn sort_as_lines_pools_up() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..300).map(|i| world.spawn(Depth(i))).collect();
    // Tags added in reverse, to a subset: a different order from Depth's.
    for &e in entities.iter().rev().step_by(2) {
        world.insert(e, Tag(e.index()));
    }
    let mut chunks = 0;
    world.query::<(&Depth, &Tag)>().for_each_chunk(|_| chunks += 1);
    assert_eq!(chunks, 150, "unaligned: one-row chunks");
    world.sort_as::<Depth, Tag>().unwrap();
    let mut lens = Vec::new();
    world.query::<(&Depth, &Tag)>().for_each_chunk(|(d, t)| {
        assert!(d.iter().zip(t).all(|(d, t)| d.0 as u32 == t.0));
        lens.push(d.len());
    });
    assert_eq!(lens, [150], "after sort_as the pools line up: one chunk");
}

#[test]
fn sorting_a_grouped_pool_is_refused() {
    let mut world = World::new();
    world.spawn((Depth(1), Tag(1)));
    world.group::<(Depth, Tag)>();
    let error = world.sort_by::<Depth>(|a, b| a.0.cmp(&b.0)).unwrap_err();
    assert!(matches!(error, SortError::OwnedByGroup { .. }));
    assert!(error.to_string().contains("Depth"), "{error}");
    assert!(world.sort_as::<Tag, Depth>().is_err());
    assert!(world.sort_by::<Pos>(|_, _| std::cmp::Ordering::Equal).is_ok(), "other pools still sort");
}

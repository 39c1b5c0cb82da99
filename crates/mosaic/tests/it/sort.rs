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

/// Every pool's index and every group's packing hold.
fn check(world: &World) {
    world.assert_group_invariants();
    for pool in world.components().pools() {
        pool.assert_invariants();
    }
}

#[test]
fn sort_group_by_key_orders_members_and_keeps_pools_aligned() {
    let mut world = World::new();
    let group = world.group::<(Depth, Pos)>();
    let values = shuffled(400);
    let entities: Vec<Entity> = values
        .iter()
        .map(|&v| match v % 4 {
            // Some entities outside the group, in both pools.
            0 => world.spawn(Depth(v as i32)),
            1 => world.spawn(Pos { x: v as f32, y: 0.0 }),
            _ => world.spawn((Depth(v as i32), Pos { x: v as f32, y: -(v as f32) })),
        })
        .collect();
    let members = world.group_len(group);
    assert_eq!(members, 200);
    // Descending by the struct-of-arrays component's field.
    world.sort_group_by_key::<Pos, _>(group, |p| std::cmp::Reverse(*p.x as u32)).unwrap();
    check(&world);
    let mut chunks = Vec::new();
    world.query::<(&Depth, &Pos)>().for_each_chunk(|(d, p)| {
        assert!(d.iter().zip(p.x).all(|(d, &x)| d.0 as f32 == x), "the pools line up row by row");
        chunks.push(d.to_vec());
    });
    assert_eq!(chunks.len(), 1, "one aligned chunk: the group's slices");
    let depths: Vec<i32> = chunks[0].iter().map(|d| d.0).collect();
    assert_eq!(depths.len(), members);
    assert!(depths.windows(2).all(|w| w[0] > w[1]), "{depths:?}");
    for (&e, &v) in entities.iter().zip(&values) {
        if v % 4 != 1 {
            assert_eq!(world.get::<Depth>(e), Ok(&Depth(v as i32)));
        }
        if v % 4 > 0 {
            assert_eq!(*world.get::<Pos>(e).unwrap().x, v as f32);
        }
    }
    // Stable: equal keys keep their order.
    let before: Vec<Entity> = world.query::<(Entity, &Depth, &Pos)>().into_iter().map(|(e, ..)| e).collect();
    world.sort_group_by_key::<Depth, _>(group, |_| 0).unwrap();
    let after: Vec<Entity> = world.query::<(Entity, &Depth, &Pos)>().into_iter().map(|(e, ..)| e).collect();
    assert_eq!(before, after);
}

#[test]
fn sorting_an_outer_group_keeps_the_nested_group_first() {
    let mut world = World::new();
    let outer = world.group::<(Depth, Pos)>();
    let inner = world.group::<(Depth, Pos, Tag)>();
    for v in shuffled(300) {
        let e = world.spawn((Depth(v as i32), Pos { x: v as f32, y: 0.0 }));
        if v % 3 == 0 {
            world.insert(e, Tag(v));
        }
    }
    let (outer_len, inner_len) = (world.group_len(outer), world.group_len(inner));
    assert_eq!((outer_len, inner_len), (300, 100));
    world.sort_group_by_key::<Depth, _>(outer, |d| d.0).unwrap();
    check(&world);
    let depths: Vec<i32> = world.query::<&Depth>().into_iter().map(|d| d.0).collect();
    let (tagged, rest) = depths.split_at(inner_len);
    assert!(tagged.iter().all(|d| d % 3 == 0) && tagged.is_sorted(), "{tagged:?}");
    assert!(rest.iter().all(|d| d % 3 != 0) && rest.is_sorted(), "{rest:?}");
    // The nested group's third pool moved with the other two.
    for (d, t) in world.query::<(&Depth, &Tag)>() {
        assert_eq!(d.0 as u32, t.0);
    }
    // Sorting the nested group keeps the outer one valid.
    world.sort_group_by_key::<Tag, _>(inner, |t| std::cmp::Reverse(t.0)).unwrap();
    check(&world);
    let tags: Vec<u32> = world.query::<&Tag>().into_iter().map(|t| t.0).collect();
    assert!(tags.windows(2).all(|w| w[0] > w[1]));
    assert_eq!(world.group_len(outer), 300);
}

/// A group large enough for the parallel path (keys sorted on the pool, one task per pool) sorts
/// exactly as on one thread: same entity order, values with their entities, groups valid.
#[cfg(feature = "parallel")]
#[test]
fn sorting_a_large_group_on_several_threads_gives_the_one_thread_order() {
    const N: u32 = if cfg!(miri) { 400 } else { 90_000 };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut world = World::new();
            let outer = world.group::<(Depth, Pos)>();
            let inner = world.group::<(Depth, Pos, Tag)>();
            // Few distinct keys, so stability decides most of the order, which must not depend
            // on the threads.
            // Enough rows for the parallel path (32,768; 64 under Miri, which interprets every step).
            for v in shuffled(N) {
                let e = world.spawn((Depth((v % 1000) as i32), Pos { x: v as f32, y: 1.0 }));
                if v % 4 == 0 {
                    world.insert(e, Tag(v));
                }
            }
            world.sort_group_by_key::<Depth, _>(outer, |d| d.0).unwrap();
            check(&world);
            assert_eq!((world.group_len(outer), world.group_len(inner)), (N as usize, N as usize / 4));
            // Entity indices: handles of two worlds never compare equal (each world has a tag).
            world
                .query::<(Entity, &Depth, &Pos)>()
                .into_iter()
                .map(|(e, d, p)| (e.index(), d.0, *p.x))
                .collect::<Vec<_>>()
        })
    };
    let one = run(1);
    let (tagged, rest) = one.split_at(N as usize / 4);
    for part in [tagged, rest] {
        assert!(part.windows(2).all(|w| w[0].1 <= w[1].1), "sorted by key");
    }
    assert!(one.iter().all(|&(_, d, x)| d == (x as u32 % 1000) as i32), "values move with their entities");
    assert!(run(3) == one, "3 threads sort differently");
}

#[test]
fn sorting_a_group_by_a_component_it_does_not_own_is_refused() {
    let mut world = World::new();
    let group = world.group::<(Depth, Pos)>();
    world.spawn((Depth(1), Pos { x: 0.0, y: 0.0 }, Tag(2)));
    let error = world.sort_group_by_key::<Tag, _>(group, |t| t.0).unwrap_err();
    assert!(matches!(error, SortError::NotInGroup { .. }));
    let message = error.to_string();
    assert!(message.contains("Tag") && message.contains("Depth"), "{message}");
    // The refused sort of an owned pool names the way that works.
    assert!(
        world.sort_by::<Depth>(|a, b| a.0.cmp(&b.0)).unwrap_err().to_string().contains("sort_group_by_key")
    );
}

#[test]
fn sorting_a_group_carries_change_ticks_along() {
    let mut world = World::new();
    world.track_changes::<Depth>();
    let group = world.group::<(Depth, Pos)>();
    let entities: Vec<Entity> =
        shuffled(200).into_iter().map(|v| world.spawn((Depth(v as i32), Pos { x: 0.0, y: 0.0 }))).collect();
    world.clear_trackers();
    let mut changed: Vec<Entity> = entities.iter().copied().step_by(7).collect();
    for &e in &changed {
        world.get_mut::<Depth>(e).unwrap().0 += 1000;
    }
    world.sort_group_by_key::<Depth, _>(group, |d| d.0).unwrap();
    check(&world);
    let mut seen: Vec<Entity> =
        world.query_filtered::<Entity, mosaic::Changed<Depth>>().into_iter().collect();
    seen.sort_by_key(|e| e.to_bits());
    changed.sort_by_key(|e| e.to_bits());
    assert_eq!(seen, changed);
    let depths: Vec<i32> = world.query::<&Depth>().into_iter().map(|d| d.0).collect();
    assert!(depths.is_sorted());
}

/// The counting sort gives exactly the comparison sort's order for the same keys (stable: equal
/// keys keep their rows' order), in a nested group, on the parallel path's sizes and with more
/// buckets than rows (where it falls back to the comparison sort); a key out of range moves
/// nothing.
#[test]
fn sort_group_by_bucket_matches_sort_group_by_key() {
    const N: u32 = if cfg!(miri) { 300 } else { 40_000 };
    let build = || {
        let mut world = World::new();
        let outer = world.group::<(Depth, Pos)>();
        world.group::<(Depth, Pos, Tag)>();
        for v in shuffled(N) {
            let e = world.spawn((Depth((v % 97) as i32), Pos { x: v as f32, y: 2.0 }));
            if v % 5 == 0 {
                world.insert(e, Tag(v));
            }
        }
        (world, outer)
    };
    let order = |world: &World| {
        world
            .query_ref::<(Entity, &Depth, &Pos)>()
            .into_iter()
            .map(|(e, d, p)| (e.index(), d.0, *p.x))
            .collect::<Vec<_>>()
    };
    for buckets in [97, 100, 4 * N as usize + 1] {
        let (mut by_key, outer) = build();
        by_key.sort_group_by_key::<Depth, _>(outer, |d| d.0).unwrap();
        let (mut by_bucket, outer) = build();
        by_bucket.sort_group_by_bucket::<Depth>(outer, buckets, |d| d.0 as usize).unwrap();
        check(&by_bucket);
        assert!(order(&by_bucket) == order(&by_key), "{buckets} buckets");
    }
    let (mut world, outer) = build();
    let before = order(&world);
    let error = world.sort_group_by_bucket::<Depth>(outer, 96, |d| d.0 as usize).unwrap_err();
    assert_eq!(error, SortError::KeyOutOfRange { key: 96, buckets: 96 });
    assert!(order(&world) == before, "nothing moved");
}

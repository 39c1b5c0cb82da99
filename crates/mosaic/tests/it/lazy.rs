//! Lazy cleanup: despawn leaves values for a collector; queries never see dead entities.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::world::GroupError;
use mosaic::{Component, Entity, World};

#[derive(Component, Debug)]
#[component(cleanup = "lazy")]
struct Trail(Arc<AtomicUsize>, u32);
impl Drop for Trail {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "soa", cleanup = "lazy")]
struct Spark {
    heat: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Mass(u32);

#[test]
fn despawn_defers_and_queries_skip_the_dead() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let entities: Vec<Entity> =
        (0..100).map(|i| world.spawn((Trail(drops.clone(), i), Spark { heat: i as f32 }, Mass(i)))).collect();
    for &e in entities.iter().step_by(2) {
        world.despawn(e);
    }
    assert_eq!(drops.load(Ordering::Relaxed), 0, "lazy values stay until collected");
    assert_eq!(world.lazy_garbage(), 100, "50 dead rows in each of two lazy pools");
    let seen: Vec<u32> = world.query::<&Trail>().into_iter().map(|t| t.1).collect();
    assert_eq!(seen.len(), 50);
    assert!(seen.iter().all(|i| i % 2 == 1), "only live entities: {seen:?}");
    assert_eq!(world.query::<(&Spark, &Trail)>().into_iter().count(), 50);
    assert_eq!(world.query::<&Trail>().count(), 50, "count skips the dead rows too");
    let mut chunked = 0;
    world.query::<(&Spark, &Trail)>().for_each_chunk(|(s, _)| chunked += s.heat.len());
    assert_eq!(chunked, 50);
    assert!(world.get::<Trail>(entities[0]).is_err());
    // Reuse the dead slots: new entities never see the stale values.
    let reborn: Vec<Entity> = (0..50).map(|i| world.spawn(Trail(drops.clone(), 1000 + i))).collect();
    for &e in &reborn {
        assert!(world.get::<Trail>(e).unwrap().1 >= 1000);
        assert!(world.get::<Spark>(e).is_err());
    }
    assert_eq!(world.query::<&Trail>().into_iter().count(), 100);
    for pool in world.components().pools() {
        pool.assert_invariants();
    }
    // Sampling removes garbage over repeated rounds; a sweep removes the rest.
    let mut collected = 0;
    for _ in 0..20 {
        collected += world.collect_lazy();
    }
    assert!(collected > 0);
    let swept = world.sweep_lazy();
    assert_eq!(collected + swept, 100);
    assert_eq!(world.lazy_garbage(), 0);
    assert_eq!(drops.load(Ordering::Relaxed), 50, "each dead trail dropped exactly once");
    for pool in world.components().pools() {
        pool.assert_invariants();
        assert!(pool.entities().iter().all(|&e| world.is_alive(e)));
    }
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 150);
}

#[test]
fn churn_with_lazy_pools_stays_consistent() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let mut live = Vec::new();
    let mut spawned = 0;
    for round in 0..if cfg!(miri) { 20u32 } else { 200 } {
        for _ in 0..5 {
            live.push(world.spawn((Trail(drops.clone(), round), Mass(round))));
            spawned += 1;
        }
        for _ in 0..4 {
            let e = live.swap_remove((round as usize * 7) % live.len());
            world.despawn(e);
        }
        world.collect_lazy();
        let count = world.query::<(&Trail, &Mass)>().into_iter().count();
        assert_eq!(count, live.len());
    }
    world.sweep_lazy();
    assert_eq!(drops.load(Ordering::Relaxed), spawned - live.len());
    for pool in world.components().pools() {
        pool.assert_invariants();
    }
}

#[test]
fn lazy_pools_cannot_be_grouped() {
    let mut world = World::new();
    let error = world.try_group::<(Spark, Mass)>().unwrap_err();
    assert!(matches!(error, GroupError::LazyPool { .. }), "{error}");
    assert!(error.to_string().contains("Spark"));
}

//! Panic safety: a value whose `Drop` panics on its k-th call, for every k over a scenario that
//! touches every storage path. After `catch_unwind`, the world is consistent, and once it is
//! dropped every value created was dropped exactly once: none twice, none leaked.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use mosaic::{CommandBuffer, Component, Entity, World};

/// Records drops and panics on the k-th.
#[derive(Default)]
struct Log {
    created: Mutex<Vec<u32>>,
    dropped: Mutex<Vec<u32>>,
    fuse: AtomicI64,
}

struct Bomb {
    id: u32,
    log: Arc<Log>,
}

impl Bomb {
    fn new(log: &Arc<Log>) -> Self {
        let mut created = log.created.lock().unwrap();
        let id = created.len() as u32;
        created.push(id);
        Self { id, log: log.clone() }
    }
}

impl Drop for Bomb {
    fn drop(&mut self) {
        self.log.dropped.lock().unwrap().push(self.id);
        if self.log.fuse.fetch_sub(1, Ordering::Relaxed) == 1 {
            panic!("bomb {} went off", self.id);
        }
    }
}

#[derive(Component)]
struct Crate(#[allow(dead_code, reason = "payload")] Bomb);

#[derive(Component)]
#[component(storage = "soa")]
struct Cargo {
    #[allow(dead_code, reason = "payload")]
    bomb: Bomb,
    #[allow(dead_code, reason = "payload")]
    weight: u32,
}

#[derive(Component)]
#[component(cleanup = "lazy")]
struct Trace(#[allow(dead_code, reason = "payload")] Bomb);

/// Every storage path that drops values, in order.
fn scenario(world: &mut World, log: &Arc<Log>) {
    let entities: Vec<Entity> = (0..10)
        .map(|i| {
            world.spawn((
                Crate(Bomb::new(log)),
                Cargo { bomb: Bomb::new(log), weight: i },
                Trace(Bomb::new(log)),
            ))
        })
        .collect();
    drop(world.insert(entities[0], Crate(Bomb::new(log)))); // replaced value dropped by the caller
    world.insert_bundle(entities[1], (Crate(Bomb::new(log)), Cargo { bomb: Bomb::new(log), weight: 0 })); // dropped inside
    drop(world.remove::<Cargo>(entities[2])); // rebuilt from columns, dropped by the caller
    world.despawn(entities[3]); // AoS and SoA values dropped, the lazy one left behind
    world.despawn(entities[4]);
    let mut commands = CommandBuffer::new();
    commands.insert(entities[3], Crate(Bomb::new(log))); // dead target: skipped, bundle dropped
    commands.despawn(entities[5]);
    commands.spawn(world, (Crate(Bomb::new(log)), Trace(Bomb::new(log))));
    commands.apply(world);
    world.sweep_lazy(); // the lazy values of dead entities
    world.entity_mut(entities[6]).despawn();
}

fn run(fuse: i64) -> (Arc<Log>, bool) {
    let log = Arc::new(Log::default());
    log.fuse.store(fuse, Ordering::Relaxed);
    let mut world = World::new();
    let panicked = catch_unwind(AssertUnwindSafe(|| scenario(&mut world, &log))).is_err();
    // The world is consistent after the unwind.
    for pool in world.components().pools() {
        pool.assert_invariants();
        if !pool.is_lazy() {
            assert!(
                pool.entities().iter().all(|&e| world.is_alive(e)),
                "dead entity left in `{}`",
                pool.type_name()
            );
        }
    }
    let drop_world = catch_unwind(AssertUnwindSafe(|| drop(world)));
    assert!(panicked || drop_world.is_err() || fuse > total_drops(), "fuse {fuse} never went off");
    (log, panicked)
}

fn total_drops() -> i64 {
    let log = Arc::new(Log::default());
    log.fuse.store(i64::MAX, Ordering::Relaxed);
    let mut world = World::new();
    scenario(&mut world, &log);
    drop(world);
    log.dropped.lock().unwrap().len() as i64
}

#[test]
fn every_value_dropped_once_whichever_drop_panics() {
    let total = total_drops();
    assert_eq!(total, 36, "the scenario creates and drops 36 values");
    for k in 1..=total {
        let (log, _) = run(k);
        let created = log.created.lock().unwrap().clone();
        let mut times: BTreeMap<u32, usize> = BTreeMap::new();
        for &id in log.dropped.lock().unwrap().iter() {
            *times.entry(id).or_default() += 1;
        }
        for id in &created {
            match times.get(id) {
                Some(1) => {}
                Some(n) => panic!("k={k}: bomb {id} dropped {n} times"),
                None => panic!("k={k}: bomb {id} leaked"),
            }
        }
        assert_eq!(times.len(), created.len(), "k={k}: a value was dropped that was never created");
    }
}

//! Change detection under rollback: restoring frame F restores F's change state, so world-level
//! readers and the change-driven systems of a schedule see, frame by frame, exactly what they saw
//! in the straight run; relations (`Pair`) are saved, restored and hashed.
#![cfg(feature = "rollback")]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mosaic::hierarchy::{Cleanup, Relation};
use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
use mosaic::{Added, Changed, Commands, Component, Entity, Mut, Query, RemovedComponents, Schedule, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[component(track_changes)]
#[repr(C)]
struct Health(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[component(track_changes)]
#[repr(C)]
struct Frame(u32);

fn registry() -> RollbackRegistry {
    let mut registry = RollbackRegistry::new();
    registry.register::<Health>("health").register::<Frame>("frame");
    registry
}

/// The case, as a new user writes it: 10,000 rows, every 37th written through `Mut<T>`
/// each frame, a world-level `Changed` reader at the end of each frame; the rollback run goes
/// back 4 frames every frame and re-simulates. Every frame observes what the straight run did
/// (about 271 rows, not the whole world).
#[test]
fn world_level_readers_see_the_straight_runs_changes_after_every_restore() {
    // Under Miri, a smaller world and fewer frames (the same checks).
    const N: u32 = if cfg!(miri) { 370 } else { 10_000 };
    const FRAMES: u32 = if cfg!(miri) { 10 } else { 60 };
    const BACK: u32 = 4;
    fn new_world() -> World {
        let mut world = World::new();
        world.spawn_batch((0..N).map(Health));
        world.clear_trackers();
        world
    }
    /// One frame: writes every 37th row (offset by the frame), then reads the changes and clears.
    /// Returns the changed entities' indices (handles of two worlds differ in their world tag).
    fn step(world: &mut World, frame: u32) -> Vec<u32> {
        for (i, (_, mut health)) in world.query::<(Entity, Mut<Health>)>().into_iter().enumerate() {
            if (i as u32 + frame).is_multiple_of(37) {
                health.0 += 1;
            }
        }
        let mut seen: Vec<u32> =
            world.query_filtered::<Entity, Changed<Health>>().into_iter().map(|e| e.index()).collect();
        seen.sort_unstable();
        world.clear_trackers();
        seen
    }
    let mut straight = new_world();
    let expected: Vec<Vec<u32>> = (0..FRAMES).map(|f| step(&mut straight, f)).collect();
    assert!(expected.iter().all(|seen| seen.len().abs_diff(N as usize / 37) <= 1), "about N / 37 a frame");

    let mut world = new_world();
    let mut ring = RollbackRing::new(registry(), 8);
    let mut observed = Vec::new();
    for frame in 0..FRAMES {
        ring.save(&mut world, u64::from(frame)).unwrap();
        let seen = step(&mut world, frame);
        if frame >= BACK {
            // Learn of a late input: go back BACK frames and re-simulate up to here.
            let from = frame + 1 - BACK;
            ring.restore(u64::from(from), &mut world).unwrap();
            for f in from..=frame {
                ring.save(&mut world, u64::from(f)).unwrap();
                let again = step(&mut world, f);
                assert_eq!(again, expected[f as usize], "frame {f} re-simulated after a restore");
            }
        }
        observed.push(seen);
    }
    assert_eq!(observed, expected);
    assert_eq!(ring.hash(&world), ring.hash(&straight));
}

/// What each change-driven system saw, keyed by (frame, system); a re-simulated frame must log
/// exactly what it logged the first time.
type Log = Arc<Mutex<BTreeMap<(u32, &'static str), Vec<u32>>>>;

/// A schedule of change-driven systems: a writer, a spawner/despawner through commands, and an
/// `Added`, a `Changed` and a `RemovedComponents` reader, each logging what it saw.
fn schedule(log: &Log) -> Schedule {
    let mut schedule = Schedule::new();
    schedule.add_system(|mut frames: Query<&mut Frame>| {
        for frame in frames.iter_mut() {
            frame.0 += 1;
        }
    });
    schedule
        .add_system(|mut commands: Commands, q: Query<(Entity, &Frame, &Health)>| {
            let now = q.iter().map(|(_, f, _)| f.0).max().unwrap_or(0);
            for (e, _, health) in q.iter() {
                if (health.0 + now) % 5 == 0 {
                    commands.despawn(e);
                }
            }
            commands.spawn((Health(now * 7 % 11), Frame(now)));
        })
        .named("churn");
    let record = |log: &Log, what: &'static str| {
        let log = Arc::clone(log);
        move |frame: u32, mut seen: Vec<u32>| {
            seen.sort_unstable();
            let mut log = log.lock().unwrap();
            if let Some(before) = log.insert((frame, what), seen.clone()) {
                assert_eq!(before, seen, "{what} at frame {frame}: re-simulated, then first run");
            }
        }
    };
    let added = record(log, "added");
    schedule
        .add_system(move |q: Query<&Health, Added<Health>>, all: Query<&Frame>| {
            added(all.iter().map(|f| f.0).max().unwrap_or(0), q.iter().map(|h| h.0).collect());
        })
        .after("churn");
    let changed = record(log, "changed");
    schedule
        .add_system(move |q: Query<Entity, Changed<Frame>>, all: Query<&Frame>| {
            changed(all.iter().map(|f| f.0).max().unwrap_or(0), q.iter().map(|e| e.index()).collect());
        })
        .after("churn");
    let removed = record(log, "removed");
    schedule
        .add_system(move |gone: RemovedComponents<Health>, all: Query<&Frame>| {
            removed(all.iter().map(|f| f.0).max().unwrap_or(0), gone.iter().map(|e| e.index()).collect());
        })
        .after("churn");
    schedule
}

fn start() -> World {
    let mut world = World::new();
    world.spawn_batch((0..40).map(|i| (Health(i), Frame(0))));
    world
}

/// A schedule's `Added`, `Changed` and `RemovedComponents` systems, run frame by frame with a
/// restore of 3 frames back every frame, log exactly what they logged in the straight run: a
/// system's last run is rolled back with the frame.
#[test]
fn change_driven_systems_see_the_straight_run_frame_by_frame() {
    const FRAMES: u64 = if cfg!(miri) { 8 } else { 30 };
    let straight_log: Log = Arc::default();
    let mut straight = start();
    let mut plan = schedule(&straight_log);
    for _ in 0..FRAMES {
        plan.run(&mut straight);
    }

    let log: Log = Arc::default();
    let mut world = start();
    let mut plan = schedule(&log);
    let mut ring = RollbackRing::new(registry(), 8);
    for frame in 0..FRAMES {
        ring.save(&mut world, frame).unwrap();
        plan.run(&mut world);
        if frame >= 3 {
            // Every re-run frame logs again; `record` checks it logs what it did the first time.
            let from = frame - 2;
            ring.restore(from, &mut world).unwrap();
            for f in from..=frame {
                ring.save(&mut world, f).unwrap();
                plan.run(&mut world);
            }
        }
    }
    let (straight_log, log) = (straight_log.lock().unwrap(), log.lock().unwrap());
    assert_eq!(log.len(), straight_log.len());
    for (key, seen) in straight_log.iter() {
        assert_eq!(log.get(key), Some(seen), "{key:?}: the rollback run's, then the straight run's");
    }
    assert!(straight_log.values().any(|seen| !seen.is_empty()), "the systems saw something");
    assert_eq!(ring.hash(&world), ring.hash(&straight));
}

struct Docked;
impl Relation for Docked {}

struct OwnedBy;
impl Relation for OwnedBy {
    const CLEANUP: Cleanup = Cleanup::DespawnSource;
}

/// Relations are a part of the world: saved, restored (pairs, targets, index, cleanup) and hashed,
/// with no registration.
#[test]
fn pairs_round_trip_through_the_ring_and_count_in_the_hash() {
    let mut world = World::new();
    let [station, moon, ship, probe, cargo] = [(); 5].map(|()| world.spawn_empty());
    world.relate::<Docked>(ship, station).unwrap();
    world.relate::<Docked>(probe, station).unwrap();
    world.relate::<OwnedBy>(cargo, ship).unwrap();
    let mut ring = RollbackRing::new(RollbackRegistry::new(), 4);
    ring.save(&mut world, 0).unwrap();
    let at_0 = ring.hash(&world);

    world.relate::<Docked>(ship, moon).unwrap();
    assert_ne!(ring.hash(&world), at_0, "a pair's target counts in the hash");
    world.unrelate::<Docked>(probe);
    world.despawn(ship); // cascades to `cargo` (owned by the ship)
    assert!(!world.is_alive(cargo));

    ring.restore(0, &mut world).unwrap();
    assert_eq!(ring.hash(&world), at_0);
    assert_eq!(world.related::<Docked>(station), [ship, probe], "the index, in relate order");
    assert_eq!(world.target::<Docked>(ship), Some(station));
    assert_eq!(world.target::<OwnedBy>(cargo), Some(ship));
    assert!(world.related::<Docked>(moon).is_empty());
    // The restored index drives cleanup as before.
    world.despawn(ship);
    assert!(!world.is_alive(cargo), "owned by the ship: despawned with it");
    assert_eq!(world.related::<Docked>(station), [probe]);
    world.despawn(station);
    assert_eq!(world.target::<Docked>(probe), None, "its pair went with the target");

    // A frame saved before a relation kind existed restores to no pairs of it.
    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    let mut ring = RollbackRing::new(RollbackRegistry::new(), 2);
    ring.save(&mut world, 0).unwrap();
    let empty = ring.hash(&world);
    world.relate::<Docked>(a, b).unwrap();
    ring.restore(0, &mut world).unwrap();
    assert_eq!(world.target::<Docked>(a), None);
    assert!(world.related::<Docked>(b).is_empty());
    assert_eq!(ring.hash(&world), empty, "an emptied relation kind hashes as none");
    // And two runs that differ only in a pair are told apart by the desync finder.
    let mut other = RollbackRing::new(RollbackRegistry::new(), 2);
    world.relate::<Docked>(a, b).unwrap();
    ring.save(&mut world, 1).unwrap();
    world.relate::<Docked>(b, a).unwrap();
    other.save(&mut world, 1).unwrap();
    let difference = ring.compare(1, &other, 1).unwrap().expect("the pairs differ");
    assert!(difference.to_string().contains("Docked"), "{difference}");
}

//! Rollback: restoring a saved frame and re-running gives the straight run's hashes, frame by
//! frame, with spawns, despawns, inserts, removes, a hierarchy, an owning group, plain and cloned
//! components and resources in play; bad input is a named error and leaves the world unchanged;
//! recordings replay; the desync finder names the first frame, component and entity that differ.
#![cfg(feature = "rollback")]

use mosaic::rollback::{
    HashLog, NoUninit, Recording, RecordingError, RollbackError, RollbackRegistry, RollbackRing,
    StateDifference,
};
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Body {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[component(storage = "soa")]
#[repr(C)]
struct Spin {
    w: f32,
    turns: u32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(transparent)]
struct Heat(u32);

/// A component with heap data, cloned.
#[derive(Component, Clone, Debug, PartialEq, Eq, Hash)]
struct Label(String);

/// The simulation's random generator (xorshift64): a hashed resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The player's input for a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Push(i32);

fn new_registry() -> RollbackRegistry {
    let mut registry = RollbackRegistry::new();
    registry
        .register::<Body>("body")
        .register::<Spin>("spin")
        .register::<Heat>("heat")
        .register_clone::<Label>("label")
        .register_resource::<Rng>("rng")
        .register_input::<Push>("push");
    registry
}

/// Entities in `new_world` (fewer under Miri, which interprets every step).
const ENTITIES: u32 = if cfg!(miri) { 40 } else { 200 };

fn new_world() -> World {
    let mut world = World::new();
    world.group::<(Body, Heat)>();
    world.insert_resource(Rng(0x9E37_79B9_7F4A_7C15));
    for i in 0..ENTITIES {
        let e = world.spawn((Body { x: i as f32, y: 0.0 }, Heat(i)));
        if i % 3 == 0 {
            world.insert(e, Spin { w: 0.5, turns: 0 });
        }
        if i % 5 == 0 {
            world.insert(e, Label(format!("n{i}")));
        }
    }
    world
}

/// One frame: moves bodies (by the input, if any), then random structural changes whose targets
/// depend on query order, then hierarchy changes.
fn step(world: &mut World) {
    let push = world.get_resource::<Push>().map_or(0, |p| p.0) as f32;
    world.query::<(&mut Body, &Heat)>().for_each(|(b, h)| {
        b.x += push + (h.0 % 7) as f32 * 0.25;
        b.y -= 0.5;
    });
    let living: Vec<Entity> = world.query::<(Entity, &Body)>().into_iter().map(|(e, _)| e).collect();
    let mut rng = *world.resource::<Rng>();
    for _ in 0..6 {
        let victim = living[(rng.next() % living.len() as u64) as usize];
        if world.is_alive(victim) {
            world.despawn_recursive(victim);
        }
    }
    for _ in 0..7 {
        let r = rng.next();
        let e = world.spawn((Body { x: (r % 100) as f32, y: 1.0 }, Heat((r >> 8) as u32 % 50)));
        if r.is_multiple_of(2) {
            world.insert(e, Label(format!("late{r}")));
        }
        if r.is_multiple_of(3) {
            world.insert(e, Spin { w: 1.0, turns: 1 });
        }
        if r.is_multiple_of(4) {
            let parent = living[(r >> 16) as usize % living.len()];
            if world.is_alive(parent) {
                world.set_parent(e, parent).unwrap();
            }
        }
    }
    let target = living[(rng.next() % living.len() as u64) as usize];
    if world.is_alive(target) {
        world.remove::<Heat>(target);
    }
    *world.resource_mut::<Rng>() = rng;
}

/// The input of frame `frame`.
fn input(frame: u64) -> Option<Push> {
    (frame % 4 != 3).then_some(Push(frame as i32 % 3 - 1))
}

fn set_input(world: &mut World, frame: u64) {
    match input(frame) {
        Some(push) => {
            world.insert_resource(push);
        }
        None => {
            world.remove_resource::<Push>();
        }
    }
}

const FRAMES: u64 = if cfg!(miri) { 12 } else { 40 };

/// The straight run's hash after every frame.
fn straight(registry: &RollbackRegistry) -> Vec<u64> {
    let mut world = new_world();
    (0..FRAMES)
        .map(|frame| {
            set_input(&mut world, frame);
            step(&mut world);
            registry.hash(&world)
        })
        .collect()
}

#[test]
fn hash_is_stable_and_sensitive() {
    let registry = new_registry();
    let (a, b) = (new_world(), new_world());
    assert_eq!(registry.hash(&a), registry.hash(&b), "equal worlds hash equal");
    let mut reordered = RollbackRegistry::new();
    reordered
        .register_resource::<Rng>("rng")
        .register_clone::<Label>("label")
        .register::<Heat>("heat")
        .register::<Spin>("spin")
        .register::<Body>("body");
    assert_eq!(reordered.hash(&a), registry.hash(&a), "registration order does not count");

    let first = |w: &mut World| w.query::<(Entity, &Spin)>().into_iter().next().unwrap().0;
    let mut changed = new_world();
    let e = first(&mut changed);
    changed.get_mut::<Body>(e).unwrap().y = 0.25;
    assert_ne!(registry.hash(&changed), registry.hash(&a), "a value counts");
    let mut changed = new_world();
    let e = first(&mut changed);
    *changed.get_mut::<Spin>(e).unwrap().turns = 9;
    assert_ne!(registry.hash(&changed), registry.hash(&a), "a struct-of-arrays field counts");
    let mut changed = new_world();
    changed.resource_mut::<Rng>().0 += 1;
    assert_ne!(registry.hash(&changed), registry.hash(&a), "a hashed resource counts");
    let mut changed = new_world();
    let extra = changed.spawn(Heat(1));
    changed.despawn(extra);
    assert_ne!(registry.hash(&changed), registry.hash(&a), "the allocator counts");
    let mut changed = new_world();
    changed.sort_by::<Label>(|x, y| y.0.cmp(&x.0)).unwrap();
    assert_ne!(registry.hash(&changed), registry.hash(&a), "row order counts");
}

#[test]
fn restoring_and_rerunning_matches_the_straight_run() {
    let registry = new_registry();
    let expected = straight(&registry);
    for k in [1u64, 2, 8] {
        let mut ring = RollbackRing::new(new_registry(), k as usize + 1);
        let mut world = new_world();
        ring.save(&mut world, 0).unwrap();
        for frame in 0..FRAMES {
            set_input(&mut world, frame);
            step(&mut world);
            ring.save(&mut world, frame + 1).unwrap();
            // Go back k frames (state before frame `from`) and re-simulate to the present.
            let from = (frame + 1).saturating_sub(k);
            ring.restore(from, &mut world).unwrap();
            for again in from..=frame {
                set_input(&mut world, again);
                step(&mut world);
                ring.save(&mut world, again + 1).unwrap();
            }
            assert_eq!(registry.hash(&world), expected[frame as usize], "k {k}, frame {frame}");
            world.assert_hierarchy_invariants();
        }
    }
}

#[test]
fn restore_puts_back_values_entities_and_ids() {
    let registry = new_registry();
    let mut ring = RollbackRing::new(registry, 4);
    let mut world = new_world();
    ring.save(&mut world, 0).unwrap();
    let before: Vec<(Entity, Body)> =
        world.query::<(Entity, &Body)>().into_iter().map(|(e, b)| (e, *b)).collect();
    let labels: Vec<(Entity, Label)> =
        world.query::<(Entity, &Label)>().into_iter().map(|(e, l)| (e, l.clone())).collect();
    let next_spawn = {
        let mut probe = new_world();
        probe.spawn(Heat(0))
    };
    for _ in 0..5 {
        step(&mut world);
    }
    ring.restore(0, &mut world).unwrap();
    let after: Vec<(Entity, Body)> =
        world.query::<(Entity, &Body)>().into_iter().map(|(e, b)| (e, *b)).collect();
    assert_eq!(after, before, "same entities, values and row order");
    let labels_after: Vec<(Entity, Label)> =
        world.query::<(Entity, &Label)>().into_iter().map(|(e, l)| (e, l.clone())).collect();
    assert_eq!(labels_after, labels);
    assert_eq!(world.len(), ENTITIES);
    let spawned = world.spawn(Heat(0));
    assert_eq!((spawned.index(), spawned.generation()), (next_spawn.index(), next_spawn.generation()));
    world.assert_hierarchy_invariants();
}

#[test]
fn frame_world_holds_the_saved_state_and_leaves_the_world_alone() {
    let mut ring = RollbackRing::new(new_registry(), 4);
    let mut world = new_world();
    for _ in 0..3 {
        step(&mut world);
    }
    ring.save(&mut world, 3).unwrap();
    let saved_hash = ring.hash(&world);
    let bodies: Vec<(Entity, Body)> =
        world.query::<(Entity, &Body)>().into_iter().map(|(e, b)| (e, *b)).collect();
    let labels: Vec<(Entity, Label)> =
        world.query::<(Entity, &Label)>().into_iter().map(|(e, l)| (e, l.clone())).collect();
    let parents: Vec<(Entity, Option<Entity>)> = bodies.iter().map(|&(e, _)| (e, world.parent(e))).collect();
    let kinds: Vec<(Entity, usize)> =
        world.entities().iter().map(|e| (e, world.component_ids(e).unwrap().len())).collect();
    let len = world.len();
    step(&mut world);
    ring.save(&mut world, 4).unwrap();
    let kinds_after: Vec<(Entity, Vec<_>)> =
        world.entities().iter().map(|e| (e, world.component_ids(e).unwrap().to_vec())).collect();
    let live_hash = ring.hash(&world);

    let then = ring.frame_world(3).unwrap();
    assert_eq!(then.len(), len);
    for (e, body) in &bodies {
        assert_eq!(then.get::<Body>(*e), Ok(body), "handles of the live world name the same entity");
    }
    for (e, label) in &labels {
        assert_eq!(then.get::<Label>(*e), Ok(label));
    }
    for (e, parent) in &parents {
        assert_eq!(then.parent(*e), *parent);
    }
    assert_eq!(ring.hash(&then), saved_hash, "the same state, by the rollback hash");
    assert_eq!(ring.hash(&world), live_hash, "the live world is untouched");
    // The scratch world registers the components in its own order, so it reads each entity's
    // component set back from its pools: counts match, and despawning empties every pool.
    let mut then = then;
    for &(e, count) in &kinds {
        assert_eq!(then.component_ids(e).map(<[_]>::len), Ok(count), "{e}");
        then.despawn(e);
    }
    assert!(then.components().pools().iter().all(|pool| pool.is_empty()), "despawn found every component");
    // Restoring into the world it came from puts each entity's component set back.
    ring.restore(3, &mut world).unwrap();
    for &(e, count) in &kinds {
        assert_eq!(world.component_ids(e).map(<[_]>::len), Ok(count), "{e}");
    }
    ring.restore(4, &mut world).unwrap();
    for (e, ids) in &kinds_after {
        assert_eq!(world.component_ids(*e), Ok(ids.as_slice()));
    }
    assert!(matches!(ring.frame_world(2), Err(RollbackError::FrameNotSaved { frame: 2, .. })));
}

#[test]
fn bad_input_is_a_named_error_and_leaves_the_world_unchanged() {
    let registry = new_registry();
    let mut ring = RollbackRing::new(registry, 2);
    let mut world = new_world();
    for frame in 0..3 {
        step(&mut world);
        ring.save(&mut world, frame).unwrap();
    }
    let hash = ring.hash(&world);
    assert_eq!(
        ring.restore(0, &mut world),
        Err(RollbackError::FrameNotSaved { frame: 0, oldest: Some(1), newest: Some(2) }),
        "frame 0 was overwritten by frame 2"
    );
    assert!(ring.restore(7, &mut world).unwrap_err().to_string().contains("frames 1 to 2"));

    let mut other = new_world();
    let other_hash = ring.hash(&other);
    assert!(matches!(ring.restore(1, &mut other), Err(RollbackError::ForeignWorld { .. })));
    assert_eq!(ring.hash(&other), other_hash);

    #[derive(Component)]
    struct Unregistered;
    let e = world.spawn(Unregistered);
    let hash_with = ring.hash(&world);
    assert!(matches!(
        ring.restore(1, &mut world),
        Err(RollbackError::UnregisteredComponent { type_name }) if type_name.contains("Unregistered")
    ));
    assert!(matches!(ring.save(&mut world, 3), Err(RollbackError::UnregisteredComponent { .. })));
    assert!(ring.contains(1), "a refused save keeps the slot's frame");
    assert_eq!(ring.hash(&world), hash_with);
    world.despawn(e);

    world.group::<(Spin, Label)>();
    let grouped = ring.hash(&world);
    assert!(matches!(ring.restore(1, &mut world), Err(RollbackError::GroupsDiffer { saved: 1, world: 2 })));
    assert_eq!(ring.hash(&world), grouped);
    assert_ne!(hash, 0);
}

#[test]
fn recording_replays_to_the_same_hashes() {
    let registry = new_registry();
    let mut world = new_world();
    let mut recording = Recording::new(&registry);
    for frame in 0..20 {
        set_input(&mut world, frame);
        recording.record_inputs(&registry, &world, frame).unwrap();
        step(&mut world);
        recording.record_hash(frame, registry.hash(&world));
    }
    let bytes = recording.to_bytes().unwrap();
    let read = Recording::from_bytes(&bytes, &registry).unwrap();
    assert_eq!(read, recording);
    let mut replayed = new_world();
    let log = read.replay(&registry, &mut replayed, step).unwrap();
    assert_eq!(log, recording.hash_log());
    assert_eq!(registry.hash(&replayed), registry.hash(&world));

    // A replay that runs another simulation is caught at its first frame.
    let mut wrong = new_world();
    let error = read.replay(&registry, &mut wrong, |w| {
        step(w);
        w.resource_mut::<Rng>().0 ^= 1;
    });
    assert!(matches!(error, Err(RecordingError::Diverged { frame: 0, .. })), "{error:?}");

    assert!(matches!(
        recording.record_inputs(&registry, &world, 5),
        Err(RecordingError::FrameOrder { frame: 5, last: 19 })
    ));
}

#[test]
fn corrupt_recordings_are_named_errors() {
    let registry = new_registry();
    let mut world = new_world();
    let mut recording = Recording::new(&registry);
    for frame in 0..4 {
        set_input(&mut world, frame);
        recording.record_inputs(&registry, &world, frame).unwrap();
        recording.record_hash(frame, frame);
    }
    let bytes = recording.to_bytes().unwrap();
    for cut in [0, 3, bytes.len() / 2, bytes.len() - 1] {
        assert!(Recording::from_bytes(&bytes[..cut], &registry).is_err(), "truncated at {cut}");
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(matches!(Recording::from_bytes(&extra, &registry), Err(RecordingError::Corrupt { .. })));
    let mut magic = bytes.clone();
    magic[0] ^= 0xff;
    assert!(matches!(Recording::from_bytes(&magic, &registry), Err(RecordingError::Decode(_))));
    let mut version = bytes.clone();
    version[4] = 9;
    assert!(matches!(
        Recording::from_bytes(&version, &registry),
        Err(RecordingError::Version { found: 9, .. })
    ));
    let empty = RollbackRegistry::new();
    assert!(matches!(
        Recording::from_bytes(&bytes, &empty),
        Err(RecordingError::UnknownInput { name }) if name == "push"
    ));
    // Flip every byte in turn: never a panic, and an input that no longer decodes is refused
    // before the world changes.
    for at in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x5a;
        if let Ok(read) = Recording::from_bytes(&flipped, &registry) {
            for frame in read.frames().collect::<Vec<_>>() {
                let before = world.get_resource::<Push>().copied();
                if read.apply_inputs(&registry, frame, &mut world).is_err() {
                    assert_eq!(world.get_resource::<Push>().copied(), before);
                }
            }
        }
    }
    assert!(matches!(
        recording.apply_inputs(&registry, 99, &mut world),
        Err(RecordingError::NoSuchFrame { frame: 99 })
    ));
}

#[test]
fn desync_finder_names_frame_component_and_entity() {
    let registry = new_registry();
    let (mut a, mut b) = (new_world(), new_world());
    let (mut ring_a, mut ring_b) =
        (RollbackRing::new(new_registry(), 64), RollbackRing::new(new_registry(), 64));
    let (mut log_a, mut log_b) = (HashLog::new(), HashLog::new());
    let mut victim = None;
    for frame in 0..12 {
        step(&mut a);
        step(&mut b);
        if frame == 7 {
            // A one-bit difference in one value of run b.
            let (e, _) = b.query::<(Entity, &Spin)>().into_iter().nth(3).unwrap();
            *b.get_mut::<Spin>(e).unwrap().turns ^= 1;
            victim = Some(e);
        }
        log_a.push(frame, registry.hash(&a));
        log_b.push(frame, registry.hash(&b));
        ring_a.save(&mut a, frame).unwrap();
        ring_b.save(&mut b, frame).unwrap();
    }
    let text = HashLog::parse(&log_b.to_text()).unwrap();
    let divergence = log_a.first_divergence(&text).unwrap();
    assert_eq!(divergence.frame, 7);
    assert_eq!(ring_a.compare(6, &ring_b, 6).unwrap(), None);
    let difference = ring_a.compare(7, &ring_b, 7).unwrap().unwrap();
    match &difference {
        StateDifference::Component { name, entity, .. } => {
            assert_eq!(name, "spin");
            assert_eq!(
                entity.map(|e| (e.index(), e.generation())),
                victim.map(|e| (e.index(), e.generation()))
            );
        }
        other => panic!("expected the spin component, got {other:?}"),
    }
    assert!(difference.to_string().contains("spin"));
}

/// Lazily cleaned: despawn leaves the row for the collector, whose sampling sequence is state.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[component(cleanup = "lazy")]
#[repr(transparent)]
struct Debris(u32);

#[test]
fn lazy_pools_and_the_collector_roll_back_exactly() {
    let mut registry = RollbackRegistry::new();
    registry.register::<Debris>("debris").register_resource::<Rng>("rng");
    let start = || {
        let mut world = World::new();
        world.insert_resource(Rng(77));
        world.spawn_batch((0..300).map(Debris));
        world
    };
    let step = |world: &mut World| {
        let living: Vec<Entity> = world.query::<(Entity, &Debris)>().into_iter().map(|(e, _)| e).collect();
        let mut rng = *world.resource::<Rng>();
        for _ in 0..10 {
            let victim = living[(rng.next() % living.len() as u64) as usize];
            if world.is_alive(victim) {
                world.despawn(victim);
            }
            world.spawn(Debris(rng.next() as u32));
        }
        *world.resource_mut::<Rng>() = rng;
        world.collect_lazy();
    };
    let (straight, world) = rerun_three_back_matches_straight(registry, 30, start, step, |_| {});
    assert!(straight.lazy_garbage() > 0, "the collector must leave garbage between frames");
    assert_eq!(world.lazy_garbage(), straight.lazy_garbage());
}

#[test]
fn types_and_resources_absent_at_the_save_are_absent_after_the_restore() {
    let mut ring = RollbackRing::new(new_registry(), 2);
    let mut world = World::new();
    let kept = world.spawn(Heat(1));
    ring.save(&mut world, 0).unwrap();
    let empty = ring.hash(&world);
    let e = world.spawn((Body { x: 1.0, y: 1.0 }, Label("later".into()), Spin { w: 0.0, turns: 0 }));
    world.insert_resource(Rng(5));
    world.set_parent(e, kept).unwrap();
    ring.restore(0, &mut world).unwrap();
    assert_eq!(ring.hash(&world), empty);
    assert!(!world.is_alive(e) && world.is_alive(kept));
    assert!(!world.contains_resource::<Rng>(), "a resource the frame did not have is removed");
    assert_eq!(world.query::<&Body>().into_iter().count(), 0);
    assert_eq!(world.children(kept).count(), 0);
    world.assert_hierarchy_invariants();
}

#[test]
#[should_panic(expected = "at least one frame")]
fn a_ring_of_no_frames_panics() {
    RollbackRing::new(new_registry(), 0);
}

#[test]
#[should_panic(expected = "is already taken")]
fn a_name_registered_twice_panics() {
    let mut registry = RollbackRegistry::new();
    registry.register::<Body>("thing").register::<Heat>("thing");
}

#[test]
#[should_panic(expected = "struct-of-arrays")]
fn cloning_a_struct_of_arrays_component_panics_at_registration() {
    #[derive(Component, Clone, Hash)]
    #[component(storage = "soa")]
    struct Soa {
        a: u32,
    }
    RollbackRegistry::new().register_clone::<Soa>("soa");
}

#[test]
#[should_panic(expected = "record the inputs of frame 3 before its hash")]
fn a_hash_without_its_frame_panics() {
    Recording::new(&new_registry()).record_hash(3, 0);
}

#[test]
#[should_panic(expected = "increasing order")]
fn a_hash_log_out_of_order_panics() {
    let mut log = HashLog::new();
    log.push(2, 0);
    log.push(1, 0);
}

/// Hashes an affine transform by the bits of its floats.
#[cfg(feature = "transform")]
fn hash_affine(affine: &glam::Affine2, hasher: &mut mosaic::rollback::StableHasher) {
    for value in affine.to_cols_array() {
        hasher.write_word(u64::from(value.to_bits()));
    }
}

#[cfg(feature = "transform")]
#[test]
fn transforms_with_change_tracking_roll_back_exactly() {
    use glam::{Affine2, Vec2};
    use mosaic::hierarchy::{GlobalTransform, LocalTransform, propagate_transforms};

    let mut registry = RollbackRegistry::new();
    registry
        .register_clone_with::<LocalTransform>("local", |t, h| hash_affine(&t.0, h))
        .register_clone_with::<GlobalTransform>("global", |t, h| hash_affine(&t.0, h))
        .register_resource::<Rng>("rng");
    let start = || {
        let mut world = World::new();
        world.insert_resource(Rng(99));
        let nodes: Vec<Entity> = (0..if cfg!(miri) { 60 } else { 200 })
            .map(|i| {
                let local = LocalTransform(Affine2::from_translation(Vec2::new(i as f32, 1.0)));
                world.spawn((local, GlobalTransform::default()))
            })
            .collect();
        for (i, &node) in nodes.iter().enumerate().skip(1) {
            world.set_parent(node, nodes[(i - 1) / 3]).unwrap();
        }
        propagate_transforms(&mut world);
        world
    };
    let step = |world: &mut World| {
        let mut rng = *world.resource::<Rng>();
        let nodes: Vec<Entity> =
            world.query::<(Entity, &LocalTransform)>().into_iter().map(|(e, _)| e).collect();
        for _ in 0..5 {
            let node = nodes[(rng.next() % nodes.len() as u64) as usize];
            world.get_mut::<LocalTransform>(node).unwrap().0.translation.x += 0.5;
        }
        let (child, parent) =
            (nodes[(rng.next() % nodes.len() as u64) as usize], nodes[(rng.next() % 10) as usize]);
        if child != parent && !world.ancestors(parent).any(|a| a == child) {
            world.set_parent(child, parent).unwrap();
        }
        let victim = nodes[(rng.next() % nodes.len() as u64) as usize];
        world.despawn(victim);
        // Zero to two new nodes: the pools' lengths change from frame to frame.
        let r = rng.next();
        for k in 0..r % 3 {
            // Exact rotations (Pythagorean cosine/sine pairs) rather than `from_angle`: `sin` and
            // `cos` may differ in the last bit between runs under Miri, which models platforms
            // whose libm rounds differently, and the test compares the runs bit for bit.
            const TURNS: [(f32, f32); 9] = [
                (1.0, 0.0),
                (0.0, 1.0),
                (-1.0, 0.0),
                (0.0, -1.0),
                (0.6, 0.8),
                (0.8, 0.6),
                (-0.6, 0.8),
                (0.28, 0.96),
                (0.96, -0.28),
            ];
            let (cos, sin) = TURNS[((r % 7 + k) % 9) as usize];
            let turn = glam::Mat2::from_cols(Vec2::new(cos, sin), Vec2::new(-sin, cos));
            let local = LocalTransform(Affine2::from_mat2(turn));
            let new = world.spawn((local, GlobalTransform::default()));
            world.set_parent(new, nodes[(r >> 8) as usize % nodes.len()]).ok();
        }
        *world.resource_mut::<Rng>() = rng;
        propagate_transforms(world);
    };
    let frames: u64 = if cfg!(miri) { 12 } else { 30 };
    rerun_three_back_matches_straight(registry, frames, start, step, |world| {
        world.assert_hierarchy_invariants();
        // Change ticks included: every pool's per-row arrays match its rows.
        world.components().pools().iter().for_each(|pool| pool.assert_invariants());
    });
}

/// Runs `frames` frames of `step` from `start()` straight, hashing each; then runs them again
/// with a ring of four frames, every frame restoring the state three frames back and re-running
/// to the present, and checks each frame's hash against the straight run's (and `check` on the
/// world). Returns the straight run's world and the re-run one.
fn rerun_three_back_matches_straight(
    registry: RollbackRegistry,
    frames: u64,
    start: impl Fn() -> World,
    step: impl Fn(&mut World),
    check: impl Fn(&World),
) -> (World, World) {
    let mut straight = start();
    let expected: Vec<u64> = (0..frames)
        .map(|_| {
            step(&mut straight);
            registry.hash(&straight)
        })
        .collect();
    let mut ring = RollbackRing::new(registry, 4);
    let mut world = start();
    ring.save(&mut world, 0).unwrap();
    for frame in 0..frames {
        step(&mut world);
        ring.save(&mut world, frame + 1).unwrap();
        let from = (frame + 1).saturating_sub(3);
        ring.restore(from, &mut world).unwrap();
        for again in from..=frame {
            step(&mut world);
            ring.save(&mut world, again + 1).unwrap();
        }
        assert_eq!(ring.hash(&world), expected[frame as usize], "frame {frame}");
        check(&world);
    }
    (straight, world)
}

/// `RollbackRing::diff` names every entity spawned, despawned, and per component added, removed
/// or changed (plain array-of-structs, struct-of-arrays and cloned types), and the changed
/// resources.
#[test]
fn diff_names_every_change_per_component() {
    let registry = new_registry();
    let mut world = new_world();
    let mut ring = RollbackRing::new(registry, 8);
    let e: Vec<Entity> = world.query::<(Entity, &Heat)>().into_iter().map(|(e, _)| e).collect();
    ring.save(&mut world, 0).unwrap();
    world.get_mut::<Body>(e[1]).unwrap().x = 99.0;
    *world.get_mut::<Spin>(e[3]).unwrap().turns += 1; // struct-of-arrays
    world.get_mut::<Label>(e[5]).unwrap().0.push('!'); // cloned
    world.remove::<Heat>(e[2]).unwrap();
    world.insert(e[4], Label("new".into()));
    world.despawn(e[6]);
    let born = world.spawn(Body { x: -1.0, y: -1.0 });
    world.resource_mut::<Rng>().next();
    ring.save(&mut world, 1).unwrap();

    let diff = ring.diff(0, 1).unwrap();
    assert_eq!((diff.spawned.clone(), diff.despawned.clone()), (vec![born], vec![e[6]]));
    let of = |name: &str| diff.components.iter().find(|c| c.name == name).unwrap().clone();
    let body = of("body");
    assert_eq!((body.added, body.removed, body.changed), (vec![born], vec![e[6]], vec![e[1]]));
    let heat = of("heat");
    assert_eq!((heat.added, heat.removed, heat.changed), (vec![], vec![e[2], e[6]], vec![]));
    let spin = of("spin");
    assert_eq!((spin.added, spin.removed, spin.changed), (vec![], vec![e[6]], vec![e[3]]));
    let label = of("label");
    assert_eq!((label.added, label.removed, label.changed), (vec![e[4]], vec![], vec![e[5]]));
    assert_eq!(diff.resources_changed, ["rng"]);
    assert!(ring.diff(1, 1).unwrap().components.iter().all(|c| c.is_empty()));
    assert!(matches!(ring.diff(0, 7), Err(RollbackError::FrameNotSaved { .. })));
}

/// Over frames of random structural changes, the diff agrees with comparing the two saved worlds
/// entity by entity.
#[test]
fn diff_agrees_with_comparing_the_saved_worlds() {
    let mut world = new_world();
    let mut ring = RollbackRing::new(new_registry(), 8);
    ring.save(&mut world, 0).unwrap();
    for frame in 1..=4 {
        set_input(&mut world, frame);
        step(&mut world);
        ring.save(&mut world, frame).unwrap();
    }
    let (a, b) = (ring.frame_world(0).unwrap(), ring.frame_world(4).unwrap());
    let diff = ring.diff(0, 4).unwrap();
    let live = |w: &World| -> Vec<Entity> {
        let mut v: Vec<Entity> = w.entities().iter().collect();
        v.sort_by_key(|e| e.index());
        v
    };
    let (la, lb) = (live(&a), live(&b));
    assert_eq!(diff.spawned, lb.iter().copied().filter(|e| !la.contains(e)).collect::<Vec<_>>());
    assert_eq!(diff.despawned, la.iter().copied().filter(|e| !lb.contains(e)).collect::<Vec<_>>());
    let mut all: Vec<Entity> = la.iter().chain(&lb).copied().collect();
    all.sort_by_key(|e| (e.index(), e.generation()));
    all.dedup();
    // Added, removed, changed, by reading each entity's value in both worlds.
    let expected = |read: &dyn Fn(&World, Entity) -> Option<Vec<u32>>| {
        let mut out: [Vec<Entity>; 3] = Default::default();
        for &e in &all {
            match (read(&a, e), read(&b, e)) {
                (None, Some(_)) => out[0].push(e),
                (Some(_), None) => out[1].push(e),
                (Some(x), Some(y)) if x != y => out[2].push(e),
                _ => {}
            }
        }
        out
    };
    let of = |name: &str| {
        let c = diff.components.iter().find(|c| c.name == name).unwrap();
        [c.added.clone(), c.removed.clone(), c.changed.clone()]
    };
    assert_eq!(
        of("body"),
        expected(&|w, e| w.get::<Body>(e).ok().map(|b| vec![b.x.to_bits(), b.y.to_bits()]))
    );
    assert_eq!(of("heat"), expected(&|w, e| w.get::<Heat>(e).ok().map(|h| vec![h.0])));
    assert_eq!(
        of("label"),
        expected(&|w, e| w.get::<Label>(e).ok().map(|l| l.0.bytes().map(u32::from).collect()))
    );
    let spin = of("spin");
    assert!(spin.iter().any(|list| !list.is_empty()), "the frames changed spins");
    assert_eq!(spin, expected(&|w, e| w.get::<Spin>(e).ok().map(|s| vec![s.w.to_bits(), *s.turns])));
}

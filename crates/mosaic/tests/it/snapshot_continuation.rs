//! Snapshots continue exactly: a world saved mid-run and loaded into a fresh world evolves, frame
//! by frame, exactly as the saved one does (byte-identical saves, identical query order), with
//! hierarchies and transforms, nested owning groups, a sorted pool and a lazily cleaned pool in
//! play, and a system whose effect depends on the order queries visit entities. Then loading into
//! a world with nested groups, created in either order: saved row orders that fit the groups are
//! restored; orders that would break a group are refused before the world changes.
#![cfg(all(feature = "serialize", feature = "transform"))]

use glam::{Affine2, Vec2};
use mosaic::hierarchy::{GlobalTransform, LocalTransform, Relationship, propagate_transforms};
use mosaic::serialize::{SnapshotError, SnapshotRegistry};
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Body {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "soa")]
struct Spin {
    w: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Heat(u32);

/// Sorted every few frames.
#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Rank(u32);

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[component(cleanup = "lazy")]
struct Debris(u32);

/// The simulation's random generator (xorshift64), saved with the world.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
}

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry
        .register::<Body>("body")
        .register::<Spin>("spin")
        .register::<Heat>("heat")
        .register::<Rank>("rank")
        .register::<Debris>("debris")
        .register::<LocalTransform>("local")
        .register::<GlobalTransform>("global")
        .register_resource::<Rng>("rng");
    registry
}

/// An empty world with the simulation's groups: (Body, Spin) and, nested in it,
/// (Body, Spin, Heat), created inner-first or outer-first.
fn empty_world(inner_first: bool) -> World {
    let mut world = World::new();
    if inner_first {
        world.group::<(Body, Spin, Heat)>();
        world.group::<(Body, Spin)>();
    } else {
        world.group::<(Body, Spin)>();
        world.group::<(Body, Spin, Heat)>();
    }
    world
}

/// The entities a query visits, in its order.
fn visit<Q: mosaic::query::ReadOnlyQueryData>(world: &World) -> Vec<Entity> {
    let mut order = Vec::new();
    world.query_ref::<(Entity, Q)>().for_each(|(e, _)| order.push(e));
    order
}

/// The order every query the simulation uses visits entities in.
fn orders(world: &World) -> Vec<Vec<Entity>> {
    vec![
        visit::<&LocalTransform>(world),
        visit::<&GlobalTransform>(world),
        visit::<&Relationship>(world),
        visit::<(&Body, &Spin)>(world),
        visit::<(&Body, &Spin, &Heat)>(world),
        visit::<&Body>(world),
        visit::<&Rank>(world),
        visit::<&Debris>(world),
    ]
}

/// A live entity picked at random in the order `Q` visits them, if any.
fn pick<Q: mosaic::query::ReadOnlyQueryData>(world: &World, rng: &mut Rng) -> Option<Entity> {
    let all = visit::<Q>(world);
    (!all.is_empty()).then(|| all[rng.below(all.len())])
}

/// One frame: nudges applied in query order (each draws from the generator, so a different order
/// gives different values), transform propagation, then structural changes (spawns, despawns,
/// reparenting, components added and removed, a sort), left pending for the next propagation,
/// and the lazy collector.
fn frame(world: &mut World, number: u32) {
    let mut rng = world.remove_resource::<Rng>().expect("the generator is a resource");
    world.query::<&mut LocalTransform>().for_each(|local| {
        local.0.translation += Vec2::new(rng.unit(), rng.unit());
    });
    world.query::<(&mut Body, &Spin)>().for_each(|(body, spin)| {
        body.x += rng.unit() * *spin.w;
        body.y += rng.unit();
    });
    world.query::<&mut Debris>().for_each(|debris| debris.0 = debris.0.wrapping_add(rng.below(7) as u32));
    propagate_transforms(world);

    for _ in 0..2 + rng.below(5) {
        let shift = Affine2::from_translation(Vec2::new(rng.unit(), rng.unit()));
        let e = world.spawn((LocalTransform(shift), GlobalTransform::default()));
        let mask = rng.next();
        if mask & 1 != 0 {
            world.insert(e, Body { x: rng.unit(), y: rng.unit() });
        }
        if mask & 2 != 0 {
            world.insert(e, Spin { w: rng.unit() });
        }
        if mask & 4 != 0 {
            world.insert(e, Heat(rng.below(100) as u32));
        }
        if mask & 8 != 0 {
            world.insert(e, Rank(rng.below(50) as u32));
        }
        if mask & 16 != 0 {
            world.insert(e, Debris(rng.below(9) as u32));
        }
        if mask & 32 != 0
            && let Some(parent) = pick::<&LocalTransform>(world, &mut rng)
            && parent != e
        {
            world.set_parent(e, parent).unwrap();
        }
    }
    for _ in 0..rng.below(4) {
        let (Some(child), Some(parent)) =
            (pick::<&GlobalTransform>(world, &mut rng), pick::<&LocalTransform>(world, &mut rng))
        else {
            break;
        };
        // A cycle is refused, which is part of the run too.
        let _ = world.set_parent(child, parent);
    }
    if let Some(e) = pick::<&Relationship>(world, &mut rng) {
        world.remove_parent(e).unwrap();
    }
    for _ in 0..rng.below(2) {
        if let Some(e) = pick::<&Body>(world, &mut rng) {
            world.despawn(e);
        }
    }
    if rng.below(8) == 0
        && let Some(e) = pick::<&Relationship>(world, &mut rng)
    {
        world.despawn_recursive(e);
    }
    if let Some(e) = pick::<&Spin>(world, &mut rng) {
        if world.contains::<Heat>(e) {
            world.remove::<Heat>(e);
        } else {
            world.insert(e, Heat(number));
        }
    }
    if let Some(e) = pick::<&Debris>(world, &mut rng) {
        world.despawn(e);
    }
    if number.is_multiple_of(7) {
        world.sort_by::<Rank>(|a, b| a.0.cmp(&b.0)).unwrap();
    }
    world.insert_resource(rng);
    world.collect_lazy();
}

/// Runs `before` frames, saves, loads into a fresh world, and runs both `after` more frames,
/// checking after every frame that the two worlds' saves are byte-identical and that every query
/// visits the same entities in the same order.
fn continues_exactly(inner_first: bool, before: u32, after: u32) {
    let registry = registry();
    let mut world = empty_world(inner_first);
    world.insert_resource(Rng(0x9e37_79b9_7f4a_7c15));
    for number in 0..before {
        frame(&mut world, number);
    }
    assert!(!visit::<&Relationship>(&world).is_empty(), "the run has a hierarchy to save");
    let bytes = registry.save_binary(&mut world).unwrap();
    let mut copy = empty_world(inner_first);
    registry.load_binary(&mut copy, &bytes).unwrap();
    assert_eq!(registry.save_binary(&mut copy).unwrap(), bytes, "a loaded world saves as it was saved");
    assert_eq!(orders(&copy), orders(&world), "query order right after loading");
    for number in before..before + after {
        frame(&mut world, number);
        frame(&mut copy, number);
        copy.assert_group_invariants();
        copy.assert_hierarchy_invariants();
        assert_eq!(orders(&copy), orders(&world), "query order after frame {number}");
        assert_eq!(
            registry.save_binary(&mut copy).unwrap(),
            registry.save_binary(&mut world).unwrap(),
            "saves after frame {number}"
        );
    }
    assert_eq!(registry.save_ron(&mut copy).unwrap(), registry.save_ron(&mut world).unwrap());
    assert!(world.len() > 10, "the run keeps a populated world: {}", world.len());
}

/// Frames before and after the snapshot (fewer under Miri).
fn frames() -> (u32, u32) {
    if cfg!(miri) { (6, 8) } else { (40, 100) }
}

#[test]
fn a_loaded_world_continues_exactly_groups_created_outer_first() {
    let (before, after) = frames();
    continues_exactly(false, before, after);
}

#[test]
fn a_loaded_world_continues_exactly_groups_created_inner_first() {
    let (before, after) = frames();
    continues_exactly(true, before, after);
}

/// Saving after any frame (right after a re-sort, with hierarchy changes pending, with empty
/// relationships not yet pruned, ...) continues exactly.
#[test]
fn a_loaded_world_continues_exactly_from_any_frame() {
    let registry = registry();
    let points = if cfg!(miri) { 3 } else { 15 };
    for point in 0..points {
        let mut world = empty_world(false);
        world.insert_resource(Rng(7));
        for number in 0..=point {
            frame(&mut world, number);
        }
        let bytes = registry.save_binary(&mut world).unwrap();
        let mut copy = empty_world(false);
        registry.load_binary(&mut copy, &bytes).unwrap();
        for number in point + 1..point + 6 {
            frame(&mut world, number);
            frame(&mut copy, number);
            assert_eq!(orders(&copy), orders(&world), "saved after frame {point}, frame {number}");
            assert_eq!(
                registry.save_binary(&mut copy).unwrap(),
                registry.save_binary(&mut world).unwrap(),
                "saved after frame {point}, frame {number}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Loading into a world with nested groups.

/// Spawns 40 entities with a `Body`, every second with a `Spin`, and heats every third in
/// reverse (so group order is not spawn order); every value holds `offset + i`, so components of
/// different entities never match. Despawns a few.
fn populate(world: &mut World, offset: u32) {
    let es: Vec<Entity> = (0..40).map(|i| world.spawn(Body { x: (offset + i) as f32, y: 0.0 })).collect();
    for (i, &e) in (0..40).zip(&es).step_by(2) {
        world.insert(e, Spin { w: (offset + i) as f32 });
    }
    for (i, &e) in (0..40).zip(&es).rev().step_by(3) {
        world.insert(e, Heat(offset + i));
    }
    world.despawn(es[4]);
    world.despawn(es[9]);
}

/// Checks the groups are packed and that group-driven queries pair each entity's own components.
fn groups_pair_right(world: &World) {
    world.assert_group_invariants();
    let mut seen = 0;
    world.query_ref::<(Entity, &Body, &Spin, &Heat)>().for_each(|(e, body, spin, heat)| {
        assert_eq!(world.get::<Body>(e), Ok(body), "{e}");
        assert_eq!((body.x, body.x), (*spin.w, heat.0 as f32), "{e}");
        seen += 1;
    });
    world.query_ref::<(Entity, &Body, &Spin)>().for_each(|(e, body, spin)| {
        assert_eq!(world.get::<Body>(e), Ok(body), "{e}");
        assert_eq!(body.x, *spin.w, "{e}");
    });
    let complete = world
        .entities()
        .iter()
        .filter(|&e| world.contains::<Body>(e) && world.contains::<Spin>(e) && world.contains::<Heat>(e))
        .count();
    assert_eq!(seen, complete);
}

#[test]
fn nested_groups_load_in_either_creation_order() {
    let registry = registry();
    for (saved_inner_first, inner_first) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut world = empty_world(saved_inner_first);
        populate(&mut world, 0);
        let bytes = registry.save_binary(&mut world).unwrap();
        // Into an empty world: every order as saved.
        let mut copy = empty_world(inner_first);
        registry.load_binary(&mut copy, &bytes).unwrap();
        groups_pair_right(&copy);
        assert_eq!(orders(&copy), orders(&world), "inner first: {inner_first}");
        assert_eq!(registry.save_binary(&mut copy).unwrap(), bytes, "inner first: {inner_first}");
        // Into a world with members of its own: both sets stay packed.
        let mut other = empty_world(inner_first);
        populate(&mut other, 1000);
        let map = registry.load_binary(&mut other, &bytes).unwrap();
        groups_pair_right(&other);
        for saved in world.entities().iter() {
            let now = map.get(saved).unwrap();
            assert_eq!(other.get::<Body>(now).ok(), world.get::<Body>(saved).ok());
        }
    }
}

#[test]
fn row_orders_that_break_a_group_are_refused_and_change_nothing() {
    let registry = registry();
    // Saved with only the inner group: the members of (Body, Spin) without `Heat` are not first
    // in the saved order of `body`, so no order of it keeps the outer group packed.
    let mut world = World::new();
    world.group::<(Body, Spin, Heat)>();
    populate(&mut world, 0);
    let bytes = registry.save_binary(&mut world).unwrap();
    let text = registry.save_ron(&mut world).unwrap();
    for inner_first in [true, false] {
        for resident in [false, true] {
            let case = format!("inner first: {inner_first}, resident: {resident}");
            let mut target = empty_world(inner_first);
            if resident {
                populate(&mut target, 1000);
            }
            let (len, slots) = (target.len(), target.entities().slot_count());
            let before = registry.save_binary(&mut target).unwrap();
            for result in [registry.load_binary(&mut target, &bytes), registry.load_ron(&mut target, &text)] {
                groups_pair_right(&target);
                match result {
                    Err(SnapshotError::GroupOrder { group, column }) => {
                        assert_eq!(group.len(), 2, "{case}: {group:?}");
                        assert_eq!(column, "body", "{case}");
                    }
                    other => panic!("{case}: expected a group order error, got {other:?}"),
                }
                assert_eq!((target.len(), target.entities().slot_count()), (len, slots), "{case}");
                assert_eq!(registry.save_binary(&mut target).unwrap(), before, "{case}");
            }
        }
    }
    // What the error suggests: load first, then create the groups.
    let mut target = World::new();
    registry.load_binary(&mut target, &bytes).unwrap();
    target.group::<(Body, Spin, Heat)>();
    target.group::<(Body, Spin)>();
    groups_pair_right(&target);
}

//! Hierarchies: every API and error, the invariants under plain despawn and remove, ordering, and
//! transform propagation (feature `transform`); then a model-based property test of random attach / detach / reparent /
//! despawn / recursive despawn sequences against a naive parent map.

use std::collections::HashMap;

#[cfg(feature = "transform")]
use glam::{Affine2, Vec2};
#[cfg(feature = "transform")]
use mosaic::hierarchy::{GlobalTransform, LocalTransform, propagate_transforms};
use mosaic::hierarchy::{HierarchyError, Relationship};
use mosaic::{CommandBuffer, Component, Entity, EntityError, World};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag(u32);

fn spawn_n<const N: usize>(world: &mut World) -> [Entity; N] {
    std::array::from_fn(|i| world.spawn(Tag(i as u32)))
}

fn kids(world: &World, e: Entity) -> Vec<Entity> {
    world.children(e).collect()
}

#[test]
fn attach_detach_and_read() {
    let mut world = World::new();
    let [root, a, b, c, a1] = spawn_n(&mut world);
    for (child, parent) in [(a, root), (b, root), (c, root), (a1, a)] {
        world.set_parent(child, parent).unwrap();
    }
    world.assert_hierarchy_invariants();
    assert_eq!(kids(&world, root), [a, b, c]);
    assert_eq!(world.children(root).len(), 3);
    assert_eq!(world.parent(a1), Some(a));
    assert_eq!(world.parent(root), None);
    assert_eq!(world.ancestors(a1).collect::<Vec<_>>(), [a, root]);
    assert_eq!(world.descendants(root).collect::<Vec<_>>(), [a, a1, b, c]);
    assert_eq!(world.descendants(a1).count(), 0);
    let r = world.get::<Relationship>(b).unwrap();
    assert_eq!((r.parent(), r.prev_sibling(), r.next_sibling()), (Some(root), Some(a), Some(c)));
    let r = world.get::<Relationship>(root).unwrap();
    assert_eq!((r.first_child(), r.last_child(), r.child_count()), (Some(a), Some(c), 3));

    // Setting the same parent again changes nothing.
    world.set_parent(a, root).unwrap();
    assert_eq!(kids(&world, root), [a, b, c]);
    // Detaching the middle child.
    assert_eq!(world.remove_parent(b), Ok(Some(root)));
    assert_eq!(world.remove_parent(b), Ok(None));
    assert_eq!(kids(&world, root), [a, c]);
    assert!(!world.contains::<Relationship>(b), "an entity with no parent and no children is pruned");
    world.assert_hierarchy_invariants();
}

#[test]
fn reparenting_moves_the_subtree() {
    let mut world = World::new();
    let [r1, r2, a, a1, a2] = spawn_n(&mut world);
    world.set_parent(a, r1).unwrap();
    world.set_parent(a1, a).unwrap();
    world.set_parent(a2, a).unwrap();
    world.set_parent(a, r2).unwrap();
    world.assert_hierarchy_invariants();
    assert_eq!(kids(&world, r1), []);
    assert!(!world.contains::<Relationship>(r1), "the old parent, left empty, is pruned");
    assert_eq!(kids(&world, r2), [a]);
    assert_eq!(world.descendants(r2).collect::<Vec<_>>(), [a, a1, a2]);
    assert_eq!(world.ancestors(a2).collect::<Vec<_>>(), [a, r2]);
}

#[test]
fn cycles_are_refused_naming_both() {
    let mut world = World::new();
    let [a, b, c] = spawn_n(&mut world);
    world.set_parent(b, a).unwrap();
    world.set_parent(c, b).unwrap();
    assert_eq!(world.set_parent(a, a), Err(HierarchyError::Cycle { child: a, parent: a }));
    let error = world.set_parent(a, c).unwrap_err();
    assert_eq!(error, HierarchyError::Cycle { child: a, parent: c });
    let message = error.to_string();
    assert!(message.contains(&a.to_string()) && message.contains(&c.to_string()), "{message}");
    assert_eq!(world.set_parent(b, c), Err(HierarchyError::Cycle { child: b, parent: c }));
    // Nothing changed.
    assert_eq!(world.parent(a), None);
    assert_eq!(world.descendants(a).collect::<Vec<_>>(), [b, c]);
    world.assert_hierarchy_invariants();
}

#[test]
fn dead_entities_are_errors() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.despawn(b);
    assert_eq!(world.set_parent(a, b), Err(HierarchyError::Entity(EntityError::NoSuchEntity(b))));
    assert_eq!(world.set_parent(b, a), Err(HierarchyError::Entity(EntityError::NoSuchEntity(b))));
    assert_eq!(world.remove_parent(b), Err(HierarchyError::Entity(EntityError::NoSuchEntity(b))));
    assert_eq!(world.try_despawn_recursive(b), Err(HierarchyError::Entity(EntityError::NoSuchEntity(b))));
    assert!(world.try_despawn_recursive(b).unwrap_err().to_string().contains("does not exist"));
    assert_eq!(world.parent(b), None);
    assert_eq!(world.children(b).count(), 0);
    assert_eq!(world.ancestors(b).count(), 0);
    assert_eq!(world.descendants(b).count(), 0);
}

#[test]
#[should_panic(expected = "cannot despawn recursively")]
fn despawn_recursive_of_a_dead_entity_panics() {
    let mut world = World::new();
    let e = world.spawn_empty();
    world.despawn(e);
    world.despawn_recursive(e);
}

#[test]
fn despawning_a_child_unlinks_it_from_its_siblings() {
    for victim in 0..3 {
        let mut world = World::new();
        let [p, c0, c1, c2] = spawn_n(&mut world);
        let children = [c0, c1, c2];
        for c in children {
            world.set_parent(c, p).unwrap();
        }
        world.despawn(children[victim]);
        world.assert_hierarchy_invariants();
        let expected: Vec<Entity> = children.iter().copied().filter(|&c| c != children[victim]).collect();
        assert_eq!(kids(&world, p), expected, "victim {victim}");
        assert_eq!(world.get::<Relationship>(p).unwrap().child_count(), 2);
    }
}

#[test]
fn despawning_a_parent_makes_its_children_roots() {
    let mut world = World::new();
    let [g, p, c0, c1, x] = spawn_n(&mut world);
    world.set_parent(p, g).unwrap();
    world.set_parent(c0, p).unwrap();
    world.set_parent(c1, p).unwrap();
    world.set_parent(x, c1).unwrap();
    world.despawn(p);
    world.assert_hierarchy_invariants();
    assert_eq!(world.parent(c0), None);
    assert_eq!(world.parent(c1), None);
    assert_eq!(kids(&world, g), []);
    assert_eq!(kids(&world, c1), [x], "grandchildren stay with their parent");
    // Empty relationships left by the hook are pruned by the next ordering pass.
    let report = world.update_hierarchy_order().unwrap();
    assert!(report.pruned >= 2, "{report:?}");
    assert!(!world.contains::<Relationship>(c0) && !world.contains::<Relationship>(g));
    world.assert_hierarchy_invariants();
}

#[test]
fn despawn_recursive_takes_the_subtree_only() {
    let mut world = World::new();
    let [root, a, b, a1, a2, a11] = spawn_n(&mut world);
    for (child, parent) in [(a, root), (b, root), (a1, a), (a2, a), (a11, a1)] {
        world.set_parent(child, parent).unwrap();
    }
    assert_eq!(world.despawn_recursive(a), 4);
    for e in [a, a1, a2, a11] {
        assert!(!world.is_alive(e));
    }
    assert_eq!(kids(&world, root), [b]);
    world.assert_hierarchy_invariants();
    assert_eq!(world.despawn_recursive(root), 2);
    assert!(world.is_empty());
}

#[test]
fn removing_or_replacing_the_relationship_detaches() {
    let mut world = World::new();
    let [p, a, b, c] = spawn_n(&mut world);
    for child in [a, b, c] {
        world.set_parent(child, p).unwrap();
    }
    let removed = world.remove::<Relationship>(b).unwrap();
    assert_eq!((removed.parent(), removed.next_sibling(), removed.child_count()), (None, None, 0));
    assert_eq!(kids(&world, p), [a, c]);
    world.assert_hierarchy_invariants();
    // Replacing a's value with the (empty) removed one detaches a first.
    world.insert(a, removed);
    assert_eq!(kids(&world, p), [c]);
    assert_eq!(world.parent(a), None);
    world.assert_hierarchy_invariants();
    // Removing the parent's relationship detaches its children.
    world.remove::<Relationship>(p);
    assert_eq!(world.parent(c), None);
    world.assert_hierarchy_invariants();
}

#[test]
fn hooks_keep_links_valid_when_siblings_die_in_one_batch() {
    // A user hook despawns two siblings and their parent from one deferred batch: each despawn's
    // unlinking must see the previous one's.
    #[derive(Component)]
    struct Doom([Entity; 3]);
    let mut world = World::new();
    world.on_add::<Doom>(|ctx| {
        let Doom(victims) = *ctx.world.get::<Doom>(ctx.entity).unwrap();
        for v in victims {
            ctx.commands.despawn(v);
        }
    });
    let [p, a, b, c, d] = spawn_n(&mut world);
    for child in [a, b, c, d] {
        world.set_parent(child, p).unwrap();
    }
    let trigger = world.spawn_empty();
    world.insert(trigger, Doom([b, c, a]));
    world.assert_hierarchy_invariants();
    assert_eq!(kids(&world, p), [d]);
    let r = world.get::<Relationship>(d).unwrap();
    assert_eq!((r.prev_sibling(), r.next_sibling()), (None, None));
    // Through a command buffer too.
    let mut commands = CommandBuffer::new();
    commands.despawn(p);
    commands.despawn(d);
    commands.apply(&mut world);
    world.assert_hierarchy_invariants();
}

#[test]
fn stale_handles_reach_nothing() {
    let mut world = World::new();
    let [p, c] = spawn_n(&mut world);
    world.set_parent(c, p).unwrap();
    world.despawn(c);
    let reused = world.spawn(Tag(9));
    assert_eq!(reused.index(), c.index(), "the slot is reused");
    assert_eq!(world.parent(reused), None);
    assert_eq!(kids(&world, p), []);
    world.assert_hierarchy_invariants();
}

#[test]
fn sort_hierarchy_is_depth_first() {
    let mut world = World::new();
    // Children spawned before their parents, so the pool starts out of order.
    let [a1, a2, b1, a, b, root] = spawn_n(&mut world);
    for (child, parent) in [(a1, a), (a2, a), (b1, b), (a, root), (b, root)] {
        world.set_parent(child, parent).unwrap();
    }
    world.sort_hierarchy().unwrap();
    let order: Vec<Entity> = world.query::<(Entity, &Relationship)>().into_iter().map(|(e, _)| e).collect();
    assert_eq!(order, [root, a, a1, a2, b, b1]);
    assert!(world.hierarchy_is_ordered());
    world.assert_hierarchy_invariants();
}

#[test]
fn update_order_re_places_only_dirty_entries() {
    let mut world = World::new();
    // 100 chains of 20 (10 under Miri), each child attached to the previous.
    let n = if cfg!(miri) { 200u32 } else { 2_000 };
    let entities: Vec<Entity> = (0..n).map(|i| world.spawn(Tag(i))).collect();
    for chain in entities.chunks(20) {
        for pair in chain.windows(2) {
            world.set_parent(pair[1], pair[0]).unwrap();
        }
    }
    world.sort_hierarchy().unwrap();
    assert!(world.hierarchy_is_ordered());
    // A root spawned late adopts one chain: only that chain moves.
    let late = world.spawn(Tag(n));
    world.set_parent(entities[0], late).unwrap();
    assert!(!world.hierarchy_is_ordered());
    let report = world.update_hierarchy_order().unwrap();
    assert!(world.hierarchy_is_ordered(), "{report:?}");
    assert!(!report.full_sort && report.swaps > 0 && report.swaps <= 21 * 21, "{report:?}");
    // Nothing dirty: nothing to do.
    assert_eq!(world.update_hierarchy_order().unwrap().swaps, 0);
    // A despawn moves the pool's last row into the hole; the pass puts it back in order.
    world.despawn(entities[n as usize / 4]);
    world.update_hierarchy_order().unwrap();
    assert!(world.hierarchy_is_ordered());
    world.assert_hierarchy_invariants();
}

#[test]
fn grouped_relationship_pool_is_refused() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.set_parent(b, a).unwrap();
    world.group::<(Relationship, Tag)>();
    assert_eq!(world.sort_hierarchy(), Err(HierarchyError::OwnedByGroup));
    assert_eq!(world.update_hierarchy_order(), Err(HierarchyError::OwnedByGroup));
    assert!(HierarchyError::OwnedByGroup.to_string().contains("do not group"));
}

#[cfg(feature = "transform")]
fn shift(x: f32, y: f32) -> LocalTransform {
    LocalTransform(Affine2::from_translation(Vec2::new(x, y)))
}

#[cfg(feature = "transform")]
fn translation(world: &World, e: Entity) -> Vec2 {
    world.get::<GlobalTransform>(e).unwrap().0.translation
}

#[test]
#[cfg(feature = "transform")]
fn transforms_propagate_down_the_tree() {
    let mut world = World::new();
    let with = |world: &mut World, x: f32| world.spawn((shift(x, 0.0), GlobalTransform::default()));
    let leaf = with(&mut world, 100.0);
    let mid = with(&mut world, 10.0);
    let root = with(&mut world, 1.0);
    let lone = with(&mut world, 7.0);
    let pass_through = world.spawn_empty(); // no transforms: passes its parent's through
    let under = with(&mut world, 1000.0);
    world.set_parent(leaf, mid).unwrap();
    world.set_parent(mid, root).unwrap();
    world.set_parent(pass_through, root).unwrap();
    world.set_parent(under, pass_through).unwrap();
    propagate_transforms(&mut world);
    assert_eq!(translation(&world, root), Vec2::new(1.0, 0.0));
    assert_eq!(translation(&world, mid), Vec2::new(11.0, 0.0));
    assert_eq!(translation(&world, leaf), Vec2::new(111.0, 0.0));
    assert_eq!(translation(&world, lone), Vec2::new(7.0, 0.0));
    assert_eq!(translation(&world, under), Vec2::new(1001.0, 0.0));
    // Rotation composes too.
    world.insert(root, LocalTransform(Affine2::from_angle(std::f32::consts::FRAC_PI_2)));
    world.remove_parent(pass_through).unwrap();
    let mut schedule = mosaic::Schedule::new();
    schedule.add_system(propagate_transforms);
    schedule.run(&mut world);
    let leaf_at = translation(&world, leaf);
    assert!((leaf_at - Vec2::new(0.0, 110.0)).length() < 1e-3, "{leaf_at}");
    assert_eq!(translation(&world, under), Vec2::new(1000.0, 0.0));
}

#[test]
#[cfg(feature = "transform")]
fn propagation_matches_a_naive_walk_after_changes() {
    let mut world = World::new();
    // 300 entities over 20 rounds of 30 changes (40 over 4 rounds of 6 under Miri).
    let (n, rounds, changes) = if cfg!(miri) { (40u32, 4, 6) } else { (300, 20, 30) };
    let entities: Vec<Entity> =
        (0..n).map(|i| world.spawn((shift(i as f32, 1.0), GlobalTransform::default()))).collect();
    let mut state = 12345u64;
    let mut random = move |m: u32| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(m)) as u32
    };
    for round in 0..rounds {
        for _ in 0..changes {
            let (c, p) = (entities[random(n) as usize], entities[random(n) as usize]);
            let _ = world.set_parent(c, p);
            if random(4) == 0 {
                world.remove_parent(entities[random(n) as usize]).unwrap();
            }
        }
        propagate_transforms(&mut world);
        assert!(world.hierarchy_is_ordered(), "round {round}");
        for &e in &entities {
            let mut expected = Affine2::IDENTITY;
            for a in std::iter::once(e).chain(world.ancestors(e)) {
                expected = world.get::<LocalTransform>(a).unwrap().0 * expected;
            }
            let got = world.get::<GlobalTransform>(e).unwrap().0;
            assert!((got.translation - expected.translation).length() < 1e-2, "round {round}: {e}");
        }
    }
}

/// Incremental propagation (every call after the first) against a naive walk, for 2D and 3D, under
/// every kind of change it must notice: locals written in place or replaced, globals added,
/// attach, detach, reparent, despawn of parents, recursive despawn, entities leaving the hierarchy.
#[test]
#[cfg(feature = "transform")]
fn incremental_propagation_matches_a_naive_walk() {
    use glam::{Affine3A, Quat, Vec3};
    use mosaic::hierarchy::{GlobalTransform3d, Transform3d, propagate_transforms_3d};
    let mut world = World::new();
    let (n, rounds) = if cfg!(miri) { (30u32, 4) } else { (200, 40) };
    let mut state = 99u64;
    let mut random = move |m: u32| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(m)) as u32
    };
    let t3 = |x: f32, a: f32| Transform3d {
        translation: Vec3::new(x, 1.0, 0.5),
        rotation: Quat::from_rotation_z(a),
        scale: Vec3::splat(1.0 + a / 10.0),
    };
    let mut entities: Vec<Entity> = (0..n)
        .map(|i| {
            let e = world.spawn((shift(i as f32, 1.0), t3(i as f32, 0.1)));
            if i % 5 != 0 {
                world.insert(e, GlobalTransform::default());
                world.insert(e, GlobalTransform3d::default());
            }
            e
        })
        .collect();
    for round in 0..rounds {
        for _ in 0..(n / 10) {
            let pick = |r: u32, es: &Vec<Entity>| es[r as usize % es.len()];
            let e = pick(random(n), &entities);
            match random(9) {
                0 | 1 => {
                    let _ = world.set_parent(e, pick(random(n), &entities));
                }
                2 => {
                    world.remove_parent(e).unwrap();
                }
                3 => world.get_mut::<LocalTransform>(e).unwrap().0.translation.x += 1.0,
                4 => {
                    world.get_mut::<Transform3d>(e).unwrap().rotation *= Quat::from_rotation_x(0.3);
                }
                5 => {
                    world.insert(e, shift(random(50) as f32, 2.0));
                    world.insert(e, t3(random(50) as f32, 0.7));
                }
                6 => {
                    // Remove the globals, or add them back: an added global is computed.
                    if world.contains::<GlobalTransform>(e) {
                        world.remove::<GlobalTransform>(e);
                        world.remove::<GlobalTransform3d>(e);
                    } else {
                        world.insert(e, GlobalTransform::default());
                        world.insert(e, GlobalTransform3d::default());
                    }
                }
                7 if entities.len() > 20 => {
                    world.despawn(e);
                    entities.retain(|&x| x != e);
                    let fresh = world.spawn((shift(3.0, 3.0), t3(3.0, 0.2), GlobalTransform::default()));
                    world.insert(fresh, GlobalTransform3d::default());
                    entities.push(fresh);
                }
                _ if entities.len() > 40 && random(4) == 0 => {
                    world.despawn_recursive(e);
                    entities.retain(|&x| world.is_alive(x));
                }
                _ => {}
            }
        }
        if round % 3 != 2 {
            propagate_transforms(&mut world);
            propagate_transforms_3d(&mut world);
        } else {
            // Through a schedule, as exclusive systems.
            let mut schedule = mosaic::Schedule::new();
            schedule.add_system(propagate_transforms);
            schedule.add_system(propagate_transforms_3d);
            schedule.run(&mut world);
        }
        for &e in &entities {
            let (mut flat, mut solid) = (Affine2::IDENTITY, Affine3A::IDENTITY);
            for a in std::iter::once(e).chain(world.ancestors(e)) {
                flat = world.get::<LocalTransform>(a).unwrap().0 * flat;
                solid = world.get::<Transform3d>(a).unwrap().matrix() * solid;
            }
            if let Ok(got) = world.get::<GlobalTransform>(e) {
                assert!(
                    (got.0.translation - flat.translation).length() < 1e-2,
                    "round {round}: 2D {e}: got {} expected {} ancestors {:?}",
                    got.0.translation,
                    flat.translation,
                    world.ancestors(e).collect::<Vec<_>>()
                );
            }
            if let Ok(got) = world.get::<GlobalTransform3d>(e) {
                assert!((got.0.translation - solid.translation).length() < 1e-2, "round {round}: 3D {e}");
                assert!(got.0.matrix3.abs_diff_eq(solid.matrix3, 1e-3), "round {round}: 3D {e}");
            }
        }
    }
}

/// Incremental propagation over forests whose local and global pools line up with the
/// relationship pool (every node has both transforms), where it recomputes a changed subtree by
/// scanning its rows: laid out depth first (`sort_hierarchy`: each subtree a run of rows), and
/// after moves that leave subtrees split over the pool (parents still first: the scan must notice
/// and walk the links instead), with changed nodes nested inside other changed nodes' subtrees.
/// Dropping either of the scan's layout checks makes this test fail.
#[test]
#[cfg(feature = "transform")]
fn incremental_propagation_over_lined_up_pools_matches_a_naive_walk() {
    use glam::{Affine3A, Quat, Vec3};
    use mosaic::hierarchy::{GlobalTransform3d, Transform3d, propagate_transforms_3d};
    let (trees, size, rounds) = if cfg!(miri) { (3, 12, 3) } else { (8, 60, 12) };
    // 0: depth first; 1: a subtree appended to another tree's root, its rows left in place (the
    // scan meets a closed node whose next sibling is elsewhere); 2: that, and a subtree moved
    // under a later root, re-placed by swaps (parents stay first, subtrees interleave).
    for layout in 0..3u64 {
        let mut world = World::new();
        let mut state = 7u64 + layout;
        let mut random = move |m: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % m as u64) as usize
        };
        let local = |k: usize| Transform3d {
            translation: Vec3::new(1.0, 0.5, 0.1 * k as f32),
            rotation: Quat::from_rotation_z(0.05 * k as f32),
            scale: Vec3::ONE,
        };
        // Spawned level by level: node k of a tree sits on level `k / 6` under a random node of
        // the level above.
        let mut nodes: Vec<Entity> = Vec::new();
        for tree in 0..trees {
            for k in 0..size {
                let e = world.spawn((local(k), GlobalTransform3d::default()));
                if k > 0 {
                    let level = k / 6;
                    let above = if level == 0 { 0..1 } else { (level - 1) * 6..level * 6 };
                    let parent = tree * size + above.start + random(above.len().max(1)).min(k - 1);
                    world.set_parent(e, nodes[parent]).unwrap();
                }
                nodes.push(e);
            }
        }
        world.sort_hierarchy().unwrap();
        // Subtrees move to another tree's root, so no cycle can form. The first propagation then
        // lines the transform pools up with the resulting order.
        if layout >= 1 {
            world.set_parent(nodes[size + 1], nodes[0]).unwrap();
        }
        if layout == 2 {
            world.set_parent(nodes[1], nodes[2 * size]).unwrap();
        }
        if layout >= 1 {
            let report = world.update_hierarchy_order().unwrap();
            assert!(!report.full_sort && (report.swaps > 0) == (layout == 2), "{report:?}");
        }
        propagate_transforms_3d(&mut world);
        for round in 0..rounds {
            // A few changed nodes, some of them inside others' subtrees (near roots and leaves).
            for _ in 0..1 + random(6) {
                let e = nodes[random(nodes.len())];
                world.get_mut::<Transform3d>(e).unwrap().translation.x += 0.25;
            }
            if round % 4 == 3 {
                let root = nodes[(round / 4 % trees) * size]; // the first tree's root first
                world.get_mut::<Transform3d>(root).unwrap().rotation *= Quat::from_rotation_x(0.2);
            }
            propagate_transforms_3d(&mut world);
            for &e in &nodes {
                let mut expected = Affine3A::IDENTITY;
                for a in std::iter::once(e).chain(world.ancestors(e)) {
                    expected = world.get::<Transform3d>(a).unwrap().matrix() * expected;
                }
                let got = world.get::<GlobalTransform3d>(e).unwrap().0;
                assert!(
                    got.abs_diff_eq(expected, 1e-3),
                    "layout {layout}, round {round}: {e}: got {got:?}, expected {expected:?}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Model-based property test.

/// Longest operation sequence (short under Miri).
const MAX_OPS: usize = if cfg!(miri) { 16 } else { 120 };

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    SetParent(usize, usize),
    RemoveParent(usize),
    Despawn(usize),
    DespawnRecursive(usize),
    RemoveRelationship(usize),
    Order,
    Sort,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Spawn),
        6 => (any::<usize>(), any::<usize>()).prop_map(|(c, p)| Op::SetParent(c, p)),
        1 => any::<usize>().prop_map(Op::RemoveParent),
        1 => any::<usize>().prop_map(Op::Despawn),
        1 => any::<usize>().prop_map(Op::DespawnRecursive),
        1 => any::<usize>().prop_map(Op::RemoveRelationship),
        1 => Just(Op::Order),
        1 => Just(Op::Sort),
    ]
}

/// The naive model: every handle ever spawned, whether it is alive, and each live entity's
/// parent; children in attach order per parent (to check sibling order too).
#[derive(Default)]
struct Model {
    handles: Vec<Entity>,
    alive: HashMap<Entity, bool>,
    parent: HashMap<Entity, Option<Entity>>,
    children: HashMap<Entity, Vec<Entity>>,
}

impl Model {
    fn pick(&self, i: usize) -> Option<Entity> {
        (!self.handles.is_empty()).then(|| self.handles[i % self.handles.len()])
    }

    fn is_alive(&self, e: Entity) -> bool {
        self.alive.get(&e).copied().unwrap_or(false)
    }

    fn detach(&mut self, e: Entity) {
        if let Some(Some(p)) = self.parent.insert(e, None) {
            self.children.get_mut(&p).unwrap().retain(|&c| c != e);
        }
    }

    fn orphan_children(&mut self, e: Entity) {
        for c in self.children.remove(&e).unwrap_or_default() {
            self.parent.insert(c, None);
        }
    }

    fn subtree(&self, e: Entity) -> Vec<Entity> {
        let mut out = vec![e];
        for &c in self.children.get(&e).map_or(&[][..], |v| v) {
            out.extend(self.subtree(c));
        }
        out
    }

    fn kill(&mut self, e: Entity) {
        self.detach(e);
        self.orphan_children(e);
        self.alive.insert(e, false);
        self.parent.remove(&e);
    }

    fn is_ancestor_or_self(&self, a: Entity, mut e: Entity) -> bool {
        loop {
            if e == a {
                return true;
            }
            match self.parent.get(&e).copied().flatten() {
                Some(p) => e = p,
                None => return false,
            }
        }
    }
}

fn check(world: &World, model: &Model) -> Result<(), TestCaseError> {
    world.assert_hierarchy_invariants();
    for &e in &model.handles {
        prop_assert_eq!(world.is_alive(e), model.is_alive(e));
        if !model.is_alive(e) {
            prop_assert_eq!(world.parent(e), None);
            prop_assert_eq!(world.children(e).count(), 0);
            continue;
        }
        prop_assert_eq!(world.parent(e), model.parent.get(&e).copied().flatten(), "parent of {}", e);
        let expected = model.children.get(&e).cloned().unwrap_or_default();
        prop_assert_eq!(world.children(e).collect::<Vec<_>>(), expected, "children of {}", e);
        let mut pre_order = model.subtree(e);
        pre_order.remove(0);
        prop_assert_eq!(world.descendants(e).collect::<Vec<_>>(), pre_order, "descendants of {}", e);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 128 }))]

    #[test]
    fn hierarchy_matches_a_parent_map(ops in prop::collection::vec(op(), 1..MAX_OPS)) {
        let mut world = World::new();
        let mut model = Model::default();
        for op in ops {
            match op {
                Op::Spawn => {
                    let e = world.spawn(Tag(model.handles.len() as u32));
                    model.handles.push(e);
                    model.alive.insert(e, true);
                    model.parent.insert(e, None);
                }
                Op::SetParent(c, p) => {
                    let (Some(c), Some(p)) = (model.pick(c), model.pick(p)) else { continue };
                    let result = world.set_parent(c, p);
                    if !model.is_alive(c) {
                        prop_assert_eq!(result, Err(HierarchyError::Entity(EntityError::NoSuchEntity(c))));
                    } else if !model.is_alive(p) {
                        prop_assert_eq!(result, Err(HierarchyError::Entity(EntityError::NoSuchEntity(p))));
                    } else if model.is_ancestor_or_self(c, p) {
                        prop_assert_eq!(result, Err(HierarchyError::Cycle { child: c, parent: p }));
                    } else {
                        prop_assert_eq!(result, Ok(()));
                        if model.parent[&c] != Some(p) {
                            model.detach(c);
                            model.parent.insert(c, Some(p));
                            model.children.entry(p).or_default().push(c);
                        }
                    }
                }
                Op::RemoveParent(c) => {
                    let Some(c) = model.pick(c) else { continue };
                    let result = world.remove_parent(c);
                    if model.is_alive(c) {
                        prop_assert_eq!(result, Ok(model.parent[&c]));
                        model.detach(c);
                    } else {
                        prop_assert_eq!(result, Err(HierarchyError::Entity(EntityError::NoSuchEntity(c))));
                    }
                }
                Op::Despawn(e) => {
                    let Some(e) = model.pick(e) else { continue };
                    prop_assert_eq!(world.try_despawn(e).is_ok(), model.is_alive(e));
                    if model.is_alive(e) {
                        model.kill(e);
                    }
                }
                Op::DespawnRecursive(e) => {
                    let Some(e) = model.pick(e) else { continue };
                    let result = world.try_despawn_recursive(e);
                    if model.is_alive(e) {
                        let doomed = model.subtree(e);
                        prop_assert_eq!(result, Ok(doomed.len()));
                        for d in doomed.into_iter().rev() {
                            model.kill(d);
                        }
                    } else {
                        prop_assert_eq!(result, Err(HierarchyError::Entity(EntityError::NoSuchEntity(e))));
                    }
                }
                Op::RemoveRelationship(e) => {
                    let Some(e) = model.pick(e) else { continue };
                    if model.is_alive(e) {
                        world.remove::<Relationship>(e);
                        model.detach(e);
                        model.orphan_children(e);
                    }
                }
                Op::Order => {
                    world.update_hierarchy_order().unwrap();
                    prop_assert!(world.hierarchy_is_ordered());
                }
                Op::Sort => {
                    world.sort_hierarchy().unwrap();
                    prop_assert!(world.hierarchy_is_ordered());
                }
            }
            check(&world, &model)?;
        }
        world.update_hierarchy_order().unwrap();
        prop_assert!(world.hierarchy_is_ordered());
        check(&world, &model)?;
    }
}

//! bevy_ecs's change-detection tests (`lib.rs`'s trackers and `change_detection/mod.rs`), ported
//! to Mosaic's API where `change_detection.rs` and `ref_items.rs` do not already cover them. Each
//! test is named after the bevy test it ports.
//!
//! Differences Mosaic documents and these tests keep: change tracking is opt-in per type
//! (`#[component(track_changes)]`, see `query/change.rs`), so every type read by `Added` /
//! `Changed` here declares it; a world-level query's window is "since `World::clear_trackers`"
//! as in bevy. bevy's `world.despawn(e)` returns a `bool`, Mosaic's `try_despawn` a `Result`.
//! bevy's `EntityWorldMut::remove::<(A, B, C)>` removes what is present; Mosaic's `remove` takes
//! a bundle out whole, so that port uses `remove_present`.

use std::collections::HashSet;

use mosaic::query::QueryFilter;
use mosaic::{Added, Changed, Component, Entity, Mut, Query, Ref, Schedule, Single, World};

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(track_changes)]
struct A(usize);
#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(track_changes)]
struct B(usize);
#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct C;
// bevy's `SparseStored`: every Mosaic component is a sparse set.
#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(track_changes)]
struct SparseStored(u32);

fn get_filtered<F: QueryFilter>(world: &mut World) -> HashSet<Entity> {
    world.query_filtered::<Entity, F>().into_iter().collect()
}

fn set(entities: &[Entity]) -> HashSet<Entity> {
    entities.iter().copied().collect()
}

// bevy: remove_tracking
#[test]
fn remove_tracking() {
    let mut world = World::new();
    let a = world.spawn((SparseStored(0), A(123)));
    let b = world.spawn((SparseStored(1), A(123)));
    world.despawn(a);
    assert_eq!(world.removed::<A>().iter().collect::<Vec<_>>(), [a], "despawning removes every component");
    assert_eq!(world.removed::<SparseStored>().iter().collect::<Vec<_>>(), [a]);

    world.insert(b, B(1));
    assert_eq!(
        world.removed::<A>().iter().collect::<Vec<_>>(),
        [a],
        "adding another component removes nothing"
    );

    world.remove::<A>(b);
    assert_eq!(world.removed::<A>().iter().collect::<Vec<_>>(), [a, b], "removing a component is a removal");

    world.clear_trackers();
    assert_eq!(world.removed::<A>().iter().count(), 0, "clearing trackers clears removals");
    assert_eq!(world.removed::<SparseStored>().iter().count(), 0);
    assert_eq!(world.removed::<B>().iter().count(), 0);
}

// bevy: added_tracking
#[test]
fn added_tracking() {
    let mut world = World::new();
    let a = world.spawn(A(123));
    for _ in 0..2 {
        assert_eq!(world.query::<&A>().iter().count(), 1);
        assert_eq!(world.query_filtered::<(), Added<A>>().iter().count(), 1);
        assert!(world.query::<&A>().get(a).is_ok());
        assert!(world.query_filtered::<(), Added<A>>().get(a).is_ok());
    }
    world.clear_trackers();
    for _ in 0..2 {
        assert_eq!(world.query::<&A>().iter().count(), 1);
        assert_eq!(world.query_filtered::<(), Added<A>>().iter().count(), 0);
        assert!(world.query::<&A>().get(a).is_ok());
        assert!(world.query_filtered::<(), Added<A>>().get(a).is_err());
    }
}

// bevy: added_queries
#[test]
fn added_queries() {
    let mut world = World::new();
    let e1 = world.spawn(A(0));
    fn get_added<T: Component>(world: &mut World) -> Vec<Entity> {
        world.query_filtered::<Entity, Added<T>>().into_iter().collect()
    }
    assert_eq!(get_added::<A>(&mut world), vec![e1]);
    world.insert(e1, B(0));
    assert_eq!(get_added::<A>(&mut world), vec![e1]);
    assert_eq!(get_added::<B>(&mut world), vec![e1]);

    world.clear_trackers();
    assert!(get_added::<A>(&mut world).is_empty());
    let e2 = world.spawn((A(1), B(1)));
    assert_eq!(get_added::<A>(&mut world), vec![e2]);
    assert_eq!(get_added::<B>(&mut world), vec![e2]);
    let added: Vec<Entity> = world.query_filtered::<Entity, (Added<A>, Added<B>)>().into_iter().collect();
    assert_eq!(added, vec![e2]);
}

// bevy: changed_trackers
#[test]
fn changed_trackers() {
    let mut world = World::new();
    let e1 = world.spawn((A(0), B(0)));
    let e2 = world.spawn((A(0), B(0)));
    let e3 = world.spawn((A(0), B(0)));
    world.spawn((A(0), B(0)));
    world.clear_trackers();

    // bevy changes every other entity in its (spawn) order; Mosaic's order is arbitrary, so
    // this changes e1 and e3 by name.
    for (entity, a) in world.query::<(Entity, Mut<A>)>() {
        if entity == e1 || entity == e3 {
            a.into_inner().0 += 1;
        }
    }
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e1, e3]));

    world.insert(e1, C);
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e1, e3]), "adding C does not change A");

    world.insert_bundle(e1, (A(0), B(0)));
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e1, e3]), "replacing A keeps it changed");

    world.try_despawn(e2).unwrap();
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e1, e3]), "despawning an unchanged entity");

    world.try_despawn(e1).unwrap();
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e3]), "a despawned entity is not yielded");

    world.clear_trackers();
    assert!(get_filtered::<Changed<A>>(&mut world).is_empty());
    let e5 = world.spawn_empty();
    world.insert(e5, A(0));
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e5]));
    assert_eq!(get_filtered::<Added<A>>(&mut world), set(&[e5]));
    world.insert(e5, A(1));
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e5]));

    world.clear_trackers();
    // Inserting several components marks every one changed, and added those that were missing.
    world.insert_bundle(e5, (A(0), B(0)));
    assert!(get_filtered::<Added<A>>(&mut world).is_empty());
    assert_eq!(get_filtered::<Changed<A>>(&mut world), set(&[e5]));
    assert_eq!(get_filtered::<Added<B>>(&mut world), set(&[e5]));
    assert_eq!(get_filtered::<Changed<B>>(&mut world), set(&[e5]));
}

// bevy: changed_trackers_sparse
#[test]
fn changed_trackers_sparse() {
    let mut world = World::new();
    let e1 = world.spawn(SparseStored(0));
    let e2 = world.spawn(SparseStored(0));
    let e3 = world.spawn(SparseStored(0));
    world.spawn(SparseStored(0));
    world.clear_trackers();
    for (entity, mut value) in world.query::<(Entity, Mut<SparseStored>)>() {
        if entity == e1 || entity == e3 {
            value.0 += 1;
        }
    }
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e1, e3]));
    world.insert(e1, C);
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e1, e3]));
    world.insert(e1, SparseStored(0));
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e1, e3]));
    world.try_despawn(e2).unwrap();
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e1, e3]));
    world.try_despawn(e1).unwrap();
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e3]));

    world.clear_trackers();
    assert!(get_filtered::<Changed<SparseStored>>(&mut world).is_empty());
    let e4 = world.spawn_empty();
    world.insert(e4, SparseStored(0));
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e4]));
    assert_eq!(get_filtered::<Added<SparseStored>>(&mut world), set(&[e4]));
    world.insert(e4, A(1));
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e4]));
    world.clear_trackers();
    world.insert(e4, SparseStored(0));
    assert!(get_filtered::<Added<SparseStored>>(&mut world).is_empty());
    assert_eq!(get_filtered::<Changed<SparseStored>>(&mut world), set(&[e4]));
}

// bevy: changed_query
#[test]
fn changed_query() {
    let mut world = World::new();
    let e1 = world.spawn((A(0), B(0)));
    fn get_changed(world: &mut World) -> Vec<Entity> {
        world.query_filtered::<Entity, Changed<A>>().into_iter().collect()
    }
    assert_eq!(get_changed(&mut world), vec![e1]);
    world.clear_trackers();
    assert_eq!(get_changed(&mut world), vec![]);
    *world.get_mut::<A>(e1).unwrap() = A(1);
    assert_eq!(get_changed(&mut world), vec![e1]);
}

// bevy: change_detected (the first half of change_expiration: a system sees a spawn made
// before its first run). The second half ages the world's tick past `MAX_CHANGE_AGE` through
// private fields; Mosaic's wraparound is covered by `change_detection::narrow_clock_wraps_like_bevy`.
#[test]
fn change_detected() {
    #[derive(Component)]
    #[component(track_changes)]
    struct Tracked;
    #[derive(Default)]
    struct Seen(Vec<bool>);

    fn change_detected(query: Option<Single<Ref<Tracked>>>, mut seen: mosaic::ResMut<Seen>) {
        seen.0.push(query.unwrap().is_changed());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.spawn(Tracked);
    let mut schedule = Schedule::new();
    schedule.add_system(change_detected);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [true, false], "seen on the first run only");
}

// bevy: set_if_neq (on a component through `Mut`, and on a resource through `ResMut`: Mosaic's
// `World::resource_mut` hands out a plain `&mut R`)
#[test]
fn set_if_neq() {
    #[derive(Component, PartialEq)]
    #[component(track_changes)]
    struct R2(u8);

    let mut world = World::new();
    let e = world.spawn(R2(0));
    world.clear_trackers();
    {
        let mut query = world.query::<Mut<R2>>();
        let mut r = query.get_mut(e).unwrap();
        assert!(!r.is_changed(), "the value begins unchanged");
        assert!(!r.set_if_neq(R2(0)));
        assert!(!r.is_changed(), "setting the same value does not change it");
        assert!(r.set_if_neq(R2(3)));
        assert!(r.is_changed(), "setting a different value changes it");
    }
    assert_eq!(get_filtered::<Changed<R2>>(&mut world), set(&[e]));

    #[derive(PartialEq, Default)]
    struct Res2(u8);
    fn write(mut r: mosaic::ResMut<Res2>, mut runs: mosaic::Local<u32>) {
        *runs += 1;
        if *runs == 2 {
            assert!(!r.is_changed(), "the resource begins unchanged");
            r.set_if_neq(Res2(0));
            assert!(!r.is_changed(), "setting the same value does not change it");
            r.set_if_neq(Res2(3));
            assert!(r.is_changed(), "setting a different value changes it");
        }
    }
    world.init_resource::<Res2>();
    let mut schedule = Schedule::new();
    schedule.add_system(write);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Res2>().0, 3);
}

// bevy: change_tick_wraparound (in spirit: bevy sets private tick fields; this checks through
// the public API that a `Ref` reports a later write's tick and sees it as changed, not added)
#[test]
fn change_tick_wraparound() {
    let mut world = World::new();
    let e = world.spawn(A(0));
    let added = world.query_ref::<Ref<A>>().single().last_changed().unwrap();
    world.clear_trackers();
    world.increment_change_tick();
    world.get_mut::<A>(e).unwrap().0 = 1;
    let query = world.query_ref::<Ref<A>>();
    let item = query.single();
    assert!(item.is_changed());
    assert!(!item.is_added());
    let changed = item.last_changed().unwrap();
    // A fresh world's clock is far from wrapping, so raw values compare.
    assert!(changed.get() > added.get(), "{changed:?} after {added:?}");
}

// bevy: changed_resource_system (system/mod.rs)
#[test]
fn changed_resource_system() {
    struct Flipper(bool);
    struct Added(usize);
    struct Changed(usize);
    fn incr_e_on_flip(
        value: mosaic::Res<Flipper>,
        mut changed: mosaic::ResMut<Changed>,
        mut added: mosaic::ResMut<Added>,
    ) {
        if value.is_added() {
            added.0 += 1;
        }
        if value.is_changed() {
            changed.0 += 1;
        }
    }
    let mut world = World::new();
    world.insert_resource(Flipper(false));
    world.insert_resource(Added(0));
    world.insert_resource(Changed(0));
    let mut schedule = Schedule::new();
    schedule.add_system(incr_e_on_flip);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Added>().0, 1);
    assert_eq!(world.resource::<Changed>().0, 1);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Added>().0, 1);
    assert_eq!(world.resource::<Changed>().0, 1);
    world.resource_mut::<Flipper>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Added>().0, 1);
    assert_eq!(world.resource::<Changed>().0, 2);
}

// bevy: system_state_change_detection (system/mod.rs): a system's `Changed` query sees the
// changes made since it last ran, each once.
#[test]
fn system_state_change_detection() {
    #[derive(Default)]
    struct Counts(Vec<usize>);
    fn count(query: Query<(), Changed<A>>, mut counts: mosaic::ResMut<Counts>) {
        counts.0.push(query.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Counts>();
    let e = world.spawn(A(0));
    world.spawn(A(0));
    let mut schedule = Schedule::new();
    schedule.add_system(count);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<A>(e).unwrap().0 = 5;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counts>().0, [2, 0, 1]);
}

// bevy: removal_tracking (system/mod.rs). Two documented differences: a `RemovedComponents<T>`
// reader opens its window when it is first set up (removals made before are never seen, so the
// system is in a schedule run once before the removals, where bevy runs fresh one-shot systems),
// and it sees each removal once since its last run (bevy double-buffers removal events, so its
// second system sees the earlier despawn again).
#[test]
fn removal_tracking() {
    #[derive(Component, Debug, PartialEq)]
    #[component(track_changes)]
    struct W(i32);
    #[derive(Default)]
    struct Seen(Vec<Vec<Entity>>);

    fn record(removed: mosaic::RemovedComponents<W>, mut seen: mosaic::ResMut<Seen>) {
        seen.0.push(removed.iter().collect());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_system(record);
    schedule.run(&mut world);

    let entity_to_despawn = world.spawn(W(1));
    let entity_to_remove_w_from = world.spawn(W(2));
    let spurious_entity = world.spawn_empty();
    world.despawn(entity_to_despawn);
    world.despawn(spurious_entity);
    schedule.run(&mut world);

    world.clear_trackers();
    world.spawn(W(3));
    world.spawn(W(4));
    world.remove::<W>(entity_to_remove_w_from);
    schedule.run(&mut world);

    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[0], [], "nothing removed before the first run");
    assert_eq!(seen[1], [entity_to_despawn], "a despawn is a removal; an entity without W is not");
    assert_eq!(seen[2], [entity_to_remove_w_from], "removing the component is a removal");
}

//! Disabling entities (`Disabled`, bevy 0.16's default query filters; flecs' `EcsDisabled`):
//! every query path skips a disabled entity unless the query names the marker, and then its own
//! terms decide; direct access still reaches it. Also `World::take` (hecs' `take`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::{
    Changed, ChunkedCommands, Component, ComponentError, Disabled, Entity, ExecutorKind, Has, Populated,
    Query, QueryData, QueryError, ResMut, Schedule, Single, With, Without, World,
};

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
#[component(track_changes)]
struct Speed(u32);

#[derive(Component)]
struct Player;

#[derive(Component)]
struct Prefab;

/// Three entities with `Health`, the middle one disabled.
fn three_one_disabled() -> (World, [Entity; 3]) {
    let mut world = World::new();
    let es = [Health(1), Health(2), Health(3)].map(|h| world.spawn(h));
    world.insert(es[1], Disabled);
    (world, es)
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

#[test]
fn filtered_by_default() {
    // bevy: `filters_disabled` / flecs: a disabled entity is not matched.
    let (mut world, [a, _, c]) = three_one_disabled();
    let q = world.query::<(Entity, &Health)>();
    let mut seen: Vec<Entity> = q.iter().map(|(e, _)| e).collect();
    seen.sort();
    let mut want = vec![a, c];
    want.sort();
    assert_eq!(seen, want);
    assert_eq!(q.count(), 2);
    assert!(!q.is_empty());
    let mut n = 0;
    q.for_each(|_| n += 1);
    assert_eq!(n, 2);
    // By value and through `&mut`: the mutable forms skip too.
    let total: u32 = world.query::<&mut Health>().into_iter().map(|h| h.0).sum();
    assert_eq!(total, 4);
    let mut q = world.query::<&mut Health>();
    let mut visited = 0;
    q.for_each(|h| {
        h.0 += 10;
        visited += 1;
    });
    assert_eq!(visited, 2);
    assert_eq!(world.get::<Health>(a).unwrap().0, 11);
}

#[test]
fn a_world_without_disabled_entities_sees_everything() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    world.spawn(Health(2));
    world.disable(e);
    world.enable(e); // the pool exists but is empty again
    assert_eq!(world.query::<&Health>().count(), 2);
    assert_eq!(world.query::<&Health>().iter().count(), 2);
}

#[test]
fn naming_the_marker_sees_disabled_entities() {
    // bevy: a query that mentions `Disabled` in any term sees them, its terms decide.
    let (mut world, [a, b, c]) = three_one_disabled();
    let has: Vec<(u32, bool)> = {
        let mut v: Vec<_> = world.query::<(&Health, Has<Disabled>)>().iter().map(|(h, d)| (h.0, d)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(has, [(1, false), (2, true), (3, false)]);
    assert_eq!(world.query::<(&Health, Option<&Disabled>)>().count(), 3);
    let only: Vec<u32> = world.query_filtered::<&Health, With<Disabled>>().iter().map(|h| h.0).collect();
    assert_eq!(only, [2]);
    assert_eq!(world.query::<(Entity, &Disabled)>().single().0, b);
    // `Without<Disabled>` names it too: the same set as the default, by its own term.
    let without = sorted(world.query_filtered::<&Health, Without<Disabled>>().iter().map(|h| h.0).collect());
    assert_eq!(without, [1, 3]);
    assert!(world.query::<Has<Disabled>>().get(b).unwrap());
    assert!(!world.query::<Has<Disabled>>().get(a).unwrap());
    let _ = c;
}

#[test]
fn enabling_brings_an_entity_back() {
    let (mut world, [_, b, _]) = three_one_disabled();
    assert!(world.is_disabled(b));
    assert_eq!(world.query::<&Health>().count(), 2);
    world.enable(b);
    assert!(!world.is_disabled(b));
    assert_eq!(world.query::<&Health>().count(), 3);
    // `remove::<Disabled>` is the same operation.
    world.disable(b);
    world.disable(b); // twice: still one marker
    assert_eq!(world.query::<&Health>().count(), 2);
    assert_eq!(world.remove::<Disabled>(b), Some(Disabled));
    assert_eq!(world.query::<&Health>().count(), 3);
}

#[test]
fn direct_access_reaches_a_disabled_entity() {
    let (mut world, [_, b, _]) = three_one_disabled();
    assert_eq!(world.get::<Health>(b), Ok(&Health(2)));
    world.get_mut::<Health>(b).unwrap().0 = 20;
    assert_eq!(world.entity(b).get::<Health>(), Ok(&Health(20)));
    assert!(world.contains::<Health>(b));
}

#[test]
fn get_on_a_query_errors_for_a_disabled_entity() {
    // bevy: `Query::get` on a disabled entity is a `QueryDoesNotMatch` error.
    let (mut world, [a, b, _]) = three_one_disabled();
    let q = world.query::<&Health>();
    assert!(matches!(q.get(b), Err(QueryError::NoMatch { entity, .. }) if entity == b));
    assert_eq!(q.get(a).unwrap().0, 1);
    assert!(!q.contains(b));
    assert!(matches!(q.get_many([a, b]), Err(QueryError::NoMatch { .. })));
    assert_eq!(q.iter_many([b, a, b]).count(), 1);
    let mut q = world.query::<&mut Health>();
    assert!(q.get_mut(b).is_err());
    assert!(q.get_many_mut([a, b]).is_err());
    let mut walk = q.iter_many_mut([b, a]);
    assert_eq!(walk.fetch_next().map(|h| h.0), Some(1));
    assert!(walk.fetch_next().is_none());
    // Naming the marker: found.
    assert_eq!(world.query::<(&Health, Has<Disabled>)>().get(b).unwrap().0.0, 2);
}

#[test]
fn count_and_is_empty_skip_disabled_entities() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    world.disable(e);
    assert_eq!(world.query::<&Health>().count(), 0);
    assert!(world.query::<&Health>().is_empty());
    assert!(world.query::<Entity>().is_empty(), "a query requiring nothing skips it too");
    assert_eq!(world.query::<Entity>().iter().count(), 0);
    assert_eq!(world.query::<Entity>().count(), 0);
    assert_eq!(world.query::<(Entity, Has<Disabled>)>().count(), 1);
    assert!(matches!(world.query::<&Health>().try_single(), Err(QueryError::NoEntities { .. })));
}

#[test]
fn single_ignores_a_disabled_second_match() {
    // bevy: `Single` with a disabled second match still runs on the enabled one.
    let mut world = World::new();
    let player = world.spawn((Player, Health(1)));
    let other = world.spawn((Player, Health(100)));
    world.disable(other);
    assert_eq!(world.query_filtered::<&Health, With<Player>>().single().0, 1);

    fn heal(mut health: Single<&mut Health, With<Player>>, mut runs: ResMut<usize>) {
        health.0 += 1;
        *runs += 1;
    }
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        world.insert_resource(0usize);
        let mut schedule = Schedule::new();
        schedule.set_executor(executor);
        schedule.add_system(heal);
        schedule.run(&mut world);
        assert_eq!(*world.resource::<usize>(), 1, "ran on the one enabled player");
    }
    assert_eq!(world.get::<Health>(player), Ok(&Health(3)));
    assert_eq!(world.get::<Health>(other), Ok(&Health(100)));
    world.enable(other);
    world.insert_resource(0usize);
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
    schedule.run(&mut world);
    assert_eq!(*world.resource::<usize>(), 0, "two players: skipped");
}

#[test]
fn systems_in_a_schedule_skip_disabled_entities() {
    fn damage(mut q: Query<&mut Health>) {
        for h in q.iter_mut() {
            h.0 += 1;
        }
    }
    fn count_all(q: Query<(&Health, Has<Disabled>)>, mut seen: ResMut<usize>) {
        *seen = q.count();
    }
    fn populated(_q: Populated<&Health>, mut runs: ResMut<u32>) {
        *runs += 1;
    }
    let (mut world, [a, b, c]) = three_one_disabled();
    world.insert_resource(0usize);
    world.insert_resource(0u32);
    let mut schedule = Schedule::new();
    schedule.add_system(damage);
    schedule.add_system(count_all);
    schedule.add_system(populated);
    schedule.run(&mut world);
    assert_eq!([a, b, c].map(|e| world.get::<Health>(e).unwrap().0), [2, 2, 4]);
    assert_eq!(*world.resource::<usize>(), 3, "a system naming the marker sees all");
    assert_eq!(*world.resource::<u32>(), 1);
    world.disable(a);
    world.disable(c);
    schedule.run(&mut world);
    assert_eq!(*world.resource::<u32>(), 1, "`Populated` with only disabled matches: skipped");
    assert_eq!([a, b, c].map(|e| world.get::<Health>(e).unwrap().0), [2, 2, 4]);
}

#[test]
fn par_for_each_skips_disabled_entities() {
    // Under Miri, a smaller variant: 300 entities (the parallel paths still run).
    let n = if cfg!(miri) { 300 } else { 10_000 };
    let mut world = World::new();
    let es: Vec<Entity> = (0..n).map(|i| world.spawn(Health(i))).collect();
    for &e in es.iter().step_by(3) {
        world.disable(e);
    }
    let enabled = n as usize - es.iter().step_by(3).count();
    let visited = AtomicUsize::new(0);
    world.query::<&mut Health>().par_for_each(|h| {
        h.0 = u32::MAX;
        visited.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(visited.load(Ordering::Relaxed), enabled);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(world.get::<Health>(e).unwrap().0 == u32::MAX, i % 3 != 0, "entity {i}");
    }
    let visited = AtomicUsize::new(0);
    world.query::<&Health>().par_for_each_with_min_chunk(64, |_| {
        visited.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(visited.load(Ordering::Relaxed), enabled);

    // The deferred form, and the folds.
    let mut commands = ChunkedCommands::new();
    world
        .query::<(Entity, &Health)>()
        .par_for_each_deferred(&mut commands, |(e, _), buffer| buffer.insert(e, Player));
    commands.apply(&mut world);
    assert_eq!(world.query_filtered::<Entity, With<Player>>().count(), enabled);
    assert_eq!(world.query::<&Health>().par_count(), enabled);
    let folded = world.query::<&Health>().par_fold(|| 0usize, |n, _| n + 1, |a, b| a + b);
    assert_eq!(folded, enabled);
    assert_eq!(world.query::<(&Health, Has<Disabled>)>().par_count(), n as usize);
}

#[test]
fn chunks_and_combinations_skip_disabled_entities() {
    let (mut world, _) = three_one_disabled();
    let mut rows = 0;
    world.query::<&Health>().for_each_chunk(|chunk| rows += chunk.len());
    assert_eq!(rows, 2);
    let pairs = world.query::<&Health>().iter_combinations::<2>().count();
    assert_eq!(pairs, 1);
    let pairs = world.query::<(&Health, Has<Disabled>)>().iter_combinations::<2>().count();
    assert_eq!(pairs, 3);
}

#[test]
fn change_detection_queries_skip_disabled_entities() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..100).map(|i| world.spawn(Speed(i))).collect();
    world.clear_trackers();
    world.get_mut::<Speed>(es[0]).unwrap().0 = 1000;
    world.get_mut::<Speed>(es[1]).unwrap().0 = 1001;
    world.disable(es[1]);
    // Few changes: the walk over the change log.
    let changed: Vec<u32> = world.query_filtered::<&Speed, Changed<Speed>>().iter().map(|s| s.0).collect();
    assert_eq!(changed, [1000]);
    assert_eq!(world.query_filtered::<&Speed, Changed<Speed>>().count(), 1);
    let mut n = 0;
    world.query_filtered::<&Speed, Changed<Speed>>().for_each(|_| n += 1);
    assert_eq!(n, 1);
    let both = world.query_filtered::<(&Speed, Has<Disabled>), Changed<Speed>>().count();
    assert_eq!(both, 2);
}

#[test]
fn watches_see_disabling_as_leaving() {
    let mut world = World::new();
    let inside = Arc::new(AtomicUsize::new(0));
    let (enter, leave) = (inside.clone(), inside.clone());
    world.watch::<&Health, ()>(
        move |_| {
            enter.fetch_add(1, Ordering::Relaxed);
        },
        move |_| {
            leave.fetch_sub(1, Ordering::Relaxed);
        },
    );
    let e = world.spawn(Health(1));
    assert_eq!(inside.load(Ordering::Relaxed), 1);
    world.disable(e);
    assert_eq!(inside.load(Ordering::Relaxed), 0);
    world.enable(e);
    assert_eq!(inside.load(Ordering::Relaxed), 1);
}

#[derive(QueryData)]
struct WithFlag<'w> {
    health: &'w Health,
    disabled: Option<&'w Disabled>,
}

#[test]
fn a_derived_query_naming_the_marker_sees_disabled_entities() {
    let (mut world, _) = three_one_disabled();
    let flags: Vec<bool> = world.query::<WithFlag>().iter().map(|w| w.disabled.is_some()).collect();
    assert_eq!(flags.len(), 3);
    assert_eq!(flags.iter().filter(|&&d| d).count(), 1);
    let _ = world.query::<WithFlag>().iter().map(|w| w.health.0).sum::<u32>();
}

#[test]
fn registered_disabling_components_are_default_filters_too() {
    // bevy: `World::register_disabling_component`.
    let mut world = World::new();
    world.register_disabling_component::<Prefab>();
    let prefab = world.spawn((Health(1), Prefab));
    let disabled = world.spawn((Health(2), Disabled));
    world.spawn(Health(3));
    assert_eq!(sorted(world.query::<&Health>().iter().map(|h| h.0).collect()), [3]);
    // Naming `Prefab` sees prefabs, but still skips `Disabled`, which it does not name.
    let with_prefab = sorted(world.query::<(&Health, Has<Prefab>)>().iter().map(|(h, _)| h.0).collect());
    assert_eq!(with_prefab, [1, 3]);
    let with_both =
        world.query::<(&Health, Has<Prefab>, Has<Disabled>)>().iter().map(|(h, ..)| h.0).collect();
    assert_eq!(sorted(with_both), [1, 2, 3]);
    assert!(world.query::<&Health>().get(prefab).is_err());
    let _ = disabled;
}

#[test]
#[should_panic(expected = "cannot disable entity")]
fn disabling_a_dead_entity_panics() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    world.despawn(e);
    world.disable(e);
}

#[test]
fn fallible_disable_and_enable_report_dead_entities() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    world.despawn(e);
    assert!(matches!(world.try_disable(e), Err(ComponentError::Entity(_))));
    assert!(matches!(world.try_enable(e), Err(ComponentError::Entity(_))));
    assert!(!world.is_disabled(e));
}

// `World::take` (hecs' `take`).

#[derive(Component, Debug, PartialEq)]
struct Armor(u32);

#[derive(Component)]
struct Tag;

#[test]
fn take_despawns_and_hands_back_the_bundle() {
    let mut world = World::new();
    let e = world.spawn((Health(5), Armor(2), Tag));
    let other = world.spawn((Health(7), Armor(1)));
    assert_eq!(world.take::<(Health, Armor)>(e), Some((Health(5), Armor(2))));
    assert!(!world.is_alive(e));
    assert_eq!(world.query::<&Tag>().count(), 0, "the rest was dropped with the entity");
    assert_eq!(world.take::<Armor>(other), Some(Armor(1)));
    assert!(!world.is_alive(other));
    assert_eq!(world.len(), 0);
}

#[test]
fn take_of_a_missing_component_leaves_the_entity_untouched() {
    let mut world = World::new();
    let e = world.spawn((Health(5), Tag));
    assert_eq!(
        world.try_take::<(Health, Armor)>(e),
        Err(ComponentError::MissingComponent { entity: e, component: std::any::type_name::<Armor>() })
    );
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Health>(e), Ok(&Health(5)));
    assert!(world.contains::<Tag>(e));
    assert_eq!(world.take::<Armor>(e), None);
    assert!(world.is_alive(e));
}

#[test]
fn take_of_a_dead_entity_is_an_entity_error() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    world.despawn(e);
    assert!(matches!(world.try_take::<Health>(e), Err(ComponentError::Entity(_))));
}

#[test]
#[should_panic(expected = "cannot take")]
fn take_of_a_dead_entity_panics() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    world.despawn(e);
    world.take::<Health>(e);
}

#[test]
fn take_fires_removal_hooks_for_every_component() {
    let mut world = World::new();
    let removed = Arc::new(AtomicUsize::new(0));
    for_each_hook(&mut world, &removed);
    let e = world.spawn((Health(1), Armor(1)));
    world.take::<Health>(e);
    assert_eq!(removed.load(Ordering::Relaxed), 2, "`Health` taken and `Armor` despawned");
}

fn for_each_hook(world: &mut World, removed: &Arc<AtomicUsize>) {
    let (a, b) = (removed.clone(), removed.clone());
    world.on_remove::<Health>(move |_| {
        a.fetch_add(1, Ordering::Relaxed);
    });
    world.on_remove::<Armor>(move |_| {
        b.fetch_add(1, Ordering::Relaxed);
    });
}

#[test]
fn size_hints_stay_bounds_with_disabled_entities() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn(Health(i))).collect();
    world.disable(es[3]);
    for (lower, upper, n) in [
        {
            let q = world.query::<Entity>();
            let it = q.iter();
            let (l, u) = it.size_hint();
            (l, u, it.count())
        },
        {
            let q = world.query::<&Health>();
            let it = q.iter();
            let (l, u) = it.size_hint();
            (l, u, it.count())
        },
    ] {
        assert_eq!(n, 9);
        assert!(lower <= n && upper.is_none_or(|u| u >= n), "({lower}, {upper:?}) against {n}");
    }
}

#[test]
#[should_panic(expected = "at most 4")]
fn too_many_disabling_components_panic() {
    #[derive(Component)]
    struct A;
    #[derive(Component)]
    struct B;
    #[derive(Component)]
    struct C;
    let mut world = World::new();
    world.register_disabling_component::<A>();
    world.register_disabling_component::<B>();
    world.register_disabling_component::<C>();
    world.register_disabling_component::<Disabled>(); // no slot taken
    world.register_disabling_component::<A>(); // twice: no slot taken
    world.register_disabling_component::<Prefab>();
}

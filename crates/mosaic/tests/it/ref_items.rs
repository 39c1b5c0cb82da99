//! `Ref<T>`: read items that say whether their value was added or changed in the reader's window,
//! world-level and in systems, beside `Changed<T>` filters over the same writes.

use mosaic::{Changed, Component, Entity, Mut, Query, Ref, ResMut, Schedule, World};

#[derive(Component, Debug, PartialEq)]
#[component(track_changes)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Untracked(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "soa", track_changes)]
struct Vel {
    x: f32,
    y: f32,
}

#[test]
fn ref_items_agree_with_changed_and_added_filters() {
    let mut world = World::new();
    let a = world.spawn(Health(1));
    let b = world.spawn(Health(2));
    world.clear_trackers();
    let c = world.spawn(Health(3)); // added since
    world.get_mut::<Health>(a).unwrap().0 = 10; // changed since

    let q = world.query::<(Entity, Ref<Health>)>();
    let mut seen: Vec<(Entity, u32, bool, bool)> =
        q.iter().map(|(e, h)| (e, h.0, h.is_changed(), h.is_added())).collect();
    seen.sort_by_key(|s| s.1);
    assert_eq!(seen, [(b, 2, false, false), (c, 3, true, true), (a, 10, true, false)]);
    let mut changed: Vec<Entity> = world.query_filtered::<Entity, Changed<Health>>().into_iter().collect();
    changed.sort();
    let mut by_ref: Vec<Entity> = world
        .query::<(Entity, Ref<Health>)>()
        .into_iter()
        .filter(|(_, h)| h.is_changed())
        .map(|(e, _)| e)
        .collect();
    by_ref.sort();
    assert_eq!(changed, by_ref);
    assert!(world.query::<Ref<Health>>().into_iter().any(|h| h.last_changed().is_some()));
}

#[test]
fn untracked_types_count_as_changed_and_optional_refs_skip_absent_values() {
    let mut world = World::new();
    let with = world.spawn((Untracked(1), Health(1)));
    let without = world.spawn(Health(2));
    world.clear_trackers();
    let q = world.query::<(Entity, Option<Ref<Untracked>>)>();
    type Row = (Entity, Option<(u32, bool, Option<mosaic::Tick>)>);
    let mut rows: Vec<Row> =
        q.iter().map(|(e, u)| (e, u.map(|u| (u.0, u.is_changed(), u.last_changed())))).collect();
    rows.sort_by_key(|row| row.0);
    let mut expected = vec![(with, Some((1, true, None))), (without, None)];
    expected.sort_by_key(|row| row.0);
    assert_eq!(rows, expected);
}

#[test]
fn struct_of_arrays_refs_read_through_into_inner() {
    let mut world = World::new();
    let e = world.spawn(Vel { x: 1.0, y: 2.0 });
    world.clear_trackers();
    for r in world.query::<Ref<Vel>>() {
        assert!(!r.is_changed());
        let view = r.into_inner();
        assert_eq!((*view.x, *view.y), (1.0, 2.0));
    }
    world.query::<&mut Vel>().get_mut(e).unwrap().x.clone_from(&5.0);
    let changed: Vec<bool> = world.query::<Ref<Vel>>().into_iter().map(|r| r.is_changed()).collect();
    assert_eq!(changed, [true]);
}

#[test]
fn a_systems_refs_see_changes_since_its_last_run() {
    fn hurt_odd(mut q: Query<(Entity, Mut<Health>)>, mut frame: ResMut<u32>) {
        *frame += 1;
        for (e, mut h) in q.iter_mut() {
            if e.index() % 2 == 1 && *frame == 2 {
                h.0 -= 1; // written through: only these rows are marked
            }
        }
    }
    fn report(q: Query<(Entity, Ref<Health>)>, mut out: ResMut<Vec<Vec<u32>>>) {
        let mut changed: Vec<u32> =
            q.iter().filter(|(_, h)| h.is_changed()).map(|(e, _)| e.index()).collect();
        changed.sort();
        out.push(changed);
    }
    let mut world = World::new();
    world.insert_resource(0u32);
    world.insert_resource(Vec::<Vec<u32>>::new());
    let spawned: Vec<u32> = (0..4).map(|i| world.spawn(Health(10 + i)).index()).collect();
    let mut schedule = Schedule::new();
    schedule.add_system(hurt_odd);
    schedule.add_system(report).after(hurt_odd);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let odd: Vec<u32> = spawned.iter().copied().filter(|i| i % 2 == 1).collect();
    let out = world.resource::<Vec<Vec<u32>>>();
    // Frame 1 sees the spawns; frame 2 the two writes; frame 3 nothing.
    assert_eq!(out, &vec![spawned.clone(), odd, vec![]]);
}

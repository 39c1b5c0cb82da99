//! Change detection: `Added`, `Changed`, `RemovedComponents`, across systems, run conditions,
//! commands, hooks, exclusive systems and the clock's wraparound.

use std::sync::{Arc, Mutex};

use mosaic::{
    Added, Changed, Commands, Component, Entity, Query, RemovedComponents, Res, Schedule, With, Without,
    World,
};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(track_changes)]
struct Tracked(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "soa")]
struct Soa {
    x: f32,
    y: f32,
}
#[derive(Component)]
struct Never;
#[derive(Component)]
#[component(track_changes)]
struct NeverTracked;

/// What a system saw, per run.
type Seen = Arc<Mutex<Vec<Vec<Entity>>>>;

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort_by_key(|e| e.to_bits());
    v
}

fn world_changed<T: Component>(world: &mut World) -> Vec<Entity> {
    sorted(world.query_filtered::<Entity, Changed<T>>().into_iter().collect())
}

fn world_added<T: Component>(world: &mut World) -> Vec<Entity> {
    sorted(world.query_filtered::<Entity, Added<T>>().into_iter().collect())
}

#[test]
fn world_level_windows_follow_clear_trackers() {
    let mut world = World::new();
    world.track_changes::<A>();
    let a = world.spawn(A(1));
    assert_eq!(world_added::<A>(&mut world), [a]);
    assert_eq!(world_changed::<A>(&mut world), [a], "an addition is a change");
    world.clear_trackers();
    assert!(world_added::<A>(&mut world).is_empty());
    assert!(world_changed::<A>(&mut world).is_empty());

    let b = world.spawn(A(2));
    assert_eq!(world_added::<A>(&mut world), [b]);
    world.clear_trackers();

    world.get_mut::<A>(a).unwrap().0 = 5;
    assert!(world_added::<A>(&mut world).is_empty());
    assert_eq!(world_changed::<A>(&mut world), [a]);
    world.clear_trackers();

    world.insert(b, A(7)); // replacing is a change, not an addition
    assert!(world_added::<A>(&mut world).is_empty());
    assert_eq!(world_changed::<A>(&mut world), [b]);
    world.clear_trackers();

    world.entity_mut(a).get_mut::<A>().unwrap().0 += 1;
    assert_eq!(world_changed::<A>(&mut world), [a]);
}

#[test]
fn derive_attribute_tracks_from_registration() {
    let mut world = World::new();
    let old = world.spawn(Tracked(1));
    world.clear_trackers();
    let new = world.spawn(Tracked(2));
    assert!(world.tracks_changes::<Tracked>());
    assert_eq!(world_added::<Tracked>(&mut world), [new]);
    assert_ne!(old, new);
}

#[test]
fn readers_never_start_tracking_an_explicit_call_does() {
    let mut world = World::new();
    let a = world.spawn(A(1));
    world.clear_trackers();
    assert!(!world.tracks_changes::<A>());
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world_added::<A>(&mut world)));
    assert!(refused.is_err(), "a change reader of an untracked type panics");
    assert!(!world.tracks_changes::<A>(), "and leaves tracking off");
    // Tracking starts here: what is present counts as added now.
    world.track_changes::<A>();
    assert_eq!(world_added::<A>(&mut world), [a]);
    assert!(world.tracks_changes::<A>());
    world.clear_trackers();
    let b = world.spawn(A(2));
    assert_eq!(world_added::<A>(&mut world), [b]);
}

#[test]
fn query_writes_mark_only_rows_handed_out() {
    let mut world = World::new();
    world.track_changes::<A>();
    let with_b: Vec<Entity> = (0..10).map(|i| world.spawn((A(i), B(i)))).collect();
    let without_b: Vec<Entity> = (0..10).map(|i| world.spawn(A(i))).collect();
    world.clear_trackers();
    for a in world.query_filtered::<&mut A, With<B>>() {
        a.0 += 1;
    }
    assert_eq!(world_changed::<A>(&mut world), sorted(with_b.clone()));
    world.clear_trackers();

    // A `&mut` handed out counts even if never written; one never handed out does not.
    let first = {
        let mut q = world.query::<(Entity, &mut A)>();
        q.iter_mut().next().unwrap().0
    };
    assert_eq!(world_changed::<A>(&mut world), [first]);
    world.clear_trackers();

    // `get` on a query marks that entity only.
    world.query::<&mut A>().get_mut(without_b[3]).unwrap().0 = 99;
    assert_eq!(world_changed::<A>(&mut world), [without_b[3]]);
    world.clear_trackers();

    // `for_each`, `Option<&mut>`, `get_many_mut`.
    world.query_filtered::<&mut A, Without<B>>().for_each(|a| a.0 += 1);
    assert_eq!(world_changed::<A>(&mut world), sorted(without_b.clone()));
    world.clear_trackers();
    for (_, a) in world.query::<(&B, Option<&mut A>)>() {
        a.unwrap().0 += 1;
    }
    assert_eq!(world_changed::<A>(&mut world), sorted(with_b.clone()));
    world.clear_trackers();
    let _ = world.query::<&mut A>().get_many_mut([with_b[0], without_b[0]]).unwrap();
    assert_eq!(world_changed::<A>(&mut world), sorted(vec![with_b[0], without_b[0]]));
}

#[test]
fn mut_items_mark_only_rows_written_through() {
    use mosaic::Mut;
    let mut world = World::new();
    world.track_changes::<A>();
    let all: Vec<Entity> = (0..20).map(|i| world.spawn((A(i), B(i)))).collect();
    world.clear_trackers();

    // Reading every value through `Mut` marks nothing.
    let total: u32 = world.query::<Mut<A>>().into_iter().map(|a| a.0).sum();
    assert_eq!(total, (0..20).sum::<u32>());
    assert!(world_changed::<A>(&mut world).is_empty());

    // Writing a few marks those few, whichever walk hands them out.
    for mut a in world.query::<Mut<A>>() {
        if a.0 % 5 == 0 {
            a.0 += 100;
        }
    }
    let fifths: Vec<Entity> = all.iter().copied().step_by(5).collect();
    assert_eq!(world_changed::<A>(&mut world), sorted(fifths.clone()));
    world.clear_trackers();
    world.query::<(Mut<A>, &B)>().for_each(|(mut a, b)| {
        if b.0 == 7 {
            *a = A(7000);
        }
    });
    assert_eq!(world_changed::<A>(&mut world), [all[7]]);
    world.clear_trackers();
    world.query::<Mut<A>>().par_for_each(|mut a| {
        if a.0 == 3 {
            a.0 = 33;
        }
    });
    assert_eq!(world_changed::<A>(&mut world), [all[3]]);
    world.clear_trackers();

    // `get`, `set_changed`, `bypass_change_detection`, `into_inner`.
    let mut q = world.query::<Mut<A>>();
    q.get_mut(all[1]).unwrap().set_changed();
    q.get_mut(all[2]).unwrap().bypass_change_detection().0 = 222;
    let inner: &mut A = q.get_mut(all[4]).unwrap().into_inner();
    assert_eq!(inner.0, 4);
    assert_eq!(world.get::<A>(all[2]), Ok(&A(222)));
    assert_eq!(world_changed::<A>(&mut world), sorted(vec![all[1], all[4]]));

    // `is_changed` / `is_added` read the reader's window.
    world.clear_trackers();
    world.get_mut::<A>(all[6]).unwrap().0 = 60;
    let late = world.spawn((A(1), B(1)));
    let flags: Vec<(Entity, bool, bool)> = world
        .query::<(Entity, Mut<A>)>()
        .into_iter()
        .filter(|(_, a)| a.is_changed())
        .map(|(e, a)| (e, a.is_changed(), a.is_added()))
        .collect();
    assert_eq!(flags.len(), 2);
    assert!(flags.contains(&(all[6], true, false)) && flags.contains(&(late, true, true)), "{flags:?}");
}

#[test]
fn mut_in_systems_and_beside_changed_filters() {
    use mosaic::Mut;
    #[derive(Default)]
    struct Threshold(u32);
    fn heal(mut q: Query<Mut<Tracked>>, limit: Res<Threshold>) {
        for mut t in q.iter_mut() {
            if t.0 < limit.0 {
                t.0 = limit.0;
            }
        }
    }
    let mut world = World::new();
    world.insert_resource(Threshold(5));
    let low = world.spawn(Tracked(1));
    let high = world.spawn(Tracked(9));
    let seen: Seen = Arc::default();
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
    schedule.add_system(recorder::<Changed<Tracked>>(&seen)).after(heal);
    schedule.run(&mut world); // first run of the recorder: everything present
    schedule.run(&mut world); // `heal` reads both and writes neither
    world.get_mut::<Tracked>(high).unwrap().0 = 0;
    schedule.run(&mut world); // `heal` writes `high` back
    assert_eq!(*seen.lock().unwrap(), vec![sorted(vec![low, high]), vec![], vec![high]]);
    assert_eq!(world.get::<Tracked>(high), Ok(&Tracked(5)));

    // A change-driven walk hands out `Mut` items too; `(Mut<T>, &T)` aliases.
    world.clear_trackers();
    world.get_mut::<Tracked>(low).unwrap().0 = 2;
    let mut visited = Vec::new();
    for (e, t) in world.query_filtered::<(Entity, Mut<Tracked>), Changed<Tracked>>() {
        visited.push((e, t.0));
    }
    assert_eq!(visited, [(low, 2)]);
    let aliasing = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.query::<(Mut<Tracked>, &Tracked)>().into_iter().count()
    }));
    assert!(aliasing.is_err(), "`Mut<T>` writes `T`, so `&T` beside it aliases");
}

#[test]
fn optional_mut_marks_only_present_rows_written_through() {
    use mosaic::Mut;
    let mut world = World::new();
    world.track_changes::<A>();
    let with_a: Vec<Entity> = (0..6).map(|i| world.spawn((A(i), B(i)))).collect();
    let without_a = world.spawn(B(99));
    world.clear_trackers();
    let mut seen = 0;
    for (b, a) in world.query::<(&B, Option<Mut<A>>)>() {
        seen += 1;
        if let Some(mut a) = a
            && b.0 % 2 == 0
        {
            a.0 += 10;
        }
    }
    assert_eq!(seen, 7, "an optional term requires nothing");
    let evens: Vec<Entity> = with_a.iter().copied().step_by(2).collect();
    assert_eq!(world_changed::<A>(&mut world), sorted(evens));
    assert!(!world.contains::<A>(without_a));
    let aliasing = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.query::<(Option<Mut<A>>, &A)>().into_iter().count()
    }));
    assert!(aliasing.is_err(), "`Option<Mut<A>>` writes `A`");
}

#[test]
fn mut_on_untracked_components_writes_and_reports_unknown() {
    use mosaic::Mut;
    let mut world = World::new();
    let e = world.spawn(B(1));
    let mut q = world.query::<Mut<B>>();
    let mut b = q.get_mut(e).unwrap();
    assert!(b.is_changed() && b.is_added(), "untracked: no change can be ruled out");
    b.0 = 2;
    assert_eq!(format!("{b:?}"), "Mut(B(2))");
    assert_eq!(world.get::<B>(e), Ok(&B(2)));
}

#[test]
fn chunks_and_parallel_walks_mark_every_row() {
    let mut world = World::new();
    world.track_changes::<A>();
    let all: Vec<Entity> = (0..5000).map(|i| world.spawn((A(i), B(i)))).collect();
    world.clear_trackers();
    world.query::<(&mut A, &B)>().par_for_each(|(a, b)| a.0 += b.0);
    assert_eq!(world_changed::<A>(&mut world), sorted(all.clone()));
    world.clear_trackers();
    world.query::<&mut A>().for_each_chunk(|chunk: &mut [A]| chunk[0].0 += 1);
    assert_eq!(world_changed::<A>(&mut world).len(), all.len(), "a chunk marks all its rows");
}

#[test]
fn changed_filter_combines_with_other_terms() {
    let mut world = World::new();
    world.track_changes::<A>();
    let es: Vec<Entity> = (0..100).map(|i| world.spawn((A(i), B(i)))).collect();
    let lone = world.spawn(A(0));
    world.clear_trackers();
    for &e in &es[10..15] {
        world.get_mut::<A>(e).unwrap().0 += 1;
    }
    world.get_mut::<A>(lone).unwrap().0 += 1;
    let got: Vec<(Entity, u32)> =
        world.query_filtered::<(Entity, &B), Changed<A>>().into_iter().map(|(e, b)| (e, b.0)).collect();
    let mut got = got;
    got.sort_by_key(|(e, _)| e.to_bits());
    assert_eq!(got, es[10..15].iter().map(|&e| (e, world.get::<B>(e).unwrap().0)).collect::<Vec<_>>());
    assert_eq!(world.query_filtered::<Entity, (Changed<A>, Without<B>)>().count(), 1);
    assert_eq!(world.query_filtered::<Entity, (Changed<A>, With<B>)>().count(), 5);
    // Writing what the filter reads, in one query, does not feed back.
    let n = world.query_filtered::<&mut A, Changed<A>>().into_iter().map(|a| a.0 += 1).count();
    assert_eq!(n, 6);
}

#[test]
fn never_registered_tracked_type_is_empty_not_a_panic() {
    let mut world = World::new();
    world.spawn(A(1));
    assert!(world.tracks_changes::<NeverTracked>(), "its derive decides, before registration too");
    assert_eq!(world.query_ref_filtered::<Entity, Changed<NeverTracked>>().count(), 0);
    assert_eq!(world.query_filtered::<Entity, Changed<NeverTracked>>().count(), 0);
    assert_eq!(world.query_filtered::<Entity, Added<NeverTracked>>().into_iter().count(), 0);
    assert!(world.removed::<NeverTracked>().is_empty());
}

/// Every form of change reader refuses an untracked type the same way, registered or not.
#[test]
fn every_reader_of_an_untracked_type_says_so() {
    fn refuses(what: &str, f: impl FnOnce()) {
        let error = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err(what);
        let message = error.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            message.contains("which are not tracked") && message.contains("#[component(track_changes)]"),
            "{what}: {message}"
        );
    }
    let mut world = World::new();
    world.spawn(B(1));
    refuses("query_ref_filtered", || {
        let _ = world.query_ref_filtered::<Entity, Changed<B>>();
    });
    refuses("query_filtered", || {
        let _ = world.query_filtered::<Entity, Added<B>>().count();
    });
    refuses("World::removed", || {
        let _ = world.removed::<Never>().len();
    });
    refuses("a system's Changed", || {
        let mut w = World::new();
        let mut schedule = Schedule::new();
        schedule.add_system(|_: Query<Entity, Changed<B>>| {});
        schedule.run(&mut w);
    });
    refuses("a system's RemovedComponents", || {
        let mut w = World::new();
        let mut schedule = Schedule::new();
        schedule.add_system(|_: RemovedComponents<Never>| {});
        schedule.run(&mut w);
    });
    assert!(!world.tracks_changes::<B>() && !world.tracks_changes::<Never>());
}

fn recorder<F: mosaic::query::QueryFilter + 'static>(
    seen: &Seen,
) -> impl FnMut(Query<Entity, F>) + Send + Sync + 'static {
    let seen = Arc::clone(seen);
    move |q: Query<Entity, F>| seen.lock().unwrap().push(sorted(q.into_iter().collect()))
}

#[test]
fn systems_see_changes_since_their_last_run() {
    let mut world = World::new();
    world.track_changes::<A>();
    let seen: Seen = Arc::default();
    let mut schedule = Schedule::new();
    schedule.add_system(recorder::<Changed<A>>(&seen));
    let a = world.spawn(A(0));
    schedule.run(&mut world); // first run: everything present
    schedule.run(&mut world); // nothing since
    world.get_mut::<A>(a).unwrap().0 = 1;
    schedule.run(&mut world);
    schedule.run(&mut world);
    let b = world.spawn(A(0));
    world.get_mut::<A>(a).unwrap().0 = 2;
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), vec![vec![a], vec![], vec![a], vec![], sorted(vec![a, b])]);
}

#[derive(Default)]
struct Gate(bool);

#[test]
fn skipped_systems_keep_their_window_open() {
    let mut world = World::new();
    world.track_changes::<A>();
    world.insert_resource(Gate(true));
    let seen: Seen = Arc::default();
    let mut schedule = Schedule::new();
    schedule.add_system(recorder::<Changed<A>>(&seen)).run_if(|w: &World| w.resource::<Gate>().0);
    // A writer that runs every frame, on every other entity's frame.
    schedule.add_system(|mut q: Query<(Entity, &mut A)>, mut frame: mosaic::Local<u32>| {
        *frame += 1;
        for (e, a) in q.iter_mut() {
            if e.index() == *frame % 4 {
                a.0 += 1;
            }
        }
    });
    let es: Vec<Entity> = (0..4).map(|i| world.spawn(A(i))).collect();
    schedule.run(&mut world); // the reader sees all four (first run); writer touches index 1
    world.resource_mut::<Gate>().0 = false;
    schedule.run(&mut world); // writer: index 2
    schedule.run(&mut world); // writer: index 3
    world.resource_mut::<Gate>().0 = true;
    schedule.run(&mut world); // writer: index 0; reader runs before or after it
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], sorted(es.clone()));
    // Index 1 changed after the reader's first run (writer ran after it, or in the same frame
    // after its tick), 2 and 3 while it was skipped; 0 may or may not be before it this frame.
    for e in &es[1..] {
        assert!(seen[1].contains(e), "{e:?} changed while the reader was skipped: {:?}", seen[1]);
    }
}

#[test]
fn a_system_does_not_see_its_own_writes_next_run_but_others_do() {
    let mut world = World::new();
    world.track_changes::<A>();
    let own: Seen = Arc::default();
    let other: Seen = Arc::default();
    let mut schedule = Schedule::new();
    let own_log = Arc::clone(&own);
    schedule
        .add_system(move |q: Query<(Entity, &mut A), Changed<A>>| {
            own_log.lock().unwrap().push(sorted(
                q.into_iter()
                    .map(|(e, a)| {
                        a.0 += 1;
                        e
                    })
                    .collect(),
            ));
        })
        .named("writer");
    schedule.add_system(recorder::<Changed<A>>(&other)).after("writer");
    let a = world.spawn(A(0));
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*own.lock().unwrap(), vec![vec![a], vec![], vec![]]);
    // The reader sees the writer's first-frame write (and the spawn), then nothing more.
    assert_eq!(*other.lock().unwrap(), vec![vec![a], vec![], vec![]]);
}

#[test]
fn commands_hooks_and_exclusive_systems_count() {
    let mut world = World::new();
    world.track_changes::<A>();
    world.track_changes::<B>();
    world.on_add::<A>(|ctx| {
        let e = ctx.entity;
        ctx.commands.insert(e, B(1));
    });
    let added_b: Seen = Arc::default();
    let changed_a: Seen = Arc::default();
    let mut schedule = Schedule::new();
    schedule.add_system(|mut commands: Commands, q: Query<Entity, With<B>>| {
        if q.count() == 0 {
            commands.spawn(A(1));
        }
    });
    schedule.add_system(|world: &mut World| {
        let es: Vec<Entity> = world.query::<Entity>().into_iter().collect();
        for e in es {
            if let Ok(a) = world.get_mut::<A>(e) {
                a.0 += 1;
            }
        }
    });
    schedule.add_system(recorder::<Added<B>>(&added_b));
    schedule.add_system(recorder::<Changed<A>>(&changed_a));
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    let added_b = added_b.lock().unwrap();
    let changed_a = changed_a.lock().unwrap();
    let total_added: usize = added_b.iter().map(Vec::len).sum();
    assert_eq!(total_added, 1, "the hook's B is added once: {added_b:?}");
    // The exclusive system changes A every frame after the spawn.
    assert!(changed_a[1..].iter().all(|seen| seen.len() == 1), "{changed_a:?}");
}

#[test]
fn removed_components_since_last_run() {
    let mut world = World::new();
    world.track_changes::<A>();
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    let mut schedule = Schedule::new();
    schedule
        .add_system(move |removed: RemovedComponents<A>| log.lock().unwrap().push(removed.iter().collect()))
        .run_if(|w: &World| w.resource::<Gate>().0);
    world.insert_resource(Gate(true));
    let a = world.spawn(A(1));
    let b = world.spawn((A(2), B(2)));
    let c = world.spawn(A(3));
    world.remove::<A>(a); // before the reader exists: never seen
    schedule.run(&mut world);
    world.despawn(b);
    schedule.run(&mut world);
    world.resource_mut::<Gate>().0 = false;
    world.remove::<A>(c);
    schedule.run(&mut world);
    world.insert(c, A(4));
    world.remove::<A>(c);
    world.resource_mut::<Gate>().0 = true;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), vec![vec![], vec![b], vec![c, c], vec![]]);
}

#[test]
fn world_removed_follows_clear_trackers() {
    let mut world = World::new();
    world.track_changes::<A>();
    let es: Vec<Entity> = (0..3).map(|i| world.spawn(A(i))).collect();
    world.remove::<A>(es[0]);
    assert_eq!(world.removed::<A>().iter().collect::<Vec<_>>(), [es[0]]);
    world.clear_trackers();
    assert!(world.removed::<A>().is_empty());
    world.despawn(es[1]);
    world.clear();
    assert_eq!(world.removed::<A>().iter().collect::<Vec<_>>(), [es[1], es[2]]);
}

#[test]
fn soa_components_are_tracked_whole() {
    let mut world = World::new();
    world.track_changes::<Soa>();
    let es: Vec<Entity> = (0..4).map(|i| world.spawn(Soa { x: i as f32, y: 0.0 })).collect();
    world.clear_trackers();
    for v in world.query_filtered::<&mut Soa, ()>() {
        if *v.x > 1.5 {
            *v.y = 1.0;
        }
    }
    assert_eq!(world_changed::<Soa>(&mut world).len(), 4, "every row handed out");
    world.clear_trackers();
    *world.get_mut::<Soa>(es[1]).unwrap().y = 3.0;
    assert_eq!(world_changed::<Soa>(&mut world), [es[1]]);
}

#[test]
fn change_reader_and_writer_of_one_component_do_not_share_a_batch() {
    let mut schedule = Schedule::new();
    schedule.add_system(|_: Query<Entity, Changed<A>>| {}).named("reader");
    schedule.add_system(|_: Query<&mut A>| {}).named("writer");
    schedule.add_system(|_: Query<&mut B>| {}).named("other");
    let batches = schedule.batches().unwrap();
    assert!(!batches.iter().any(|b| b.contains(&"reader") && b.contains(&"writer")), "{batches:?}");
}

#[test]
fn many_frames_of_changes_keep_the_log_bounded_and_answers_exact() {
    let mut world = World::new();
    world.track_changes::<A>();
    let es: Vec<Entity> = (0..64).map(|i| world.spawn(A(i))).collect();
    for frame in 0..500usize {
        world.clear_trackers();
        let pick = [es[frame % 64], es[(frame * 7) % 64]];
        for e in pick {
            world.get_mut::<A>(e).unwrap().0 += 1;
        }
        for a in world.query::<&mut A>().into_iter().take(frame % 3) {
            a.0 += 1;
        }
        let mut expected: Vec<Entity> = pick.to_vec();
        let firsts: Vec<Entity> = world.query_ref::<Entity>().into_iter().take(frame % 3).collect();
        expected.extend(firsts);
        expected.sort_by_key(|e| e.to_bits());
        expected.dedup();
        assert_eq!(world_changed::<A>(&mut world), expected, "frame {frame}");
    }
}

/// The clock wraps: with an 8-bit clock (period 256 ticks, maximum age 193), a system that has
/// not run for 600 frames sees the changes within the maximum age and none older, as bevy's
/// clamping does, instead of a wrapped comparison's arbitrary answer.
#[test]
fn narrow_clock_wraps_like_bevy() {
    let mut world = World::with_change_tick_bits(8);
    world.track_changes::<A>();
    world.insert_resource(Gate(true));
    let seen: Seen = Arc::default();
    let mut schedule = Schedule::new();
    schedule.add_system(recorder::<Changed<A>>(&seen)).run_if(|w: &World| w.resource::<Gate>().0);
    schedule.add_system(|_: Res<Gate>| {}); // advances the clock one tick per frame
    let old = world.spawn(A(0));
    let recent = world.spawn(A(0));
    let untouched = world.spawn(A(0));
    schedule.run(&mut world);
    world.resource_mut::<Gate>().0 = false;
    for frame in 0..600 {
        if frame == 10 {
            world.get_mut::<A>(old).unwrap().0 = 1;
        }
        if frame == 590 {
            world.get_mut::<A>(recent).unwrap().0 = 1;
        }
        schedule.run(&mut world);
    }
    world.resource_mut::<Gate>().0 = true;
    schedule.run(&mut world);
    schedule.run(&mut world);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], sorted(vec![old, recent, untouched]));
    assert_eq!(seen[1], [recent], "the change 590 frames ago is past the maximum age");
    assert!(seen[2].is_empty());
}

#[test]
fn narrow_clock_world_level_windows() {
    let mut world = World::with_change_tick_bits(6);
    world.track_changes::<A>();
    let es: Vec<Entity> = (0..8).map(|i| world.spawn(A(i))).collect();
    for frame in 0..1000usize {
        world.clear_trackers();
        let e = es[frame % 8];
        world.get_mut::<A>(e).unwrap().0 += 1;
        assert_eq!(world_changed::<A>(&mut world), [e], "frame {frame}");
        assert!(world_added::<A>(&mut world).is_empty(), "frame {frame}");
    }
}

/// A snapshot load inserts every value: readers see the loaded values as added at the load, and
/// changes after it as usual.
#[cfg(feature = "serialize")]
#[test]
fn a_snapshot_load_counts_as_adding_every_value() {
    #[derive(Component, Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Saved(u32);
    let mut registry = mosaic::SnapshotRegistry::new();
    registry.register::<Saved>("saved");
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn(Saved(i))).collect();
    let bytes = registry.save_binary(&mut world).unwrap();

    let mut copy = World::new();
    copy.track_changes::<Saved>();
    copy.clear_trackers();
    registry.load_binary(&mut copy, &bytes).unwrap();
    assert_eq!(
        world_added::<Saved>(&mut copy),
        sorted(es.clone()),
        "a load into an empty world keeps handles"
    );
    copy.clear_trackers();
    assert!(world_changed::<Saved>(&mut copy).is_empty());
    copy.get_mut::<Saved>(es[2]).unwrap().0 = 9;
    assert_eq!(world_changed::<Saved>(&mut copy), [es[2]]);
}

#[test]
fn a_system_may_write_what_its_change_filter_reads() {
    use mosaic::Mut;
    fn halve_changed(mut q: Query<&mut Tracked, Changed<Tracked>>) {
        for t in q.iter_mut() {
            t.0 /= 2;
        }
    }
    fn clamp_changed(mut q: Query<Mut<Tracked>, Changed<Tracked>>) {
        for mut t in q.iter_mut() {
            if t.0 > 10 {
                t.0 = 10;
            }
        }
    }
    let mut world = World::new();
    let big = world.spawn(Tracked(100));
    let small = world.spawn(Tracked(4));
    let mut schedule = Schedule::new();
    schedule.add_system(halve_changed);
    schedule.add_system(clamp_changed).after(halve_changed);
    schedule.run(&mut world); // both see everything: 100 -> 50 -> 10, 4 -> 2
    assert_eq!((world.get::<Tracked>(big), world.get::<Tracked>(small)), (Ok(&Tracked(10)), Ok(&Tracked(2))));
    let values =
        |world: &World| (world.get::<Tracked>(big).unwrap().0, world.get::<Tracked>(small).unwrap().0);
    world.get_mut::<Tracked>(small).unwrap().0 = 40;
    // `halve` sees what changed since it last ran: `clamp`'s write to `big` after it in the last
    // frame, and the write to `small` since: 10 -> 5 and 40 -> 20, then `clamp` takes 20 to 10.
    schedule.run(&mut world);
    assert_eq!(values(&world), (5, 10));
    // `clamp` read `big` (5) without writing it, so only `small` counts as changed for `halve`.
    schedule.run(&mut world);
    assert_eq!(values(&world), (5, 5));
    // Nothing was written in the last frame after `halve` ran: no change, no halving.
    schedule.run(&mut world);
    assert_eq!(values(&world), (5, 5));
}

/// A writing query marks only the entities it yields: `(&mut Tracked, &B)` driven by the
/// `Tracked` pool must not stamp an entity that lacks `B` (found when the entity is refused after
/// its `&mut Tracked` was already fetched), in the walk, `get` and a derived struct alike.
#[test]
fn a_writing_query_does_not_mark_entities_it_refuses() {
    #[derive(mosaic::QueryData)]
    struct Pair<'w> {
        tracked: &'w mut Tracked,
        b: &'w B,
    }
    let mut world = World::new();
    let lonely = world.spawn(Tracked(1));
    let paired = world.spawn((Tracked(2), B(0)));
    for i in 0..10 {
        world.spawn(B(i)); // the Tracked pool is the smaller, so it drives
    }
    world.clear_trackers();
    let mut yielded = 0;
    world.query::<(&mut Tracked, &B)>().for_each(|_| yielded += 1);
    assert_eq!(yielded, 1);
    assert!(world.query::<(&mut Tracked, &B)>().get_mut(lonely).is_err());
    assert_eq!(world.query::<Pair>().iter_mut().map(|p| (p.tracked.0, p.b.0)).collect::<Vec<_>>(), [(2, 0)]);
    assert_eq!(world_changed::<Tracked>(&mut world), vec![paired], "only the yielded entity is marked");
}

//! Per-field change detection of struct-of-arrays components: `Mut<T>` items whose fields
//! (`FieldMut`) record their own writes, and the `FieldChanged<T, I>` filter.

use std::sync::{Arc, Mutex};

use mosaic::{Changed, Component, Entity, FieldChanged, Mut, Query, Res, Schedule, View, World};

#[derive(Default)]
struct Gate(bool);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "soa", track_changes)]
struct Body {
    pos: f32,
    vel: f32,
    heat: u32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "soa")]
struct Lazy {
    a: u8,
    b: u8,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Plain(u32);

/// What a system saw per run: (`heat` written, `pos` written).
type FrameLog = Arc<Mutex<Vec<(Vec<Entity>, Vec<Entity>)>>>;

type Pos = FieldChanged<Body, { Body::FIELD_POS }>;
type Vel = FieldChanged<Body, { Body::FIELD_VEL }>;
type Heat = FieldChanged<Body, { Body::FIELD_HEAT }>;

fn body(i: u32) -> Body {
    Body { pos: i as f32, vel: 0.0, heat: i }
}

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort_by_key(|e| e.to_bits());
    v
}

fn seen<F: mosaic::query::QueryFilter>(world: &mut World) -> Vec<Entity> {
    sorted(world.query_filtered::<Entity, F>().into_iter().collect())
}

#[test]
fn field_constants_follow_declaration_order() {
    assert_eq!((Body::FIELD_POS, Body::FIELD_VEL, Body::FIELD_HEAT), (0, 1, 2));
    assert_eq!((Lazy::FIELD_A, Lazy::FIELD_B), (0, 1));
}

#[test]
fn writes_through_a_field_mark_that_field_and_the_row_only() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn(body(i))).collect();
    world.clear_trackers();
    for mut b in world.query::<Mut<Body>>() {
        // Reading every field marks nothing.
        if *b.heat % 3 == 0 {
            *b.vel += 1.0;
        }
        if *b.heat == 4 {
            *b.pos = -1.0;
            *b.heat += 100;
        }
    }
    let every_third: Vec<Entity> = [0, 3, 6, 9].iter().map(|&i| es[i]).collect();
    assert_eq!(seen::<Vel>(&mut world), sorted(every_third.clone()));
    assert_eq!(seen::<Pos>(&mut world), [es[4]]);
    assert_eq!(seen::<Heat>(&mut world), [es[4]]);
    let mut rows = every_third;
    rows.push(es[4]);
    assert_eq!(seen::<Changed<Body>>(&mut world), sorted(rows));
    assert_eq!(world.get::<Body>(es[4]).unwrap().read(), Body { pos: -1.0, vel: 0.0, heat: 104 });
    assert_eq!(world.get::<Body>(es[3]).unwrap().read(), Body { pos: 3.0, vel: 1.0, heat: 3 });

    world.clear_trackers();
    assert!(seen::<Vel>(&mut world).is_empty());
    assert!(seen::<Changed<Body>>(&mut world).is_empty());
}

#[test]
fn whole_row_writes_count_for_every_field() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn(body(i))).collect();
    world.clear_trackers();
    *world.get_mut::<Body>(es[0]).unwrap().vel = 2.0; // `BodyMut`: the whole row
    world.insert(es[1], body(50)); // a replacing insert
    world.query::<&mut Body>().get_mut(es[2]).unwrap(); // `&mut` handed out, even unwritten
    let late = world.spawn(body(9)); // an addition
    let all = sorted(vec![es[0], es[1], es[2], late]);
    assert_eq!(seen::<Pos>(&mut world), all);
    assert_eq!(seen::<Vel>(&mut world), all);
    assert_eq!(seen::<Heat>(&mut world), all);
}

#[test]
fn a_whole_row_write_after_a_field_write_in_one_window_marks_the_rest() {
    let mut world = World::new();
    let e = world.spawn(body(1));
    world.clear_trackers();
    *world.query::<Mut<Body>>().get_mut(e).unwrap().pos += 1.0;
    assert_eq!(seen::<Pos>(&mut world), [e]);
    assert!(seen::<Heat>(&mut world).is_empty());
    // Same tick: the row is already stamped, but the whole-row write must still stamp `heat`.
    world.get_mut::<Body>(e).unwrap();
    assert_eq!(seen::<Heat>(&mut world), [e]);
}

#[test]
fn tracked_view_methods() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn(body(i))).collect();
    world.clear_trackers();
    let added = world.spawn(body(7));
    let mut q = world.query::<Mut<Body>>();
    {
        let b = q.get_mut(added).unwrap();
        assert!(b.is_added() && b.is_changed() && b.heat.is_changed());
        assert_eq!(b.cloned(), body(7));
    }
    {
        let b = q.get_mut(es[0]).unwrap();
        assert!(!b.is_added() && !b.is_changed() && !b.pos.is_changed());
    }
    q.get_mut(es[1]).unwrap().set_changed();
    q.get_mut(es[2]).unwrap().set(Body { pos: 0.5, vel: 0.5, heat: 5 });
    q.get_mut(es[3]).unwrap().bypass_change_detection().heat.clone_from(&77);
    *q.get_mut(es[4]).unwrap().heat.bypass_change_detection() = 88;
    let heat: &mut u32 = q.get_mut(es[0]).unwrap().heat.into_inner();
    *heat = 10;
    {
        let mut b = q.get_mut(es[0]).unwrap();
        b.pos.set_changed();
        assert!(b.pos.is_changed(), "the reader's own window sees its write");
    }
    assert_eq!(seen::<Heat>(&mut world), sorted(vec![es[0], es[1], es[2], added]));
    assert_eq!(seen::<Pos>(&mut world), sorted(vec![es[0], es[1], es[2], added]));
    assert_eq!(seen::<Vel>(&mut world), sorted(vec![es[1], es[2], added]));
    assert_eq!(world.get::<Body>(es[3]).unwrap().read().heat, 77);
    assert_eq!(world.get::<Body>(es[4]).unwrap().read().heat, 88);
    assert_eq!(world.get::<Body>(es[0]).unwrap().read().heat, 10);
}

#[test]
fn field_ticks_follow_rows_through_removals_and_swaps() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..40).map(|i| world.spawn(body(i))).collect();
    world.clear_trackers();
    // Write `heat` of the last rows, then remove early rows so the last rows move into them.
    for &e in &es[30..] {
        *world.query::<Mut<Body>>().get_mut(e).unwrap().heat += 1;
    }
    for &e in &es[..8] {
        world.despawn(e);
    }
    for &e in &es[8..12] {
        world.remove::<Body>(e);
    }
    assert_eq!(seen::<Heat>(&mut world), sorted(es[30..].to_vec()));
    assert!(seen::<Pos>(&mut world).is_empty());
    // Sorting the pool swaps rows; the ticks go with them.
    world.sort_by::<Body>(|a, b| b.heat.cmp(a.heat)).unwrap();
    assert_eq!(seen::<Heat>(&mut world), sorted(es[30..].to_vec()));
    assert!(seen::<Vel>(&mut world).is_empty());
}

#[test]
fn systems_see_field_changes_since_their_last_run() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..4).map(|i| world.spawn(body(i))).collect();
    let log: FrameLog = Arc::default();
    let frame_log = Arc::clone(&log);
    let mut schedule = Schedule::new();
    schedule.add_system(move |heat: Query<Entity, Heat>, pos: Query<Entity, Pos>| {
        frame_log.lock().unwrap().push((sorted(heat.iter().collect()), sorted(pos.iter().collect())));
    });
    schedule.run(&mut world);
    *world.query::<Mut<Body>>().get_mut(es[2]).unwrap().heat = 9;
    schedule.run(&mut world);
    schedule.run(&mut world);
    let log = log.lock().unwrap();
    assert_eq!(log[0], (sorted(es.clone()), sorted(es.clone())), "the first run sees every value");
    assert_eq!(log[1], (vec![es[2]], vec![]));
    assert_eq!(log[2], (vec![], vec![]));
}

#[test]
fn optional_and_parallel_items_mark_fields_written() {
    let mut world = World::new();
    let n = if cfg!(miri) { 300 } else { 3000 };
    let bodies: Vec<Entity> = (0..n).map(|i| world.spawn((body(i), Plain(i)))).collect();
    let bare: Vec<Entity> = (0..10).map(|i| world.spawn(Plain(i))).collect();
    world.clear_trackers();
    world.query::<Mut<Body>>().par_for_each(|mut b| {
        if *b.heat % 2 == 1 {
            *b.heat *= 2;
        }
    });
    let odd: Vec<Entity> = bodies.iter().copied().filter(|e| e.index() % 2 == 1).collect();
    assert_eq!(seen::<Heat>(&mut world), sorted(odd.clone()));
    assert!(seen::<Pos>(&mut world).is_empty());
    world.clear_trackers();
    for (plain, b) in world.query::<(&Plain, Option<Mut<Body>>)>() {
        if let Some(mut b) = b
            && plain.0 < 5
        {
            *b.vel = 1.0;
        }
    }
    assert_eq!(seen::<Vel>(&mut world), sorted(bodies[..5].to_vec()));
    assert!(seen::<Heat>(&mut world).is_empty());
    let _ = bare;
}

#[test]
fn untracked_struct_of_arrays_components_write_and_report_unknown() {
    let mut world = World::new();
    let e = world.spawn(Lazy { a: 1, b: 2 });
    let mut q = world.query::<Mut<Lazy>>();
    let mut view = q.get_mut(e).unwrap();
    assert!(view.is_changed() && view.is_added() && view.a.is_changed(), "no change can be ruled out");
    *view.b += 40;
    assert_eq!(world.get::<Lazy>(e).unwrap().read(), Lazy { a: 1, b: 42 });
    // Readers never turn tracking on: an explicit call does, and every value counts as changed.
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        seen::<FieldChanged<Lazy, { Lazy::FIELD_A }>>(&mut world)
    }));
    assert!(refused.is_err(), "a reader of an untracked type panics");
    world.track_changes::<Lazy>();
    assert_eq!(seen::<FieldChanged<Lazy, { Lazy::FIELD_A }>>(&mut world), [e]);
    world.clear_trackers();
    *world.query::<Mut<Lazy>>().get_mut(e).unwrap().a += 1;
    assert_eq!(seen::<FieldChanged<Lazy, { Lazy::FIELD_A }>>(&mut world), [e]);
    assert!(seen::<FieldChanged<Lazy, { Lazy::FIELD_B }>>(&mut world).is_empty());
}

#[test]
fn never_registered_type_is_empty() {
    let mut world = World::new();
    world.spawn(Plain(1));
    assert!(seen::<Heat>(&mut world).is_empty());
}

#[test]
#[should_panic(expected = "needs a struct-of-arrays component")]
fn array_of_structs_components_are_refused() {
    let mut world = World::new();
    world.spawn(Plain(1));
    let _ = world.query_filtered::<Entity, FieldChanged<Plain, 0>>();
}

#[test]
#[should_panic(expected = "the component has 3 field(s)")]
fn a_field_index_past_the_last_field_is_refused() {
    let mut world = World::new();
    world.spawn(body(1));
    let _ = world.query_filtered::<Entity, FieldChanged<Body, 3>>();
}

/// With an 8-bit clock (maximum age 193 ticks) a system that has not run for 600 frames sees
/// the field written within the maximum age, not the one written long before: field ticks are
/// clamped with the rows'.
#[test]
fn narrow_clock_clamps_field_ticks() {
    let mut world = World::with_change_tick_bits(8);
    world.insert_resource(Gate(true));
    let log: FrameLog = Arc::default();
    let frame_log = Arc::clone(&log);
    let mut schedule = Schedule::new();
    schedule
        .add_system(move |heat: Query<Entity, Heat>, pos: Query<Entity, Pos>| {
            frame_log.lock().unwrap().push((sorted(heat.iter().collect()), sorted(pos.iter().collect())));
        })
        .run_if(|w: &World| w.resource::<Gate>().0);
    schedule.add_system(|_: Res<Gate>| {}); // advances the clock one tick per frame
    let old = world.spawn(body(0));
    let recent = world.spawn(body(1));
    schedule.run(&mut world);
    world.resource_mut::<Gate>().0 = false;
    for frame in 0..600 {
        if frame == 10 {
            *world.query::<Mut<Body>>().get_mut(old).unwrap().heat = 5;
        }
        if frame == 590 {
            *world.query::<Mut<Body>>().get_mut(recent).unwrap().pos = 5.0;
        }
        schedule.run(&mut world);
    }
    world.resource_mut::<Gate>().0 = true;
    schedule.run(&mut world);
    let log = log.lock().unwrap();
    assert_eq!(log[1], (vec![], vec![recent]), "the write 590 frames ago is past the maximum age");
}

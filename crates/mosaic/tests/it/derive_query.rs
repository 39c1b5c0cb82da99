//! `#[derive(QueryData)]`: structs of query terms, read-only and mutable, nested, and the
//! aliasing refusal through them.

use mosaic::{Component, Entity, QueryData, World};

#[derive(Component, Debug, PartialEq)]
struct Position(f32);
#[derive(Component)]
struct Velocity(f32);
#[derive(Component)]
struct Owner(u32);

#[derive(QueryData)]
struct Movement<'w> {
    position: &'w mut Position,
    velocity: &'w Velocity,
    owner: Option<&'w Owner>,
    entity: Entity,
}

#[derive(QueryData)]
struct Look<'w> {
    position: &'w Position,
}

/// A `Mut` field marks a change only when written through.
#[derive(QueryData)]
struct Steer<'w> {
    velocity: mosaic::Mut<'w, Velocity>,
    owner: &'w Owner,
}

#[test]
fn a_derived_struct_holds_mut_fields() {
    let mut world = World::new();
    world.track_changes::<Velocity>();
    let a = world.spawn((Velocity(1.0), Owner(1)));
    let b = world.spawn((Velocity(1.0), Owner(2)));
    world.clear_trackers();
    for mut s in world.query::<Steer>() {
        if s.owner.0 == 2 {
            s.velocity.0 = -1.0;
        }
    }
    let changed: Vec<Entity> =
        world.query_filtered::<Entity, mosaic::Changed<Velocity>>().into_iter().collect();
    assert_eq!(changed, [b]);
    assert_eq!(world.get::<Velocity>(a).unwrap().0, 1.0);
}

#[test]
fn a_derived_struct_is_fetched_as_one_item() {
    let mut world = World::new();
    let a = world.spawn((Position(0.0), Velocity(1.0), Owner(7)));
    let b = world.spawn((Position(0.0), Velocity(2.0)));
    world.spawn(Position(5.0)); // no velocity: not matched
    let mut seen = Vec::new();
    for m in world.query::<Movement>() {
        m.position.0 += m.velocity.0;
        seen.push((m.entity, m.owner.map(|o| o.0)));
    }
    seen.sort_by_key(|(e, _)| e.to_bits());
    assert_eq!(seen, [(a, Some(7)), (b, None)]);
    assert_eq!(world.get::<Position>(b), Ok(&Position(2.0)));
    // Read-only derived structs go through `&World`.
    let total: f32 = world.query_ref::<Look>().into_iter().map(|l| l.position.0).sum();
    assert_eq!(total, 8.0);
    assert_eq!(world.query::<Movement>().get_mut(a).unwrap().velocity.0, 1.0);
}

fn movement(query: mosaic::Query<Movement>) {
    for m in query {
        m.position.0 += m.velocity.0;
    }
}

#[test]
fn a_derived_struct_is_a_system_parameter() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0), Velocity(0.5)));
    let mut schedule = mosaic::Schedule::new();
    schedule.add_system(movement);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(e), Ok(&Position(2.0)));
}

#[test]
#[should_panic(expected = "Position")]
fn aliasing_fields_are_refused() {
    #[derive(QueryData)]
    #[allow(dead_code, reason = "never fetched: making the query panics")]
    struct Bad<'w> {
        a: &'w mut Position,
        b: &'w Position,
    }
    let mut world = World::new();
    let _ = world.query::<Bad>();
}

/// A struct-of-arrays component, whose items are generated views.
#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "soa", track_changes)]
struct Body {
    x: f32,
    y: f32,
}

/// The views as fields: `BodyMut` fetches as `&mut Body`, `BodyRef` as `&Body`.
#[derive(QueryData)]
struct Fall<'w> {
    body: BodyMut<'w>,
    velocity: &'w Velocity,
}

#[derive(QueryData)]
struct Watch<'w> {
    body: BodyRef<'w>,
    entity: Entity,
}

/// `BodyTracked` fetches as `Mut<Body>`: only the fields written through are marked.
#[derive(QueryData)]
struct Nudge<'w> {
    body: BodyTracked<'w>,
    owner: &'w Owner,
}

#[test]
fn a_derived_struct_holds_struct_of_arrays_views() {
    let mut world = World::new();
    let a = world.spawn((Body { x: 0.0, y: 10.0 }, Velocity(-1.0), Owner(1)));
    let b = world.spawn((Body { x: 5.0, y: 20.0 }, Velocity(-2.0), Owner(2)));
    let c = world.spawn(Body { x: 7.0, y: 30.0 });
    for f in world.query::<Fall>() {
        *f.body.y += f.velocity.0;
    }
    assert_eq!(world.get::<Body>(a).unwrap().cloned(), Body { x: 0.0, y: 9.0 });
    assert_eq!(world.get::<Body>(b).unwrap().cloned(), Body { x: 5.0, y: 18.0 });
    assert_eq!(world.get::<Body>(c).unwrap().cloned(), Body { x: 7.0, y: 30.0 }, "no velocity");
    let mut seen: Vec<(Entity, f32)> =
        world.query_ref::<Watch>().iter().map(|w| (w.entity, *w.body.x)).collect();
    seen.sort_by_key(|&(e, _)| e.index());
    assert_eq!(seen, [(a, 0.0), (b, 5.0), (c, 7.0)]);

    world.clear_trackers();
    for mut n in world.query::<Nudge>() {
        if n.owner.0 == 2 {
            *n.body.x += 1.0;
        }
    }
    let changed = |world: &mut World, field| match field {
        Some(0) => world
            .query_filtered::<Entity, mosaic::FieldChanged<Body, { Body::FIELD_X }>>()
            .into_iter()
            .collect::<Vec<_>>(),
        Some(_) => world
            .query_filtered::<Entity, mosaic::FieldChanged<Body, { Body::FIELD_Y }>>()
            .into_iter()
            .collect(),
        None => world.query_filtered::<Entity, mosaic::Changed<Body>>().into_iter().collect(),
    };
    assert_eq!(changed(&mut world, None), [b], "only the row written through changed");
    assert_eq!(changed(&mut world, Some(0)), [b]);
    assert_eq!(changed(&mut world, Some(1)), Vec::<Entity>::new(), "y was not written");
}

#[test]
#[should_panic(expected = "Body")]
fn a_view_field_aliasing_its_component_is_refused() {
    #[derive(QueryData)]
    #[allow(dead_code, reason = "never fetched: making the query panics")]
    struct Bad<'w> {
        a: BodyMut<'w>,
        b: BodyRef<'w>,
    }
    let mut world = World::new();
    let _ = world.query::<Bad>();
}

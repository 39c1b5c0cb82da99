//! `#[derive(QueryData)]` on enums (hecs' enum queries): the first variant whose terms all match
//! an entity is its item; count, contains, size hints, change stamping and aliasing agree.

use mosaic::{Changed, Component, Entity, QueryData, QueryError, World};

use crate::common::panic_message;

#[derive(Component, Debug, PartialEq)]
struct Radius(f32);
#[derive(Component, Debug, PartialEq)]
struct Width(f32);
#[derive(Component, Debug, PartialEq)]
struct Height(f32);
#[derive(Component, Debug, PartialEq)]
struct Label(&'static str);

#[derive(QueryData, Debug, PartialEq)]
enum Shape<'w> {
    Circle { radius: &'w Radius },
    Rect(&'w Width, &'w Height),
}

#[derive(QueryData, Debug)]
enum Anything<'w> {
    Labelled(&'w Label),
    Other,
}

fn area(shape: &Shape<'_>) -> f32 {
    match shape {
        Shape::Circle { radius } => 3.0 * radius.0 * radius.0,
        Shape::Rect(w, h) => w.0 * h.0,
    }
}

#[test]
fn the_first_matching_variant_is_the_item_and_others_are_skipped() {
    let mut world = World::new();
    let circle = world.spawn(Radius(1.0));
    let rect = world.spawn((Width(2.0), Height(3.0)));
    let both = world.spawn((Radius(2.0), Width(1.0), Height(1.0)));
    let half_rect = world.spawn(Width(5.0)); // no variant matches
    let _bare = world.spawn(Label("none"));

    let mut seen: Vec<(Entity, f32)> =
        world.query::<(Entity, Shape)>().iter().map(|(e, s)| (e, area(&s))).collect();
    seen.sort_by_key(|(e, _)| e.to_bits());
    assert_eq!(
        seen,
        vec![(circle, 3.0), (rect, 6.0), (both, 12.0)],
        "declaration order decides: Circle first"
    );

    let q = world.query_ref::<Shape>();
    assert_eq!(q.count(), 3);
    assert!(q.contains(rect) && !q.contains(half_rect));
    assert_eq!(q.get(both), Ok(Shape::Circle { radius: &Radius(2.0) }));
    assert!(matches!(q.get(half_rect), Err(QueryError::NoMatch { .. })));
    let (low, high) = q.iter().size_hint();
    assert!(low <= 3 && high.is_none_or(|h| h >= 3), "the hint is a bound, not exact: {low} {high:?}");
    assert_eq!(q.iter().count(), 3);
    let mut for_each = 0;
    q.for_each(|_| for_each += 1);
    assert_eq!(for_each, 3);

    // Beside a required term, the walk is that pool's, and the enum still selects.
    let labelled: Vec<_> = world.query::<(&Width, Shape)>().iter().map(|(w, s)| (w.0, area(&s))).collect();
    assert_eq!(labelled.len(), 2, "the half rectangle has Width but no variant: {labelled:?}");
}

#[test]
fn a_unit_variant_matches_every_entity() {
    let mut world = World::new();
    let named = world.spawn(Label("a"));
    let plain = world.spawn(Radius(1.0));
    let q = world.query_ref::<(Entity, Anything)>();
    assert_eq!(q.count(), 2);
    assert_eq!(q.iter().size_hint(), (2, Some(2)), "every live entity matches: exact");
    for (e, item) in q.iter() {
        match item {
            Anything::Labelled(label) => assert_eq!((e, label.0), (named, "a")),
            Anything::Other => assert_eq!(e, plain),
        }
    }
    assert!(world.query::<Shape>().try_single().is_ok(), "one shape: the radius");
}

#[derive(Component, Debug, PartialEq)]
#[component(track_changes)]
struct Shield(u32);
#[derive(Component, Debug, PartialEq)]
#[component(track_changes)]
struct Health(u32);

#[derive(QueryData)]
enum Target<'w> {
    Shielded { shield: &'w mut Shield },
    Bare { health: &'w mut Health },
}

#[test]
fn a_writing_variant_stamps_only_what_it_hands_out() {
    let mut world = World::new();
    let guarded = world.spawn((Shield(2), Health(10)));
    let exposed = world.spawn(Health(10));
    world.clear_trackers();
    world.query::<Target>().for_each(|target| match target {
        Target::Shielded { shield } => shield.0 -= 1,
        Target::Bare { health } => health.0 -= 1,
    });
    assert_eq!(world.get::<Shield>(guarded), Ok(&Shield(1)));
    assert_eq!(world.get::<Health>(guarded), Ok(&Health(10)), "the shield took the hit");
    assert_eq!(world.get::<Health>(exposed), Ok(&Health(9)));
    let changed: Vec<Entity> = world.query_filtered::<Entity, Changed<Health>>().iter().collect();
    assert_eq!(changed, vec![exposed], "the Bare variant was not fetched for the guarded entity");
}

#[derive(QueryData)]
#[allow(dead_code)] // the items are matched for their variant, not all read
enum ReadOrWrite<'w> {
    Write(&'w mut Health, &'w Label),
    Read(&'w Health),
}

#[derive(QueryData)]
#[allow(dead_code)] // never fetched: the query is refused
enum Aliasing<'w> {
    Fine(&'w Label),
    Twice(&'w mut Health, &'w Health),
}

#[test]
fn variants_alias_only_within_themselves() {
    let mut world = World::new();
    let writable = world.spawn((Health(1), Label("w")));
    let readable = world.spawn(Health(5));
    for item in world.query::<ReadOrWrite>().iter_mut() {
        if let ReadOrWrite::Write(health, _) = item {
            health.0 += 1;
        }
    }
    assert_eq!(world.get::<Health>(writable), Ok(&Health(2)));
    assert_eq!(world.get::<Health>(readable), Ok(&Health(5)));

    let message = panic_message(|| world.query::<Aliasing>().iter_mut().count());
    assert!(message.contains("Aliasing::Twice") && message.contains("Health"), "{message}");
    // The enum declares a write of `Health` to anything that checks its access.
    let message = panic_message(|| world.query::<(ReadOrWrite, &Health)>().iter_mut().count());
    assert!(message.contains("mutably and immutably"), "{message}");
}

#[test]
fn a_watch_refuses_an_enum_query() {
    let mut world = World::new();
    let message = panic_message(|| world.watch::<(&Label, Shape), ()>(|_| {}, |_| {}));
    assert!(message.contains("enum query"), "{message}");
}

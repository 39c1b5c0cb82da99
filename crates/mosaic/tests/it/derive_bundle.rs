//! `#[derive(Bundle)]`: structs of components, tuples and other derived bundles spawn, insert,
//! remove and travel through command buffers as their flattened components.

use mosaic::{Bundle, CommandBuffer, Component, ComponentError, World};

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Position(i32, i32);
#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Velocity(i32, i32);
#[derive(Component, Debug, PartialEq)]
struct Health(u32);
#[derive(Component, Debug, PartialEq)]
struct PlayerTag;

#[derive(Bundle, Debug, PartialEq)]
struct Body {
    position: Position,
    velocity: Velocity,
}

#[derive(Bundle, Debug, PartialEq)]
struct Player {
    body: Body,
    health: Health,
    tag: PlayerTag,
}

#[derive(Bundle, Debug, PartialEq)]
struct Pair(Health, (Position, Velocity));

#[derive(Bundle, Debug, PartialEq)]
struct Nothing;

#[derive(Bundle, Debug, PartialEq)]
struct Wrapped<T: Bundle> {
    inner: T,
    health: Health,
}

fn player(x: i32) -> Player {
    Player {
        body: Body { position: Position(x, 0), velocity: Velocity(1, 1) },
        health: Health(10),
        tag: PlayerTag,
    }
}

#[test]
fn derived_bundles_spawn_and_insert_every_field_flattened() {
    let mut world = World::new();
    let p = world.spawn(player(3));
    assert_eq!(world.component_ids(p).unwrap().len(), 4);
    assert_eq!(world.get::<Position>(p), Ok(&Position(3, 0)));
    assert_eq!(world.get::<Health>(p), Ok(&Health(10)));
    assert!(world.contains::<PlayerTag>(p));
    let q = world.spawn(Pair(Health(1), (Position(7, 7), Velocity(0, 0))));
    assert_eq!(world.get::<Position>(q), Ok(&Position(7, 7)));
    let r = world.spawn_empty();
    world.insert_bundle(
        r,
        Wrapped { inner: Body { position: Position(1, 2), velocity: Velocity(3, 4) }, health: Health(5) },
    );
    assert_eq!(world.get::<Velocity>(r), Ok(&Velocity(3, 4)));
    let s = world.spawn(Nothing);
    assert_eq!(world.component_ids(s).unwrap().len(), 0);
    let batch = world.spawn_batch((0..3).map(player));
    assert_eq!(world.query::<&Position>().iter().count(), 6);
    assert_eq!(world.get::<Position>(batch[2]), Ok(&Position(2, 0)));
    assert_eq!(<Player as Bundle>::COUNT, 4);
}

#[test]
fn derived_bundles_come_back_out_whole() {
    let mut world = World::new();
    let p = world.spawn(player(3));
    assert_eq!(world.remove::<Body>(p), Some(Body { position: Position(3, 0), velocity: Velocity(1, 1) }));
    assert_eq!(
        world.try_remove::<Player>(p),
        Err(ComponentError::MissingComponent { entity: p, component: std::any::type_name::<Position>() })
    );
    assert!(world.contains::<Health>(p), "all or nothing");
    world.insert_bundle(p, Body { position: Position(9, 9), velocity: Velocity(0, 1) });
    let expected = Player {
        body: Body { position: Position(9, 9), velocity: Velocity(0, 1) },
        health: Health(10),
        tag: PlayerTag,
    };
    assert_eq!(world.remove::<Player>(p), Some(expected));
    assert_eq!(world.component_ids(p).unwrap().len(), 0);
}

#[test]
fn derived_bundles_through_command_buffers() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let p = commands.spawn(&world, player(1));
    commands.remove::<Body>(p);
    commands.apply(&mut world);
    assert!(world.contains::<Health>(p) && !world.contains::<Position>(p));
    let mut commands = CommandBuffer::new();
    commands.insert(p, Body { position: Position(2, 2), velocity: Velocity(2, 2) });
    commands.apply(&mut world);
    assert_eq!(world.get::<Position>(p), Ok(&Position(2, 2)));
}

#[test]
fn a_derived_bundle_holding_a_type_twice_panics_naming_it() {
    #[derive(Bundle)]
    struct Twice {
        first: Health,
        again: (Position, Health),
    }
    let mut world = World::new();
    let message = crate::common::panic_message(|| {
        world.spawn(Twice { first: Health(1), again: (Position(0, 0), Health(2)) })
    });
    assert!(message.contains("Health") && message.contains("twice"), "{message}");
    assert_eq!(world.len(), 0, "nothing spawned");
}

#[test]
fn insert_batch_takes_bundles_and_single_components() {
    let mut world = World::new();
    let entities: Vec<_> = (0..4).map(|_| world.spawn_empty()).collect();
    world.insert_batch(entities.iter().map(|&e| (e, Health(1))));
    world.insert_batch(entities.iter().enumerate().map(|(i, &e)| (e, (Position(i as i32, 0), PlayerTag))));
    world.insert_batch(
        entities[..2].iter().map(|&e| (e, Body { position: Position(9, 9), velocity: Velocity(1, 0) })),
    );
    assert_eq!(world.get::<Position>(entities[0]), Ok(&Position(9, 9)), "replaced by the later batch");
    assert_eq!(world.get::<Position>(entities[3]), Ok(&Position(3, 0)));
    assert!(world.contains::<Velocity>(entities[1]) && !world.contains::<Velocity>(entities[2]));
    assert_eq!(world.query::<(&Health, &PlayerTag)>().iter().count(), 4);

    world.despawn(entities[2]);
    let message = crate::common::panic_message(|| {
        world.insert_batch(entities.iter().map(|&e| (e, (Health(7), Velocity(0, 0)))));
    });
    assert!(message.contains(&entities[2].to_string()), "{message}");
    assert_eq!(world.get::<Health>(entities[1]), Ok(&Health(7)), "rows before the dead one went in");
    assert_eq!(world.get::<Health>(entities[3]), Ok(&Health(1)), "rows after it did not");
}

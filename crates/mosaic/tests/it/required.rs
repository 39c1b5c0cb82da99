//! Required components, as bevy's `required_components_*` tests read (ported to Mosaic's names):
//! derive and run-time declarations, recursion, values given win, cycles refused.

use std::sync::{Arc, Mutex};

use mosaic::component::RequiredComponentsError;
use mosaic::{CommandBuffer, Component, World};

#[derive(Component, Debug, PartialEq)]
#[require(Y, Z = Z(7))]
struct X;

#[derive(Component, Debug, PartialEq, Default)]
#[require(W)]
struct Y(u32);

#[derive(Component, Debug, PartialEq)]
struct Z(u32);

#[derive(Component, Debug, PartialEq, Default)]
struct W(u32);

#[test]
fn spawn_adds_required_components_recursively() {
    let mut world = World::new();
    let e = world.spawn(X);
    assert_eq!(world.get::<Y>(e), Ok(&Y(0)));
    assert_eq!(world.get::<Z>(e), Ok(&Z(7)));
    assert_eq!(world.get::<W>(e), Ok(&W(0)), "Y's own requirement");
}

#[test]
fn values_in_the_bundle_win_over_requirements() {
    let mut world = World::new();
    let e = world.spawn((X, Z(1), Y(5)));
    assert_eq!(world.get::<Y>(e), Ok(&Y(5)));
    assert_eq!(world.get::<Z>(e), Ok(&Z(1)));
    let f = world.spawn((W(9), X));
    assert_eq!(world.get::<W>(f), Ok(&W(9)));
}

#[test]
fn every_insert_path_adds_requirements() {
    let mut world = World::new();
    let a = world.spawn_empty();
    world.insert(a, X);
    let b = world.spawn_empty();
    world.insert_bundle(b, (X, W(3)));
    let batch = world.spawn_batch((0..3).map(|_| X));
    let c = world.spawn_empty();
    world.insert_batch([(c, X)]);
    let mut commands = CommandBuffer::new();
    let d = commands.spawn(&world, X);
    commands.apply(&mut world);
    for e in [a, b, c, d].into_iter().chain(batch) {
        assert_eq!(world.get::<Z>(e), Ok(&Z(7)), "{e}");
        assert!(world.contains::<Y>(e) && world.contains::<W>(e), "{e}");
    }
    assert_eq!(world.get::<W>(b), Ok(&W(3)));
}

#[test]
fn a_replace_does_not_add_requirements_again() {
    let mut world = World::new();
    let e = world.spawn(X);
    world.remove::<Z>(e);
    world.insert(e, X);
    assert!(!world.contains::<Z>(e), "X was replaced, not added: nothing is required again");
}

#[test]
fn removing_a_required_component_keeps_the_requirer() {
    let mut world = World::new();
    let e = world.spawn(X);
    assert_eq!(world.remove::<Y>(e), Some(Y(0)));
    assert!(world.contains::<X>(e));
}

#[test]
fn run_time_requirements() {
    #[derive(Component)]
    struct Player;
    #[derive(Component, Default, Debug, PartialEq)]
    struct Score(u32);
    #[derive(Component, Debug, PartialEq)]
    struct Lives(u8);
    let mut world = World::new();
    world.register_required_components::<Player, Score>().unwrap();
    world.register_required_components_with::<Score, Lives>(|| Lives(3)).unwrap();
    let p = world.spawn(Player);
    assert_eq!(world.get::<Score>(p), Ok(&Score(0)));
    assert_eq!(world.get::<Lives>(p), Ok(&Lives(3)));
    let ids = world.required_components::<Player>();
    assert_eq!(ids, [world.components().id::<Score>().unwrap()]);
    assert!(matches!(
        world.register_required_components::<Player, Score>(),
        Err(RequiredComponentsError::Duplicate { .. })
    ));
}

#[test]
fn run_time_cycles_are_refused_naming_the_path() {
    #[derive(Component, Default)]
    struct P;
    #[derive(Component, Default)]
    struct Q;
    #[derive(Component, Default)]
    struct R;
    let mut world = World::new();
    world.register_required_components::<P, Q>().unwrap();
    world.register_required_components::<Q, R>().unwrap();
    let error = world.register_required_components::<R, P>().unwrap_err();
    assert!(matches!(error, RequiredComponentsError::Cycle { .. }));
    let message = error.to_string();
    assert!(message.contains("cycle"), "{message}");
    assert!(world.register_required_components::<P, P>().is_err(), "a component cannot require itself");
    let e = world.spawn(R);
    assert!(!world.contains::<P>(e), "the refused requirement was not registered");
}

#[derive(Component, Default)]
#[require(CycleB)]
struct CycleA;
#[derive(Component, Default)]
#[require(CycleA)]
struct CycleB;

#[test]
#[should_panic(expected = "required components may not form a cycle")]
fn derived_cycles_panic_at_registration() {
    let mut world = World::new();
    world.spawn(CycleA);
}

#[test]
fn hooks_of_the_requirer_see_its_requirements() {
    let mut world = World::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    world.on_add::<X>(move |ctx| {
        log.lock().unwrap().push(ctx.world.get::<Z>(ctx.entity).map(|z| z.0).ok());
    });
    world.spawn(X);
    assert_eq!(*seen.lock().unwrap(), [Some(7)]);
}

#[test]
fn the_shallowest_requirement_makes_the_value() {
    // bevy's `runtime_required_components_override`: A requires B (depth 1) and C; C requires B
    // with another value (depth 2). The depth-1 constructor wins whatever the declaration order.
    #[derive(Component)]
    struct A;
    #[derive(Component, Debug, PartialEq)]
    struct B(u32);
    #[derive(Component, Default)]
    struct C;
    let mut world = World::new();
    world.register_required_components_with::<C, B>(|| B(2)).unwrap();
    world.register_required_components::<A, C>().unwrap();
    world.register_required_components_with::<A, B>(|| B(1)).unwrap();
    let e = world.spawn(A);
    assert_eq!(world.get::<B>(e), Ok(&B(1)));
    let f = world.spawn(C);
    assert_eq!(world.get::<B>(f), Ok(&B(2)));
}

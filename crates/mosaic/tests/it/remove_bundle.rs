//! Removing bundles: `World::remove::<(A, B)>` takes all or nothing (hecs' `remove`),
//! `remove_present` and `CommandBuffer::remove` drop whichever the entity has (bevy's `remove`),
//! and hooks' commands run once the whole bundle is out.

use crate::common::{assert_pools_consistent, panic_message};

use std::sync::{Arc, Mutex};

use mosaic::{CommandBuffer, Component, ComponentError, EntityError, World};

#[derive(Component, Debug, PartialEq)]
struct A(u32);
#[derive(Component, Debug, PartialEq)]
struct B(u32);
#[derive(Component, Debug, PartialEq)]
struct C(u32);

#[test]
fn remove_takes_the_whole_bundle_or_nothing() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(2), C(3)));
    let other = world.spawn((A(10), B(20)));
    assert_eq!(world.remove::<(A, C)>(e), Some((A(1), C(3))));
    assert!(!world.contains::<A>(e) && world.contains::<B>(e) && !world.contains::<C>(e));
    // Lacks A: nothing removed, B stays.
    assert_eq!(world.remove::<(B, A)>(e), None);
    assert_eq!(world.get::<B>(e), Ok(&B(2)));
    assert_eq!(
        world.try_remove::<(B, A, C)>(e),
        Err(ComponentError::MissingComponent { entity: e, component: std::any::type_name::<A>() }),
        "names the first missing type in bundle order"
    );
    assert_eq!(world.get::<B>(e), Ok(&B(2)));
    // Nested tuples flatten; the single-component form is unchanged.
    let f = world.spawn((A(4), B(5), C(6)));
    assert_eq!(world.remove::<((A, B), C)>(f), Some(((A(4), B(5)), C(6))));
    assert_eq!(world.remove::<B>(e), Some(B(2)));
    assert_eq!(world.remove::<B>(e), None);
    assert_eq!(world.remove::<()>(e), Some(()));
    assert_eq!(world.get::<A>(other), Ok(&A(10)));
    assert_eq!(world.get::<B>(other), Ok(&B(20)));
    assert_pools_consistent(&world);
}

#[test]
fn remove_present_drops_what_is_there() {
    let mut world = World::new();
    let e = world.spawn((A(1), C(3)));
    assert_eq!(world.remove_present::<(A, B, C)>(e), 2);
    assert_eq!(world.component_ids(e).unwrap().len(), 0);
    assert_eq!(world.remove_present::<(A, B)>(e), 0);
    let mut handle = world.entity_mut(e);
    handle.insert(B(7));
    assert_eq!(handle.remove_present::<(A, B)>(), 1);
    world.insert_bundle(e, (A(8), B(9)));
    assert_eq!(world.entity_mut(e).remove::<(A, B)>(), Some((A(8), B(9))));
    world.despawn(e);
    assert!(matches!(world.try_remove_present::<(A, B)>(e), Err(EntityError::NoSuchEntity { .. })));
    assert!(matches!(world.try_remove::<(A, B)>(e), Err(ComponentError::Entity(_))));
    assert_pools_consistent(&world);
}

#[test]
fn a_bundle_listing_a_type_twice_panics_and_removes_nothing() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(2)));
    let message = panic_message(|| world.remove::<(A, B, A)>(e));
    assert!(message.contains("twice"), "{message}");
    assert_eq!(world.get::<A>(e), Ok(&A(1)));
    assert_eq!(world.get::<B>(e), Ok(&B(2)));
}

#[test]
fn command_buffers_remove_bundles_bevy_style() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(2), C(3)));
    let gone = world.spawn(A(0));
    let mut commands = CommandBuffer::new();
    commands.remove::<(A, B)>(e);
    commands.remove::<(A, B)>(gone); // only A: removed
    commands.despawn(gone);
    commands.remove::<A>(gone); // dead by then: skipped
    let report = commands.apply(&mut world);
    assert_eq!(report.skipped, 1);
    assert!(!world.contains::<A>(e) && !world.contains::<B>(e));
    assert_eq!(world.get::<C>(e), Ok(&C(3)));
    assert_pools_consistent(&world);
}

#[test]
fn hooks_commands_run_after_the_whole_bundle_is_out() {
    let mut world = World::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    world.on_remove::<A>(move |ctx| {
        let entity = ctx.entity;
        let record = record.clone();
        // At the hook, B is still there; the command runs when the bundle is out.
        record.lock().unwrap().push(("hook", ctx.world.contains::<B>(entity)));
        ctx.commands.queue(move |world: &mut World| {
            record.lock().unwrap().push(("command", world.contains::<B>(entity)));
        });
    });
    let e = world.spawn((A(1), B(2)));
    assert_eq!(world.remove::<(A, B)>(e), Some((A(1), B(2))));
    assert_eq!(*seen.lock().unwrap(), [("hook", true), ("command", false)]);
    seen.lock().unwrap().clear();
    world.insert_bundle(e, (A(1), B(2)));
    assert_eq!(world.remove_present::<(A, B, C)>(e), 2);
    assert_eq!(*seen.lock().unwrap(), [("hook", true), ("command", false)]);
}

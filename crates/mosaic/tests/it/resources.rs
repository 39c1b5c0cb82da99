//! Resources: typed singletons; insert returns the previous value, the panicking accessors name
//! the missing type, and the fallible ones return `ResourceError::Missing`.

use crate::common;

use std::any::type_name;

use common::panic_message;
use mosaic::{ResourceError, World};

#[derive(Debug, PartialEq, Eq)]
struct Score(u32);

#[derive(Debug, PartialEq, Eq)]
struct Settings {
    volume: u8,
}

#[test]
fn insert_resource_returns_the_previous_value() {
    let mut world = World::new();
    assert!(!world.contains_resource::<Score>());
    assert_eq!(world.insert_resource(Score(1)), None);
    assert!(world.contains_resource::<Score>());
    assert_eq!(world.insert_resource(Score(2)), Some(Score(1)));
    assert_eq!(world.resource::<Score>(), &Score(2));
    // Types do not collide, even the same size and shape.
    assert_eq!(world.insert_resource(7u32), None);
    assert_eq!(world.insert_resource(-7i32), None);
    assert_eq!(world.resource::<u32>(), &7);
    assert_eq!(world.resource::<i32>(), &-7);
    assert_eq!(world.resource::<Score>(), &Score(2));
}

#[test]
fn resource_mut_changes_persist() {
    let mut world = World::new();
    world.insert_resource(Settings { volume: 3 });
    world.resource_mut::<Settings>().volume += 1;
    assert_eq!(world.resource::<Settings>().volume, 4);
    world.get_resource_mut::<Settings>().unwrap().volume = 9;
    assert_eq!(world.get_resource::<Settings>(), Some(&Settings { volume: 9 }));
    world.try_resource_mut::<Settings>().unwrap().volume = 1;
    assert_eq!(world.try_resource::<Settings>(), Ok(&Settings { volume: 1 }));
}

#[test]
fn missing_resource_accessors() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    assert_eq!(world.get_resource::<Settings>(), None);
    assert_eq!(world.get_resource_mut::<Settings>(), None);
    let missing = ResourceError::Missing { resource: type_name::<Settings>() };
    assert_eq!(world.try_resource::<Settings>(), Err(missing));
    assert_eq!(world.try_resource_mut::<Settings>(), Err(missing));
    let message = missing.to_string();
    assert!(message.contains(type_name::<Settings>()), "{message}");
    assert!(message.contains("insert_resource"), "{message}");
}

#[test]
fn panicking_accessors_name_the_missing_type() {
    let mut world = World::new();
    let message = panic_message(|| world.resource::<Settings>().volume);
    assert!(message.contains(type_name::<Settings>()), "{message}");
    let message = panic_message(|| world.resource_mut::<Settings>().volume);
    assert!(message.contains(type_name::<Settings>()), "{message}");
}

#[test]
#[should_panic(expected = "no `it::resources::Score` resource in the world")]
fn resource_panics_when_missing() {
    World::new().resource::<Score>();
}

#[test]
#[should_panic(expected = "no `it::resources::Score` resource in the world")]
fn resource_mut_panics_when_missing() {
    World::new().resource_mut::<Score>();
}

#[test]
fn remove_resource_returns_the_value_then_none() {
    let mut world = World::new();
    world.insert_resource(Score(5));
    world.insert_resource(Settings { volume: 2 });
    assert_eq!(world.remove_resource::<Score>(), Some(Score(5)));
    assert_eq!(world.remove_resource::<Score>(), None);
    assert!(!world.contains_resource::<Score>());
    assert_eq!(world.get_resource::<Score>(), None);
    assert_eq!(world.resource::<Settings>(), &Settings { volume: 2 });
    // Inserting again after removal starts fresh.
    assert_eq!(world.insert_resource(Score(6)), None);
    assert_eq!(world.resource::<Score>(), &Score(6));
}

#[test]
fn resources_are_not_entities() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    assert!(world.is_empty());
    assert!(world.components().is_empty());
}

#[test]
fn resource_scope_lends_the_resource_beside_the_world() {
    struct Budget(u32);
    let mut world = World::new();
    world.insert_resource(Budget(2));
    let spawned = world.resource_scope(|world, budget: &mut Budget| {
        assert!(!world.contains_resource::<Budget>(), "taken out while the scope runs");
        let mut spawned = Vec::new();
        while budget.0 > 0 {
            spawned.push(world.spawn_empty());
            budget.0 -= 1;
        }
        spawned
    });
    assert_eq!(spawned.len(), 2);
    assert_eq!(world.resource::<Budget>().0, 0, "put back with its changes");
    assert_eq!(
        world.try_resource_scope(|_, _: &mut String| unreachable!()),
        Err(ResourceError::Missing { resource: type_name::<String>() })
    );
    let message =
        panic_message(|| world.resource_scope(|world, _: &mut Budget| world.insert_resource(Budget(9))));
    assert!(message.contains("was inserted during `World::resource_scope`"), "{message}");
    assert_eq!(world.resource::<Budget>().0, 0, "the scope's value wins");
}

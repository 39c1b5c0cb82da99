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
}

#[test]
#[allow(deprecated)]
fn the_deprecated_try_forms_still_answer() {
    let mut world = World::new();
    world.insert_resource(Settings { volume: 3 });
    world.try_resource_mut::<Settings>().unwrap().volume = 1;
    assert_eq!(world.try_resource::<Settings>(), Ok(&Settings { volume: 1 }));
}

#[test]
#[allow(deprecated)]
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
    let panic =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.resource::<Settings>().volume))
            .unwrap_err();
    assert_eq!(*panic.downcast::<String>().unwrap(), message, "`resource` panics with the same message");
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

// --- resource change detection ---

mod change_detection {
    use std::sync::{Arc, Mutex};

    use mosaic::schedule::{resource_added, resource_changed, resource_exists};
    use mosaic::{Res, ResMut, Schedule, World};

    #[derive(Debug, PartialEq)]
    struct Speed(u32);
    struct Paused;

    type Seen = Arc<Mutex<Vec<(bool, bool)>>>;

    fn watcher(seen: &Seen) -> impl FnMut(Res<Speed>) + Send + Sync + 'static {
        let seen = Arc::clone(seen);
        move |speed: Res<Speed>| seen.lock().unwrap().push((speed.is_added(), speed.is_changed()))
    }

    #[test]
    fn systems_see_inserts_and_writes_since_their_last_run() {
        let mut world = World::new();
        world.insert_resource(Speed(1));
        let seen: Seen = Arc::default();
        let mut schedule = Schedule::new();
        schedule.add_system(watcher(&seen)).named("watch");
        // A writer after the watcher: reads every frame, writes on frame 3 only.
        schedule
            .add_system(|mut speed: ResMut<Speed>, mut frame: mosaic::Local<u32>| {
                *frame += 1;
                if speed.0 < 100 && *frame == 3 {
                    speed.0 += 1; // DerefMut: a change
                }
                let _ = speed.is_changed(); // reading marks nothing
            })
            .after("watch");
        for _ in 0..5 {
            schedule.run(&mut world);
        }
        world.insert_resource(Speed(9)); // a replace: changed, not added
        schedule.run(&mut world);
        assert_eq!(
            *seen.lock().unwrap(),
            [(true, true), (false, false), (false, false), (false, true), (false, false), (false, true)]
        );
    }

    #[test]
    fn bypass_and_set_changed() {
        let mut world = World::new();
        world.insert_resource(Speed(1));
        world.clear_trackers();
        let mut schedule = Schedule::new();
        schedule.add_system(|mut speed: ResMut<Speed>| speed.bypass_change_detection().0 = 7);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Speed>(), &Speed(7));
        assert!(!world.is_resource_changed::<Speed>(), "a bypassed write is no change");
        let mut schedule = Schedule::new();
        schedule.add_system(|mut speed: ResMut<Speed>| speed.set_changed());
        schedule.run(&mut world);
        assert!(world.is_resource_changed::<Speed>());
        assert!(!world.is_resource_added::<Speed>());
        assert!(!world.is_resource_changed::<Paused>(), "absent: not changed");
    }

    #[test]
    fn world_level_windows_follow_clear_trackers() {
        let mut world = World::new();
        world.insert_resource(Speed(1));
        assert!(world.is_resource_added::<Speed>() && world.is_resource_changed::<Speed>());
        world.clear_trackers();
        assert!(!world.is_resource_changed::<Speed>());
        let _ = world.resource::<Speed>();
        assert!(!world.is_resource_changed::<Speed>(), "a shared read is no change");
        world.resource_scope(|_, speed: &mut Speed| speed.0 += 1);
        assert!(world.is_resource_changed::<Speed>(), "a scope hands it out mutably");
        assert!(!world.is_resource_added::<Speed>(), "a scope does not re-add it");
    }

    #[test]
    fn run_conditions_on_resources() {
        let mut world = World::new();
        let runs: Arc<Mutex<Vec<&str>>> = Arc::default();
        let mut schedule = Schedule::new();
        for (name, condition) in [
            ("exists", Box::new(resource_exists::<Speed>()) as Box<dyn Fn(&World) -> bool + Send + Sync>),
            ("added", Box::new(resource_added::<Speed>())),
            ("changed", Box::new(resource_changed::<Speed>())),
        ] {
            let log = Arc::clone(&runs);
            schedule.add_system(move || log.lock().unwrap().push(name)).named(name).run_if(condition);
        }
        schedule.run(&mut world); // no Speed
        world.insert_resource(Speed(1));
        schedule.run(&mut world); // added and changed
        schedule.run(&mut world); // exists only
        world.resource_mut::<Speed>().0 = 2;
        schedule.run(&mut world); // changed
        let runs = runs.lock().unwrap();
        assert_eq!(*runs, ["exists", "added", "changed", "exists", "exists", "changed"]);
    }

    /// Rollback restores resource ticks with the values: a reader after a restore sees what it
    /// saw then.
    #[cfg(feature = "rollback")]
    #[test]
    fn rollback_restores_resource_ticks() {
        use mosaic::rollback::{RollbackRegistry, RollbackRing};
        #[derive(Clone, Hash, PartialEq, Debug)]
        struct Level(u32);
        let mut registry = RollbackRegistry::new();
        registry.register_resource::<Level>("level");
        let mut ring = RollbackRing::new(registry, 4);
        let mut world = World::new();
        world.insert_resource(Level(1));
        world.clear_trackers();
        ring.save(&mut world, 0).unwrap();
        world.resource_mut::<Level>().0 = 2;
        assert!(world.is_resource_changed::<Level>());
        ring.restore(0, &mut world).unwrap();
        assert_eq!(world.resource::<Level>(), &Level(1));
        assert!(!world.is_resource_changed::<Level>(), "unchanged as of the save");
    }
}

#[test]
fn init_resource_makes_missing_resources_from_the_world_and_keeps_present_ones() {
    use mosaic::FromWorld;

    #[derive(Debug, PartialEq)]
    struct Budget(u32);
    impl FromWorld for Budget {
        fn from_world(world: &mut World) -> Self {
            Budget(world.resource::<Score>().0 * 2)
        }
    }

    let mut world = World::new();
    world.insert_resource(Score(21));
    world.init_resource::<Budget>();
    assert_eq!(world.resource::<Budget>(), &Budget(42));
    world.resource_mut::<Score>().0 = 1;
    world.init_resource::<Budget>(); // present: not made again
    assert_eq!(world.resource::<Budget>(), &Budget(42));
    world.init_resource::<Vec<u8>>(); // any `Default` type
    assert!(world.resource::<Vec<u8>>().is_empty());
}

#[test]
fn locals_start_from_the_world_once_per_system() {
    use mosaic::{FromWorld, Local, ResMut};

    struct Counter(u32);
    impl FromWorld for Counter {
        fn from_world(world: &mut World) -> Self {
            Counter(world.resource::<Score>().0)
        }
    }
    fn count(mut counter: Local<Counter>, mut seen: ResMut<Vec<u32>>) {
        counter.0 += 1;
        seen.push(counter.0);
    }

    let mut world = World::new();
    world.insert_resource(Score(100));
    world.insert_resource(Vec::<u32>::new());
    let mut schedule = mosaic::Schedule::new();
    schedule.add_system(count);
    schedule.run(&mut world);
    world.resource_mut::<Score>().0 = 0; // read once, when the system was initialized
    schedule.run(&mut world);
    assert_eq!(world.resource::<Vec<u32>>(), &vec![101, 102]);
}

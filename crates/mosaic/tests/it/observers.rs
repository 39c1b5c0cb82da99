//! Observers of custom and lifecycle events, as bevy's own observer tests read (ported to
//! Mosaic's names): order, targets, propagation, observers as entities, their commands.

use mosaic::observer::{Add, Despawn, Insert, Remove, Replace};
use mosaic::{CommandBuffer, Commands, Component, Entity, Event, On, Query, Res, ResMut, Schedule, World};

#[derive(Component, Debug, Clone, Copy, PartialEq, Hash)]
struct A(i32);
#[derive(Component, Debug, Clone, Copy, PartialEq, Hash)]
struct B(i32);

/// What observers saw, in order.
#[derive(Default)]
struct Order(Vec<String>);

impl Order {
    fn push(&mut self, what: impl Into<String>) {
        self.0.push(what.into());
    }
}

fn world_with_order() -> World {
    let mut world = World::new();
    world.insert_resource(Order::default());
    world
}

fn order(world: &World) -> Vec<String> {
    world.resource::<Order>().0.clone()
}

#[derive(Event)]
struct EventA;

#[derive(Event, Debug)]
struct Damage(i32);

#[derive(Event)]
#[event(propagate)]
struct Bubbling(Vec<&'static str>);

#[test]
fn lifecycle_order_insert_replace_remove() {
    let mut world = world_with_order();
    world.add_observer(|_: On<Add, A>, mut o: ResMut<Order>| o.push("add"));
    world.add_observer(|_: On<Insert, A>, mut o: ResMut<Order>| o.push("insert"));
    world.add_observer(|_: On<Replace, A>, mut o: ResMut<Order>| o.push("replace"));
    world.add_observer(|_: On<Remove, A>, mut o: ResMut<Order>| o.push("remove"));
    let e = world.spawn(A(1));
    world.insert(e, A(2));
    world.remove::<A>(e);
    assert_eq!(order(&world), ["add", "insert", "replace", "insert", "remove"]);
}

#[test]
fn lifecycle_observers_read_old_and_new_values() {
    let mut world = world_with_order();
    world.add_observer(|on: On<Replace, A>, a: Query<&A>, mut o: ResMut<Order>| {
        o.push(format!("old {}", a.get(on.entity()).unwrap().0));
    });
    world.add_observer(|on: On<Insert, A>, a: Query<&A>, mut o: ResMut<Order>| {
        o.push(format!("new {}", a.get(on.entity()).unwrap().0));
    });
    world.add_observer(|on: On<Remove, A>, a: Query<&A>, mut o: ResMut<Order>| {
        o.push(format!("gone {}", a.get(on.entity()).unwrap().0));
    });
    let e = world.spawn(A(1));
    world.insert(e, A(2));
    world.despawn(e);
    assert_eq!(order(&world), ["new 1", "old 1", "new 2", "gone 2"]);
}

#[test]
fn despawn_fires_remove_then_despawn_per_component() {
    let mut world = world_with_order();
    world.add_observer(|on: On<Remove, (A, B)>, mut o: ResMut<Order>| {
        o.push(format!("remove {:?}", on.component().is_some()));
    });
    world.add_observer(|_: On<Despawn, A>, mut o: ResMut<Order>| o.push("despawn"));
    let e = world.spawn((A(1), B(2)));
    world.despawn(e);
    assert_eq!(order(&world), ["remove true", "despawn", "remove true"]);
}

#[test]
fn multi_component_observer_fires_once_per_component_added() {
    let mut world = World::new();
    world.insert_resource(0u32);
    world.add_observer(|_: On<Add, (A, B)>, mut n: ResMut<u32>| *n += 1);
    world.spawn((A(1), B(1)));
    world.spawn(A(1));
    let e = world.spawn_empty();
    world.insert(e, B(3));
    assert_eq!(*world.resource::<u32>(), 4);
}

#[test]
fn observers_of_a_type_do_not_run_for_others() {
    let mut world = World::new();
    world.insert_resource(0u32);
    world.add_observer(|_: On<Add, A>, mut n: ResMut<u32>| *n += 1);
    world.spawn(B(1));
    world.spawn_batch((0..3).map(B));
    assert_eq!(*world.resource::<u32>(), 0);
}

#[test]
fn global_trigger_runs_observers_of_every_entity_only() {
    let mut world = world_with_order();
    let e = world.spawn_empty();
    world.add_observer(|on: On<EventA>, mut o: ResMut<Order>| {
        o.push(format!("global {:?}", on.target().is_some()))
    });
    world.observe(e, |_: On<EventA>, mut o: ResMut<Order>| o.push("entity"));
    world.trigger(EventA);
    assert_eq!(order(&world), ["global false"]);
    world.trigger_targets(EventA, e);
    assert_eq!(order(&world), ["global false", "global true", "entity"]);
}

#[test]
fn entity_observers_run_only_for_their_entity() {
    let mut world = World::new();
    world.insert_resource(Vec::<Entity>::new());
    let [a, b, c] = [(); 3].map(|()| world.spawn_empty());
    world.observe(a, |on: On<Damage>, mut seen: ResMut<Vec<Entity>>| seen.push(on.entity()));
    world.observe(b, |on: On<Damage>, mut seen: ResMut<Vec<Entity>>| seen.push(on.entity()));
    world.trigger_targets(Damage(1), [c, b, a, b]);
    assert_eq!(*world.resource::<Vec<Entity>>(), [b, a, b]);
}

#[test]
fn observer_changes_world_through_query_and_commands() {
    #[derive(Component, Debug, PartialEq)]
    struct Health(i32);
    let mut world = World::new();
    world.add_observer(|hit: On<Damage>, mut health: Query<&mut Health>, mut commands: Commands| {
        let target = hit.entity();
        let health = health.get_mut(target).unwrap();
        health.0 -= hit.0;
        if health.0 <= 0 {
            commands.despawn(target);
        }
    });
    let e = world.spawn(Health(10));
    world.trigger_targets(Damage(3), e);
    assert_eq!(world.get::<Health>(e), Ok(&Health(7)));
    world.trigger_targets(Damage(7), e);
    assert!(!world.is_alive(e));
}

#[test]
fn auto_propagation_walks_up_the_hierarchy_and_stops_when_asked() {
    let mut world = world_with_order();
    let root = world.spawn_empty();
    let mid = world.spawn_empty();
    let leaf = world.spawn_empty();
    world.set_parent(mid, root).unwrap();
    world.set_parent(leaf, mid).unwrap();
    world.observe(leaf, |mut on: On<Bubbling>, mut o: ResMut<Order>| {
        on.0.push("leaf");
        o.push("leaf");
    });
    world.observe(mid, |mut on: On<Bubbling>, mut o: ResMut<Order>| {
        on.event_mut().0.push("mid");
        o.push(format!("mid after {:?}", on.0));
    });
    world.observe(root, |on: On<Bubbling>, mut o: ResMut<Order>| {
        o.push(format!("root after {:?}", on.0));
    });
    world.trigger_targets(Bubbling(Vec::new()), leaf);
    assert_eq!(order(&world), ["leaf", "mid after [\"leaf\", \"mid\"]", "root after [\"leaf\", \"mid\"]"]);

    // Stopped at mid: root does not hear it.
    world.resource_mut::<Order>().0.clear();
    let stopper = world.observe(mid, |mut on: On<Bubbling>| on.propagate(false));
    world.trigger_targets(Bubbling(Vec::new()), leaf);
    assert_eq!(order(&world), ["leaf", "mid after [\"leaf\", \"mid\"]"]);
    world.despawn(stopper);
    world.resource_mut::<Order>().0.clear();
    world.trigger_targets(Bubbling(Vec::new()), leaf);
    assert_eq!(order(&world).len(), 3, "despawning the observer that stopped it lets it through");
}

#[test]
fn propagation_keeps_the_original_target_and_global_observers_see_each_level() {
    let mut world = World::new();
    world.insert_resource(Vec::<(Entity, Entity)>::new());
    let parent = world.spawn_empty();
    let child = world.spawn_empty();
    world.set_parent(child, parent).unwrap();
    world.add_observer(|on: On<Bubbling>, mut seen: ResMut<Vec<(Entity, Entity)>>| {
        seen.push((on.entity(), on.original_target().unwrap()));
    });
    world.trigger_targets(Bubbling(Vec::new()), child);
    assert_eq!(*world.resource::<Vec<(Entity, Entity)>>(), [(child, child), (parent, child)]);
}

#[test]
fn a_non_propagating_event_propagates_when_an_observer_asks() {
    let mut world = World::new();
    world.insert_resource(0u32);
    let parent = world.spawn_empty();
    let child = world.spawn_empty();
    world.set_parent(child, parent).unwrap();
    world.observe(child, |mut on: On<Damage>| on.propagate(true));
    world.observe(parent, |on: On<Damage>, mut n: ResMut<u32>| *n += on.0 as u32);
    world.trigger_targets(Damage(5), child);
    assert_eq!(*world.resource::<u32>(), 5);
    world.trigger_targets(Damage(5), parent);
    assert_eq!(*world.resource::<u32>(), 10);
}

#[test]
fn observers_are_entities_and_despawning_one_removes_it() {
    let mut world = World::new();
    world.insert_resource(0u32);
    let observer = world.add_observer(|_: On<EventA>, mut n: ResMut<u32>| *n += 1);
    assert!(world.get::<mosaic::Observer>(observer).is_ok());
    assert_eq!(world.observer_count(), 1);
    world.trigger(EventA);
    world.despawn(observer);
    world.trigger(EventA);
    assert_eq!(*world.resource::<u32>(), 1);
    assert_eq!(world.observer_count(), 0);

    let observer = world.add_observer(|_: On<Add, A>, mut n: ResMut<u32>| *n += 10);
    world.spawn(A(0));
    world.despawn(observer);
    world.spawn(A(0));
    assert_eq!(*world.resource::<u32>(), 11);
}

#[test]
fn entity_observers_go_with_their_entity_and_on_despawn_runs_first() {
    let mut world = world_with_order();
    let e = world.spawn(A(1));
    let watcher = world.observe(e, |on: On<Despawn>, a: Query<&A>, mut o: ResMut<Order>| {
        o.push(format!("despawn {}", a.get(on.entity()).unwrap().0));
    });
    let other = world.spawn(A(2));
    world.despawn(other);
    assert!(order(&world).is_empty());
    world.despawn(e);
    assert_eq!(order(&world), ["despawn 1"]);
    assert!(!world.is_alive(watcher));
    assert_eq!(world.observer_count(), 0);
}

#[test]
fn entity_lifecycle_observer_runs_only_for_its_entity() {
    let mut world = World::new();
    world.insert_resource(0u32);
    let e = world.spawn_empty();
    world.observe(e, |_: On<Add, A>, mut n: ResMut<u32>| *n += 1);
    world.spawn(A(0));
    world.insert(e, A(0));
    assert_eq!(*world.resource::<u32>(), 1);
}

#[test]
fn commands_of_observers_run_after_the_operation_in_order() {
    let mut world = world_with_order();
    world.add_observer(|on: On<Add, A>, mut commands: Commands| {
        commands.insert(on.entity(), B(7));
    });
    world.add_observer(|on: On<Add, B>, a: Query<&A>, mut o: ResMut<Order>| {
        o.push(format!("b added, a present: {}", a.get(on.entity()).is_ok()));
    });
    let e = world.spawn(A(1));
    assert_eq!(world.get::<B>(e), Ok(&B(7)));
    assert_eq!(order(&world), ["b added, a present: true"]);
}

#[test]
fn observer_triggering_another_event_through_commands() {
    #[derive(Event)]
    struct Ping(u32);
    let mut world = World::new();
    world.insert_resource(Vec::<u32>::new());
    world.add_observer(|ping: On<Ping>, mut log: ResMut<Vec<u32>>, mut commands: Commands| {
        log.push(ping.0);
        if ping.0 < 3 {
            commands.trigger(Ping(ping.0 + 1));
        }
    });
    world.trigger(Ping(0));
    assert_eq!(*world.resource::<Vec<u32>>(), [0, 1, 2, 3]);
}

#[test]
fn command_buffer_and_system_commands_trigger() {
    let mut world = World::new();
    world.insert_resource(0i32);
    world.add_observer(|d: On<Damage>, mut n: ResMut<i32>| *n += d.0);
    let mut commands = CommandBuffer::new();
    commands.trigger(Damage(2));
    let e = world.spawn_empty();
    commands.trigger_targets(Damage(3), e);
    commands.apply(&mut world);
    assert_eq!(*world.resource::<i32>(), 5);

    fn hit(mut commands: Commands) {
        commands.trigger(Damage(10));
    }
    let mut schedule = Schedule::new();
    schedule.add_system(hit);
    schedule.run(&mut world);
    assert_eq!(*world.resource::<i32>(), 15);
}

#[test]
fn observer_with_missing_resource_is_skipped() {
    struct Missing;
    let mut world = World::new();
    world.insert_resource(0u32);
    world.add_observer(|_: On<EventA>, _: Res<Missing>| unreachable!("skipped: its resource is missing"));
    world.add_observer(|_: On<EventA>, mut n: ResMut<u32>| *n += 1);
    world.trigger(EventA);
    assert_eq!(*world.resource::<u32>(), 1);
}

#[test]
fn aliasing_parameters_are_refused_with_their_names() {
    let mut world = World::new();
    let error = world.try_add_observer(|_: On<EventA>, _: Query<&mut A>, _: Query<&A>| {}).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("Query<&mut A>") && message.contains("Query<&A>"), "{message}");
    assert_eq!(world.observer_count(), 0);
}

#[test]
fn observers_fire_from_command_buffers_batches_and_clear() {
    let mut world = World::new();
    world.insert_resource((0u32, 0u32));
    world.add_observer(|_: On<Add, A>, mut n: ResMut<(u32, u32)>| n.0 += 1);
    world.add_observer(|_: On<Remove, A>, mut n: ResMut<(u32, u32)>| n.1 += 1);
    let mut commands = CommandBuffer::new();
    for i in 0..5 {
        commands.spawn(&world, A(i));
    }
    commands.apply(&mut world);
    let empty: Vec<Entity> = (0..3).map(|_| world.spawn_empty()).collect();
    world.insert_batch(empty.iter().map(|&e| (e, A(0))));
    world.spawn_batch((0..2).map(A));
    assert_eq!(*world.resource::<(u32, u32)>(), (10, 0));
    world.remove_batch::<A>(empty.iter().copied());
    world.clear();
    assert_eq!(*world.resource::<(u32, u32)>(), (10, 10));
}

#[cfg(feature = "rollback")]
#[test]
fn rollback_keeps_observers_and_refuses_a_changed_set() {
    use mosaic::rollback::{RollbackError, RollbackRegistry, RollbackRing};
    let mut world = World::new();
    world.insert_resource(0u32);
    world.add_observer(|on: On<Add, A>, mut commands: Commands| {
        commands.insert(on.entity(), B(1));
    });
    let mut registry = RollbackRegistry::new();
    registry.register_clone::<A>("A").register_clone::<B>("B");
    let mut ring = RollbackRing::new(registry, 4);
    ring.save(&mut world, 0).unwrap();
    let e = world.spawn(A(1));
    assert_eq!(world.get::<B>(e), Ok(&B(1)));
    ring.restore(0, &mut world).unwrap();
    assert!(!world.is_alive(e));
    let e = world.spawn(A(2));
    assert_eq!(world.get::<B>(e), Ok(&B(1)), "the observer survives the restore");
    let extra = world.add_observer(|_: On<EventA>| {});
    assert!(matches!(ring.restore(0, &mut world), Err(RollbackError::ObserversChanged { .. })));
    world.despawn(extra);
    ring.restore(0, &mut world).unwrap();
}

#[test]
fn observers_added_through_entity_mut_and_commands() {
    let mut world = World::new();
    world.insert_resource(0u32);
    let e = world.spawn_empty();
    world.entity_mut(e).observe(|_: On<EventA>, mut n: ResMut<u32>| *n += 1);
    let mut commands = CommandBuffer::new();
    commands.add_observer(|_: On<EventA>, mut n: ResMut<u32>| *n += 10);
    commands.observe(e, |_: On<EventA>, mut n: ResMut<u32>| *n += 100);
    let gone = world.spawn_empty();
    commands.observe(gone, |_: On<EventA>, mut n: ResMut<u32>| *n += 1000);
    world.despawn(gone);
    commands.apply(&mut world);
    assert_eq!(world.observer_count(), 3);
    world.trigger_targets(EventA, e);
    assert_eq!(*world.resource::<u32>(), 111);
}

#[test]
fn an_entity_reusing_a_despawned_index_does_not_inherit_its_observers() {
    let mut world = World::new();
    world.insert_resource(0u32);
    let old = world.spawn_empty();
    world.observe(old, |_: On<EventA>, mut n: ResMut<u32>| *n += 1);
    let kept = world.spawn_empty();
    world.observe(kept, |_: On<EventA>, mut n: ResMut<u32>| *n += 10);
    world.despawn(old);
    // The freed indices (`old`'s and its observer's) are reused in some order.
    let new = (0..2).map(|_| world.spawn_empty()).find(|e| e.index() == old.index());
    let new = new.expect("the test needs `old`'s index reused");
    world.trigger_targets(EventA, [new, old, kept]);
    assert_eq!(*world.resource::<u32>(), 10, "only `kept`'s observer runs");
    // A second observer of `kept` of another type, triggered alternately with the first type.
    world.observe(kept, |d: On<Damage>, mut n: ResMut<u32>| *n += 100 * d.0 as u32);
    for _ in 0..2 {
        world.trigger_targets(Damage(1), kept);
        world.trigger_targets(EventA, kept);
    }
    assert_eq!(*world.resource::<u32>(), 230);
    world.observe(new, |_: On<EventA>, mut n: ResMut<u32>| *n += 1000);
    world.trigger_targets(EventA, new);
    assert_eq!(*world.resource::<u32>(), 1230);
}

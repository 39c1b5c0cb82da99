//! bevy_ecs's observer tests (`observer/mod.rs`), ported to Mosaic's API where `observers.rs`
//! does not already cover them. Each test is named after the bevy test it ports.
//!
//! Names: bevy's `On<Add<A>>` is `On<Add, A>` here, an `EntityEvent` is an `Event` triggered with
//! `trigger_targets`, `ChildOf(parent)` is `set_parent`, `#[entity_event(propagate,
//! auto_propagate)]` is `#[event(propagate)]`, and `Observer::with_entities` is
//! `World::observe_many`.

use mosaic::observer::{Observed, ObserverFunction};
use mosaic::{
    Add, Commands, Component, Despawn, Discard, Entity, Event, Insert, Observer, On, ParamSet, Query, Remove,
    Res, ResMut, World,
};

#[derive(Component)]
struct A;
#[derive(Component)]
struct B;
/// A struct-of-arrays component: the other storage (bevy's test uses its sparse-set storage).
#[derive(Component)]
#[component(storage = "soa")]
struct S {
    value: u32,
}

#[derive(Event)]
struct EventA;

#[derive(Event)]
struct EventWithData {
    counter: usize,
}

/// bevy's `EventPropagating`: propagates up the hierarchy unless an observer stops it.
#[derive(Event)]
#[event(propagate)]
struct EventPropagating;

/// What the observers saw, in order.
#[derive(Default)]
struct Order(Vec<&'static str>);

impl Order {
    fn observed(&mut self, name: &'static str) {
        self.0.push(name);
    }
}

fn world_with_order() -> World {
    let mut world = World::new();
    world.insert_resource(Order::default());
    world
}

fn order(world: &World) -> Vec<&'static str> {
    world.resource::<Order>().0.clone()
}

/// The four lifecycle observers of bevy's `observer_order_*` tests, on component `T`.
fn add_order_observers<T: Component>(world: &mut World) {
    world.add_observer(|_: On<Add, T>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: On<Insert, T>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: On<Discard, T>, mut res: ResMut<Order>| res.observed("discard"));
    world.add_observer(|_: On<Remove, T>, mut res: ResMut<Order>| res.observed("remove"));
}

/// A child (`set_parent`) of `parent`.
fn spawn_child(world: &mut World, parent: Entity) -> Entity {
    let child = world.spawn_empty();
    world.set_parent(child, parent).unwrap();
    child
}

// bevy: observer_order_spawn_despawn
#[test]
fn observer_order_spawn_despawn() {
    let mut world = world_with_order();
    add_order_observers::<A>(&mut world);
    let entity = world.spawn(A);
    world.despawn(entity);
    assert_eq!(order(&world), ["add", "insert", "discard", "remove"]);
}

// bevy: observer_order_insert_remove
#[test]
fn observer_order_insert_remove() {
    let mut world = world_with_order();
    add_order_observers::<A>(&mut world);
    let entity = world.spawn_empty();
    world.insert(entity, A);
    world.remove::<A>(entity);
    assert_eq!(order(&world), ["add", "insert", "discard", "remove"]);
}

// bevy: observer_order_insert_remove_sparse (Mosaic's other storage is struct-of-arrays)
#[test]
fn observer_order_insert_remove_sparse() {
    let mut world = world_with_order();
    add_order_observers::<S>(&mut world);
    let entity = world.spawn_empty();
    world.insert(entity, S { value: 1 });
    assert_eq!(world.remove::<S>(entity).map(|s| s.value), Some(1));
    assert_eq!(order(&world), ["add", "insert", "discard", "remove"]);
}

// bevy: observer_order_replace
#[test]
fn observer_order_replace() {
    let mut world = world_with_order();
    let entity = world.spawn(A);
    add_order_observers::<A>(&mut world);
    world.insert(entity, A);
    assert_eq!(order(&world), ["discard", "insert"]);
}

// bevy: observer_order_recursive
#[test]
fn observer_order_recursive() {
    let mut world = world_with_order();
    world.add_observer(|add: On<Add, A>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("add_a");
        commands.insert(add.entity(), B);
    });
    world.add_observer(|remove: On<Remove, A>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("remove_a");
        commands.remove::<B>(remove.entity());
    });
    world.add_observer(|add: On<Add, B>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("add_b");
        commands.remove::<A>(add.entity());
    });
    world.add_observer(|_: On<Remove, B>, mut res: ResMut<Order>| res.observed("remove_b"));
    let entity = world.spawn(A);
    assert!(!world.contains::<A>(entity));
    assert!(!world.contains::<B>(entity));
    assert_eq!(order(&world), ["add_a", "add_b", "remove_a", "remove_b"]);
}

// bevy: observer_trigger_ref
#[test]
fn observer_trigger_ref() {
    let mut world = World::new();
    world.add_observer(|mut event: On<EventWithData>| event.counter += 1);
    world.add_observer(|mut event: On<EventWithData>| event.counter += 2);
    world.add_observer(|mut event: On<EventWithData>| event.counter += 4);
    let mut event = EventWithData { counter: 0 };
    world.trigger_ref(&mut event);
    assert_eq!(event.counter, 7);
}

// bevy 0.16: observer_trigger_targets_ref, at entities (Mosaic's custom events have no
// component targets)
#[test]
fn observer_trigger_targets_ref() {
    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    world.observe(a, |mut event: On<EventWithData>| event.event_mut().counter += 1);
    world.observe(b, |mut event: On<EventWithData>| event.event_mut().counter += 2);
    world.observe(a, |mut event: On<EventWithData>| event.event_mut().counter += 4);
    let mut event = EventWithData { counter: 0 };
    world.trigger_targets_ref(&mut event, a);
    assert_eq!(event.counter, 5);
    world.trigger_targets_ref(&mut event, [a, b]);
    assert_eq!(event.counter, 12);
}

// bevy: observer_multiple_listeners. Mosaic runs observers in registration order (documented in
// `mosaic::observer`); bevy's order is unspecified and its test sees the second first.
#[test]
fn observer_multiple_listeners() {
    let mut world = world_with_order();
    world.add_observer(|_: On<Add, A>, mut res: ResMut<Order>| res.observed("add_1"));
    world.add_observer(|_: On<Add, A>, mut res: ResMut<Order>| res.observed("add_2"));
    world.spawn(A);
    assert_eq!(order(&world), ["add_1", "add_2"]);
    assert_eq!(world.query::<&A>().count(), 1);
    assert_eq!(world.query::<&Observer>().count(), 2);
}

// bevy: observer_despawn_archetype_flags (regression test for bevy issue 14961)
#[test]
fn observer_despawn_archetype_flags() {
    let mut world = world_with_order();
    let entity = world.spawn((A, B));
    world.add_observer(|_: On<Remove, A>, mut res: ResMut<Order>| res.observed("remove_a"));
    let observer = world.add_observer(|_: On<Remove, B>| panic!("observer ran after being despawned"));
    world.despawn(observer);
    world.despawn(entity);
    assert_eq!(order(&world), ["remove_a"]);
}

// bevy: observer_multiple_matches. Mosaic differs: a lifecycle observer of several components
// runs once per component of its bundle that changes ("each time a component of `B` changes",
// `World::add_observer`), so a spawn of both runs it twice; bevy runs it once per entity.
#[test]
fn observer_multiple_matches() {
    let mut world = world_with_order();
    world.add_observer(|_: On<Add, (A, B)>, mut res: ResMut<Order>| res.observed("add_ab"));
    world.spawn((A, B));
    assert_eq!(order(&world), ["add_ab", "add_ab"]);
}

// bevy: observer_propagating
#[test]
fn observer_propagating() {
    let mut world = world_with_order();
    let parent = world.spawn_empty();
    let child = spawn_child(&mut world, parent);
    world.observe(parent, move |event: On<EventPropagating>, mut res: ResMut<Order>| {
        res.observed("parent");
        assert_eq!(event.entity(), parent);
        assert_eq!(event.original_target(), Some(child));
    });
    world.observe(child, move |event: On<EventPropagating>, mut res: ResMut<Order>| {
        res.observed("child");
        assert_eq!(event.entity(), child);
        assert_eq!(event.original_target(), Some(child));
    });
    world.trigger_targets(EventPropagating, child);
    assert_eq!(order(&world), ["child", "parent"]);
}

/// A parent and a child, each with an observer of [`EventPropagating`] logging its name.
fn parent_and_child(world: &mut World) -> (Entity, Entity) {
    let parent = world.spawn_empty();
    world.observe(parent, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("parent"));
    let child = spawn_child(world, parent);
    world.observe(child, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("child"));
    (parent, child)
}

// bevy: observer_propagating_redundant_dispatch_same_entity
#[test]
fn observer_propagating_redundant_dispatch_same_entity() {
    let mut world = world_with_order();
    let (_, child) = parent_and_child(&mut world);
    world.trigger_targets(EventPropagating, child);
    world.trigger_targets(EventPropagating, child);
    assert_eq!(order(&world), ["child", "parent", "child", "parent"]);
}

// bevy: observer_propagating_redundant_dispatch_parent_child
#[test]
fn observer_propagating_redundant_dispatch_parent_child() {
    let mut world = world_with_order();
    let (parent, child) = parent_and_child(&mut world);
    world.trigger_targets(EventPropagating, child);
    world.trigger_targets(EventPropagating, parent);
    assert_eq!(order(&world), ["child", "parent", "parent"]);
}

// bevy: observer_propagating_halt
#[test]
fn observer_propagating_halt() {
    let mut world = world_with_order();
    let parent = world.spawn_empty();
    world.observe(parent, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("parent"));
    let child = spawn_child(&mut world, parent);
    world.observe(child, |mut event: On<EventPropagating>, mut res: ResMut<Order>| {
        res.observed("child");
        event.propagate(false);
    });
    world.trigger_targets(EventPropagating, child);
    assert_eq!(order(&world), ["child"]);
}

// bevy: observer_propagating_join
#[test]
fn observer_propagating_join() {
    let mut world = world_with_order();
    let parent = world.spawn_empty();
    world.observe(parent, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("parent"));
    let child_a = spawn_child(&mut world, parent);
    world.observe(child_a, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("child_a"));
    let child_b = spawn_child(&mut world, parent);
    world.observe(child_b, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("child_b"));
    world.trigger_targets(EventPropagating, child_a);
    world.trigger_targets(EventPropagating, child_b);
    assert_eq!(order(&world), ["child_a", "parent", "child_b", "parent"]);
}

// bevy: observer_propagating_no_next
#[test]
fn observer_propagating_no_next() {
    let mut world = world_with_order();
    let entity = world.spawn_empty();
    world.observe(entity, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("event"));
    world.trigger_targets(EventPropagating, entity);
    assert_eq!(order(&world), ["event"]);
}

// bevy: observer_propagating_parallel_propagation
#[test]
fn observer_propagating_parallel_propagation() {
    let mut world = world_with_order();
    let parent_a = world.spawn_empty();
    world.observe(parent_a, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("parent_a"));
    let child_a = spawn_child(&mut world, parent_a);
    world.observe(child_a, |mut event: On<EventPropagating>, mut res: ResMut<Order>| {
        res.observed("child_a");
        event.propagate(false);
    });
    let parent_b = world.spawn_empty();
    world.observe(parent_b, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("parent_b"));
    let child_b = spawn_child(&mut world, parent_b);
    world.observe(child_b, |_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("child_b"));
    world.trigger_targets(EventPropagating, child_a);
    world.trigger_targets(EventPropagating, child_b);
    assert_eq!(order(&world), ["child_a", "child_b", "parent_b"]);
}

// bevy: observer_propagating_world
#[test]
fn observer_propagating_world() {
    let mut world = world_with_order();
    world.add_observer(|_: On<EventPropagating>, mut res: ResMut<Order>| res.observed("event"));
    let grandparent = world.spawn_empty();
    let parent = spawn_child(&mut world, grandparent);
    let child = spawn_child(&mut world, parent);
    world.trigger_targets(EventPropagating, child);
    assert_eq!(order(&world), ["event", "event", "event"]);
}

// bevy: observer_propagating_world_skipping
#[test]
fn observer_propagating_world_skipping() {
    let mut world = world_with_order();
    world.add_observer(|event: On<EventPropagating>, query: Query<&A>, mut res: ResMut<Order>| {
        if query.get(event.entity()).is_ok() {
            res.observed("event");
        }
    });
    let grandparent = world.spawn(A);
    let parent = spawn_child(&mut world, grandparent);
    let child = spawn_child(&mut world, parent);
    world.insert(child, A);
    world.trigger_targets(EventPropagating, child);
    assert_eq!(order(&world), ["event", "event"]);
}

// bevy: observer_modifies_relationship (bevy issue 18452): an `Add` observer that spawns a child
// of the entity through its commands.
#[test]
fn observer_modifies_relationship() {
    let mut world = World::new();
    world.add_observer(|add: On<Add, A>, mut commands: Commands| {
        let child = commands.spawn(());
        commands.set_parent(child, add.entity());
    });
    let entity = world.spawn(A);
    assert_eq!(world.children(entity).count(), 1);
}

// bevy: observer_on_remove_during_despawn_spawn_empty (bevy issue 14467): a `Remove` observer
// that spawns while its entity is being despawned.
#[test]
fn observer_on_remove_during_despawn_spawn_empty() {
    let mut world = World::new();
    world.add_observer(|_: On<Remove, A>, mut commands: Commands| {
        commands.spawn(());
    });
    let entity = world.spawn(A);
    let before = world.len();
    world.despawn(entity);
    assert!(!world.is_alive(entity));
    assert_eq!(world.len(), before, "one despawned, one spawned by the observer");
}

// bevy: observer_invalid_params. Mosaic differs on purpose: an observer whose parameters cannot
// be fetched (a missing resource) is skipped, where bevy panics (docs/design.md, "Observers").
#[test]
fn observer_invalid_params() {
    struct ResA;
    struct ResB;
    let mut world = World::new();
    world.add_observer(|_: On<EventA>, _: Res<ResA>, mut commands: Commands| {
        commands.queue(|world: &mut World| {
            world.insert_resource(ResB);
        });
    });
    world.trigger(EventA);
    assert!(world.get_resource::<ResB>().is_none(), "the observer was skipped");
}

// bevy: observer_apply_deferred_from_param_set
#[test]
fn observer_apply_deferred_from_param_set() {
    struct ResA;
    let mut world = World::new();
    world.add_observer(|_: On<EventA>, mut params: ParamSet<(Query<Entity>, Commands)>| {
        params.p1().queue(|world: &mut World| {
            world.insert_resource(ResA);
        });
    });
    world.trigger(EventA);
    assert!(world.get_resource::<ResA>().is_some());
}

// bevy: observer_watch_entities (bevy's `Observer::with_entities` is `World::observe_many`)
#[test]
fn observer_watch_entities() {
    #[derive(Event)]
    struct EntityEventA;
    let mut world = world_with_order();
    let entities: Vec<Entity> = (0..4).map(|_| world.spawn_empty()).collect();
    world.observe_many(entities.iter().copied().take(2), |_: On<EntityEventA>, mut order: ResMut<Order>| {
        order.observed("a");
    });
    world.trigger_targets(EntityEventA, entities[0]);
    world.trigger_targets(EntityEventA, entities[1]);
    assert_eq!(order(&world), ["a", "a"]);
    world.trigger_targets(EntityEventA, entities[2]);
    world.trigger_targets(EntityEventA, entities[3]);
    assert_eq!(order(&world), ["a", "a"]);
}

// bevy: unregister_global_observer (through the public API: the observer no longer runs)
#[test]
fn unregister_global_observer() {
    let mut world = World::new();
    let observer = world.add_observer(|_: On<EventA>| panic!("unregistered"));
    world.remove::<Observer>(observer);
    assert_eq!(world.observer_count(), 0);
    world.trigger(EventA);
}

// bevy: unregister_entity_observer
#[test]
fn unregister_entity_observer() {
    let mut world = World::new();
    let entity = world.spawn_empty();
    let observer = world.observe(entity, |_: On<EventA>| panic!("unregistered"));
    world.remove::<Observer>(observer);
    assert_eq!(world.observer_count(), 0);
    world.trigger_targets(EventA, entity);
}

// bevy: unregister_component_observer (a lifecycle observer: Mosaic's custom events are not
// triggered at components)
#[test]
fn unregister_component_observer() {
    let mut world = World::new();
    let observer = world.add_observer(|_: On<Add, A>| panic!("unregistered"));
    world.remove::<Observer>(observer);
    assert_eq!(world.observer_count(), 0);
    world.spawn(A);
}

// bevy: observer_new_old_archetypes, without the archetypes (Mosaic has none): the order of the
// lifecycle events. Mosaic differs: on despawn `Despawn` comes after `Discard` and `Remove`
// (documented on `mosaic::Despawn`); bevy runs it first.
#[test]
fn observer_new_old_archetypes() {
    let mut world = world_with_order();
    world.spawn_empty();
    world.spawn(A);
    world.spawn((A, B));
    world.add_observer(|_: On<Add, A>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: On<Insert, A>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: On<Discard, A>, mut res: ResMut<Order>| res.observed("discard"));
    world.add_observer(|_: On<Remove, A>, mut res: ResMut<Order>| res.observed("remove"));
    world.add_observer(|_: On<Despawn, A>, mut res: ResMut<Order>| res.observed("despawn"));
    let entity = world.spawn((A, B));
    assert!(world.remove::<(A, B)>(entity).is_some());
    world.insert(entity, A);
    world.insert(entity, A);
    world.despawn(entity);
    assert_eq!(
        order(&world),
        [
            "add", "insert", "discard", "remove", "add", "insert", "discard", "insert", "discard", "remove",
            "despawn"
        ]
    );
}

// bevy: despawning_observer_removes_observed_by (Mosaic's `Observed` marker is bevy's
// `ObservedBy`; the list of watched entities is on the observer, `Observer::entities`)
#[test]
fn despawning_observer_removes_observed_by() {
    let mut world = World::new();
    let target = world.spawn_empty();
    let observer = world.observe(target, |_: On<EventA>| {});
    assert!(world.contains::<Observed>(target));
    assert_eq!(world.get::<Observer>(observer).unwrap().entities(), [target]);
    world.despawn(observer);
    assert!(!world.contains::<Observed>(target));
}

// bevy: despawning_observer_removes_observed_by_repeated. Mosaic differs: an entity listed twice
// is watched once (bevy keeps it twice).
#[test]
fn despawning_observer_removes_observed_by_repeated() {
    let mut world = World::new();
    world.insert_resource(0u32);
    let target = world.spawn_empty();
    let observer = world.observe_many([target, target], |_: On<EventA>, mut runs: ResMut<u32>| *runs += 1);
    assert_eq!(world.get::<Observer>(observer).unwrap().entities(), [target]);
    world.trigger_targets(EventA, target);
    assert_eq!(*world.resource::<u32>(), 1, "runs once per trigger");
    world.despawn(observer);
    assert!(!world.contains::<Observed>(target));
}

// Mosaic's side of bevy's `ObservedBy` bookkeeping: the marker stays while another observer
// watches the entity, and an observer of several entities forgets each as it goes.
#[test]
fn observed_marker_follows_the_last_observer() {
    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    let one = world.observe(a, |_: On<EventA>| {});
    let both = world.observe_many([a, b], |_: On<EventA>| {});
    world.despawn(one);
    assert!(world.contains::<Observed>(a), "`both` still watches a");
    world.despawn(a);
    assert_eq!(world.get::<Observer>(both).unwrap().entities().len(), 1);
    world.despawn(b);
    assert!(!world.is_alive(both), "despawned with the last entity it watched");
    assert_eq!(world.observer_count(), 0);
}

// Run conditions (bevy's `observer_run_condition_*`): a condition is the schedule's
// `Fn(&World) -> bool`, so bevy's `|flag: Res<Flag>| flag.0` is `|w: &World| w.resource::<Flag>().0`
// and `Res::is_changed` is `resource_changed::<R>()`.

/// bevy's `RunConditionFlag`.
struct Flag(bool);

fn flag(world: &World) -> bool {
    world.resource::<Flag>().0
}

fn observed_event(_: On<EventA>, mut order: ResMut<Order>) {
    order.observed("event");
}

// bevy: observer_run_condition_true, observer_run_condition_false
#[test]
fn observer_run_condition_true_and_false() {
    for (value, expected) in [(true, vec!["event"]), (false, vec![])] {
        let mut world = world_with_order();
        world.insert_resource(Flag(value));
        world.add_observer(observed_event.run_if(flag));
        world.trigger(EventA);
        assert_eq!(order(&world), expected);
    }
}

// bevy: observer_run_condition_chained
#[test]
fn observer_run_condition_chained() {
    struct Second(bool);
    let mut world = world_with_order();
    world.insert_resource(Flag(true));
    world.insert_resource(Second(true));
    world.add_observer(observed_event.run_if(flag).run_if(|w: &World| w.resource::<Second>().0));
    world.trigger(EventA);
    assert_eq!(order(&world), ["event"]);
    world.resource_mut::<Order>().0.clear();
    world.resource_mut::<Second>().0 = false;
    world.trigger(EventA);
    assert!(order(&world).is_empty());
}

// bevy: observer_run_condition_re_evaluated
#[test]
fn observer_run_condition_re_evaluated() {
    let mut world = world_with_order();
    world.insert_resource(Flag(false));
    world.add_observer(observed_event.run_if(flag));
    world.trigger(EventA);
    assert!(order(&world).is_empty());
    world.resource_mut::<Flag>().0 = true;
    world.trigger(EventA);
    assert_eq!(order(&world), ["event"]);
}

// bevy: observer_conditions_and_change_detection (every condition is evaluated each time, no
// short-circuit, so each one's "changed since I last looked" follows every trigger)
#[test]
fn observer_conditions_and_change_detection() {
    use mosaic::schedule::resource_changed;
    struct Second(bool);
    let mut world = world_with_order();
    world.insert_resource(Flag(false));
    world.insert_resource(Second(false));
    world
        .add_observer(observed_event.run_if(resource_changed::<Flag>()).run_if(resource_changed::<Second>()));
    // Both were just added.
    world.trigger(EventA);
    assert_eq!(order(&world), ["event"]);
    // Nothing changed.
    world.resource_mut::<Order>().0.clear();
    world.trigger(EventA);
    assert!(order(&world).is_empty());
    // Flag changed, Second did not.
    world.resource_mut::<Flag>().0 = true;
    world.trigger(EventA);
    assert!(order(&world).is_empty());
    // Second changed; Flag's condition saw its change on the previous trigger.
    world.resource_mut::<Second>().0 = true;
    world.trigger(EventA);
    assert!(order(&world).is_empty());
    // Flag changed again; Second's condition saw its change on the previous trigger.
    world.resource_mut::<Flag>().0 = false;
    world.trigger(EventA);
    assert!(order(&world).is_empty());
    // Both changed.
    world.resource_mut::<Second>().0 = false;
    world.resource_mut::<Flag>().0 = true;
    world.trigger(EventA);
    assert_eq!(order(&world), ["event"]);
}

// bevy: entity_observer_with_run_condition
#[test]
fn entity_observer_with_run_condition() {
    let mut world = world_with_order();
    world.insert_resource(Flag(true));
    let entity = world.spawn_empty();
    world
        .entity_mut(entity)
        .observe((|_: On<EventA>, mut order: ResMut<Order>| order.observed("entity_event")).run_if(flag));
    world.trigger_targets(EventA, entity);
    assert_eq!(order(&world), ["entity_event"]);
    world.resource_mut::<Order>().0.clear();
    world.resource_mut::<Flag>().0 = false;
    world.trigger_targets(EventA, entity);
    assert!(order(&world).is_empty());
}

/// A lifecycle observer with a condition, and a skipped run's commands: none are recorded.
#[test]
fn lifecycle_observer_with_run_condition() {
    let mut world = world_with_order();
    world.insert_resource(Flag(false));
    world.add_observer(
        (|on: On<Add, A>, mut commands: Commands| {
            commands.insert(on.entity(), B);
        })
        .run_if(flag),
    );
    let skipped = world.spawn(A);
    world.resource_mut::<Flag>().0 = true;
    let ran = world.spawn(A);
    assert!(!world.contains::<B>(skipped));
    assert!(world.contains::<B>(ran));
}

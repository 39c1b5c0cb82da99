//! bevy_ecs's required-component tests (`component/required.rs`, and those of `lib.rs` before
//! bevy 0.17), ported to Mosaic's API where `required.rs` does not already cover them. Each test
//! is named after the bevy test it ports.
//!
//! Names: bevy's `world.spawn(X).id()` is `world.spawn(X)`, `EntityWorldMut::take::<X>()` is
//! `World::remove::<X>`, `register_component_hooks::<T>().on_add(..)` is `World::on_add::<T>`,
//! and `try_register_required_components` is `register_required_components` (which returns a
//! `Result` here).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::component::RequiredComponentsError;
use mosaic::{Bundle, Component, World};

// bevy: required_components (`Z = new_z()`: a function as the constructor)
#[test]
fn required_components() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component)]
    #[require(Z = new_z())]
    struct Y {
        value: String,
    }
    #[derive(Component)]
    struct Z(u32);
    impl Default for Y {
        fn default() -> Self {
            Self { value: "hello".to_string() }
        }
    }
    fn new_z() -> Z {
        Z(7)
    }

    let mut world = World::new();
    let id = world.spawn(X);
    assert_eq!(world.get::<Y>(id).unwrap().value, "hello", "Y has its default");
    assert_eq!(world.get::<Z>(id).unwrap().0, 7, "Z has the value of Y's constructor");

    let id = world.spawn((X, Y { value: "foo".to_string() }));
    assert_eq!(world.get::<Y>(id).unwrap().value, "foo", "Y has the value given");
    assert_eq!(world.get::<Z>(id).unwrap().0, 7, "Z has the value of Y's constructor");

    let id = world.spawn((X, Z(8)));
    assert_eq!(world.get::<Y>(id).unwrap().value, "hello", "Y has its default");
    assert_eq!(world.get::<Z>(id).unwrap().0, 8, "Z has the value given");
}

// bevy: generic_required_components
#[test]
fn generic_required_components() {
    #[derive(Component)]
    #[require(Y<usize>)]
    struct X;
    #[derive(Component, Default)]
    struct Y<T: Send + Sync + 'static> {
        value: T,
    }

    let mut world = World::new();
    let id = world.spawn(X);
    assert_eq!(world.get::<Y<usize>>(id).unwrap().value, 0, "Y has its default");
}

/// Counts one hook kind's runs.
fn counter() -> (Arc<AtomicUsize>, impl Fn(&mut mosaic::HookContext<'_>) + Send + Sync + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let hook_count = count.clone();
    (count, move |_: &mut mosaic::HookContext<'_>| {
        hook_count.fetch_add(1, Ordering::Relaxed);
    })
}

// bevy: required_components_spawn_nonexistent_hooks
#[test]
fn required_components_spawn_nonexistent_hooks() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;

    let mut world = World::new();
    let (added, on_add) = counter();
    let (inserted, on_insert) = counter();
    world.on_add::<Y>(on_add);
    world.on_insert::<Y>(on_insert);
    let e = world.spawn(X);
    assert!(world.contains::<Y>(e));
    assert_eq!(added.load(Ordering::Relaxed), 1);
    assert_eq!(inserted.load(Ordering::Relaxed), 1);
}

// bevy: required_components_insert_existing_hooks
#[test]
fn required_components_insert_existing_hooks() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;

    let mut world = World::new();
    let (added, on_add) = counter();
    let (inserted, on_insert) = counter();
    world.on_add::<Y>(on_add);
    world.on_insert::<Y>(on_insert);
    let e = world.spawn_empty();
    world.insert(e, X);
    assert!(world.contains::<Y>(e));
    assert_eq!(added.load(Ordering::Relaxed), 1);
    assert_eq!(inserted.load(Ordering::Relaxed), 1);
}

// bevy: required_components_take_leaves_required (bevy's `take` is Mosaic's `remove`)
#[test]
fn required_components_take_leaves_required() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;

    let mut world = World::new();
    let e = world.spawn(X);
    assert!(world.remove::<X>(e).is_some());
    assert!(world.contains::<Y>(e));
}

// bevy: required_components_spawn_then_insert_no_overwrite
#[test]
fn required_components_spawn_then_insert_no_overwrite() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y(usize);

    let mut world = World::new();
    let id = world.spawn((X, Y(10)));
    world.insert(id, X);
    assert_eq!(world.get::<Y>(id).unwrap().0, 10, "Y keeps the value given");
}

// bevy: remove_component_and_its_runtime_required_components
#[test]
fn remove_component_and_its_runtime_required_components() {
    #[derive(Component)]
    struct X;
    #[derive(Component, Default)]
    struct Y;
    #[derive(Component, Default)]
    struct Z;
    #[derive(Component)]
    struct V;

    let mut world = World::new();
    world.register_required_components::<X, Y>().unwrap();
    world.register_required_components::<Y, Z>().unwrap();
    check_remove_with_requires::<X, Y, Z, V>(&mut world, || X, || V);
}

// bevy: remove_component_and_its_required_components
#[test]
fn remove_component_and_its_required_components() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    #[require(Z)]
    struct Y;
    #[derive(Component, Default)]
    struct Z;
    #[derive(Component)]
    struct V;

    let mut world = World::new();
    check_remove_with_requires::<X, Y, Z, V>(&mut world, || X, || V);
}

/// The body both `remove_component_and_its_*required_components` tests share: `X` requires `Y`
/// requires `Z`, `V` stands beside them.
fn check_remove_with_requires<X: Component, Y: Component, Z: Component, V: Component>(
    world: &mut World,
    x: impl Fn() -> X,
    v: impl Fn() -> V,
) {
    let e = world.spawn((x(), v()));
    let has = |world: &World| {
        [world.contains::<X>(e), world.contains::<Y>(e), world.contains::<Z>(e), world.contains::<V>(e)]
    };
    assert_eq!(has(world), [true; 4]);
    // A plain remove takes `X` alone.
    world.remove::<X>(e);
    assert_eq!(has(world), [false, true, true, true]);
    world.insert(e, x());
    assert_eq!(has(world), [true; 4]);
    // `remove_with_requires` takes `X` and what it requires, directly or not.
    assert_eq!(world.remove_with_requires::<X>(e), 3);
    assert_eq!(has(world), [false, false, false, true]);
}

// bevy: remove_bundle_and_his_required_components
#[test]
fn remove_bundle_and_his_required_components() {
    #[derive(Component, Default)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;
    #[derive(Component, Default)]
    #[require(W)]
    struct Z;
    #[derive(Component, Default)]
    struct W;
    #[derive(Component)]
    struct V;
    #[derive(Bundle, Default)]
    struct TestBundle {
        x: X,
        z: Z,
    }

    let mut world = World::new();
    let e = world.spawn((TestBundle::default(), V));
    assert!(world.contains::<X>(e) && world.contains::<Y>(e));
    assert!(world.contains::<Z>(e) && world.contains::<W>(e));
    assert!(world.contains::<V>(e));
    world.entity_mut(e).remove_with_requires::<TestBundle>();
    assert!(!world.contains::<X>(e) && !world.contains::<Y>(e));
    assert!(!world.contains::<Z>(e) && !world.contains::<W>(e));
    assert!(world.contains::<V>(e));
}

// bevy: runtime_required_components (the `required_components` test, registered at run time)
#[test]
fn runtime_required_components() {
    #[derive(Component)]
    struct X;
    #[derive(Component)]
    struct Y {
        value: String,
    }
    #[derive(Component)]
    struct Z(u32);
    impl Default for Y {
        fn default() -> Self {
            Self { value: "hello".to_string() }
        }
    }

    let mut world = World::new();
    world.register_required_components::<X, Y>().unwrap();
    world.register_required_components_with::<Y, Z>(|| Z(7)).unwrap();

    let id = world.spawn(X);
    assert_eq!(world.get::<Y>(id).unwrap().value, "hello");
    assert_eq!(world.get::<Z>(id).unwrap().0, 7);
    let id = world.spawn((X, Y { value: "foo".to_string() }));
    assert_eq!(world.get::<Y>(id).unwrap().value, "foo");
    assert_eq!(world.get::<Z>(id).unwrap().0, 7);
    let id = world.spawn((X, Z(8)));
    assert_eq!(world.get::<Y>(id).unwrap().value, "hello");
    assert_eq!(world.get::<Z>(id).unwrap().0, 8);
}

// bevy: runtime_required_components_override_1
#[test]
fn runtime_required_components_override_1() {
    #[derive(Component)]
    struct X;
    #[derive(Component, Default)]
    struct Y;
    #[derive(Component)]
    struct Z(u32);

    let mut world = World::new();
    world.register_required_components::<X, Y>().unwrap();
    world.register_required_components_with::<Y, Z>(|| Z(5)).unwrap();
    world.register_required_components_with::<X, Z>(|| Z(7)).unwrap();
    let id = world.spawn(X);
    assert_eq!(world.get::<Z>(id).unwrap().0, 7, "X's own constructor of Z");
}

// bevy: runtime_required_components_override_2 (override_1, registered in another order)
#[test]
fn runtime_required_components_override_2() {
    #[derive(Component)]
    struct X;
    #[derive(Component, Default)]
    struct Y;
    #[derive(Component)]
    struct Z(u32);

    let mut world = World::new();
    world.register_required_components::<X, Y>().unwrap();
    world.register_required_components_with::<X, Z>(|| Z(7)).unwrap();
    world.register_required_components_with::<Y, Z>(|| Z(5)).unwrap();
    let id = world.spawn(X);
    assert_eq!(world.get::<Z>(id).unwrap().0, 7, "X's own constructor of Z");
}

// bevy: runtime_required_components_propagate_up
#[test]
fn runtime_required_components_propagate_up() {
    #[derive(Component)]
    #[require(B)]
    struct A;
    #[derive(Component, Default)]
    struct B;
    #[derive(Component, Default)]
    struct C;

    let mut world = World::new();
    // `B` requires `C` from now on, so `A`, which requires `B`, does too.
    world.register_required_components::<B, C>().unwrap();
    let id = world.spawn(A);
    assert!(world.contains::<C>(id));
}

// bevy: runtime_required_components_propagate_up_even_more
#[test]
fn runtime_required_components_propagate_up_even_more() {
    #[derive(Component)]
    struct A;
    #[derive(Component, Default)]
    struct B;
    #[derive(Component, Default)]
    struct C;
    #[derive(Component, Default)]
    struct D;

    let mut world = World::new();
    world.register_required_components::<A, B>().unwrap();
    world.register_required_components::<B, C>().unwrap();
    world.register_required_components::<C, D>().unwrap();
    let id = world.spawn(A);
    assert!(world.contains::<D>(id));
}

// bevy: runtime_required_components_deep_require_does_not_override_shallow_require
#[test]
fn runtime_required_components_deep_require_does_not_override_shallow_require() {
    #[derive(Component)]
    struct A;
    #[derive(Component, Default)]
    struct B;
    #[derive(Component, Default)]
    struct C;
    #[derive(Component)]
    struct Counter(i32);
    #[derive(Component, Default)]
    struct D;

    let mut world = World::new();
    world.register_required_components::<A, B>().unwrap();
    world.register_required_components::<B, C>().unwrap();
    world.register_required_components::<C, D>().unwrap();
    world.register_required_components_with::<D, Counter>(|| Counter(2)).unwrap();
    // C's own requirement of Counter is nearer than the one it inherits from D.
    world.register_required_components_with::<C, Counter>(|| Counter(1)).unwrap();
    let id = world.spawn(A);
    assert_eq!(world.get::<Counter>(id).unwrap().0, 1);
}

// bevy: runtime_required_components_deep_require_does_not_override_shallow_require_deep_subtree_after_shallow
#[test]
fn runtime_required_components_deep_require_does_not_override_shallow_require_deep_subtree_after_shallow() {
    #[derive(Component)]
    struct A;
    #[derive(Component, Default)]
    struct B;
    #[derive(Component, Default)]
    struct C;
    #[derive(Component, Default)]
    struct D;
    #[derive(Component, Default)]
    struct E;
    #[derive(Component)]
    struct Counter(i32);
    #[derive(Component, Default)]
    struct F;

    let mut world = World::new();
    world.register_required_components::<A, B>().unwrap();
    world.register_required_components::<B, C>().unwrap();
    world.register_required_components::<C, D>().unwrap();
    world.register_required_components::<D, E>().unwrap();
    world.register_required_components_with::<E, Counter>(|| Counter(1)).unwrap();
    world.register_required_components_with::<F, Counter>(|| Counter(2)).unwrap();
    world.register_required_components::<E, F>().unwrap();
    let id = world.spawn(A);
    assert_eq!(world.get::<Counter>(id).unwrap().0, 1);
}

// bevy: runtime_required_components_existing_archetype. Mosaic differs on purpose: a requirement
// may be registered after entities with the component exist (bevy refuses with
// `ArchetypeExists`); those entities are left as they are (`register_required_components` docs).
#[test]
fn runtime_required_components_existing_archetype() {
    #[derive(Component)]
    struct X;
    #[derive(Component, Default)]
    struct Y;

    let mut world = World::new();
    let before = world.spawn(X);
    assert!(world.register_required_components::<X, Y>().is_ok());
    assert!(!world.contains::<Y>(before), "an existing entity is not changed");
    let after = world.spawn(X);
    assert!(world.contains::<Y>(after));
}

// bevy: runtime_required_components_fail_with_duplicate
#[test]
fn runtime_required_components_fail_with_duplicate() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;

    let mut world = World::new();
    assert!(matches!(
        world.register_required_components::<X, Y>(),
        Err(RequiredComponentsError::Duplicate { .. })
    ));
}

// bevy: required_components_bundle_priority (bevy 0.17's depth-first rule: the first component
// of the bundle whose requirements reach `MyRequired` makes it, however deep)
#[test]
fn required_components_bundle_priority() {
    #[derive(Component, PartialEq, Eq, Clone, Copy, Debug)]
    struct MyRequired(bool);
    #[derive(Component, Default)]
    #[require(MyRequired(false))]
    struct MiddleMan;
    #[derive(Component, Default)]
    #[require(MiddleMan)]
    struct ConflictingRequire;
    #[derive(Component, Default)]
    #[require(MyRequired(true))]
    struct MyComponent;

    let mut world = World::new();
    let a = world.spawn((ConflictingRequire, MyComponent));
    let b = world.spawn((MyComponent, ConflictingRequire));
    assert_eq!(world.get::<MyRequired>(a).ok().copied(), Some(MyRequired(false)));
    assert_eq!(world.get::<MyRequired>(b).ok().copied(), Some(MyRequired(true)));
}

// bevy: required_components_recursion_errors
#[test]
#[should_panic(expected = "required components may not form a cycle")]
fn required_components_recursion_errors() {
    #[derive(Component, Default)]
    #[require(B)]
    struct A;
    #[derive(Component, Default)]
    #[require(C)]
    struct B;
    #[derive(Component, Default)]
    #[require(B)]
    struct C;

    World::new().register_component::<A>();
}

// bevy: required_components_self_errors
#[test]
#[should_panic(expected = "required components may not form a cycle")]
fn required_components_self_errors() {
    #[derive(Component, Default)]
    #[require(A)]
    struct A;

    World::new().register_component::<A>();
}

// bevy: regression_19333
#[test]
fn regression_19333() {
    #[derive(Component)]
    struct X(usize);
    #[derive(Default, Component)]
    #[require(X(0))]
    struct Base;
    #[derive(Default, Component)]
    #[require(X(1), Base)]
    struct A;
    #[derive(Default, Component)]
    #[require(A, Base)]
    struct B;
    #[derive(Default, Component)]
    #[require(B, Base)]
    struct C;

    let mut world = World::new();
    let b = world.spawn(B);
    assert_eq!(world.get::<X>(b).unwrap().0, 1);
    let c = world.spawn(C);
    assert_eq!(world.get::<X>(c).unwrap().0, 1);
}

// bevy: required_components_depth_first_2v1
#[test]
fn required_components_depth_first_2v1() {
    #[derive(Component)]
    struct X(usize);
    #[derive(Component)]
    #[require(Left, Right)]
    struct Root;
    #[derive(Component, Default)]
    #[require(LeftLeft)]
    struct Left;
    #[derive(Component, Default)]
    #[require(X(0))] // depth 2, but further left in the tree
    struct LeftLeft;
    #[derive(Component, Default)]
    #[require(X(1))] // depth 1, but further right
    struct Right;

    let mut world = World::new();
    let root = world.spawn(Root);
    assert_eq!(world.get::<X>(root).unwrap().0, 0, "LeftLeft comes before Right");
}

// bevy: required_components_depth_first_3v1
#[test]
fn required_components_depth_first_3v1() {
    #[derive(Component)]
    struct X(usize);
    #[derive(Component)]
    #[require(Left, Right)]
    struct Root;
    #[derive(Component, Default)]
    #[require(LeftLeft)]
    struct Left;
    #[derive(Component, Default)]
    #[require(LeftLeftLeft)]
    struct LeftLeft;
    #[derive(Component, Default)]
    #[require(X(0))] // depth 3, but further left in the tree
    struct LeftLeftLeft;
    #[derive(Component, Default)]
    #[require(X(1))] // depth 1, but further right
    struct Right;

    let mut world = World::new();
    let root = world.spawn(Root);
    assert_eq!(world.get::<X>(root).unwrap().0, 0, "LeftLeftLeft comes before Right");
}

// bevy: runtime_required_components_depth_first_2v1
#[test]
fn runtime_required_components_depth_first_2v1() {
    #[derive(Component)]
    struct X(usize);
    #[derive(Component)]
    struct Root;
    #[derive(Component, Default)]
    struct Left;
    #[derive(Component, Default)]
    struct LeftLeft;
    #[derive(Component, Default)]
    struct Right;

    // Bottom up: registering the higher components picks up the lower ones.
    let mut world = World::new();
    world.register_required_components_with::<LeftLeft, X>(|| X(0)).unwrap();
    world.register_required_components_with::<Right, X>(|| X(1)).unwrap();
    world.register_required_components::<Left, LeftLeft>().unwrap();
    world.register_required_components::<Root, Left>().unwrap();
    world.register_required_components::<Root, Right>().unwrap();
    let root = world.spawn(Root);
    assert_eq!(world.get::<X>(root).unwrap().0, 0);

    // Top down: registering the lower components reaches the higher ones.
    let mut world = World::new();
    world.register_required_components::<Root, Left>().unwrap();
    world.register_required_components::<Root, Right>().unwrap();
    world.register_required_components::<Left, LeftLeft>().unwrap();
    world.register_required_components_with::<Right, X>(|| X(1)).unwrap();
    world.register_required_components_with::<LeftLeft, X>(|| X(0)).unwrap();
    let root = world.spawn(Root);
    assert_eq!(world.get::<X>(root).unwrap().0, 0);

    // Top down, `LeftLeft`'s requirement before `Right`'s.
    let mut world = World::new();
    world.register_required_components::<Root, Left>().unwrap();
    world.register_required_components::<Root, Right>().unwrap();
    world.register_required_components::<Left, LeftLeft>().unwrap();
    world.register_required_components_with::<LeftLeft, X>(|| X(0)).unwrap();
    world.register_required_components_with::<Right, X>(|| X(1)).unwrap();
    let root = world.spawn(Root);
    assert_eq!(world.get::<X>(root).unwrap().0, 0);
}

// bevy: runtime_required_components_propagate_metadata_alternate
#[test]
fn runtime_required_components_propagate_metadata_alternate() {
    #[derive(Component, Default)]
    #[require(L1)]
    struct L0;
    #[derive(Component, Default)]
    struct L1;
    #[derive(Component, Default)]
    #[require(L3)]
    struct L2;
    #[derive(Component, Default)]
    struct L3;
    #[derive(Component, Default)]
    #[require(L5)]
    struct L4;
    #[derive(Component, Default)]
    struct L5;

    // Piece the three derived requirements together, in both orders.
    for l1_first in [true, false] {
        let mut world = World::new();
        if l1_first {
            world.register_required_components::<L1, L2>().unwrap();
            world.register_required_components::<L3, L4>().unwrap();
        } else {
            world.register_required_components::<L3, L4>().unwrap();
            world.register_required_components::<L1, L2>().unwrap();
        }
        let e = world.spawn(L0);
        assert!(world.query::<(&L0, &L1, &L2, &L3, &L4, &L5)>().get(e).is_ok(), "l1_first {l1_first}");
    }
}

// bevy: runtime_required_components_propagate_metadata_chain
#[test]
fn runtime_required_components_propagate_metadata_chain() {
    #[derive(Component, Default)]
    #[require(L1)]
    struct L0;
    #[derive(Component, Default)]
    struct L1;
    #[derive(Component, Default)]
    struct L2;
    #[derive(Component, Default)]
    #[require(L4)]
    struct L3;
    #[derive(Component, Default)]
    struct L4;

    for l1_first in [true, false] {
        let mut world = World::new();
        if l1_first {
            world.register_required_components::<L1, L2>().unwrap();
            world.register_required_components::<L2, L3>().unwrap();
        } else {
            world.register_required_components::<L2, L3>().unwrap();
            world.register_required_components::<L1, L2>().unwrap();
        }
        let e = world.spawn(L0);
        assert!(world.query::<(&L0, &L1, &L2, &L3, &L4)>().get(e).is_ok(), "l1_first {l1_first}");
    }
}

// bevy: runtime_required_components_cyclic
#[test]
fn runtime_required_components_cyclic() {
    #[derive(Component, Default)]
    #[require(B)]
    struct A;
    #[derive(Component, Default)]
    struct B;
    #[derive(Component, Default)]
    struct C;

    let mut world = World::new();
    assert!(world.register_required_components::<B, C>().is_ok());
    assert!(matches!(
        world.register_required_components::<C, A>(),
        Err(RequiredComponentsError::Cycle { .. })
    ));
}

// bevy: required_components_retain_keeps_required
#[test]
fn required_components_retain_keeps_required() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    struct Y;
    #[derive(Component, Default)]
    struct Z;

    let mut world = World::new();
    let e = world.spawn((X, Z));
    world.entity_mut(e).retain::<X>();
    assert!(world.contains::<X>(e));
    assert!(world.contains::<Y>(e));
    assert!(!world.contains::<Z>(e));
}

// bevy: retain_nothing (entity_access tests)
#[test]
fn retain_nothing() {
    #[derive(Component)]
    struct Marker<const N: usize>;

    let mut world = World::new();
    let e = world.spawn((Marker::<1>, Marker::<2>, Marker::<3>));
    assert_eq!(world.retain::<()>(e), 3);
    assert!(world.is_alive(e));
    assert!(world.component_ids(e).unwrap().is_empty());
}

// bevy: retain_some_components (including a type the entity does not have)
#[test]
fn retain_some_components() {
    #[derive(Component)]
    struct Marker<const N: usize>;

    let mut world = World::new();
    let e = world.spawn((Marker::<1>, Marker::<2>, Marker::<3>));
    assert_eq!(world.retain::<(Marker<2>, Marker<4>)>(e), 2);
    assert!(world.contains::<Marker<2>>(e));
    assert_eq!(world.component_ids(e).unwrap().len(), 1);
}

/// Transitive requirements are kept too, and removal hooks see each removed value.
#[test]
fn retain_keeps_transitive_requirements_and_runs_remove_hooks() {
    #[derive(Component)]
    #[require(Y)]
    struct X;
    #[derive(Component, Default)]
    #[require(W)]
    struct Y;
    #[derive(Component, Default)]
    struct W;
    #[derive(Component)]
    struct Z(u32);

    let mut world = World::new();
    world.insert_resource(Vec::<u32>::new());
    world.on_remove::<Z>(|ctx| {
        let value = ctx.world.get::<Z>(ctx.entity).unwrap().0;
        ctx.commands.queue(move |world: &mut World| world.resource_mut::<Vec<u32>>().push(value));
    });
    let e = world.spawn((X, Z(7)));
    assert!(world.contains::<W>(e));
    assert_eq!(world.retain::<X>(e), 1);
    assert!(world.contains::<X>(e) && world.contains::<Y>(e) && world.contains::<W>(e));
    assert_eq!(*world.resource::<Vec<u32>>(), [7]);
}

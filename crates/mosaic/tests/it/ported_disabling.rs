//! bevy_ecs's entity-disabling tests (`entity_disabling.rs`, and the default-filter tests of
//! `query/state.rs` and `world/mod.rs`), ported to Mosaic's API where `disabled.rs` does not
//! already cover them. Each test is named after the bevy test it ports.
//!
//! Names: bevy's `QueryState::<D, F>::new(&mut world).iter(&world)` is
//! `world.query_filtered::<D, F>()`; its `DefaultQueryFilters` resource is the world's list of
//! disabling components (`World::register_disabling_component`), which cannot be removed.

use mosaic::query::Allow;
use mosaic::{Component, Disabled, Entity, Has, With, Without, World};

#[derive(Component)]
struct CustomDisabled;

#[derive(Component)]
struct Dummy;

// bevy: multiple_disabling_components. bevy's `EntityRef` and `EntityMut` query terms are `Entity`
// here (Mosaic's entity handles are not query data). Mosaic differs on one line: `Option<&T>`
// names `T` (documented in `world/disabled.rs`), so it sees the entities `T` disables; bevy does
// not count a read as a mention.
#[test]
fn multiple_disabling_components() {
    let mut world = World::new();
    world.register_disabling_component::<CustomDisabled>();
    // Powers of two, so each count says which sets matched.
    world.spawn(Dummy);
    world.spawn_batch((0..2).map(|_| (Dummy, Disabled)));
    world.spawn_batch((0..4).map(|_| (Dummy, CustomDisabled)));
    world.spawn_batch((0..8).map(|_| (Dummy, Disabled, CustomDisabled)));

    assert_eq!(world.query::<&Dummy>().count(), 1);
    assert_eq!(world.query_filtered::<Entity, With<Dummy>>().count(), 1);
    assert_eq!(world.query_filtered::<&Dummy, With<Disabled>>().count(), 2);
    assert_eq!(world.query_filtered::<Has<Disabled>, With<Dummy>>().count(), 3);
    assert_eq!(world.query_filtered::<&Dummy, With<CustomDisabled>>().count(), 4);
    assert_eq!(world.query_filtered::<Has<CustomDisabled>, With<Dummy>>().count(), 5);
    assert_eq!(world.query_filtered::<&Dummy, (With<Disabled>, With<CustomDisabled>)>().count(), 8);
    assert_eq!(world.query_filtered::<(Has<Disabled>, Has<CustomDisabled>), With<Dummy>>().count(), 15);
    // bevy: 1 (a read is not a mention). Mosaic: `Option<&Disabled>` names `Disabled`, so the two
    // entities with `Disabled` alone are seen too.
    assert_eq!(world.query_filtered::<Option<&Disabled>, With<Dummy>>().count(), 3);
}

// bevy: new_world_has_disabling (its second half removes the `DefaultQueryFilters` resource,
// which Mosaic does not have: `Disabled` always disables)
#[test]
fn new_world_has_disabling() {
    #[derive(Component)]
    struct Foo;
    let mut world = World::new();
    world.spawn(Foo);
    world.spawn((Foo, Disabled));
    assert_eq!(world.query::<&Foo>().count(), 1);
}

// bevy: query_respects_default_filters (query/state.rs)
#[test]
fn query_respects_default_filters() {
    #[derive(Component)]
    struct A;
    #[derive(Component)]
    struct B;
    #[derive(Component)]
    struct C;
    #[derive(Component)]
    struct D;

    let mut world = World::new();
    world.spawn((A, B, D));
    world.spawn((B, C, D));
    world.spawn((C, D));
    world.register_disabling_component::<C>();

    assert_eq!(world.query::<&D>().count(), 1, "an implicit Without<C> keeps the first");
    assert_eq!(world.query_filtered::<&D, With<C>>().count(), 2, "With<C> names C");
    assert_eq!(world.query::<(&D, Has<C>)>().count(), 3, "Has<C> sees every entity");
    assert_eq!(world.query_filtered::<&D, Allow<C>>().count(), 3, "Allow<C> sees every entity");
    assert_eq!(world.query_filtered::<(&D, Has<C>), Without<B>>().count(), 1, "other filters still hold");
}

// bevy: query_default_filters_updates_is_dense (query/state.rs), without `is_dense` (Mosaic has
// no tables) and without replacing the filters (Mosaic cannot unregister a disabling
// component): the counts as a disabling component of the other storage is registered.
#[test]
fn query_default_filters_updates_is_dense() {
    #[derive(Component)]
    struct Table;
    #[derive(Component)]
    #[component(storage = "soa")]
    struct Sparse {
        value: u8,
    }

    let mut world = World::new();
    world.spawn((Dummy, Table, Sparse { value: 0 }));
    world.spawn((Dummy, Table));
    world.spawn((Dummy, Sparse { value: 1 }));
    assert_eq!(world.query::<&Dummy>().count(), 3);

    world.register_disabling_component::<Sparse>();
    assert_eq!(world.query::<&Dummy>().count(), 1);
    // A query of the disabling component itself names it: it sees both.
    let mut values: Vec<u8> = world.query::<&Sparse>().iter().map(|s| *s.value).collect();
    values.sort_unstable();
    assert_eq!(values, [0, 1]);
}

// The entity-disabling module docs (bevy's `entity_disabling.rs`): `Allow<T>` changes which
// entities a query sees, `Has<T>` also says which are disabled.
#[test]
fn allow_and_has_see_disabled_entities() {
    let mut world = World::new();
    let on = world.spawn(Dummy);
    let off = world.spawn((Dummy, Disabled));
    let mut seen: Vec<Entity> =
        world.query_filtered::<Entity, (With<Dummy>, Allow<Disabled>)>().iter().collect();
    seen.sort();
    assert_eq!(seen, [on, off]);
    let mut flags: Vec<(Entity, bool)> = world.query::<(Entity, Has<Disabled>)>().iter().collect();
    flags.sort();
    assert_eq!(flags, [(on, false), (off, true)]);
    assert_eq!(world.query_filtered::<Entity, With<Dummy>>().count(), 1, "without either, `off` is skipped");
}

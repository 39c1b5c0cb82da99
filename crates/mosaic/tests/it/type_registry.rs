//! The world's type registry (`mosaic::types`): one declaration per type read by snapshots,
//! rollback, the world hash and entity cloning; every way to forget a type is an error naming
//! the type and the line that declares it.
#![cfg(all(feature = "serialize", feature = "rollback"))]

use mosaic::hierarchy::{PairRelation, Relation};
use mosaic::rollback::{NoUninit, RollbackError};
use mosaic::types::{Supports, TypeKind};
use mosaic::{Component, Disabled, SnapshotError, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "position", plain, serde)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[component(storage = "soa")]
#[register(plain, serde)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Hash, Serialize, Deserialize)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash, Serialize, Deserialize)]
struct Health(u32);

#[derive(Clone, Debug, Default, PartialEq, Hash, Serialize, Deserialize)]
struct Score(u32);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Stats(u64);

#[derive(Clone, Debug, PartialEq, Hash, Serialize, Deserialize)]
struct Owes(u32);
impl PairRelation for Owes {}

struct DockedAt;
impl Relation for DockedAt {}

mod other {
    #[derive(mosaic::Component, Clone, Debug, PartialEq)]
    pub struct Name(pub u8);
}

/// Declares the test's types the way a program does, once.
fn declare(world: &mut World) {
    world.register::<Position>();
    world.register::<Velocity>();
    world.register::<Name>().name("name").clone().hash().serde();
    world.register::<Health>().name("health").clone().hash().serde();
    world.register_resource::<Score>().name("score").hash().serde();
    world.register_resource::<Stats>().name("stats").clone().serde();
    world.register_pair::<Owes>().name("owes").serde().hash();
    world.register_relation::<DockedAt>().name("docked_at");
}

fn populated() -> World {
    let mut world = World::new();
    declare(&mut world);
    let a = world.spawn((Position { x: 1.0, y: 2.0 }, Velocity { x: 0.5, y: 0.0 }, Name("a".into())));
    let b = world.spawn((Position { x: 3.0, y: 4.0 }, Health(7)));
    let c = world.spawn((Name("c".into()), Health(9)));
    world.disable(c);
    world.add_pair_with(a, b, Owes(10));
    world.relate::<DockedAt>(b, a).unwrap();
    world.insert_resource(Score(5));
    world.insert_resource(Stats(99));
    world
}

#[test]
fn the_derive_attribute_and_the_builder_declare_the_same_things() {
    let mut world = World::new();
    declare(&mut world);
    let types = world.types();
    let position = types.component::<Position>().unwrap();
    assert_eq!(position.name, "position");
    assert_eq!(position.kind, TypeKind::Component);
    assert_eq!(
        position.supports,
        Supports { clone: true, plain: true, hash: true, serde: true, ..Supports::default() }
    );
    assert_eq!(types.component::<Velocity>().unwrap().name, "Velocity", "default: the short type name");
    let name = types.component::<Name>().unwrap().supports;
    assert!(name.clone && name.hash && name.serde && !name.plain);
    assert!(types.resource::<Stats>().unwrap().supports.clone);
    assert!(!types.resource::<Stats>().unwrap().supports.hash);
    assert_eq!(types.by_name(TypeKind::Pair, "owes").unwrap().type_name, std::any::type_name::<Owes>());
    assert!(types.by_name(TypeKind::Relation, "docked_at").is_some());
    assert!(types.component::<Disabled>().is_some(), "built in");
    assert_eq!(types.iter().count(), types.len());
    assert_eq!(
        types.snapshot().component_names().collect::<Vec<_>>(),
        ["Velocity", "health", "mosaic::Disabled", "name", "position"]
    );
    assert_eq!(types.rollback().resource_names().collect::<Vec<_>>(), ["score", "stats"]);
    assert_eq!(types.rollback().pair_names().collect::<Vec<_>>(), ["owes"]);
}

#[test]
fn registering_again_adds_and_renames() {
    let mut world = World::new();
    world.register::<Health>();
    assert_eq!(world.types().snapshot().component_names().filter(|&n| n == "Health").count(), 0);
    world.register::<Health>().serde();
    assert_eq!(world.types().snapshot().component_names().filter(|&n| n == "Health").count(), 1);
    world.register::<Health>().name("hp");
    assert!(world.types().snapshot().component_names().any(|n| n == "hp"), "the view follows a rename");
    assert!(!world.types().snapshot().component_names().any(|n| n == "Health"));
    assert_eq!(world.types().iter().filter(|t| t.type_name.ends_with("Health")).count(), 1);
}

#[test]
fn a_default_name_never_collides_but_an_explicit_one_does() {
    let mut world = World::new();
    world.register::<Name>();
    world.register::<other::Name>();
    assert_eq!(world.types().component::<Name>().unwrap().name, "Name");
    assert_eq!(world.types().component::<other::Name>().unwrap().name, std::any::type_name::<other::Name>());
    let clash = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.register::<other::Name>().name("Name");
    }));
    let message = *clash.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("already taken") && message.contains("other::Name"), "{message}");
}

#[test]
fn snapshots_round_trip_through_the_registry() {
    let mut world = populated();
    let text = world.save_ron().unwrap();
    let bytes = world.save_binary().unwrap();
    for binary in [false, true] {
        let mut copy = World::new();
        declare(&mut copy);
        if binary {
            copy.load_binary(&bytes).unwrap();
        } else {
            copy.load_ron(&text).unwrap();
        }
        assert_eq!(copy.save_ron().unwrap(), text, "binary: {binary}");
        assert_eq!(copy.state_hash().unwrap(), world.state_hash().unwrap());
        assert_eq!(copy.resource::<Stats>(), &Stats(99));
        assert_eq!(copy.query::<&Name>().count(), 1, "the disabled entity stays disabled");
        assert_eq!(copy.query::<(&Name, mosaic::Has<Disabled>)>().count(), 2);
        let (owner, target, value) = copy.pairs::<Owes>().next().unwrap();
        assert_eq!(value, &Owes(10));
        assert_eq!(copy.target::<DockedAt>(target), Some(owner));
    }
}

#[test]
fn rollback_and_the_hash_read_the_registry() {
    let mut world = populated();
    let mut ring = world.rollback_ring(2);
    ring.save(&mut world, 0).unwrap();
    let hash = world.state_hash().unwrap();
    assert_eq!(ring.hash(&world), hash);
    let e = world.spawn((Position { x: 9.0, y: 9.0 }, Health(1)));
    world.query::<&mut Health>().for_each(|h| h.0 += 1);
    world.resource_mut::<Score>().0 += 1;
    assert_ne!(world.state_hash().unwrap(), hash);
    world.resource_mut::<Stats>().0 += 1;
    ring.restore(0, &mut world).unwrap();
    assert_eq!(world.state_hash().unwrap(), hash);
    assert!(!world.is_alive(e));
    assert_eq!(world.resource::<Stats>(), &Stats(99), "a `clone` resource is restored");
}

#[test]
fn a_clone_resource_is_restored_but_not_hashed() {
    let mut world = World::new();
    world.register_resource::<Stats>().clone();
    world.insert_resource(Stats(1));
    let hash = world.state_hash().unwrap();
    world.resource_mut::<Stats>().0 = 2;
    assert_eq!(world.state_hash().unwrap(), hash);
}

#[test]
fn cloning_reads_the_registry_for_both_layouts() {
    let mut world = World::new();
    declare(&mut world);
    world.register::<Health>(); // no `clone` taken away by registering again
    let e = world.spawn((Position { x: 1.0, y: 1.0 }, Velocity { x: 2.0, y: 3.0 }, Name("x".into())));
    let copy = world.clone_entity(e).unwrap();
    assert_eq!(world.get::<Position>(copy), Ok(&Position { x: 1.0, y: 1.0 }));
    assert_eq!(
        world.get::<Velocity>(copy).unwrap().cloned(),
        Velocity { x: 2.0, y: 3.0 },
        "struct-of-arrays"
    );
    assert_eq!(world.get::<Name>(copy), Ok(&Name("x".into())));
}

// Every way to forget a type.

#[test]
fn an_undeclared_component_is_refused_by_snapshots_naming_the_fix() {
    let mut world = World::new();
    world.spawn(Health(1));
    let error = world.save_ron().unwrap_err();
    assert!(matches!(error, SnapshotError::UnsavedComponent { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("world.register::<Health>().serde()"), "{message}");
    assert!(message.contains(std::any::type_name::<Health>()), "{message}");
    assert!(matches!(world.save_binary(), Err(SnapshotError::UnsavedComponent { .. })));
}

#[test]
fn a_component_declared_without_serde_is_refused_by_snapshots() {
    let mut world = World::new();
    world.register::<Health>().clone().hash();
    world.spawn(Health(1));
    let message = world.save_ron().unwrap_err().to_string();
    assert!(message.contains(".serde()"), "{message}");
    // An empty pool is nothing to lose.
    let mut empty = World::new();
    let e = empty.spawn(Health(1));
    empty.despawn(e);
    empty.save_ron().unwrap();
}

#[test]
fn an_undeclared_component_is_refused_by_rollback_and_the_hash_naming_the_fix() {
    let mut world = World::new();
    world.register::<Name>().clone().serde(); // cloneable, but not hashed
    world.spawn(Name("x".into()));
    for error in [world.state_hash().unwrap_err(), world.rollback_ring(1).save(&mut world, 0).unwrap_err()] {
        assert!(matches!(error, RollbackError::UnregisteredComponent { .. }), "{error:?}");
        let message = error.to_string();
        assert!(message.contains("world.register::<Name>().plain()"), "{message}");
        assert!(message.contains("world.register::<Name>().hash()"), "{message}");
    }
    world.register::<Name>().hash();
    world.state_hash().unwrap();
}

#[test]
fn undeclared_pairs_and_relations_are_refused_naming_the_fix() {
    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    world.add_pair_with(a, b, Owes(1));
    let message = world.save_ron().unwrap_err().to_string();
    assert!(message.contains("world.register_pair::<Owes>().serde()"), "{message}");
    world.register_pair::<Owes>().serde();
    world.save_ron().unwrap();

    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    world.relate::<DockedAt>(a, b).unwrap();
    let message = world.save_ron().unwrap_err().to_string();
    assert!(message.contains("world.register_relation::<DockedAt>()"), "{message}");
}

#[test]
fn loading_a_type_the_world_did_not_declare_names_it() {
    let mut world = populated();
    let text = world.save_ron().unwrap();
    let mut bare = World::new();
    let message = bare.load_ron(&text).unwrap_err().to_string();
    assert!(message.contains("world.register::<T>().name("), "{message}");
    assert_eq!(bare.len(), 0, "nothing loaded");
}

#[test]
fn a_renamed_type_loads_files_saved_under_its_name() {
    let mut world = World::new();
    world.register::<Health>().name("health").serde();
    let e = world.spawn(Health(3));
    let bytes = world.save_binary().unwrap();
    let text = world.save_ron().unwrap();
    // Another program, where the Rust type is now `Hp` but keeps the registered name: the binary
    // format loads (RON writes struct names, so it needs the struct's name kept).
    #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[register(name = "health", serde)]
    struct Hp(u32);
    let mut copy = World::new();
    copy.register::<Hp>();
    copy.load_binary(&bytes).unwrap();
    assert_eq!(copy.get::<Hp>(e), Ok(&Hp(3)));
    // Moved to another module under the same struct name: both formats load.
    mod moved {
        #[derive(mosaic::Component, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[register(name = "health", serde)]
        pub struct Health(pub u32);
    }
    let mut copy = World::new();
    copy.register::<moved::Health>();
    copy.load_ron(&text).unwrap();
    assert_eq!(copy.get::<moved::Health>(e), Ok(&moved::Health(3)));
}

#[test]
fn a_clone_of_a_disabled_entity_is_enabled_unless_disabled_is_declared_clone() {
    let mut world = World::new();
    world.register::<Name>().clone();
    let e = world.spawn(Name("prefab".into()));
    world.disable(e);
    let copy = world.clone_entity(e).unwrap();
    assert!(!world.contains::<Disabled>(copy), "an instance of a disabled prefab");
    world.register::<Disabled>().clone();
    let copy = world.clone_entity(e).unwrap();
    assert!(world.contains::<Disabled>(copy));
    assert_eq!(world.types().component::<Disabled>().unwrap().name, "mosaic::Disabled", "the built-in entry");
}

/// A pair value holding an entity handle, declared `map_entities`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Guards(mosaic::Entity);
impl PairRelation for Guards {}
impl mosaic::MapEntities for Guards {
    fn map_entities(&mut self, map: &mut dyn FnMut(mosaic::Entity) -> mosaic::Entity) {
        self.0.map_entities(map);
    }
}

#[test]
fn pair_values_holding_handles_follow_their_entities_into_a_populated_world() {
    let mut world = World::new();
    world.register_pair::<Guards>().map_entities();
    let [knight, gate, treasure] = [(); 3].map(|()| world.spawn_empty());
    world.add_pair_with(knight, gate, Guards(treasure));
    let bytes = world.save_binary().unwrap();
    let text = world.save_ron().unwrap();
    for binary in [false, true] {
        let mut busy = World::new();
        busy.register_pair::<Guards>().map_entities();
        busy.spawn_empty();
        busy.spawn_empty();
        let map = if binary { busy.load_binary(&bytes) } else { busy.load_ron(&text) }.unwrap();
        let (knight, gate, treasure) =
            (map.get(knight).unwrap(), map.get(gate).unwrap(), map.get(treasure).unwrap());
        assert_eq!(busy.pair_value::<Guards>(knight, gate), Some(&Guards(treasure)), "binary: {binary}");
    }
    assert!(world.types().by_name(TypeKind::Pair, "Guards").unwrap().supports.map_entities);
}

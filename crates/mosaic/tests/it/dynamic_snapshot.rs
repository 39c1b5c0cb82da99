//! Run-time components in snapshots (format 8): saved without registration, loaded into a world
//! that registered the same schema under the same name, in both formats, with their row order;
//! a missing component, another schema, raw parts and hostile rows are errors that leave the
//! world as it was.
#![cfg(feature = "serialize")]
#![allow(unsafe_code, reason = "one test makes a component from raw parts, which is `unsafe` to describe")]

use std::alloc::Layout;

use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Field, FieldType, Scalar, Schema};
use mosaic::serialize::{SnapshotError, SnapshotRegistry, seal_ron};
use mosaic::{Component, ComponentId, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Name(String);

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Name>("name");
    registry
}

fn shield() -> ComponentDescriptor {
    ComponentDescriptor::new("Shield", Schema::new(vec![Field::new("absorb", Scalar::F32)]).unwrap())
}

/// Every scalar type, a nested struct and an array.
fn body() -> ComponentDescriptor {
    let schema = Schema::new(vec![
        Field::new("alive", Scalar::Bool),
        Field::new("hp", Scalar::U16),
        Field::new(
            "pos",
            FieldType::Struct(vec![Field::new("x", Scalar::F64), Field::new("y", Scalar::F32)]),
        ),
        Field::new("flags", FieldType::array(Scalar::I8, 3)),
        Field::new("id", Scalar::U64),
        Field::new("delta", Scalar::I64),
        Field::new(
            "small",
            FieldType::Struct(vec![
                Field::new("a", Scalar::U8),
                Field::new("b", Scalar::I16),
                Field::new("c", Scalar::U32),
                Field::new("d", Scalar::I32),
            ]),
        ),
    ])
    .unwrap();
    ComponentDescriptor::new("Body", schema)
}

fn body_value(world: &World, id: ComponentId, i: u32) -> DynamicValue {
    let mut v = DynamicValue::new(world.dynamic_schema(id).unwrap());
    v.set_path("alive", i.is_multiple_of(2)).unwrap();
    v.set_path("hp", 100 + i as u16).unwrap();
    v.set_path("pos.x", f64::from(i) * 0.5).unwrap();
    v.set_path("pos.y", -(i as f32)).unwrap();
    v.set_path("flags.1", -(i as i8)).unwrap();
    v.set_path("id", u64::MAX - u64::from(i)).unwrap();
    v.set_path("delta", i64::MIN + i64::from(i)).unwrap();
    v.set_path("small.a", i as u8).unwrap();
    v.set_path("small.b", -3i16).unwrap();
    v.set_path("small.c", 7 * i).unwrap();
    v.set_path("small.d", -7 * i as i32).unwrap();
    v
}

fn shield_value(world: &World, id: ComponentId, absorb: f32) -> DynamicValue {
    let mut v = DynamicValue::new(world.dynamic_schema(id).unwrap());
    v.set_path("absorb", absorb).unwrap();
    v
}

/// A world with both run-time components, a typed one, and rows out of index order.
fn populated() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let body = world.register_dynamic(body()).unwrap();
    let shield = world.register_dynamic(shield()).unwrap();
    let entities: Vec<Entity> = (0..6).map(|i| world.spawn(Name(format!("e{i}")))).collect();
    for (i, &e) in entities.iter().enumerate().rev() {
        world.insert_by_id(e, body, body_value(&world, body, i as u32)).unwrap();
    }
    for &e in &entities[..3] {
        world.insert_by_id(e, shield, shield_value(&world, shield, 0.25)).unwrap();
    }
    world.remove_by_id(entities[4], body).unwrap(); // a swap-remove: row order differs from index order
    world.despawn(entities[1]);
    (world, entities)
}

/// A world that declares the components in another order (so other ids).
fn declared() -> (World, ComponentId, ComponentId) {
    let mut world = World::new();
    let shield = world.register_dynamic(shield()).unwrap();
    let body = world.register_dynamic(body()).unwrap();
    (world, body, shield)
}

fn body_rows(world: &World) -> Vec<(Entity, Vec<u8>)> {
    let body = world.component_id_by_name("Body").unwrap();
    let mut entities = Vec::new();
    world
        .query_builder()
        .read(body)
        .build()
        .unwrap()
        .for_each(world, |row| entities.push(row.entity()))
        .unwrap();
    entities.into_iter().map(|e| (e, world.get_by_id(e, body).unwrap().bytes().to_vec())).collect()
}

#[test]
fn run_time_components_round_trip_in_both_formats_with_their_row_order() {
    let (mut world, entities) = populated();
    let registry = registry();
    let text = registry.save_ron(&mut world).unwrap();
    let compact: String = text.split_whitespace().collect();
    assert!(
        compact.contains("(\"Shield\",[(\"absorb\",\"f32\"),],[(0,(0.25)),(2,(0.25)),],[0,2,])"),
        "{text}"
    );
    let bytes = registry.save_binary(&mut world).unwrap();
    for binary in [false, true] {
        let (mut copy, body, shield) = declared();
        if binary {
            registry.load_binary(&mut copy, &bytes).unwrap();
        } else {
            registry.load_ron(&mut copy, &text).unwrap();
        }
        assert_eq!(body_rows(&copy), body_rows(&world), "values and row order (binary: {binary})");
        assert_eq!(copy.get_by_id(entities[0], shield).unwrap().get_path::<f32>("absorb"), Ok(0.25));
        assert_eq!(copy.get_by_id(entities[5], body).unwrap().get_path::<u64>("id"), Ok(u64::MAX - 5));
        assert!(!copy.contains_by_id(entities[4], body));
        assert!(!copy.is_alive(entities[1]));
        assert_eq!(registry.save_ron(&mut copy).unwrap(), text, "save(load(save(w))) == save(w)");
    }
}

#[test]
fn a_populated_world_takes_them_at_new_ids() {
    let (mut world, entities) = populated();
    let text = registry().save_ron(&mut world).unwrap();
    let (mut busy, body, _) = declared();
    busy.spawn(Name("first".into()));
    let map = registry().load_ron(&mut busy, &text).unwrap();
    let moved = map.get(entities[2]).unwrap();
    assert_ne!(moved, entities[2]);
    assert_eq!(busy.get_by_id(moved, body).unwrap().get_path::<u16>("hp"), Ok(102));
}

#[test]
fn the_world_registry_saves_them_without_a_declaration() {
    let (mut world, entities) = populated();
    world.register::<Name>().serde();
    let bytes = world.save_binary().unwrap();
    let (mut copy, body, _) = declared();
    copy.register::<Name>().serde();
    copy.load_binary(&bytes).unwrap();
    assert_eq!(copy.get_by_id(entities[3], body).unwrap().get_path::<bool>("alive"), Ok(false));
}

#[test]
fn a_world_without_the_component_or_with_another_schema_refuses() {
    let (mut world, _) = populated();
    let registry = registry();
    let text = registry.save_ron(&mut world).unwrap();

    let mut bare = World::new();
    bare.register_dynamic(body()).unwrap();
    let error = registry.load_ron(&mut bare, &text).unwrap_err();
    assert!(
        matches!(&error, SnapshotError::Unknown { kind: "run-time component", name } if name == "Shield"),
        "{error}"
    );
    assert_eq!(bare.len(), 0, "nothing loaded");

    let mut other = World::new();
    other.register_dynamic(body()).unwrap();
    let wider = Schema::new(vec![Field::new("absorb", Scalar::F64)]).unwrap();
    other.register_dynamic(ComponentDescriptor::new("Shield", wider)).unwrap();
    let error = registry.load_ron(&mut other, &text).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, SnapshotError::DynamicSchema { .. }), "{error}");
    assert!(message.contains("absorb: f32") && message.contains("absorb: f64"), "{message}");
    assert_eq!(other.len(), 0);
}

#[test]
fn raw_parts_are_refused_rather_than_dropped() {
    let mut world = World::new();
    // SAFETY: a `u32` has no drop and any 4 initialized bytes are one.
    let descriptor = unsafe { ComponentDescriptor::from_raw_parts("RawU32", Layout::new::<u32>(), None) };
    let raw = world.register_dynamic(descriptor).unwrap();
    assert!(registry().save_binary(&mut world).is_ok(), "an empty pool is nothing to lose");
    let e = world.spawn_empty();
    let value = 7u32;
    // SAFETY: `value` is one initialized `u32`, copied in and not used as a component after.
    unsafe { world.insert_by_id_raw(e, raw, (&raw const value).cast()) }.unwrap();
    let error = registry().save_ron(&mut world).unwrap_err();
    assert!(matches!(error, SnapshotError::RunTimeComponent { component: "RawU32" }), "{error}");
}

#[test]
fn hostile_rows_are_errors_that_change_nothing() {
    let (mut world, _) = populated();
    let registry = registry();
    let text = registry.save_ron(&mut world).unwrap();
    let body: String = text.split_once('\n').unwrap().1.split_whitespace().collect();
    let body = body.as_str();
    let shield_rows = "[(0,(0.25)),(2,(0.25)),]";
    assert!(body.contains(shield_rows), "{body}");
    let cases = [
        // A bool written as a number.
        (body.replacen("(true,", "(2,", 1), "DecodeRon"),
        // A row for a dead entity (index 1 was despawned).
        (body.replacen(shield_rows, "[(0,(0.25)),(1,(0.25)),]", 1), "MissingEntity"),
        // The same entity twice.
        (body.replacen(shield_rows, "[(0,(0.25)),(0,(0.25)),]", 1), "DuplicateEntity"),
        // A value with a scalar too few.
        (body.replacen("(0,(0.25))", "(0,())", 1), "DecodeRon"),
    ];
    for (edited, expected) in cases {
        assert_ne!(edited, body, "the edit for {expected} applies");
        let (mut copy, _, _) = declared();
        let error = registry.load_ron(&mut copy, &seal_ron(&edited)).unwrap_err();
        assert!(format!("{error:?}").starts_with(expected), "{expected}: {error:?}");
        assert_eq!(copy.len(), 0, "{expected}: nothing loaded");
    }
}

//! Components defined at run time (`mosaic::dynamic`): registration, insert/get/set/remove by
//! id, drops of raw components, run-time queries, and how they meet the rest of the world.
//!
//! The raw-parts test is the one user of the `unsafe` API here (a component holding a `Box`).
#![allow(unsafe_code, reason = "one test drives the raw-parts API, which is unsafe by design")]

use std::alloc::Layout;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::dynamic::{
    ComponentDescriptor, DynamicError, DynamicValue, Field, FieldType, Scalar, Schema, SchemaError,
};
use mosaic::{Component, ComponentId, Entity, World};

fn vec2(name: &str) -> ComponentDescriptor {
    ComponentDescriptor::new(
        name,
        Schema::new(vec![Field::new("x", Scalar::F32), Field::new("y", Scalar::F32)]).unwrap(),
    )
}

fn value(world: &World, id: ComponentId, x: f32, y: f32) -> DynamicValue {
    let mut v = DynamicValue::new(world.dynamic_schema(id).unwrap());
    v.set_path("x", x).unwrap();
    v.set_path("y", y).unwrap();
    v
}

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Typed(u32);

#[test]
fn insert_get_set_remove_by_id() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    assert_eq!(world.component_id_by_name("Pos"), Some(pos));
    assert_eq!(world.component_name(pos), Some("Pos"));
    let x = world.dynamic_schema(pos).unwrap().field::<f32>("x").unwrap();

    let e = world.spawn(Typed(1));
    assert!(!world.insert_by_id(e, pos, value(&world, pos, 1.0, 2.0)).unwrap(), "added");
    assert!(world.contains_by_id(e, pos));
    assert!(world.component_ids(e).unwrap().contains(&pos));
    assert_eq!(world.get_by_id(e, pos).unwrap().get(x), 1.0);
    assert_eq!(world.get_by_id(e, pos).unwrap().get_path::<f32>("y"), Ok(2.0));

    world.get_mut_by_id(e, pos).unwrap().set(x, 5.0);
    assert_eq!(world.get_by_id(e, pos).unwrap().get(x), 5.0);
    assert!(world.insert_by_id(e, pos, value(&world, pos, 7.0, 8.0)).unwrap(), "replaced");
    assert_eq!(world.get_by_id(e, pos).unwrap().to_value(), value(&world, pos, 7.0, 8.0));

    let taken = world.take_by_id(e, pos).unwrap().unwrap();
    assert_eq!(taken.get(x), 7.0);
    assert!(!world.contains_by_id(e, pos));
    assert_eq!(world.take_by_id(e, pos).unwrap(), None);
    assert_eq!(world.get::<Typed>(e), Ok(&Typed(1)), "the typed component is untouched");

    world.insert_by_id(e, pos, taken).unwrap();
    assert_eq!(world.remove_by_id(e, pos), Ok(true));
    assert_eq!(world.remove_by_id(e, pos), Ok(false));
    // remove_by_id takes Rust types too.
    let typed = world.components().id::<Typed>().unwrap();
    assert_eq!(world.remove_by_id(e, typed), Ok(true));
    assert!(!world.contains::<Typed>(e));
}

#[test]
fn errors_name_the_component_and_field() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    let vel = world.register_dynamic(vec2("Vel")).unwrap();
    assert_eq!(world.register_dynamic(vec2("Pos")), Err(DynamicError::NameTaken { name: "Pos".into() }));
    assert!(matches!(world.register_dynamic(vec2("")), Err(DynamicError::InvalidName { .. })));
    assert!(matches!(world.register_dynamic(vec2("a\nb")), Err(DynamicError::InvalidName { .. })));

    let e = world.spawn_empty();
    let wrong = value(&world, vel, 1.0, 1.0);
    let error = world.insert_by_id(e, pos, wrong).unwrap_err();
    assert!(
        matches!(&error, DynamicError::SchemaMismatch { component, .. } if component == "Pos"),
        "{error}"
    );
    assert!(
        matches!(world.get_by_id(e, pos), Err(DynamicError::Missing { component, .. }) if component == "Pos")
    );

    let typed = world.register_component::<Typed>();
    let error = world.dynamic_schema(typed).unwrap_err();
    assert!(error.to_string().contains("Typed"), "{error}");
    assert!(matches!(world.get_by_id(e, typed), Err(DynamicError::NoSchema { .. })));

    let bogus = {
        let mut other = World::new();
        for i in 0..10 {
            other.register_dynamic(vec2(&format!("C{i}"))).unwrap();
        }
        other.component_id_by_name("C9").unwrap()
    };
    assert_eq!(world.remove_by_id(e, bogus), Err(DynamicError::NoSuchComponent { index: bogus.index() }));

    world.despawn(e);
    assert!(matches!(world.insert_by_id(e, pos, value(&world, pos, 0.0, 0.0)), Err(DynamicError::Entity(_))));
    assert!(matches!(world.get_by_id(e, pos), Err(DynamicError::Entity(_))));

    let mut v = DynamicValue::new(world.dynamic_schema(pos).unwrap());
    assert!(matches!(v.set_path("x", 1u8), Err(SchemaError::WrongType { found: "f32", expected: "u8", .. })));
    assert!(matches!(v.set_path("z", 1.0f32), Err(SchemaError::NoSuchField { .. })));
}

#[test]
fn despawn_and_clear_drop_run_time_values() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    let entities: Vec<Entity> =
        (0..10).map(|i| world.spawn_dynamic([(pos, value(&world, pos, i as f32, 0.0))]).unwrap()).collect();
    world.despawn(entities[3]);
    assert_eq!(world.query_builder().read(pos).build().unwrap().count(&world), Ok(9));
    world.clear();
    assert_eq!(world.query_builder().read(pos).build().unwrap().count(&world), Ok(0));
}

static DROPS: AtomicUsize = AtomicUsize::new(0);

/// # Safety
/// `ptr` holds a `Box<u64>` owned by the caller.
unsafe fn drop_boxed(ptr: *mut u8) {
    DROPS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the caller passes an owned `Box<u64>`.
    unsafe { ptr.cast::<Box<u64>>().drop_in_place() }
}

#[test]
fn raw_components_drop_once() {
    let mut world = World::new();
    // SAFETY: the values written are `Box<u64>` (Send + Sync, movable by copy), dropped by
    // `drop_boxed`.
    let boxed = world
        .register_dynamic(unsafe {
            ComponentDescriptor::from_raw_parts("Boxed", Layout::new::<Box<u64>>(), Some(drop_boxed))
        })
        .unwrap();
    let insert = |world: &mut World, e: Entity, n: u64| {
        let value = std::mem::ManuallyDrop::new(Box::new(n));
        // SAFETY: `value` is a `Box<u64>` moved in (never dropped here).
        unsafe { world.insert_by_id_raw(e, boxed, (&raw const value).cast()) }.unwrap()
    };
    let before = DROPS.load(Ordering::Relaxed);
    let a = world.spawn_empty();
    let b = world.spawn_empty();
    insert(&mut world, a, 1);
    insert(&mut world, b, 2);
    assert!(insert(&mut world, a, 3), "replaced: the old box dropped");
    let ptr = world.get_ptr_by_id(a, boxed).unwrap();
    // SAFETY: `a`'s value is a `Box<u64>`; nothing writes the world meanwhile.
    assert_eq!(unsafe { **ptr.cast::<Box<u64>>().as_ptr() }, 3);
    assert!(world.get_by_id(a, boxed).is_err(), "no schema: no safe view");
    assert!(matches!(world.take_by_id(a, boxed), Err(DynamicError::NoSchema { .. })));
    assert_eq!(world.remove_by_id(b, boxed), Ok(true));
    world.despawn(a);
    assert_eq!(DROPS.load(Ordering::Relaxed) - before, 3);
    let c = world.spawn_empty();
    insert(&mut world, c, 4);
    drop(world);
    assert_eq!(DROPS.load(Ordering::Relaxed) - before, 4, "the world's drop drops the rest");
}

#[test]
fn queries_read_write_and_filter() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    let vel = world.register_dynamic(vec2("Vel")).unwrap();
    let tag =
        world.register_dynamic(ComponentDescriptor::new("Frozen", Schema::new(vec![]).unwrap())).unwrap();
    let mut moving = Vec::new();
    for i in 0..6 {
        let e = world.spawn(Typed(i));
        world.insert_by_id(e, pos, value(&world, pos, 0.0, 0.0)).unwrap();
        if i % 2 == 0 {
            world.insert_by_id(e, vel, value(&world, vel, 1.0, i as f32)).unwrap();
            moving.push(e);
        }
    }
    world.insert_by_id(moving[0], tag, DynamicValue::new(world.dynamic_schema(tag).unwrap())).unwrap();

    let step = world.query_builder().write(pos).read(vel).without(tag).build().unwrap();
    let (px, py) = (step.field::<f32>(0, "x").unwrap(), step.field::<f32>(0, "y").unwrap());
    let (vx, vy) = (step.field::<f32>(1, "x").unwrap(), step.field::<f32>(1, "y").unwrap());
    step.for_each_mut(&mut world, |mut row| {
        let (x, y) = (row.get(px) + row.get(vx), row.get(py) + row.get(vy));
        row.set(px, x);
        row.set(py, y);
    })
    .unwrap();
    let x = world.dynamic_schema(pos).unwrap().field::<f32>("x").unwrap();
    assert_eq!(world.get_by_id(moving[0], pos).unwrap().get(x), 0.0, "frozen");
    assert_eq!(world.get_by_id(moving[1], pos).unwrap().get(x), 1.0);

    // Optional terms and a typed filter.
    let typed = world.components().id::<Typed>().unwrap();
    let read = world.query_builder().read(pos).optional(vel).with(typed).build().unwrap();
    let ovx = read.field::<f32>(1, "x").unwrap();
    let mut seen = (0, 0);
    read.for_each(&world, |row| match row.try_get(ovx) {
        Some(_) => seen.0 += 1,
        None => seen.1 += 1,
    })
    .unwrap();
    assert_eq!(seen, (3, 3));

    // Refusals.
    let both = world.query_builder().read(pos).write(pos).build();
    assert!(matches!(both, Err(DynamicError::Query { reason }) if reason.contains("Pos")));
    assert!(matches!(world.query_builder().optional(pos).build(), Err(DynamicError::Query { .. })));
    assert!(matches!(world.query_builder().read(typed).build(), Err(DynamicError::NoSchema { .. })));
    assert!(matches!(step.for_each(&world, |_| {}), Err(DynamicError::Query { .. })), "it writes");
    assert!(matches!(step.field::<u32>(0, "x"), Err(DynamicError::Schema { .. })));
    assert!(matches!(step.field::<f32>(5, "x"), Err(DynamicError::Query { .. })));
    let mut other = World::new();
    other.register_dynamic(vec2("Pos")).unwrap();
    assert!(matches!(read.count(&other), Err(DynamicError::Query { .. })), "built on another world");
}

#[test]
#[should_panic(expected = "read-only")]
fn writing_a_read_term_panics() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    world.spawn_dynamic([(pos, value(&world, pos, 0.0, 0.0))]).unwrap();
    let query = world.query_builder().read(pos).build().unwrap();
    let x = query.field::<f32>(0, "x").unwrap();
    query.for_each_mut(&mut world, |mut row| row.set(x, 1.0)).unwrap();
}

#[test]
fn disabled_entities_are_skipped_unless_named() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    let a = world.spawn_dynamic([(pos, value(&world, pos, 0.0, 0.0))]).unwrap();
    world.spawn_dynamic([(pos, value(&world, pos, 0.0, 0.0))]).unwrap();
    world.disable(a);
    let query = world.query_builder().read(pos).build().unwrap();
    assert_eq!(query.count(&world), Ok(1));
    let disabled = world.components().id::<mosaic::Disabled>().unwrap();
    let with_disabled = world.query_builder().read(pos).with(disabled).build().unwrap();
    assert_eq!(with_disabled.count(&world), Ok(1), "naming the marker sees the disabled entity");
}

#[test]
fn writes_are_change_tracked() {
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos").with_change_tracking()).unwrap();
    let e = world.spawn_dynamic([(pos, value(&world, pos, 0.0, 0.0))]).unwrap();
    let tracker = |world: &World| world.components().pool(pos).changes().map(|c| c.changed(0));
    let added = tracker(&world).expect("tracked from registration");
    world.clear_trackers();
    world.get_mut_by_id(e, pos).unwrap().set_path("x", 1.0f32).unwrap();
    let after_get_mut = tracker(&world).unwrap();
    assert!(after_get_mut.get() > added.get());
    world.clear_trackers();
    let query = world.query_builder().write(pos).build().unwrap();
    query.for_each_mut(&mut world, |_| {}).unwrap();
    assert!(
        tracker(&world).unwrap().get() > after_get_mut.get(),
        "a write term stamps the rows it hands out"
    );
}

#[test]
fn nested_schemas_round_trip() {
    let schema = Arc::new(
        Schema::new(vec![
            Field::new("id", Scalar::U64),
            Field::new(
                "cells",
                FieldType::array(
                    FieldType::Struct(vec![Field::new("on", Scalar::Bool), Field::new("v", Scalar::I16)]),
                    4,
                ),
            ),
        ])
        .unwrap(),
    );
    let mut v = DynamicValue::new(&schema);
    v.set_path("cells.2.on", true).unwrap();
    v.set_path("cells.3.v", -7i16).unwrap();
    let copy = DynamicValue::from_bytes(&schema, v.bytes()).unwrap();
    assert_eq!(copy, v);
    assert_eq!(copy.get_path::<i16>("cells.3.v"), Ok(-7));
    let mut bad = v.bytes().to_vec();
    bad[schema.leaf("cells.2.on").unwrap().offset as usize] = 9;
    assert!(
        matches!(DynamicValue::from_bytes(&schema, &bad), Err(SchemaError::InvalidBool { path, .. }) if path == "cells.2.on")
    );
    assert!(format!("{v:?}").contains("\"cells.2.on\": true"));
}

#[cfg(feature = "rollback")]
#[test]
fn rollback_saves_schema_components_without_registration() {
    use mosaic::rollback::{RollbackRegistry, RollbackRing};
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos").with_change_tracking()).unwrap();
    let registry = RollbackRegistry::new();
    let empty_hash = registry.hash(&world);
    let mut ring = RollbackRing::new(RollbackRegistry::new(), 4);
    let a = world.spawn_dynamic([(pos, value(&world, pos, 1.0, 2.0))]).unwrap();
    ring.save(&mut world, 0).unwrap();
    let saved_hash = registry.hash(&world);
    assert_ne!(saved_hash, empty_hash, "the run-time component is hashed");

    world.get_mut_by_id(a, pos).unwrap().set_path("x", 9.0f32).unwrap();
    let b = world.spawn_dynamic([(pos, value(&world, pos, 3.0, 4.0))]).unwrap();
    // A schema component registered after the save: its rows go with the restore.
    let late = world.register_dynamic(vec2("Late")).unwrap();
    world.insert_by_id(a, late, value(&world, late, 0.0, 0.0)).unwrap();
    assert_ne!(registry.hash(&world), saved_hash);

    ring.restore(0, &mut world).unwrap();
    assert_eq!(registry.hash(&world), saved_hash);
    assert_eq!(world.get_by_id(a, pos).unwrap().get_path::<f32>("x"), Ok(1.0));
    assert!(!world.is_alive(b));
    assert!(!world.contains_by_id(a, late));
    assert_eq!(world.query_builder().read(late).build().unwrap().count(&world), Ok(0));
}

#[cfg(feature = "rollback")]
#[test]
fn rollback_refuses_raw_components_with_rows() {
    use mosaic::rollback::{RollbackError, RollbackRegistry, RollbackRing};
    let mut world = World::new();
    // SAFETY: the values written are `u32`s: plain, no drop.
    let raw = world
        .register_dynamic(unsafe {
            ComponentDescriptor::from_raw_parts("RawU32", Layout::new::<u32>(), None)
        })
        .unwrap();
    let mut ring = RollbackRing::new(RollbackRegistry::new(), 4);
    ring.save(&mut world, 0).unwrap();
    let e = world.spawn_empty();
    let v = 7u32;
    // SAFETY: `v` is a `u32`, copied in.
    unsafe { world.insert_by_id_raw(e, raw, (&raw const v).cast()) }.unwrap();
    assert_eq!(ring.save(&mut world, 1), Err(RollbackError::UnregisteredComponent { type_name: "RawU32" }));
}

#[test]
fn observers_by_id_see_run_time_components() {
    use mosaic::{Add, Insert, On, Remove, ResMut};
    #[derive(Default)]
    struct Log(Vec<(&'static str, Entity, Option<ComponentId>)>);
    let mut world = World::new();
    world.insert_resource(Log::default());
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    world
        .add_observer_by_id(&[pos], |on: On<Add>, mut log: ResMut<Log>| {
            log.0.push(("add", on.entity(), on.component()))
        })
        .unwrap();
    world
        .add_observer_by_id(&[pos], |on: On<Insert>, mut log: ResMut<Log>| {
            log.0.push(("insert", on.entity(), on.component()))
        })
        .unwrap();
    world
        .add_observer_by_id(&[pos], |on: On<Remove>, mut log: ResMut<Log>| {
            log.0.push(("remove", on.entity(), on.component()))
        })
        .unwrap();
    let e = world.spawn_dynamic([(pos, value(&world, pos, 0.0, 0.0))]).unwrap();
    world.insert_by_id(e, pos, value(&world, pos, 1.0, 0.0)).unwrap();
    world.take_by_id(e, pos).unwrap();
    world.insert_by_id(e, pos, value(&world, pos, 2.0, 0.0)).unwrap();
    world.despawn(e);
    let kinds: Vec<&str> = world.resource::<Log>().0.iter().map(|l| l.0).collect();
    assert_eq!(kinds, ["add", "insert", "insert", "remove", "add", "insert", "remove"]);
    assert!(world.resource::<Log>().0.iter().all(|l| l.1 == e && l.2 == Some(pos)));

    #[derive(mosaic::Event)]
    struct Custom;
    assert!(matches!(
        world.add_observer_by_id(&[pos], |_: On<Custom>| {}),
        Err(DynamicError::Observer { .. })
    ));
    assert!(matches!(world.add_observer_by_id(&[], |_: On<Add>| {}), Err(DynamicError::Observer { .. })));
}

#[test]
fn hooks_by_id_see_run_time_components() {
    use std::sync::Mutex;
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut world = World::new();
    let pos = world.register_dynamic(vec2("Pos")).unwrap();
    let x = move |ctx: &mosaic::HookContext<'_>| {
        ctx.world.get_by_id(ctx.entity, pos).unwrap().get_path::<f32>("x").unwrap()
    };
    let push = move |log: &Arc<Mutex<Vec<String>>>, kind: &'static str| {
        let log = Arc::clone(log);
        move |ctx: &mut mosaic::HookContext<'_>| log.lock().unwrap().push(format!("{kind} {}", x(ctx)))
    };
    world.on_add_by_id(pos, push(&log, "add")).unwrap();
    world.on_insert_by_id(pos, push(&log, "insert")).unwrap();
    world.on_replace_by_id(pos, push(&log, "replace")).unwrap();
    world.on_discard_by_id(pos, push(&log, "discard")).unwrap();
    let remove = world.on_remove_by_id(pos, push(&log, "remove")).unwrap();
    let e = world.spawn_dynamic([(pos, value(&world, pos, 1.0, 0.0))]).unwrap();
    world.insert_by_id(e, pos, value(&world, pos, 2.0, 0.0)).unwrap();
    world.remove_by_id(e, pos).unwrap();
    assert!(world.remove_hook(remove));
    world.insert_by_id(e, pos, value(&world, pos, 3.0, 0.0)).unwrap();
    world.despawn(e);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "add 1",
            "insert 1",
            "replace 1",
            "discard 1",
            "insert 2",
            "discard 2",
            "remove 2",
            "add 3",
            "insert 3",
            "discard 3"
        ]
    );
}

/// Watches are registered by id (`World::add_watch`), so they follow run-time components too.
#[test]
fn a_watch_by_id_follows_a_run_time_component() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicI32, Ordering};
    let mut world = World::new();
    let shield = world.register_dynamic(vec2("Shield")).unwrap();
    let inside = Arc::new(AtomicI32::new(0));
    let (enter, leave) = (Arc::clone(&inside), Arc::clone(&inside));
    world.add_watch(
        &[shield],
        &[],
        Some(Arc::new(move |_: &mut mosaic::HookContext<'_>| {
            enter.fetch_add(1, Ordering::Relaxed);
        })),
        Some(Arc::new(move |_: &mut mosaic::HookContext<'_>| {
            leave.fetch_sub(1, Ordering::Relaxed);
        })),
    );
    let e = world.spawn(Typed(1));
    world.insert_by_id(e, shield, value(&world, shield, 1.0, 2.0)).unwrap();
    assert_eq!(inside.load(Ordering::Relaxed), 1);
    world.remove_by_id(e, shield).unwrap();
    assert_eq!(inside.load(Ordering::Relaxed), 0);
}

//! Snapshots: round trips in RON and postcard (handles, allocator, hierarchy, resources, both
//! layouts), byte-identical saves, loading into a non-empty world with remapping, and corrupt or
//! hostile input (each case an error, the world unchanged); then a property test over random
//! worlds.
#![cfg(feature = "serialize")]

use std::collections::BTreeMap;

use mosaic::hierarchy::Relationship;
use mosaic::serialize::{
    EntityMap, FORMAT_VERSION, MapEntities, SnapshotError, SnapshotRegistry, seal_binary, seal_ron,
};
use mosaic::{Component, Entity, World};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "soa")]
struct Vel {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Name(String);

/// Holds handles that must follow their entities.
#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Target(Entity, Option<Entity>);

impl MapEntities for Target {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.0.map_entities(map);
        self.1.map_entities(map);
    }
}

/// Not registered: never saved.
#[derive(Component, Clone, Debug, PartialEq)]
struct Scratch;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Frame(u64);

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    // Registration order does not matter: columns are written by name.
    registry
        .register::<Vel>("velocity")
        .register::<Pos>("position")
        .register::<Name>("name")
        .register_mapped::<Target>("target")
        .register_resource::<Frame>("frame");
    registry
}

/// A world with every feature in use: despawned slots (free list), a hierarchy, handles.
fn sample() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut all = Vec::new();
    for i in 0..12 {
        let e = world.spawn((Pos { x: i as f32, y: -(i as f32) }, Name(format!("e{i}"))));
        if i % 3 == 0 {
            world.insert(e, Vel { x: 0.5, y: i as f32 });
        }
        all.push(e);
    }
    world.despawn(all[4]);
    world.despawn(all[9]);
    let stale = all[4];
    world.insert(all[0], Target(all[1], Some(stale)));
    world.insert(all[2], Scratch);
    world.set_parent(all[1], all[0]).unwrap();
    world.set_parent(all[3], all[0]).unwrap();
    world.set_parent(all[2], all[0]).unwrap();
    world.set_parent(all[5], all[3]).unwrap();
    world.insert_resource(Frame(42));
    (world, all)
}

/// One entity's registered components.
type Row = (Option<Pos>, Option<Vel>, Option<Name>, Option<Target>);

/// Everything a snapshot should preserve, comparable across worlds after mapping handles.
#[derive(Debug, PartialEq)]
struct Digest {
    entities: Vec<Entity>,
    rows: BTreeMap<Entity, Row>,
    children: BTreeMap<Entity, Vec<Entity>>,
    frame: Option<Frame>,
}

fn digest(world: &World) -> Digest {
    let entities: Vec<Entity> = world.entities().iter().collect();
    let rows = entities
        .iter()
        .map(|&e| {
            let vel = world.get::<Vel>(e).ok().map(|v| Vel { x: *v.x, y: *v.y });
            (
                e,
                (
                    world.get::<Pos>(e).ok().cloned(),
                    vel,
                    world.get::<Name>(e).ok().cloned(),
                    world.get::<Target>(e).ok().cloned(),
                ),
            )
        })
        .collect();
    let children = entities.iter().map(|&e| (e, world.children(e).collect())).collect();
    Digest { entities, rows, children, frame: world.get_resource::<Frame>().cloned() }
}

#[test]
fn ron_round_trip_keeps_handles_and_allocator() {
    let registry = registry();
    let (mut world, all) = sample();
    let text = registry.save_ron(&mut world).unwrap();
    let (checksum, body) = text.split_once('\n').unwrap();
    assert!(checksum.starts_with("// mosaic snapshot crc32 ") && checksum.len() == 33, "{checksum}");
    assert!(body.starts_with("Snapshot("), "{text}");
    assert!(text.contains("\"position\"") && text.contains("\"frame\""), "{text}");
    assert!(!text.contains("Scratch"));
    let mut copy = World::new();
    let map = registry.load_ron(&mut copy, &text).unwrap();
    assert_eq!(map.len(), 10);
    assert!(map.iter().all(|(saved, now)| saved == now), "identity map into an empty world");
    assert_eq!(digest(&copy), digest(&world));
    copy.assert_hierarchy_invariants();
    assert_eq!(copy.children(all[0]).collect::<Vec<_>>(), [all[1], all[3], all[2]]);
    assert!(!copy.contains::<Scratch>(all[2]));
    // The stale handle stays stale, and the allocator hands out the same next ids.
    assert!(!copy.is_alive(all[4]));
    for _ in 0..4 {
        assert_eq!(copy.spawn_empty(), world.spawn_empty());
    }
}

#[test]
fn binary_round_trip_and_byte_identical_saves() {
    let registry = registry();
    let (mut world, _) = sample();
    let bytes = registry.save_binary(&mut world).unwrap();
    assert_eq!(registry.save_binary(&mut world).unwrap(), bytes, "two saves of one world");
    let mut copy = World::new();
    registry.load_binary(&mut copy, &bytes).unwrap();
    assert_eq!(digest(&copy), digest(&world));
    assert_eq!(registry.save_binary(&mut copy).unwrap(), bytes, "save(load(save(w))) == save(w)");
    let text = registry.save_ron(&mut world).unwrap();
    let mut from_text = World::new();
    registry.load_ron(&mut from_text, &text).unwrap();
    assert_eq!(registry.save_ron(&mut from_text).unwrap(), text);
    assert_eq!(registry.save_binary(&mut from_text).unwrap(), bytes, "both formats hold the same");
}

#[test]
fn loading_into_a_non_empty_world_remaps() {
    let registry = registry();
    let (mut world, all) = sample();
    let bytes = registry.save_binary(&mut world).unwrap();
    let mut other = World::new();
    let resident = other.spawn((Pos { x: 9.0, y: 9.0 }, Name("resident".into())));
    let map: EntityMap = registry.load_binary(&mut other, &bytes).unwrap();
    assert_eq!(other.len(), 11);
    assert_eq!(other.get::<Name>(resident), Ok(&Name("resident".into())), "existing entities untouched");
    let root = map.get(all[0]).unwrap();
    assert_ne!(root, all[0], "ids changed");
    assert_eq!(other.get::<Name>(root), Ok(&Name("e0".into())));
    // Handles inside the mapped component follow their entities; the stale one maps to a dead handle.
    let Target(to, stale) = other.get::<Target>(root).unwrap().clone();
    assert_eq!(to, map.get(all[1]).unwrap());
    assert!(!other.is_alive(stale.unwrap()));
    assert_eq!(map.get(all[4]), None);
    // The hierarchy is rebuilt between the new ids, in sibling order.
    let kids: Vec<Entity> = other.children(root).collect();
    assert_eq!(kids, [all[1], all[3], all[2]].map(|e| map.get(e).unwrap()));
    assert_eq!(other.parent(map.get(all[5]).unwrap()), map.get(all[3]));
    other.assert_hierarchy_invariants();
    assert_eq!(other.get_resource::<Frame>(), Some(&Frame(42)));
}

#[test]
fn lazy_garbage_is_swept_before_saving() {
    #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[component(cleanup = "lazy")]
    struct Lazy(u32);
    let mut registry = SnapshotRegistry::new();
    registry.register::<Lazy>("lazy");
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn(Lazy(i))).collect();
    world.despawn(es[3]);
    assert!(world.lazy_garbage() > 0);
    let text = registry.save_ron(&mut world).unwrap();
    assert_eq!(world.lazy_garbage(), 0);
    let mut copy = World::new();
    registry.load_ron(&mut copy, &text).unwrap();
    assert_eq!(copy.query::<&Lazy>().into_iter().count(), 9);
}

#[test]
#[should_panic(expected = "already taken")]
fn a_name_registers_once() {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("p").register::<Name>("p");
}

#[test]
#[should_panic(expected = "already registered")]
fn a_type_registers_once() {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("a").register::<Pos>("b");
}

// ---------------------------------------------------------------------------------------------
// Corrupt and hostile input.

/// A column as written: name, rows `(index, value)`, row order.
type RawColumn = (String, Vec<(u32, Pos)>, Vec<u32>);

/// The snapshot layout with plain types, to write arbitrary (inconsistent) content.
#[derive(Serialize)]
#[serde(rename = "Snapshot")]
struct Raw {
    format: u32,
    world: u8,
    generations: Vec<u32>,
    free: Vec<u32>,
    entities: Vec<u32>,
    sampler: u64,
    hierarchy: RawHierarchy,
    relations: Vec<RawRelation>,
    /// Pair kinds (`register_pair`); these tests write none (`pairs_snapshot.rs` covers them).
    pairs: Vec<(String, ())>,
    pair_marks: Vec<u32>,
    components: Vec<RawColumn>,
    resources: Vec<(String, u64)>,
    /// Run-time components (format 8); these tests write none (`dynamic.rs` covers them).
    dynamic: Vec<()>,
}

/// A relation kind as written: name, pairs `(source, target)` in row order, target marks, and
/// the index (per target, its sources in relate order).
#[derive(Clone, Serialize)]
#[serde(rename = "Relation")]
struct RawRelation {
    name: String,
    pairs: Vec<(u32, u32)>,
    marks: Vec<u32>,
    index: Vec<(u32, Vec<u32>)>,
}

/// The hierarchy as written: links, the relationship pool's row order, the ordering bookkeeping.
#[derive(Clone, Serialize)]
#[serde(rename = "Hierarchy")]
struct RawHierarchy {
    links: Vec<(u32, u32)>,
    order: Vec<u32>,
    state: Option<RawOrderState>,
}

/// The hierarchy's ordering bookkeeping as written.
#[derive(Clone, Serialize)]
#[serde(rename = "OrderState")]
struct RawOrderState {
    dirty: Vec<Entity>,
    overflow: bool,
    aligned: (u64, u64),
    propagation: (u8, u8),
}

/// A byte string, as the binary format writes each entry's data.
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

/// [`Raw`] as the binary format lays it out: each column's rows as a postcard byte string.
#[derive(Serialize)]
#[serde(rename = "Snapshot")]
struct RawBinary<'a> {
    format: u32,
    world: u8,
    generations: &'a [u32],
    free: &'a [u32],
    entities: &'a [u32],
    sampler: u64,
    hierarchy: &'a RawHierarchy,
    relations: &'a [RawRelation],
    pairs: &'a [(String, ())],
    pair_marks: &'a [u32],
    components: Vec<(&'a str, Bytes, &'a [u32])>,
    resources: Vec<(&'a str, Bytes)>,
    dynamic: &'a [()],
}

/// The postcard encoding of `value`, as a byte string.
fn postcard_bytes(value: &impl Serialize) -> Bytes {
    Bytes(postcard::to_allocvec(value).unwrap())
}

impl Raw {
    /// The binary snapshot of this content, with its checksum.
    fn binary(&self) -> Vec<u8> {
        seal_binary(self.content())
    }

    /// The RON snapshot of this content, with its checksum line.
    fn ron(&self) -> String {
        seal_ron(&ron::to_string(self).unwrap())
    }

    /// The binary encoding of this content, without the checksum.
    fn content(&self) -> Vec<u8> {
        postcard::to_allocvec(&RawBinary {
            format: self.format,
            world: self.world,
            generations: &self.generations,
            free: &self.free,
            entities: &self.entities,
            sampler: self.sampler,
            hierarchy: &self.hierarchy,
            relations: &self.relations,
            pairs: &self.pairs,
            pair_marks: &self.pair_marks,
            components: self
                .components
                .iter()
                .map(|(name, rows, order)| (name.as_str(), postcard_bytes(rows), order.as_slice()))
                .collect(),
            resources: self
                .resources
                .iter()
                .map(|(name, value)| (name.as_str(), postcard_bytes(value)))
                .collect(),
            dynamic: &self.dynamic,
        })
        .unwrap()
    }
}

fn raw() -> Raw {
    Raw {
        format: FORMAT_VERSION,
        world: 1,
        generations: vec![1, 1, 2],
        free: vec![2],
        entities: vec![0, 1],
        sampler: 7,
        hierarchy: RawHierarchy {
            links: vec![(1, 0)],
            order: vec![1, 0],
            state: Some(RawOrderState {
                dirty: vec![],
                overflow: false,
                aligned: (0, 0),
                propagation: (0, 0),
            }),
        },
        relations: vec![],
        pairs: vec![],
        pair_marks: vec![],
        components: vec![(
            "position".into(),
            vec![(0, Pos { x: 1.0, y: 2.0 }), (1, Pos { x: 3.0, y: 4.0 })],
            vec![1, 0],
        )],
        resources: vec![],
        dynamic: vec![],
    }
}

/// Loads `raw` in both formats into an empty and a non-empty world; returns the two errors
/// (binary, RON) after checking the worlds did not change.
fn load_both(raw: &Raw) -> (SnapshotError, SnapshotError) {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("position");
    let bytes = raw.binary();
    let text = raw.ron();
    let mut errors = Vec::new();
    for empty in [true, false] {
        let mut world = World::new();
        if !empty {
            world.spawn(Pos { x: 0.0, y: 0.0 });
        }
        let binary = registry.load_binary(&mut world, &bytes).unwrap_err();
        let ron = registry.load_ron(&mut world, &text).unwrap_err();
        assert_eq!(world.len(), u32::from(!empty), "{binary}");
        assert_eq!(world.entities().slot_count(), u32::from(!empty), "{binary}");
        errors.push((binary, ron));
    }
    errors.swap_remove(0)
}

#[test]
fn the_raw_layout_is_the_real_one() {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("position");
    let mut world = World::new();
    registry.load_binary(&mut world, &raw().binary()).unwrap();
    assert_eq!(world.len(), 2);
    let mut world = World::new();
    registry.load_ron(&mut world, &raw().ron()).unwrap();
    assert_eq!(world.children(world.entities().iter().next().unwrap()).count(), 1);
    let related: Vec<u32> =
        world.query_ref::<(Entity, &Relationship)>().into_iter().map(|(e, _)| e.index()).collect();
    assert_eq!(related, [1, 0], "the relationship pool in its saved row order");
}

#[test]
fn hierarchy_row_orders_and_the_sampler_are_checked() {
    /// Spoils a snapshot.
    type Corrupt = fn(&mut Raw);
    let cases: [(Corrupt, &str); 4] = [
        (|raw| raw.hierarchy.order = vec![0], "the row order of the hierarchy"),
        (|raw| raw.hierarchy.order = vec![1, 0, 1], "the row order of the hierarchy"),
        (|raw| raw.hierarchy.order = vec![1, 0, 2], "the row order of the hierarchy"),
        (|raw| raw.sampler = 0, "sampling state"),
    ];
    for (corrupt, what) in cases {
        let mut raw = raw();
        corrupt(&mut raw);
        let (binary, ron) = load_both(&raw);
        for error in [binary, ron] {
            assert!(error.to_string().contains(what), "{what}: {error}");
        }
    }
    let mut raw = raw();
    raw.hierarchy.order = vec![1, 0, 1];
    assert!(matches!(load_both(&raw).0, SnapshotError::DuplicateEntity { index: 1, .. }));
    raw.hierarchy.order = vec![0];
    assert!(matches!(load_both(&raw).0, SnapshotError::MissingEntity { index: 1, .. }));
    raw.sampler = 0;
    raw.hierarchy.order = vec![1, 0];
    assert!(matches!(load_both(&raw).0, SnapshotError::Sampler));
    // An entity with an empty relationship (listed, in no link) gets one.
    let mut raw = self::raw();
    raw.hierarchy.links.clear();
    raw.hierarchy.order = vec![0];
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("position");
    let mut world = World::new();
    registry.load_binary(&mut world, &raw.binary()).unwrap();
    let related: Vec<u32> =
        world.query_ref::<(Entity, &Relationship)>().into_iter().map(|(e, _)| e.index()).collect();
    assert_eq!(related, [0]);
}

#[test]
fn truncated_input_is_an_error_at_every_length() {
    let registry = registry();
    let (mut world, _) = sample();
    let bytes = registry.save_binary(&mut world).unwrap();
    // Under Miri every 13th length (and the last): each load is slow there, and every length
    // took more than 15 minutes under Tree Borrows.
    let (binary_stride, text_stride) = if cfg!(miri) { (13, 61) } else { (1, 7) };
    for len in (0..bytes.len()).step_by(binary_stride).chain([bytes.len() - 1]) {
        let mut target = World::new();
        let error = registry.load_binary(&mut target, &bytes[..len]).unwrap_err();
        // Past the first byte (the format, 7), the checksum is missing or wrong.
        if len == 0 {
            assert!(matches!(error, SnapshotError::DecodePostcard(_)), "{len}: {error}");
        } else {
            assert!(matches!(error, SnapshotError::Checksum { format: "binary", .. }), "{len}: {error}");
        }
        assert_eq!(target.entities().slot_count(), 0);
    }
    let text = registry.save_ron(&mut world).unwrap();
    for len in (0..text.len()).step_by(text_stride) {
        let mut target = World::new();
        assert!(registry.load_ron(&mut target, &text[..len]).is_err(), "{len}");
        assert_eq!(target.entities().slot_count(), 0);
    }
    let mut with_tail = bytes.clone();
    with_tail.push(0);
    let error = registry.load_binary(&mut World::new(), &with_tail).unwrap_err();
    assert!(matches!(error, SnapshotError::Checksum { .. }), "{error}");
    // A byte after the content, under a checksum that covers it.
    let mut with_tail = bytes[..bytes.len() - 4].to_vec();
    with_tail.push(0);
    let error = registry.load_binary(&mut World::new(), &seal_binary(with_tail)).unwrap_err();
    assert!(matches!(error, SnapshotError::TrailingBytes(1)), "{error}");
}

#[test]
fn huge_counts_do_not_allocate_or_panic() {
    let registry = registry();
    // The format, world tag 1, then a varint count of u32::MAX slots and nothing else.
    let mut bytes = vec![FORMAT_VERSION as u8, 1];
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0x0f]);
    let sealed = seal_binary(bytes);
    assert!(matches!(
        registry.load_binary(&mut World::new(), &sealed),
        Err(SnapshotError::DecodePostcard(_))
    ));
    // A column claiming u32::MAX rows.
    let mut raw = raw();
    raw.components.clear();
    let mut bytes = raw.content();
    bytes.truncate(bytes.len() - 3); // drop the three empty sequences
    bytes.extend([1, 8]); // one column...
    bytes.extend(b"position");
    let mut huge_column = bytes.clone();
    huge_column.extend([5, 0xff, 0xff, 0xff, 0xff, 0x0f]); // ...of u32::MAX rows...
    huge_column.extend([0, 0, 0]); // ...no row order, no resources, no run-time components
    let error = registry.load_binary(&mut World::new(), &seal_binary(huge_column)).unwrap_err();
    assert!(matches!(error, SnapshotError::DecodePostcard(_)), "{error}");
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0x0f]); // ...of u32::MAX bytes
    let error = registry.load_binary(&mut World::new(), &seal_binary(bytes)).unwrap_err();
    assert!(matches!(error, SnapshotError::DecodePostcard(_)), "{error}");
    // As many component entries as u32::MAX.
    let mut bytes = raw.content();
    bytes.truncate(bytes.len() - 3);
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0x0f]);
    let error = registry.load_binary(&mut World::new(), &seal_binary(bytes)).unwrap_err();
    assert!(matches!(error, SnapshotError::DecodePostcard(_)), "{error}");
    // Entity indices of u32::MAX.
    let mut raw = self::raw();
    raw.entities = vec![0, u32::MAX];
    assert!(matches!(load_both(&raw).0, SnapshotError::Allocator { .. }));
    let mut raw = self::raw();
    raw.hierarchy.links = vec![(1, u32::MAX)];
    assert!(matches!(load_both(&raw).0, SnapshotError::MissingEntity { index: u32::MAX, .. }));
}

#[test]
fn duplicate_entities_are_refused() {
    let mut raw = raw();
    raw.entities = vec![0, 0];
    let (binary, ron) = load_both(&raw);
    assert!(matches!(binary, SnapshotError::DuplicateEntity { index: 0, .. }), "{binary}");
    assert!(matches!(ron, SnapshotError::DuplicateEntity { index: 0, .. }), "{ron}");
    let mut raw = self::raw();
    raw.components[0].1.push((1, Pos { x: 0.0, y: 0.0 }));
    raw.components[0].2.push(1);
    let (binary, _) = load_both(&raw);
    assert!(
        matches!(&binary, SnapshotError::DuplicateEntity { index: 1, place } if place.contains("position"))
    );
    let mut raw = self::raw();
    raw.hierarchy.links = vec![(1, 0), (1, 0)];
    assert!(matches!(load_both(&raw).0, SnapshotError::DuplicateEntity { index: 1, .. }));
    let mut raw = self::raw();
    raw.components.push(("position".into(), vec![], vec![]));
    assert!(matches!(load_both(&raw).0, SnapshotError::DuplicateName { .. }));
}

#[test]
fn row_orders_must_list_each_row_once() {
    for order in [vec![0], vec![0, 0], vec![0, 1, 1], vec![0, 2]] {
        let mut raw = raw();
        raw.components[0].2 = order.clone();
        let (binary, ron) = load_both(&raw);
        assert!(binary.to_string().contains("row order"), "{order:?}: {binary}");
        assert!(ron.to_string().contains("row order"), "{order:?}: {ron}");
    }
}

#[test]
fn row_order_survives_and_groups_stay_packed() {
    let registry = registry();
    let mut world = World::new();
    world.group::<(Pos, Name)>();
    let es: Vec<Entity> = (0..50).map(|i| world.spawn(Pos { x: i as f32, y: 0.0 })).collect();
    for &e in es.iter().rev().step_by(3) {
        world.insert(e, Name(format!("{e}")));
    }
    world.despawn(es[10]);
    world.sort_as::<Vel, Pos>().unwrap();
    let order =
        |world: &mut World| world.query::<(Entity, &Pos)>().into_iter().map(|(e, _)| e).collect::<Vec<_>>();
    let named =
        |world: &mut World| world.query::<(Entity, &Name)>().into_iter().map(|(e, _)| e).collect::<Vec<_>>();
    let bytes = registry.save_binary(&mut world).unwrap();
    let mut copy = World::new();
    copy.group::<(Pos, Name)>();
    registry.load_binary(&mut copy, &bytes).unwrap();
    copy.assert_group_invariants();
    assert_eq!(order(&mut copy), order(&mut world));
    assert_eq!(named(&mut copy), named(&mut world));
    // Without the group in the target world the saved orders still apply.
    let mut plain = World::new();
    registry.load_binary(&mut plain, &bytes).unwrap();
    assert_eq!(order(&mut plain), order(&mut world));
    // Saved orders that disagree on the group's members are refused before anything changes.
    #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Shadow {
        x: f32,
        y: f32,
    }
    let mut raw = raw();
    let rows = raw.components[0].1.clone();
    raw.components[0].2 = vec![0, 1];
    raw.components.push(("shadow".into(), rows, vec![1, 0]));
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("position").register::<Shadow>("shadow");
    let mut grouped = World::new();
    let group = grouped.group::<(Pos, Shadow)>();
    let error = registry.load_binary(&mut grouped, &raw.binary()).unwrap_err();
    assert!(matches!(&error, SnapshotError::GroupOrder { column, .. } if column == "shadow"), "{error}");
    assert_eq!((grouped.entities().slot_count(), grouped.group_len(group)), (0, 0));
    let mut plain = World::new();
    registry.load_binary(&mut plain, &raw.binary()).unwrap();
    let shadows: Vec<u32> = plain.query::<(Entity, &Shadow)>().into_iter().map(|(e, _)| e.index()).collect();
    assert_eq!(shadows, [1, 0], "ungrouped, each pool takes its own saved order");
}

#[test]
fn unknown_names_are_refused() {
    let mut raw = raw();
    raw.components.push(("rotation".into(), vec![], vec![]));
    let (binary, ron) = load_both(&raw);
    for error in [binary, ron] {
        assert!(matches!(&error, SnapshotError::Unknown { kind: "component", name } if name == "rotation"));
        assert!(error.to_string().contains("register"), "{error}");
    }
    let mut raw = self::raw();
    raw.resources.push(("clock".into(), 5));
    assert!(matches!(load_both(&raw).0, SnapshotError::Unknown { kind: "resource", .. }));
}

#[test]
fn links_to_missing_entities_are_refused() {
    // Index 2 is a free slot, 7 is no slot at all.
    for missing in [2, 7] {
        let mut raw = raw();
        raw.hierarchy.links = vec![(1, missing)];
        let (binary, ron) = load_both(&raw);
        assert!(matches!(binary, SnapshotError::MissingEntity { index, .. } if index == missing), "{binary}");
        assert!(matches!(ron, SnapshotError::MissingEntity { .. }), "{ron}");
        let mut raw = self::raw();
        raw.components[0].1.push((missing, Pos { x: 0.0, y: 0.0 }));
        raw.components[0].2.push(missing);
        assert!(matches!(load_both(&raw).0, SnapshotError::MissingEntity { .. }));
    }
}

#[test]
fn hierarchy_cycles_are_refused() {
    let mut raw = raw();
    raw.generations = vec![1; 4];
    raw.free = vec![];
    raw.entities = vec![0, 1, 2, 3];
    raw.hierarchy.links = vec![(3, 0), (0, 1), (1, 2), (2, 0)];
    let (binary, ron) = load_both(&raw);
    assert!(matches!(binary, SnapshotError::HierarchyCycle { .. }), "{binary}");
    assert!(matches!(ron, SnapshotError::HierarchyCycle { .. }), "{ron}");
    raw.hierarchy.links = vec![(2, 2)];
    assert!(matches!(load_both(&raw).0, SnapshotError::HierarchyCycle { index: 2 }));
}

#[test]
fn inconsistent_allocators_and_versions_are_refused() {
    let mut raw = raw();
    raw.generations[1] = 0;
    assert!(matches!(load_both(&raw).0, SnapshotError::Allocator { .. }));
    let mut raw = self::raw();
    raw.free = vec![0];
    assert!(matches!(load_both(&raw).0, SnapshotError::Allocator { .. }), "a live slot on the free list");
    let mut raw = self::raw();
    raw.free = vec![2, 2];
    assert!(matches!(load_both(&raw).0, SnapshotError::Allocator { .. }));
    let mut raw = self::raw();
    raw.free = vec![];
    let (binary, ron) = load_both(&raw);
    assert!(matches!(binary, SnapshotError::Allocator { .. }), "a free list that lost slot 2: {binary}");
    assert!(matches!(ron, SnapshotError::Allocator { .. }), "{ron}");
    let mut raw = self::raw();
    raw.world = 0;
    assert!(matches!(load_both(&raw).0, SnapshotError::Allocator { .. }), "world tag 0");
    let mut raw = self::raw();
    raw.format = 99;
    let (binary, ron) = load_both(&raw);
    assert!(matches!(binary, SnapshotError::Version { found: 99, expected: FORMAT_VERSION }), "{binary}");
    assert!(matches!(ron, SnapshotError::Version { found: 99, .. }), "{ron}");
    // A world with narrower limits refuses a snapshot that does not fit them.
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("position");
    let mut small = World::with_entity_limits(2, 10);
    let error = registry.load_binary(&mut small, &self::raw().binary()).unwrap_err();
    assert!(matches!(error, SnapshotError::Allocator { slots: 3, .. }), "{error}");
}

#[test]
fn garbage_values_are_errors() {
    let registry = registry();
    for text in ["", "Snapshot(", "[1, 2, 3]", "Snapshot(format: 1)", "Snapshot(format: \"one\")", "()"] {
        assert!(registry.load_ron(&mut World::new(), text).is_err(), "{text}");
    }
    let mut state = 7u64;
    for len in 0..200 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                (state >> 56) as u8
            })
            .collect();
        let _ = registry.load_binary(&mut World::new(), &bytes);
    }
}

// ---------------------------------------------------------------------------------------------
// Property test: random worlds round-trip.

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8, f32),
    Despawn(usize),
    Parent(usize, usize),
    Target(usize, usize),
    Unparent(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u8>(), -1e6f32..1e6).prop_map(|(mask, x)| Op::Spawn(mask, x)),
        1 => any::<usize>().prop_map(Op::Despawn),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Parent(a, b)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Target(a, b)),
        1 => any::<usize>().prop_map(Op::Unparent),
    ]
}

fn build(ops: &[Op]) -> World {
    let mut world = World::new();
    let mut handles: Vec<Entity> = Vec::new();
    let pick = |handles: &[Entity], i: usize| handles[i % handles.len()];
    for op in ops {
        match *op {
            Op::Spawn(mask, x) => {
                let e = world.spawn_empty();
                if mask & 1 != 0 {
                    world.insert(e, Pos { x, y: -x });
                }
                if mask & 2 != 0 {
                    world.insert(e, Vel { x: x * 0.5, y: 1.0 });
                }
                if mask & 4 != 0 {
                    world.insert(e, Name(format!("n{x}")));
                }
                handles.push(e);
            }
            _ if handles.is_empty() => {}
            Op::Despawn(i) => {
                let _ = world.try_despawn(pick(&handles, i));
            }
            Op::Parent(a, b) => {
                let _ = world.set_parent(pick(&handles, a), pick(&handles, b));
            }
            Op::Target(a, b) => {
                let e = pick(&handles, a);
                if world.is_alive(e) {
                    world.insert(e, Target(pick(&handles, b), None));
                }
            }
            Op::Unparent(a) => {
                let _ = world.remove_parent(pick(&handles, a));
            }
        }
    }
    world
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 64 }))]

    #[test]
    fn random_worlds_round_trip(ops in prop::collection::vec(op(), 0..if cfg!(miri) { 12 } else { 80 })) {
        let registry = registry();
        let mut world = build(&ops);
        let bytes = registry.save_binary(&mut world).unwrap();
        let text = registry.save_ron(&mut world).unwrap();
        for from_text in [false, true] {
            let mut copy = World::new();
            if from_text {
                registry.load_ron(&mut copy, &text).unwrap();
            } else {
                registry.load_binary(&mut copy, &bytes).unwrap();
            }
            prop_assert_eq!(digest(&copy), digest(&world));
            copy.assert_hierarchy_invariants();
            let order = |w: &mut World| w.query::<(Entity, &Pos)>().into_iter().map(|(e, _)| e).collect::<Vec<_>>();
            prop_assert_eq!(order(&mut copy), order(&mut world));
            prop_assert_eq!(&registry.save_binary(&mut copy).unwrap(), &bytes);
            prop_assert_eq!(&registry.save_ron(&mut copy).unwrap(), &text);
        }
        // Into a non-empty world: same shape under the map.
        let mut other = World::new();
        other.spawn(Name("resident".into()));
        let map = registry.load_binary(&mut other, &bytes).unwrap();
        other.assert_hierarchy_invariants();
        for saved in world.entities().iter() {
            let now = map.get(saved).unwrap();
            prop_assert_eq!(other.get::<Pos>(now).ok(), world.get::<Pos>(saved).ok());
            let parent = world.parent(saved).map(|p| map.get(p).unwrap());
            prop_assert_eq!(other.parent(now), parent);
            let kids: Vec<Entity> = world.children(saved).map(|c| map.get(c).unwrap()).collect();
            prop_assert_eq!(other.children(now).collect::<Vec<_>>(), kids);
            if let Ok(Target(to, _)) = world.get::<Target>(saved) {
                let mapped = other.get::<Target>(now).unwrap().0;
                match map.get(*to) {
                    Some(expected) => prop_assert_eq!(mapped, expected),
                    None => prop_assert!(!other.is_alive(mapped)),
                }
            }
        }
    }
}

#[test]
fn a_save_flushes_reserved_ids_so_they_are_saved_live_and_never_reused() {
    let registry = registry();
    let mut world = World::new();
    let kept = world.spawn(Pos { x: 1.0, y: 2.0 });
    let gone = world.spawn_empty();
    world.despawn(gone);
    let reserved = [world.reserve_entity(), world.reserve_entity()];
    assert_eq!(reserved[0].index(), gone.index(), "one reuses the freed slot");
    let text = registry.save_ron(&mut world).unwrap();
    assert!(reserved.iter().all(|&e| world.is_alive(e)), "saving flushed them");
    let mut loaded = World::new();
    registry.load_ron(&mut loaded, &text).unwrap();
    assert!(loaded.is_alive(kept) && reserved.iter().all(|&e| loaded.is_alive(e)));
    let next = loaded.spawn_empty();
    assert!(!reserved.contains(&next) && next != kept, "the loaded allocator hands out a new id");

    // Loading into a world with pending reservations flushes them first: it is not pristine.
    let mut busy = World::new();
    let pending = busy.reserve_entity();
    let map = registry.load_ron(&mut busy, &text).unwrap();
    assert!(busy.is_alive(pending));
    assert!(map.iter().all(|(_, e)| e != pending), "loaded entities never take a reserved id");
    assert_eq!(busy.len(), 4);
}

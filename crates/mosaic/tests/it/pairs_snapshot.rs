//! Many-to-many pairs in snapshots (`SnapshotRegistry::register_pair`): round trips in RON and
//! postcard into empty and populated worlds with values, orders and cleanup policies kept, the
//! refusal of unregistered kinds, old and future format versions, and corrupt input as errors.
#![cfg(feature = "serialize")]

use mosaic::hierarchy::{OnDeleteTarget, PairRelation};
use mosaic::serialize::{FORMAT_VERSION, SnapshotError, SnapshotRegistry, seal_ron};
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Likes;
impl PairRelation for Likes {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Owes(u32);
impl PairRelation for Owes {}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct OwnedBy;
impl PairRelation for OwnedBy {
    const ON_DELETE_TARGET: OnDeleteTarget = OnDeleteTarget::DespawnSource;
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct DockedAt;
impl PairRelation for DockedAt {
    const ON_DELETE_TARGET: OnDeleteTarget = OnDeleteTarget::Refuse;
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Friends(u8);
impl PairRelation for Friends {
    const SYMMETRIC: bool = true;
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Inside;
impl PairRelation for Inside {
    const EXCLUSIVE: bool = true;
}

#[derive(Component, Clone, Debug, PartialEq, Hash, Serialize, Deserialize)]
struct Tag(u32);

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry
        .register::<Tag>("tag")
        .register_pair::<Likes>("likes")
        .register_pair::<Owes>("owes")
        .register_pair::<OwnedBy>("owned_by")
        .register_pair::<DockedAt>("docked_at")
        .register_pair::<Friends>("friends")
        .register_pair::<Inside>("inside");
    registry
}

/// A world using every kind, with removals so that orders are not the insertion orders.
/// Entities: `e[i]` carries `Tag(i)`.
fn sample() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let e: Vec<Entity> = (0..10).map(|i| world.spawn(Tag(i))).collect();
    // Set up in an order that is not the registry's name order.
    world.add_pair_with(e[0], e[1], Owes(10));
    world.add_pair_with(e[0], e[2], Owes(20));
    world.add_pair_with(e[3], e[1], Owes(30));
    world.add_pair_with(e[4], e[1], Owes(40));
    world.remove_pair::<Owes>(e[0], e[1]); // e[4] moves into e[0]'s slot under e[1]
    for fan in [e[5], e[6], e[7], e[8]] {
        world.add_pair::<Likes>(fan, e[9]);
    }
    world.add_pair::<Likes>(e[5], e[5]); // a source may be its own target
    world.remove_pair::<Likes>(e[6], e[9]);
    world.add_pair::<OwnedBy>(e[2], e[3]);
    world.add_pair::<OwnedBy>(e[8], e[3]);
    world.add_pair::<DockedAt>(e[6], e[7]);
    world.add_pair_with(e[1], e[2], Friends(7));
    world.add_pair::<Inside>(e[4], e[5]);
    world.add_pair::<Inside>(e[4], e[6]); // replaces (Inside, e[5])
    (world, e)
}

/// Everything a reader can ask about pairs, with entities mapped through `map` to the saved
/// world's handles.
fn describe(world: &World, entities: &[Entity]) -> Vec<String> {
    let mut out = Vec::new();
    out.push(format!("owes {:?}", world.pairs::<Owes>().collect::<Vec<_>>()));
    out.push(format!("likes {:?}", world.pairs::<Likes>().collect::<Vec<_>>()));
    out.push(format!("owned_by {:?}", world.pairs::<OwnedBy>().collect::<Vec<_>>()));
    out.push(format!("docked_at {:?}", world.pairs::<DockedAt>().collect::<Vec<_>>()));
    out.push(format!("friends {:?}", world.pairs::<Friends>().collect::<Vec<_>>()));
    out.push(format!("inside {:?}", world.pairs::<Inside>().collect::<Vec<_>>()));
    for &e in entities {
        out.push(format!(
            "{e}: sources owes {:?} likes {:?} owned_by {:?} friends {:?}; to {:?}",
            world.sources::<Owes>(e),
            world.sources::<Likes>(e),
            world.sources::<OwnedBy>(e),
            world.sources::<Friends>(e),
            world
                .pairs_to(e)
                .map(|(kind, s)| (kind.rsplit("::").next().unwrap().to_owned(), s))
                .collect::<Vec<_>>(),
        ));
    }
    out
}

#[test]
fn ron_round_trip_into_an_empty_world_keeps_pairs_values_and_orders() {
    let registry = registry();
    let (mut world, e) = sample();
    let text = registry.save_ron(&mut world).unwrap();
    assert!(text.contains("owes"), "{text}");
    let mut copy = World::new();
    registry.load_ron(&mut copy, &text).unwrap();
    assert_eq!(describe(&copy, &e), describe(&world, &e));
    assert_eq!(copy.sources::<Owes>(e[1]), [e[4], e[3]], "the swap-removed order is kept");
    assert_eq!(copy.sources::<Likes>(e[9]), [e[5], e[8], e[7]]);
    assert_eq!(copy.pair_value::<Owes>(e[4], e[1]), Some(&Owes(40)));
    assert_eq!(copy.pair_value::<Friends>(e[2], e[1]), Some(&Friends(7)));
    assert_eq!(registry.save_ron(&mut copy).unwrap(), text, "save(load(save(w))) == save(w)");
}

#[test]
fn postcard_round_trip_into_an_empty_world_keeps_pairs_values_and_orders() {
    let registry = registry();
    let (mut world, e) = sample();
    let bytes = registry.save_binary(&mut world).unwrap();
    let mut copy = World::new();
    registry.load_binary(&mut copy, &bytes).unwrap();
    assert_eq!(describe(&copy, &e), describe(&world, &e));
    assert_eq!(copy.pair_value::<Owes>(e[0], e[2]), Some(&Owes(20)));
    assert_eq!(registry.save_binary(&mut copy).unwrap(), bytes);
}

#[cfg(feature = "rollback")]
#[test]
fn a_loaded_world_hashes_and_rolls_back_as_the_saved_one() {
    use mosaic::rollback::{RollbackRegistry, RollbackRing};

    let registry = registry();
    let (mut world, e) = sample();
    let text = registry.save_ron(&mut world).unwrap();
    let mut copy = World::new();
    registry.load_ron(&mut copy, &text).unwrap();
    let hashes = RollbackRegistry::new();
    assert_eq!(hashes.hash(&copy), hashes.hash(&world), "the pairs part (marks included) is the same");

    let mut rollback = RollbackRegistry::new();
    rollback.register_clone::<Tag>("tag");
    let mut ring = RollbackRing::new(rollback, 2);
    ring.save(&mut copy, 1).unwrap();
    copy.add_pair_with(e[7], e[1], Owes(1));
    copy.despawn(e[9]);
    ring.restore(1, &mut copy).unwrap();
    assert_eq!(describe(&copy, &e), describe(&world, &e));
}

#[test]
fn loading_into_a_populated_world_remaps_sources_and_targets() {
    let registry = registry();
    let (mut world, e) = sample();
    for format in ["ron", "postcard"] {
        let mut other = World::new();
        let [x, y] = [(); 2].map(|()| other.spawn(Tag(100)));
        other.add_pair_with(x, y, Owes(99));
        other.add_pair::<Likes>(y, x);
        let map = if format == "ron" {
            let text = registry.save_ron(&mut world).unwrap();
            registry.load_ron(&mut other, &text).unwrap()
        } else {
            let bytes = registry.save_binary(&mut world).unwrap();
            registry.load_binary(&mut other, &bytes).unwrap()
        };
        let m = |old: Entity| map.get(old).unwrap();
        assert_ne!(m(e[1]), e[1], "{format}: a populated world gives new handles");
        // The world's own pairs stay.
        assert_eq!(other.pair_value::<Owes>(x, y), Some(&Owes(99)));
        assert_eq!(other.sources::<Likes>(x), [y]);
        // The loaded ones follow their entities, both ends.
        assert_eq!(other.pair_value::<Owes>(m(e[4]), m(e[1])), Some(&Owes(40)), "{format}");
        assert_eq!(other.sources::<Owes>(m(e[1])), [m(e[4]), m(e[3])], "{format}");
        assert_eq!(other.sources::<Likes>(m(e[9])), [m(e[5]), m(e[8]), m(e[7])], "{format}");
        assert!(other.has_pair::<Likes>(m(e[5]), m(e[5])), "{format}: a self pair");
        assert_eq!(other.targets::<Inside>(m(e[4])).collect::<Vec<_>>(), [m(e[6])]);
        assert_eq!(other.pair_value::<Friends>(m(e[2]), m(e[1])), Some(&Friends(7)));
        assert!(!other.has_pair::<Owes>(e[4], e[1]) || e[4] == m(e[4]), "{format}: no saved handle");
        // Cleanup reaches the remapped pairs.
        other.despawn(m(e[1]));
        assert_eq!(other.pairs::<Owes>().count(), 2, "{format}: (x, y) and (e0, e2) stay");
        assert_eq!(other.pairs::<Friends>().count(), 0, "{format}: both directions go");
    }
}

#[test]
fn cleanup_policies_work_after_a_load() {
    let registry = registry();
    let (mut world, e) = sample();
    let bytes = registry.save_binary(&mut world).unwrap();
    let mut copy = World::new();
    registry.load_binary(&mut copy, &bytes).unwrap();

    // RemovePair: the sources live on, the pairs go, the reverse index follows.
    copy.despawn(e[9]);
    assert!(copy.is_alive(e[5]) && copy.is_alive(e[8]));
    assert_eq!(copy.pairs::<Likes>().map(|(s, t, _)| (s, t)).collect::<Vec<_>>(), [(e[5], e[5])]);
    // Refuse: the saved refusal holds.
    assert_eq!(copy.despawn_refused_by(e[7]).map(|(_, s, t)| (s, t)), Some((e[6], e[7])));
    // DespawnSource: despawning e[3] despawns e[2] and e[8], its owned sources.
    copy.despawn(e[3]);
    assert!(!copy.is_alive(e[2]) && !copy.is_alive(e[8]));
    // e[2] was a Friends target and an Owes target: both gone both ways.
    assert_eq!(copy.pairs::<Friends>().count(), 0);
    assert!(copy.targets::<Owes>(e[0]).next().is_none());
    assert_eq!(copy.sources::<Owes>(e[1]), [e[4]], "e[3]'s Owes pair went with it");
    // Exclusive: adding replaces the loaded target.
    copy.add_pair::<Inside>(e[4], e[7]);
    assert_eq!(copy.targets::<Inside>(e[4]).collect::<Vec<_>>(), [e[7]]);
    assert!(copy.sources::<Inside>(e[6]).is_empty());
    // Symmetric: removing one side of a loaded pair removes the mirror.
    let mut again = World::new();
    registry.load_binary(&mut again, &bytes).unwrap();
    again.remove_pair::<Friends>(e[1], e[2]);
    assert!(!again.has_pair::<Friends>(e[2], e[1]));
}

#[test]
fn unregistered_kinds_are_refused_naming_the_fix() {
    let mut registry = SnapshotRegistry::new();
    registry.register_pair::<Likes>("likes");
    let (mut world, _) = sample();
    let error = registry.save_ron(&mut world).unwrap_err();
    let SnapshotError::UnregisteredPair { relation } = &error else { panic!("{error:?}") };
    let message = error.to_string();
    assert!(message.contains("register_pair::<Owes>("), "{message}");
    assert!(relation.ends_with("Owes"), "the first kind set up without registration: {relation}");
    assert!(registry.save_binary(&mut world).is_err());
}

#[test]
fn a_kind_set_up_with_no_pairs_left_needs_no_registration() {
    let registry = SnapshotRegistry::new();
    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    world.add_pair::<Likes>(a, b);
    world.remove_pair::<Likes>(a, b);
    let text = registry.save_ron(&mut world).unwrap();
    let mut copy = World::new();
    registry.load_ron(&mut copy, &text).unwrap();
    assert_eq!(copy.len(), 2);
}

#[test]
fn unknown_pair_kind_names_are_refused_on_load() {
    let (mut world, _) = sample();
    let text = registry().save_ron(&mut world).unwrap();
    let mut fewer = SnapshotRegistry::new();
    fewer.register::<Tag>("tag").register_pair::<Likes>("likes");
    let mut copy = World::new();
    let error = fewer.load_ron(&mut copy, &text).unwrap_err();
    assert!(matches!(&error, SnapshotError::Unknown { kind: "pair kind", .. }), "{error:?}");
    assert!(error.to_string().contains("register_pair"), "{error}");
    assert_eq!(copy.len(), 0);
}

/// RON snapshot text without its checksum line, to edit (and seal again with `seal_ron`).
fn unsealed(text: String) -> String {
    let (line, rest) = text.split_once('\n').unwrap();
    assert!(line.starts_with("// mosaic snapshot crc32 "), "{line}");
    rest.to_owned()
}

/// The RON of a small world, without its checksum line: `a` owes `b` 5 and `c` 6, under the
/// name `owes`.
fn small() -> (SnapshotRegistry, String) {
    let registry = registry();
    let mut world = World::new();
    let [a, b, c] = [(); 3].map(|()| world.spawn_empty());
    world.add_pair_with(a, b, Owes(5));
    world.add_pair_with(a, c, Owes(6));
    world.add_pair_with(c, b, Owes(7));
    world.add_pair::<Inside>(b, c);
    let text = unsealed(registry.save_ron(&mut world).unwrap());
    (registry, text)
}

/// Loads `text` with its checksum line into a fresh world; the error, and that the world was
/// left untouched.
fn load_error(registry: &SnapshotRegistry, text: &str) -> SnapshotError {
    let mut world = World::new();
    let error = registry.load_ron(&mut world, &seal_ron(text)).unwrap_err();
    assert_eq!(world.len(), 0, "a refused load changes nothing");
    error
}

/// `text` with `from` replaced once by `to` (which must be there).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in {text}");
    text.replacen(from, to, 1)
}

#[test]
fn the_small_snapshot_has_the_expected_shape() {
    let (registry, text) = small();
    let compact: String = text.split_whitespace().collect();
    assert!(
        compact.contains("(\"owes\",[(0,[(1,0,Owes(5)),(2,0,Owes(6))]),(2,[(1,1,Owes(7))]),])"),
        "{compact}"
    );
    assert!(compact.contains("pair_marks:[1,2,]"), "{compact}");
    let mut world = World::new();
    registry.load_ron(&mut world, &seal_ron(&text)).unwrap();
    assert_eq!(world.pairs::<Owes>().count(), 3);
}

/// The small snapshot with its whitespace taken out, edited, loaded.
fn corrupt(from: &str, to: &str) -> SnapshotError {
    let (registry, text) = small();
    let compact: String = text.split_whitespace().collect();
    load_error(&registry, &edit(&compact, from, to))
}

#[test]
fn a_pair_naming_a_missing_source_or_target_is_an_error() {
    let error = corrupt("[(0,[(1,0,Owes(5)),", "[(0,[(7,0,Owes(5)),");
    assert!(
        matches!(&error, SnapshotError::MissingEntity { index: 7, place } if place.contains("owes")),
        "{error:?}"
    );
    let error = corrupt("(2,[(1,1,Owes(7))])", "(9,[(1,1,Owes(7))])");
    assert!(matches!(&error, SnapshotError::MissingEntity { index: 9, .. }), "{error:?}");
}

#[test]
fn a_duplicate_pair_or_source_is_an_error() {
    let error = corrupt("(2,0,Owes(6))", "(1,1,Owes(6))");
    assert!(
        matches!(&error, SnapshotError::Relation { problem, .. } if problem.contains("twice")),
        "{error:?}"
    );
    let error = corrupt("(2,[(1,1,Owes(7))])", "(0,[(1,1,Owes(7))])");
    assert!(matches!(&error, SnapshotError::DuplicateEntity { index: 0, .. }), "{error:?}");
    let (registry, text) = small();
    let compact: String = text.split_whitespace().collect();
    let doubled = edit(&compact, "pair_marks:", "pair_marks:[1],pair_marks:");
    assert!(matches!(load_error(&registry, &doubled), SnapshotError::DecodeRon(_)));
}

#[test]
fn an_exclusive_kind_with_two_targets_is_an_error() {
    let error = corrupt("(\"inside\",[(1,[(2,0,Inside)", "(\"inside\",[(1,[(0,0,Inside),(2,0,Inside)");
    assert!(
        matches!(&error, SnapshotError::Relation { relation, index: 1, problem } if relation == "inside" && problem.contains("exclusive")),
        "{error:?}"
    );
}

#[test]
fn broken_slots_unmarked_targets_and_empty_sources_are_errors() {
    let error = corrupt("(2,[(1,1,Owes(7))])", "(2,[(1,2,Owes(7))])");
    assert!(
        matches!(&error, SnapshotError::Relation { index: 1, problem, .. } if problem.contains("slots")),
        "{error:?}"
    );
    let error = corrupt("pair_marks:[1,2,]", "pair_marks:[2,]");
    assert!(
        matches!(&error, SnapshotError::Relation { index: 1, problem, .. } if problem.contains("marked")),
        "{error:?}"
    );
    let error = corrupt("pair_marks:[1,2,]", "pair_marks:[1,2,2,]");
    assert!(matches!(&error, SnapshotError::DuplicateEntity { index: 2, .. }), "{error:?}");
    let error = corrupt("(2,[(1,1,Owes(7))])", "(2,[])");
    assert!(matches!(&error, SnapshotError::Relation { index: 2, .. }), "{error:?}");
}

#[test]
fn a_symmetric_pair_without_its_mirror_is_an_error() {
    let registry = registry();
    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    world.add_pair_with(a, b, Friends(1));
    let compact: String = unsealed(registry.save_ron(&mut world).unwrap()).split_whitespace().collect();
    let broken = edit(
        &compact,
        "(\"friends\",[(1,[(0,0,Friends(1))]),(0,[(1,0,Friends(1))]),])",
        "(\"friends\",[(0,[(1,0,Friends(1))]),])",
    );
    let error = load_error(&registry, &broken);
    assert!(
        matches!(&error, SnapshotError::Relation { problem, .. } if problem.contains("mirror")),
        "{error:?}"
    );
}

#[test]
fn a_duplicate_kind_and_truncated_bytes_are_errors() {
    let (registry, text) = small();
    let compact: String = text.split_whitespace().collect();
    let twice = edit(&compact, "pairs:[(\"owes\"", "pairs:[(\"owes\",[]),(\"owes\"");
    assert!(matches!(load_error(&registry, &twice), SnapshotError::DuplicateName { kind: "pair kind", .. }));
    let (mut world, _) = sample();
    let bytes = registry.save_binary(&mut world).unwrap();
    for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() - 1] {
        assert!(registry.load_binary(&mut World::new(), &bytes[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn formats_5_and_6_still_load_without_a_checksum_and_a_future_one_is_refused() {
    let registry = registry();
    let mut world = World::new();
    let a = world.spawn(Tag(1));
    let compact: String = unsealed(registry.save_ron(&mut world).unwrap()).split_whitespace().collect();
    let v7 = format!("format:{FORMAT_VERSION},");
    assert_eq!(FORMAT_VERSION, 8);
    // Formats 5 and 6 had no checksum line.
    let v6 = edit(&compact, &v7, "format:6,");
    let v5 = edit(&edit(&compact, &v7, "format:5,"), "pairs:[],pair_marks:[],", "");
    for old in [v5, v6] {
        let mut copy = World::new();
        registry.load_ron(&mut copy, &old).unwrap();
        assert_eq!(copy.get::<Tag>(a), Ok(&Tag(1)));
    }
    // A version 6 snapshot must carry the pairs fields.
    let missing = edit(&edit(&compact, &v7, "format:6,"), "pairs:[],pair_marks:[],", "");
    let error = registry.load_ron(&mut World::new(), &missing).unwrap_err();
    assert!(error.to_string().contains("pairs"), "{error}");
    // A version 7 snapshot must carry its checksum.
    let error = registry.load_ron(&mut World::new(), &compact).unwrap_err();
    assert!(matches!(error, SnapshotError::Checksum { format: "RON", stored: None, .. }), "{error}");
    let v9 = edit(&compact, &v7, "format:9,");
    assert!(matches!(load_error(&registry, &v9), SnapshotError::Version { found: 9, expected: 8 }));
}

#[cfg(feature = "rollback")]
#[test]
fn the_world_hash_covers_values_of_kinds_registered_for_it_only() {
    use mosaic::rollback::RollbackRegistry;

    #[derive(Clone, Hash)]
    struct Debt(u32);
    impl PairRelation for Debt {}

    let mut world = World::new();
    let [a, b] = [(); 2].map(|()| world.spawn_empty());
    world.add_pair_with(a, b, Debt(1));
    let plain = RollbackRegistry::new();
    let mut with_values = RollbackRegistry::new();
    with_values.register_pair::<Debt>("debt");
    assert_eq!(with_values.pair_names().collect::<Vec<_>>(), ["debt"]);
    let (plain_before, before) = (plain.hash(&world), with_values.hash(&world));
    assert_ne!(plain_before, before, "registration adds the values");
    world.add_pair_with(a, b, Debt(2));
    assert_eq!(plain.hash(&world), plain_before, "unregistered: values are left out");
    assert_ne!(with_values.hash(&world), before, "registered: the value counts");
    world.add_pair_with(a, b, Debt(1));
    assert_eq!(with_values.hash(&world), before);
    world.remove_pair::<Debt>(a, b);
    assert_eq!(with_values.hash(&world), plain.hash(&world), "no pairs: nothing written");
}

//! Snapshot checksums (format 7): 1,000 single-bit flips of a binary and of a RON snapshot, each
//! refused (none loads silently with other data); the checksum's own bytes are covered; formats
//! 5 and 6, which carry none, still load.
#![cfg(feature = "serialize")]

use mosaic::serialize::{FORMAT_VERSION, SnapshotError, SnapshotRegistry};
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Label(String);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Clock(u64);

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("position").register::<Label>("label").register_resource::<Clock>("clock");
    registry
}

/// 40 entities, some despawned, a small hierarchy, a resource.
fn world() -> World {
    let mut world = World::new();
    let all: Vec<Entity> = (0..40)
        .map(|i| world.spawn((Pos { x: i as f32, y: 0.5 * i as f32 }, Label(format!("n{i}")))))
        .collect();
    for &e in all.iter().step_by(7) {
        world.despawn(e);
    }
    world.set_parent(all[2], all[1]).unwrap();
    world.set_parent(all[3], all[1]).unwrap();
    world.insert_resource(Clock(99));
    world
}

/// `count` bit positions below `bits`, spread by a fixed linear congruential sequence (the same
/// every run), the first and last bit included.
fn positions(bits: usize, count: usize) -> Vec<usize> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut out = vec![0, bits - 1];
    while out.len() < count {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        out.push((state >> 33) as usize % bits);
    }
    out
}

#[test]
fn a_thousand_flipped_bits_of_a_binary_snapshot_are_each_refused() {
    let registry = registry();
    let bytes = registry.save_binary(&mut world()).unwrap();
    let (mut refused, mut checksum) = (0, 0);
    for bit in positions(bytes.len() * 8, 1000) {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let mut target = World::new();
        match registry.load_binary(&mut target, &flipped) {
            Ok(_) => panic!("bit {bit} of {}: a flipped snapshot loaded", bytes.len() * 8),
            Err(error) => {
                refused += 1;
                checksum += usize::from(matches!(error, SnapshotError::Checksum { format: "binary", .. }));
                assert_eq!(target.entities().slot_count(), 0, "a refused load changes nothing");
            }
        }
    }
    assert_eq!(refused, 1000);
    // A flip in the format byte that makes it 5 or 6 is refused by the decoder instead.
    assert!(checksum >= 990, "{checksum} of 1000 named the checksum");
}

#[test]
fn a_thousand_flipped_bits_of_a_ron_snapshot_are_each_refused() {
    let registry = registry();
    let text = registry.save_ron(&mut world()).unwrap();
    assert!(text.is_ascii());
    // Bits 0 to 6 of each byte: a flip of bit 7 is no longer UTF-8, refused before parsing.
    let (mut refused, mut checksum) = (0, 0);
    for position in positions(text.len() * 7, 1000) {
        let mut flipped = text.clone().into_bytes();
        flipped[position / 7] ^= 1 << (position % 7);
        let flipped = String::from_utf8(flipped).unwrap();
        let mut target = World::new();
        match registry.load_ron(&mut target, &flipped) {
            Ok(_) => panic!("bit {} of byte {}: a flipped snapshot loaded", position % 7, position / 7),
            Err(error) => {
                refused += 1;
                checksum += usize::from(matches!(error, SnapshotError::Checksum { format: "RON", .. }));
                assert_eq!(target.entities().slot_count(), 0, "a refused load changes nothing");
            }
        }
    }
    assert_eq!(refused, 1000);
    assert!(checksum >= 950, "{checksum} of 1000 named the checksum");
}

#[test]
fn the_error_names_the_checksums() {
    let registry = registry();
    let mut bytes = registry.save_binary(&mut world()).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x80;
    let error = registry.load_binary(&mut World::new(), &bytes).unwrap_err();
    assert!(matches!(error, SnapshotError::Checksum { format: "binary", stored: Some(_), .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("the binary snapshot's checksum 0x") && message.contains("corrupt"),
        "{message}"
    );
}

#[test]
fn snapshots_of_formats_5_and_6_without_a_checksum_still_load() {
    assert_eq!(FORMAT_VERSION, 8);
    let registry = registry();
    let mut world = world();
    let bytes = registry.save_binary(&mut world).unwrap();
    let text = registry.save_ron(&mut world).unwrap();
    // Format 6 is format 8 without the checksum and the run-time components: the format byte (a
    // one-byte varint) changed, the last 4 bytes dropped and the empty `dynamic` list (one 0
    // byte) before them.
    assert_eq!(bytes[bytes.len() - 5], 0, "no run-time components");
    let mut v6 = bytes[..bytes.len() - 5].to_vec();
    assert_eq!(v6[0], 8);
    v6[0] = 6;
    let mut from_binary = World::new();
    registry.load_binary(&mut from_binary, &v6).unwrap();
    let v6_text = text.split_once('\n').unwrap().1.replacen("format: 8,", "format: 6,", 1);
    let mut from_text = World::new();
    registry.load_ron(&mut from_text, &v6_text).unwrap();
    for copy in [&mut from_binary, &mut from_text] {
        assert_eq!(copy.len(), world.len());
        assert_eq!(registry.save_binary(copy).unwrap(), bytes, "the same world as the sealed snapshot's");
    }
    // Without the checksum, format 8 is refused.
    let error = registry.load_binary(&mut World::new(), &bytes[..bytes.len() - 4]).unwrap_err();
    assert!(matches!(error, SnapshotError::Checksum { .. }), "{error}");
}

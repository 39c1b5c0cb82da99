//! Feeds arbitrary bytes to the snapshot decoders (binary and, when the bytes are UTF-8, RON),
//! into an empty world and into a populated one. Decoding must only ever return `Ok` or `Err`:
//! never panic, never allocate without bound (libFuzzer's RSS limit catches that), and on `Err`
//! leave the world as it was. Seeded with real snapshots so the fuzzer starts from valid input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mosaic::{Component, Entity, SnapshotRegistry, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Pos(f32, f32);
#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "soa")]
struct Vel {
    x: f32,
    y: f32,
}
#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Name(String);

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Pos>("pos").register::<Vel>("vel").register::<Name>("name");
    registry
}

fn populated() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i as f32, 0.0), Vel { x: 1.0, y: 2.0 }))).collect();
    world.spawn(Name("n".into()));
    world.set_parent(entities[1], entities[0]).unwrap();
    (world, entities)
}

fuzz_target!(|data: &[u8]| {
    let registry = registry();
    // The bytes as they are: the unsealed path (formats 5 and 6, and the checksum refusal).
    let _ = registry.load_binary(&mut World::new(), data);
    // Prefix byte 0: mutate a real snapshot instead of raw bytes, to reach deep states.
    let (bytes, text): (Vec<u8>, Option<String>) = match data.split_first() {
        Some((0, rest)) => {
            let (mut world, _) = populated();
            let mut snapshot = registry.save_binary(&mut world).unwrap();
            // Without the checksum, mutated, then sealed again: a mutation that only broke the
            // checksum would stop at it and never reach the decoder.
            snapshot.truncate(snapshot.len() - 4);
            for (i, &b) in rest.iter().enumerate() {
                let len = snapshot.len();
                if len > 0 {
                    snapshot[(i * 7 + b as usize) % len] ^= b;
                }
            }
            (mosaic::serialize::seal_binary(snapshot), None)
        }
        // Raw bytes are sealed too, so they reach the decoder as format 7 content.
        _ => (
            mosaic::serialize::seal_binary(data.to_vec()),
            std::str::from_utf8(data).ok().map(mosaic::serialize::seal_ron),
        ),
    };
    let mut empty = World::new();
    let _ = registry.load_binary(&mut empty, &bytes);
    let (mut world, _) = populated();
    let before = registry.save_binary(&mut world).unwrap();
    if registry.load_binary(&mut world, &bytes).is_err() {
        assert_eq!(registry.save_binary(&mut world).unwrap(), before, "a failed load changed the world");
    }
    if let Some(text) = text {
        let _ = registry.load_ron(&mut World::new(), &text);
    }
});

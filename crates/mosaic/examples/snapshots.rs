//! Snapshots (feature `serialize`): save a world as RON, load it into an empty world with the same
//! handles, and into a populated one with remapped handles.
//!
//! `cargo run -p mosaic-ecs --example snapshots`

use mosaic::serialize::{MapEntities, SnapshotRegistry};
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Position {
    x: f32,
    y: f32,
}

/// Holds a handle, which must follow its entity when ids are remapped.
#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Follows(Entity);

impl MapEntities for Follows {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.0.map_entities(map);
    }
}

fn main() {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Position>("position").register_mapped::<Follows>("follows");

    let mut world = World::new();
    let leader = world.spawn(Position { x: 1.0, y: 2.0 });
    let follower = world.spawn((Position { x: 0.0, y: 0.0 }, Follows(leader)));
    world.set_parent(follower, leader).expect("both alive");
    let text = registry.save_ron(&mut world).expect("registered types serialize");
    println!("{text}");

    // An empty world takes the saved handles as they are.
    let mut copy = World::new();
    registry.load_ron(&mut copy, &text).expect("a snapshot just saved loads");
    assert_eq!(copy.get::<Follows>(follower).map(|f| f.0), Ok(leader));
    assert_eq!(copy.parent(follower), Some(leader));

    // A populated world gives the loaded entities new ids, and maps the handles inside them.
    let mut busy = World::new();
    busy.spawn_batch((0..5).map(|i| Position { x: i as f32, y: 0.0 }));
    let map = registry.load_ron(&mut busy, &text).expect("loads beside other entities");
    let (new_leader, new_follower) = (map.get(leader).unwrap(), map.get(follower).unwrap());
    assert_eq!(busy.get::<Follows>(new_follower).map(|f| f.0), Ok(new_leader));
    println!("loaded beside 5 entities: {leader} -> {new_leader}, {follower} -> {new_follower}");
}

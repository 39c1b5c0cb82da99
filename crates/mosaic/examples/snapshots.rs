//! Snapshots (feature `serialize`): declare the saved types once in the world's type registry,
//! save a world as RON, load it into an empty world with the same handles, and into a populated
//! one with remapped handles.
//!
//! `cargo run -p mosaic-ecs --example snapshots`

use mosaic::serialize::MapEntities;
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[register(name = "position", serde)]
struct Position {
    x: f32,
    y: f32,
}

/// Holds a handle, which must follow its entity when ids are remapped.
#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[register(name = "follows", map_entities)]
struct Follows(Entity);

impl MapEntities for Follows {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.0.map_entities(map);
    }
}

/// A world that knows how to save and load the example's types (what their derives declare).
fn declared() -> World {
    let mut world = World::new();
    world.register::<Position>();
    world.register::<Follows>();
    world
}

fn main() {
    let mut world = declared();
    let leader = world.spawn(Position { x: 1.0, y: 2.0 });
    let follower = world.spawn((Position { x: 0.0, y: 0.0 }, Follows(leader)));
    world.set_parent(follower, leader).expect("both alive");
    let text = world.save_ron().expect("declared types serialize");
    println!("{text}");

    // An empty world takes the saved handles as they are.
    let mut copy = declared();
    copy.load_ron(&text).expect("a snapshot just saved loads");
    assert_eq!(copy.get::<Follows>(follower).map(|f| f.0), Ok(leader));
    assert_eq!(copy.parent(follower), Some(leader));

    // A populated world gives the loaded entities new ids, and maps the handles inside them.
    let mut busy = declared();
    busy.spawn_batch((0..5).map(|i| Position { x: i as f32, y: 0.0 }));
    let map = busy.load_ron(&text).expect("loads beside other entities");
    let (new_leader, new_follower) = (map.get(leader).unwrap(), map.get(follower).unwrap());
    assert_eq!(busy.get::<Follows>(new_follower).map(|f| f.0), Ok(new_leader));
    println!("loaded beside 5 entities: {leader} -> {new_leader}, {follower} -> {new_follower}");
}

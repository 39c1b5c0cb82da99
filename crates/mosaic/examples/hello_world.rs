//! Hello world: spawn entities, query them, read one back.
//!
//! `cargo run -p mosaic-ecs --example hello_world`

use mosaic::{Component, Entity, World};

#[derive(Component, Debug)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component)]
struct Name(&'static str);

fn main() {
    let mut world = World::new();
    let ship = world.spawn((Name("ship"), Position { x: 0.0, y: 0.0 }, Velocity { x: 1.0, y: 0.5 }));
    world.spawn((Name("rock"), Position { x: 5.0, y: 5.0 }));

    // Move everything that has a velocity, three frames.
    for _ in 0..3 {
        for (position, velocity) in world.query::<(&mut Position, &Velocity)>() {
            position.x += velocity.x;
            position.y += velocity.y;
        }
    }

    for (entity, name, position) in world.query::<(Entity, &Name, &Position)>() {
        println!("{entity} {} at ({}, {})", name.0, position.x, position.y);
    }
    println!("the ship is at {:?}", world.get::<Position>(ship).expect("the ship is alive"));
}

//! Struct-of-arrays storage and owning groups: one attribute puts every field in its own column;
//! a group packs the entities that have all its components, so a query over exactly those walks
//! per-field slices with no lookups.
//!
//! `cargo run -p mosaic-ecs --example soa_groups`

use mosaic::{Component, World};

#[derive(Component, Clone, Copy, Debug)]
#[component(storage = "soa")]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug)]
#[component(storage = "soa")]
struct Velocity {
    x: f32,
    y: f32,
}

fn main() {
    let mut world = World::new();
    let group = world.group::<(Position, Velocity)>();
    world.spawn_batch((0..1000).map(|i| (Position { x: i as f32, y: 0.0 }, Velocity { x: 1.0, y: 2.0 })));
    world.spawn_batch((0..10).map(|i| Position { x: -i as f32, y: 0.0 })); // not in the group
    println!("{} entities in the group", world.group_len(group));

    // Per item: `Position` is handed out as a `PositionMut { x: &mut f32, y: &mut f32 }` view.
    world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| {
        *p.x += *v.x;
        *p.y += *v.y;
    });

    // Per chunk: one slice per field, ready for the compiler to vectorise.
    let mut chunks = 0;
    world.query::<(&mut Position, &Velocity)>().for_each_chunk(|(p, v)| {
        chunks += 1;
        for (x, dx) in p.x.iter_mut().zip(v.x) {
            *x += dx;
        }
    });
    let sum: f32 = world.query::<&Position>().into_iter().map(|p| *p.x).sum();
    println!("{chunks} chunk(s); x sums to {sum}");
}

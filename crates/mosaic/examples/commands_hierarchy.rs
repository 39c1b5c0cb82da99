//! Commands and hierarchies: a system spawns ships with child turrets through `Commands`, using
//! each new entity's handle at once; another despawns a ship with its turrets.
//!
//! `cargo run -p mosaic-ecs --example commands_hierarchy`

use mosaic::{Commands, Component, Entity, Query, World};

#[derive(Component)]
struct Ship(&'static str);

#[derive(Component)]
struct Turret;

#[derive(Component)]
struct Hull(i32);

fn launch(mut commands: Commands) {
    for name in ["Ardent", "Bold"] {
        // `spawn` returns the entity now; it exists once the commands are applied.
        let ship = commands.spawn((Ship(name), Hull(10)));
        for _ in 0..2 {
            let turret = commands.spawn(Turret);
            commands.set_parent(turret, ship);
        }
    }
}

fn sink_damaged(ships: Query<(Entity, &Hull)>, mut commands: Commands) {
    for (ship, hull) in ships {
        if hull.0 <= 0 {
            commands.despawn_recursive(ship); // the ship and its turrets
        }
    }
}

fn main() {
    let mut world = World::new();
    world.run_system(launch);
    for (ship, name) in world.query_ref::<(Entity, &Ship)>() {
        println!("{} has {} turrets", name.0, world.children(ship).count());
    }
    println!("{} entities", world.len());

    // Damage the first ship, then let the system sink it.
    let first = world.query_ref::<(Entity, &Ship)>().into_iter().next().expect("two ships").0;
    world.insert(first, Hull(0));
    let report = world.run_system(sink_damaged);
    println!("despawned {} entities; {} left", report.despawned, world.len());
}

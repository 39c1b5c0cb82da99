//! Hooks and watches: callbacks on a component's add, replace and remove, and on entities
//! entering or leaving a query's set; both removable by id.
//!
//! `cargo run -p mosaic-ecs --example hooks_watches`

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use mosaic::{Component, Without, World};

#[derive(Component)]
struct Health(i32);

#[derive(Component)]
struct Shielded;

#[derive(Component)]
struct Wreck;

fn main() {
    let mut world = World::new();

    // Hooks: any number per component; they read the world and record changes as commands.
    world.on_add::<Health>(|ctx| {
        println!("{} got health {}", ctx.entity, ctx.world.get::<Health>(ctx.entity).unwrap().0)
    });
    let wrecks = world.on_remove::<Health>(|ctx| {
        ctx.commands.spawn(ctx.world, Wreck);
    });

    // A watch: a count of the entities with health and no shield.
    let exposed = Arc::new(AtomicI32::new(0));
    let (enter, leave) = (exposed.clone(), exposed.clone());
    let watch = world.watch::<&Health, Without<Shielded>>(
        move |_| {
            enter.fetch_add(1, Ordering::Relaxed);
        },
        move |_| {
            leave.fetch_sub(1, Ordering::Relaxed);
        },
    );

    let a = world.spawn(Health(10));
    let b = world.spawn(Health(5));
    world.insert(b, Shielded);
    println!("exposed: {}", exposed.load(Ordering::Relaxed));
    world.despawn(a);
    println!("exposed: {}, wrecks: {}", exposed.load(Ordering::Relaxed), world.query::<&Wreck>().count());

    world.remove_hook(wrecks);
    world.remove_watch(watch);
    world.despawn(b);
    println!("after removing them: wrecks: {}", world.query::<&Wreck>().count());
}

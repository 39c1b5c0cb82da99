//! `World::insert` takes one component; a tuple is a bundle, and the error says where bundles go.
use mosaic::{Component, World};

#[derive(Component)]
struct A;
#[derive(Component)]
struct B;

fn main() {
    let mut world = World::new();
    let e = world.spawn_empty();
    world.insert(e, (A, B));
}

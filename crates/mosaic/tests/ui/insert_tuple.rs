//! `World::insert` takes one component; a tuple is a bundle, and the error says where bundles go.
//! (Eight local components sort first in rustc's list of types that are components, so the list
//! it prints does not depend on which library types a build's features bring in.)
use mosaic::{Component, World};

#[derive(Component)]
struct A;
#[derive(Component)]
struct B;
#[derive(Component)]
struct C;
#[derive(Component)]
struct D;
#[derive(Component)]
struct E;
#[derive(Component)]
struct F;
#[derive(Component)]
struct Ga;
#[derive(Component)]
struct Gb;

fn main() {
    let mut world = World::new();
    let e = world.spawn((C, D, E, F, Ga, Gb));
    world.insert(e, (A, B));
}

use mosaic::{Component, World};

#[derive(Component)]
struct Health(i32);

fn main() {
    let mut world = World::new();
    world.spawn(Health(1));
    for health in world.query::<&mut Health>() {
        health.0 -= 1;
        world.spawn(Health(5));
    }
}

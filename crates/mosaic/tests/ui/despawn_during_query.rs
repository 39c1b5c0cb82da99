use mosaic::{Component, Entity, World};

#[derive(Component)]
struct Health(i32);

fn main() {
    let mut world = World::new();
    world.spawn(Health(1));
    let query = world.query::<(Entity, &Health)>();
    for (entity, health) in query.iter() {
        if health.0 <= 0 {
            world.despawn(entity);
        }
    }
}

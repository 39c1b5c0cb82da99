use mosaic::{Component, World};

#[derive(Component)]
struct Health(i32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    let mut query = world.query::<&mut Health>();
    let first = query.get_mut(e).unwrap();
    let second = query.get_mut(e).unwrap();
    first.0 += second.0;
}

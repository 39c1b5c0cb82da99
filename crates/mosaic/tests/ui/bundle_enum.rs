use mosaic::{Bundle, Component};

#[derive(Component)]
struct Health(u32);

#[derive(Bundle)]
enum Spawnable {
    Alive(Health),
    Dead,
}

fn main() {}

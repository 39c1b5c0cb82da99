use mosaic::Component;

#[derive(Component)]
#[component(storage = "columnar")]
struct Position {
    x: f32,
}

#[derive(Component)]
#[component(layout = "soa")]
struct Velocity {
    x: f32,
}

fn main() {}

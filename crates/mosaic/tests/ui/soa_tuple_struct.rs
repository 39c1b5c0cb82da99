use mosaic::Component;

#[derive(Component)]
#[component(storage = "soa")]
struct Position(f32, f32);

fn main() {}

use mosaic::Component;

#[derive(Component)]
#[component(storage = "soa")]
enum Shape {
    Circle { radius: f32 },
    Square { side: f32 },
}

fn main() {}

use mosaic::{Component, Query, Schedule};

#[derive(Component)]
struct Health(u32);

// `u32` is not a system parameter: the error says so and names the function's type.
fn heal(query: Query<&mut Health>, amount: u32) {
    let _ = (query, amount);
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_system(heal);
}

//! Systems and a schedule: plain functions of queries and resources, ordered, run each frame.
//!
//! `cargo run -p mosaic-ecs --example systems`

use mosaic::{Component, Local, Query, Res, ResMut, Schedule, World};

#[derive(Component)]
struct Position(f32);

#[derive(Component)]
struct Velocity(f32);

/// Seconds per frame.
struct Time(f32);

/// Frames counted by `report`.
#[derive(Default)]
struct Frames(u32);

fn movement(mut query: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
    query.for_each(|(position, velocity)| position.0 += velocity.0 * time.0);
}

fn report(query: Query<&Position>, mut frames: ResMut<Frames>, mut last_sum: Local<f32>) {
    frames.0 += 1;
    let sum: f32 = query.into_iter().map(|p| p.0).sum();
    println!("frame {}: positions sum to {sum} (was {})", frames.0, *last_sum);
    *last_sum = sum;
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Time(0.5));
    world.insert_resource(Frames::default());
    world.spawn_batch((0..10).map(|i| (Position(i as f32), Velocity(1.0))));

    let mut schedule = Schedule::new();
    // Order by name: `report` sees this frame's movement.
    schedule.add_system(report).after(movement);
    schedule.add_system(movement);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    println!("{} frames", world.resource::<Frames>().0);
}

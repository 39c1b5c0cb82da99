//! Events: one system sends, another reads each event once.
//!
//! `cargo run -p mosaic-ecs --example events`

use mosaic::{Commands, Component, Entity, EventReader, EventWriter, Query, ResMut, Schedule, World};

#[derive(Component)]
struct Health(i32);

/// Sent when an entity's health reaches zero.
#[derive(Clone, Copy, Debug)]
struct Died(Entity);

#[derive(Default)]
struct Graveyard(Vec<Entity>);

fn damage(mut query: Query<(Entity, &mut Health)>, mut died: EventWriter<Died>, mut commands: Commands) {
    query.for_each(|(entity, health)| {
        health.0 -= 1;
        if health.0 == 0 {
            died.send(Died(entity));
            commands.despawn(entity);
        }
    });
}

fn bury(mut died: EventReader<Died>, mut graveyard: ResMut<Graveyard>) {
    for event in died.read() {
        println!("{} died", event.0);
        graveyard.0.push(event.0);
    }
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Graveyard::default());
    world.spawn_batch((1..=3).map(Health));
    let mut schedule = Schedule::new();
    schedule.add_system(damage);
    schedule.add_system(bury).after(damage);
    for frame in 1..=3 {
        schedule.run(&mut world);
        println!("after frame {frame}: {} alive", world.len());
    }
    assert_eq!(world.resource::<Graveyard>().0.len(), 3);
}

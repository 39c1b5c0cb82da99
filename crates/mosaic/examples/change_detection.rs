//! Change detection: systems that react only to what was added, changed or removed since they
//! last ran, and transforms that recompute only what moved.
//!
//! `cargo run -p mosaic-ecs --example change_detection`

use mosaic::{
    Added, Changed, Component, Entity, FieldChanged, Mut, Query, RemovedComponents, ResMut, Schedule, World,
};

/// Hit points; tracked from registration, so readers see exact answers from the first entity.
#[derive(Component)]
#[component(track_changes)]
struct Health(i32);

/// A struct-of-arrays component: each field is its own column, and a `Mut<Engine>` item records
/// writes field by field, so a reader can ask which field changed.
#[derive(Component)]
#[component(storage = "soa", track_changes)]
struct Engine {
    fuel: f32,
    heat: f32,
}

/// What the reacting systems saw, per frame.
#[derive(Default)]
struct Log(Vec<String>);

fn greet_new(query: Query<Entity, Added<Health>>, mut log: ResMut<Log>) {
    for entity in query {
        log.0.push(format!("{entity} joined"));
    }
}

/// Looks at every health value and clamps the few above the cap. `Mut<Health>` marks a row
/// changed only when written through, so `report_hits` hears about the clamped ones alone (a
/// `&mut Health` term would mark every row it handed out).
fn cap_health(mut query: Query<Mut<Health>>) {
    for mut health in query.iter_mut() {
        if health.0 > 10 {
            health.0 = 10;
        }
    }
}

fn report_hits(query: Query<(Entity, &Health), Changed<Health>>, mut log: ResMut<Log>) {
    for (entity, health) in query {
        log.0.push(format!("{entity} now has {} hp", health.0));
    }
}

fn mourn(removed: RemovedComponents<Health>, mut log: ResMut<Log>) {
    for entity in &removed {
        log.0.push(format!("{entity} lost its health"));
    }
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Log::default());
    let mut schedule = Schedule::new();
    schedule.add_system(greet_new);
    schedule.add_system(cap_health);
    schedule.add_system(report_hits).after(cap_health);
    schedule.add_system(mourn);

    let knight = world.spawn(Health(10));
    let goblin = world.spawn(Health(3));
    for frame in 0..4 {
        match frame {
            1 => world.get_mut::<Health>(goblin).unwrap().0 -= 2, // only the goblin changed
            3 => world.get_mut::<Health>(knight).unwrap().0 = 50, // clamped back to 10
            2 => {
                world.remove::<Health>(goblin);
            }
            _ => {}
        }
        schedule.run(&mut world);
        let log = std::mem::take(&mut world.resource_mut::<Log>().0);
        println!(
            "frame {frame}: {}",
            if log.is_empty() { "nothing new".to_string() } else { log.join("; ") }
        );
    }

    // Per-field marks: burning fuel heats only the engines that run; the cooling system asks
    // only for engines whose `heat` was written.
    world.clear_trackers();
    let running = world.spawn(Engine { fuel: 5.0, heat: 0.0 });
    let idle = world.spawn(Engine { fuel: 5.0, heat: 0.0 });
    world.clear_trackers();
    for (entity, mut engine) in world.query::<(Entity, Mut<Engine>)>() {
        if entity == running {
            *engine.fuel -= 1.0;
            *engine.heat += 3.0;
        } else {
            let _ = *engine.fuel; // a read records nothing
        }
    }
    let hot: Vec<Entity> =
        world.query_filtered::<Entity, FieldChanged<Engine, { Engine::FIELD_HEAT }>>().into_iter().collect();
    println!("engines whose heat changed: {hot:?} (the idle one, {idle}, is not among them)");
}

//! What a bevy or hecs user writes on day two, in Mosaic: derived bundles, templates built from
//! them, a column batch, an enum query, `Single` and `ParamSet` parameters, run conditions on a
//! set, and `try_single`.
//!
//! `cargo run -p mosaic-ecs --example day_two`

use mosaic::schedule::resource_exists;
use mosaic::{
    Bundle, ColumnBatch, Component, ParamSet, Query, QueryData, Schedule, Single, Template, With, World,
};

#[derive(Component, Clone, Debug)]
struct Position(f32, f32);
#[derive(Component, Clone)]
struct Velocity(f32, f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Component, Clone)]
struct Shield(u32);
#[derive(Component, Clone)]
struct Player;

/// Several components that travel together (bevy's `#[derive(Bundle)]`).
#[derive(Bundle, Clone)]
struct Body {
    position: Position,
    velocity: Velocity,
}

/// Whatever takes a hit: the shield if there is one, else the health (hecs' enum queries).
#[derive(QueryData)]
enum Target<'w> {
    Shielded(&'w mut Shield),
    Bare(&'w mut Health),
}

/// The game is running (the schedule's "simulation" set needs it).
struct Running;

fn movement(mut bodies: Query<(&mut Position, &Velocity)>) {
    bodies.for_each(|(p, v)| {
        p.0 += v.0;
        p.1 += v.1;
    });
}

fn rain(mut targets: Query<Target>) {
    targets.for_each(|target| match target {
        Target::Shielded(shield) => shield.0 = shield.0.saturating_sub(1),
        Target::Bare(health) => health.0 = health.0.saturating_sub(1),
    });
}

/// Runs only while exactly one player exists.
fn follow_player(player: Single<&Position, With<Player>>) {
    println!("camera on ({:.1}, {:.1})", player.0, player.1);
}

/// Two queries that both write `Health`, used one at a time.
#[allow(clippy::type_complexity)] // the parameter spells out both queries, as a reader wants
fn heal_player_first(mut set: ParamSet<(Query<&mut Health, With<Player>>, Query<&mut Health>)>) {
    for health in set.p0().iter_mut() {
        health.0 += 2;
    }
    for health in set.p1().iter_mut() {
        health.0 = health.0.min(12);
    }
}

fn main() {
    let mut world = World::new();

    // A template from a bundle, and a heavier one laid over it.
    let drone = Template::from_bundle((
        Body { position: Position(0.0, 0.0), velocity: Velocity(1.0, 0.0) },
        Health(5),
    ));
    let tank = drone.clone().merged(&Template::new().with(Shield(3)).with(Health(10)));
    world.spawn_template_batch(&drone, 3);
    world.spawn_template(&tank);
    world.spawn((Body { position: Position(0.0, 0.0), velocity: Velocity(0.0, 1.0) }, Health(8), Player));

    // Many plain rocks at once, a column per component.
    let rocks = ColumnBatch::new()
        .with((0..100).map(|i| Position(i as f32, 10.0)).collect())
        .and_then(|batch| batch.with(vec![Velocity(0.0, -0.1); 100]))
        .expect("columns of one length");
    let spawned = world.spawn_column_batch(rocks).expect("entity ids left");
    println!("{} rocks", spawned.len());

    let mut schedule = Schedule::new();
    schedule.configure_set("simulation").run_if(resource_exists::<Running>());
    schedule.add_system(movement).in_set("simulation");
    schedule.add_system(rain).in_set("simulation").after(movement);
    schedule.add_system(heal_player_first).after(rain);
    schedule.add_system(follow_player).after(movement);

    schedule.run(&mut world); // not running yet: the simulation set is skipped
    world.insert_resource(Running);
    for _ in 0..3 {
        schedule.run(&mut world);
    }

    let player_health = world.query_filtered::<&Health, With<Player>>().try_single().map(|h| h.0);
    println!("player health: {player_health:?}");
    let shields: Vec<u32> = world.query::<&Shield>().iter().map(|s| s.0).collect();
    println!("tank shield left: {shields:?}");
}

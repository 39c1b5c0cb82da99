//! The per-frame systems and the frame loop.
//!
//! One frame, in order: [`Sim::movement`], [`Sim::lifetimes`], [`Sim::collisions`],
//! [`Sim::spawners`], then the frame's [`CommandBuffer`] is applied. Systems read the world
//! through queries and record every structural change (spawn, despawn) in the buffer, so all of a
//! frame's systems see the same set of entities.

use std::time::Instant;

use mosaic::{ApplyReport, CommandBuffer, Entity, With, World};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::components::{Health, Lifetime, Position, Spawner, Team, Velocity};
use crate::grid::Grid;
use crate::report::{Summary, checksum};
use crate::scene::{Birth, Scene, Template};

/// A running arena: the world, the frame's command buffer, and the buffers reused every frame.
///
/// Deterministic: all randomness comes from one [`Pcg64Mcg`] seeded at creation, and every
/// iteration that affects state runs in query order, which depends only on the sequence of world
/// operations.
#[derive(Debug)]
pub struct Sim {
    world: World,
    commands: CommandBuffer,
    templates: Vec<Template>,
    width: f32,
    height: f32,
    damage: i32,
    grid: Grid,
    rng: Pcg64Mcg,
}

impl Sim {
    /// Spawns `scene`'s initial world with a generator seeded from `seed`.
    pub fn new(scene: &Scene, seed: u64) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut world = World::new();
        scene.spawn_initial(&mut world, &mut rng);
        Self {
            world,
            commands: CommandBuffer::new(),
            templates: scene.templates.clone(),
            width: scene.width,
            height: scene.height,
            damage: scene.damage,
            grid: Grid::new(scene.width, scene.height, scene.collision_radius),
            rng,
        }
    }

    /// The world, for reports and tests.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Runs one frame and returns what applying its structural changes did.
    pub fn step(&mut self) -> ApplyReport {
        self.movement();
        self.lifetimes();
        self.collisions();
        self.spawners();
        self.commands.apply(&mut self.world)
    }

    /// Moves every entity with a [`Position`] and [`Velocity`] by one frame, reflecting it (and
    /// its velocity) at the arena's walls. O(n) in the movers.
    pub fn movement(&mut self) {
        let (width, height) = (self.width, self.height);
        self.world.query::<(&mut Position, &mut Velocity)>().for_each(|(position, velocity)| {
            (position.x, velocity.x) = bounce(position.x + velocity.x, velocity.x, width);
            (position.y, velocity.y) = bounce(position.y + velocity.y, velocity.y, height);
        });
    }

    /// Counts down every [`Lifetime`] and records a despawn for each that reaches 0. O(n) in the
    /// entities with a lifetime.
    pub fn lifetimes(&mut self) {
        let commands = &mut self.commands;
        self.world.query::<(Entity, &mut Lifetime)>().for_each(|(entity, lifetime)| {
            lifetime.0 = lifetime.0.saturating_sub(1);
            if lifetime.0 == 0 {
                commands.despawn(entity);
            }
        });
    }

    /// Damages every entity with a [`Position`], [`Team`] and [`Health`] by `damage` for each
    /// entity of another team within the collision radius, and records a despawn for each whose
    /// health drops to 0 or below. Uses the [`Grid`], so O(n * k) for n such entities and k
    /// neighbours each, not O(n^2).
    pub fn collisions(&mut self) {
        self.grid.clear();
        let grid = &mut self.grid;
        self.world
            .query_filtered::<(Entity, &Position, &Team), With<Health>>()
            .for_each(|(entity, position, team)| grid.push(entity, position.x, position.y, team.0));
        for (entity, hits) in self.grid.count_contacts() {
            if hits == 0 {
                continue;
            }
            let health =
                self.world.get_mut::<Health>(entity).expect("the grid holds only live entities with Health");
            let loss = i32::try_from(hits).unwrap_or(i32::MAX).saturating_mul(self.damage);
            health.0 = health.0.saturating_sub(loss);
            if health.0 <= 0 {
                self.commands.despawn(entity);
            }
        }
    }

    /// Advances every [`Spawner`] and records `count` spawns of its template each time its period
    /// comes round, at the spawner's [`Position`] if it has one. O(n) in the spawners plus the
    /// spawns.
    pub fn spawners(&mut self) {
        let Self { world, commands, templates, width, height, rng, .. } = self;
        let bounds = (*width, *height);
        world.query::<(&mut Spawner, Option<&Position>)>().for_each(|(spawner, position)| {
            spawner.timer += 1;
            if spawner.timer < spawner.every {
                return;
            }
            spawner.timer = 0;
            let template = &templates[spawner.template as usize];
            for _ in 0..spawner.count {
                template.spawn(commands, bounds, position.copied(), Birth::Spawned, rng);
            }
        });
    }
}

/// Reflects a coordinate `value` that moved with speed `speed` at the walls `0` and `limit`;
/// returns the new coordinate, clamped into `0..=limit`, and speed.
#[inline]
fn bounce(value: f32, speed: f32, limit: f32) -> (f32, f32) {
    if value < 0.0 {
        ((-value).min(limit), speed.abs())
    } else if value > limit {
        ((2.0 * limit - value).max(0.0), -speed.abs())
    } else {
        (value, speed)
    }
}

/// Runs `scene` for `frames` frames from `seed`, timing each frame, and summarises the run.
pub fn run(scene: &Scene, seed: u64, frames: u32) -> Summary {
    let mut sim = Sim::new(scene, seed);
    let entities_start = sim.world().len();
    let mut frame_times = Vec::with_capacity(frames as usize);
    let mut total = ApplyReport::default();
    for _ in 0..frames {
        let start = Instant::now();
        let report = sim.step();
        frame_times.push(start.elapsed());
        total.applied += report.applied;
        total.skipped += report.skipped;
        total.spawned += report.spawned;
        total.despawned += report.despawned;
    }
    Summary::new(entities_start, sim.world().len(), frame_times, total, checksum(sim.world()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_scene() -> Scene {
        Scene::bundled().scaled(3_000)
    }

    #[test]
    fn same_seed_same_checksum_other_seed_differs() {
        let scene = small_scene();
        let a = run(&scene, 7, 40);
        let b = run(&scene, 7, 40);
        assert_eq!(a.checksum, b.checksum);
        assert_eq!((a.entities_end, a.spawned, a.despawned), (b.entities_end, b.spawned, b.despawned));
        assert_ne!(run(&scene, 8, 40).checksum, a.checksum);
    }

    #[test]
    fn every_frame_changes_structure_and_population_stays_bounded() {
        let scene = small_scene();
        let mut sim = Sim::new(&scene, 3);
        let start = sim.world().len();
        for frame in 0..150 {
            let report = sim.step();
            assert!(report.spawned > 0 && report.despawned > 0, "frame {frame}: {report:?}");
            let len = sim.world().len();
            assert!(
                (start * 3 / 4..=start * 5 / 4).contains(&len),
                "frame {frame}: {len} entities, started with {start}"
            );
        }
    }

    #[test]
    fn movers_stay_inside_the_arena() {
        let scene = small_scene();
        let mut sim = Sim::new(&scene, 1);
        for _ in 0..50 {
            sim.step();
        }
        let (width, height) = (scene.width, scene.height);
        for position in sim.world.query::<&Position>() {
            assert!((0.0..=width).contains(&position.x), "{position:?}");
            assert!((0.0..=height).contains(&position.y), "{position:?}");
        }
    }

    #[test]
    fn bounce_reflects_at_both_walls() {
        assert_eq!(bounce(-1.0, -2.0, 10.0), (1.0, 2.0));
        assert_eq!(bounce(11.5, 3.0, 10.0), (8.5, -3.0));
        assert_eq!(bounce(5.0, 1.0, 10.0), (5.0, 1.0));
        assert_eq!(bounce(-30.0, -40.0, 10.0), (10.0, 40.0));
    }

    #[test]
    fn enemies_in_range_lose_health_and_die() {
        let scene = Scene::parse(
            r#"Scene(width: 10.0, height: 10.0, collision_radius: 1.0, damage: 3, templates: [])"#,
            "t.ron",
        )
        .unwrap();
        let mut sim = Sim::new(&scene, 0);
        let a = sim.world.spawn((Position { x: 5.0, y: 5.0 }, Team(0), Health(4)));
        let b = sim.world.spawn((Position { x: 5.5, y: 5.0 }, Team(1), Health(10)));
        let friend = sim.world.spawn((Position { x: 5.2, y: 5.0 }, Team(0), Health(5)));
        let far = sim.world.spawn((Position { x: 9.0, y: 9.0 }, Team(1), Health(1)));
        assert_eq!(sim.step().despawned, 0);
        assert_eq!(sim.world.get::<Health>(a), Ok(&Health(1)));
        assert_eq!(sim.world.get::<Health>(b), Ok(&Health(4)), "two enemies in range");
        assert_eq!(sim.world.get::<Health>(friend), Ok(&Health(2)), "no friendly fire");
        assert_eq!(sim.world.get::<Health>(far), Ok(&Health(1)), "out of range");
        assert_eq!(sim.step().despawned, 3);
        assert!(!sim.world.is_alive(a) && !sim.world.is_alive(b) && !sim.world.is_alive(friend));
        assert!(sim.world.is_alive(far));
    }
}

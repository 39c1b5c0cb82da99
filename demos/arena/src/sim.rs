//! The world, its schedule, and the frame loop.
//!
//! [`Sim::new`] spawns the scene, inserts the resources the systems of [`crate::systems`] share,
//! registers the [`Team`] hook, and orders the systems with explicit `after` constraints, so what
//! each system sees does not depend on how the schedule groups them into batches. One frame is one
//! [`Schedule::run`].

use std::time::Instant;

use mosaic::schedule::FrameProfile;
use mosaic::{ExecutorKind, Schedule, World};

use crate::components::{Health, Lifetime, Position, Team, Velocity};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::grid::Grid;
use crate::report::{Summary, TeamReport, checksum};
use crate::scene::Scene;
use crate::systems::{Arena, Reinforcements, Score, collisions, lifetimes, movement, score, spawners};

/// Structural changes one frame made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameChanges {
    /// Entities spawned, in entities.
    pub spawned: u64,
    /// Entities despawned, in entities.
    pub despawned: u64,
}

/// A running arena: the world and the schedule of systems that advances it.
///
/// Deterministic: all randomness comes from one [`Pcg64Mcg`] resource seeded at creation and read
/// only by the spawner system; every iteration that affects state runs in query order, which
/// depends only on the sequence of world operations; and the schedule applies commands in system
/// order, so the executor (one thread or many) does not change the result.
#[derive(Debug)]
pub struct Sim {
    world: World,
    schedule: Schedule,
}

impl Sim {
    /// Spawns `scene`'s initial world with a generator seeded from `seed`, and builds the schedule
    /// with the given executor.
    ///
    /// Entities spawned here are not counted as [`Reinforcements`]: the hook is registered after.
    pub fn new(scene: &Scene, seed: u64, executor: ExecutorKind) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut world = World::new();
        // Movers stay packed at the front of both pools: `movement` walks them as slices.
        world.group::<(Position, Velocity)>();
        scene.spawn_initial(&mut world, &mut rng);
        // Headroom, so the population's ups and downs do not reallocate pools mid-run: memory is
        // sized once and then reused (a warm frame allocates nothing; see tests/steady_state.rs).
        let headroom = world.len() as usize / 2;
        world.reserve(headroom);
        world.reserve_component::<Position>(headroom);
        world.reserve_component::<Velocity>(headroom);
        world.reserve_component::<Health>(headroom);
        world.reserve_component::<Team>(headroom);
        world.reserve_component::<Lifetime>(headroom);
        world.insert_resource(rng);
        world.insert_resource(Arena::new(scene));
        world.insert_resource(Grid::new(scene.width, scene.height, scene.collision_radius));
        world.insert_resource(Score::default());
        world.insert_resource(Reinforcements::default());
        world.on_add::<Team>(|ctx| {
            let team = ctx.world.get::<Team>(ctx.entity).expect("on_add runs after the Team is added");
            ctx.world.resource::<Reinforcements>().record(team.0);
        });

        let mut schedule = Schedule::new();
        schedule.set_executor(executor);
        schedule.add_system(movement);
        schedule.add_system(lifetimes);
        schedule.add_system(collisions).after("movement").after("lifetimes");
        schedule.add_system(spawners).after("collisions");
        schedule.add_system(score).after("collisions");
        schedule.build().expect("the arena's systems form no cycle and name only each other");
        Self { world, schedule }
    }

    /// The world, for reports and tests.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Records each system's run time over the last `frames` frames; see [`Sim::profile`].
    pub fn enable_profiling(&mut self, frames: usize) {
        self.schedule.enable_profiling(frames);
    }

    /// Per-system run times over the profiling window (empty unless enabled).
    pub fn profile(&self) -> FrameProfile {
        self.schedule.profile()
    }

    /// Runs one frame (one pass of the schedule) and returns its structural changes.
    pub fn step(&mut self) -> FrameChanges {
        let _frame = tracing::info_span!("frame", index = self.schedule.frame()).entered();
        self.schedule.run(&mut self.world);
        let changes = self.schedule.last_frame_changes();
        FrameChanges { spawned: changes.spawned as u64, despawned: changes.despawned as u64 }
    }

    /// Per team that lost or gained an entity, in team order: losses from the [`Score`] and
    /// entities joined from the [`Reinforcements`].
    pub fn teams(&self) -> Vec<TeamReport> {
        let score = self.world.resource::<Score>();
        let joined = self.world.resource::<Reinforcements>();
        let mut teams: Vec<u8> = score.losses.keys().copied().chain(joined.teams()).collect();
        teams.sort_unstable();
        teams.dedup();
        teams
            .into_iter()
            .map(|team| TeamReport {
                team,
                losses: score.losses.get(&team).copied().unwrap_or(0),
                reinforcements: joined.get(team),
            })
            .collect()
    }
}

/// Runs `scene` for `frames` frames from `seed` with `executor`, timing and profiling each frame,
/// and summarises the run.
pub fn run(scene: &Scene, seed: u64, frames: u32, executor: ExecutorKind) -> Summary {
    let mut sim = Sim::new(scene, seed, executor);
    sim.enable_profiling(frames as usize);
    let entities_start = sim.world().len();
    let mut frame_times = Vec::with_capacity(frames as usize);
    let mut total = FrameChanges::default();
    for _ in 0..frames {
        let start = Instant::now();
        let changes = sim.step();
        frame_times.push(start.elapsed());
        total.spawned += changes.spawned;
        total.despawned += changes.despawned;
    }
    Summary {
        teams: sim.teams(),
        profile: sim.profile(),
        ..Summary::new(entities_start, sim.world().len(), frame_times, total, checksum(sim.world()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::components::{Health, Position};
    use crate::systems::Killed;
    use mosaic::Events;

    fn small_scene() -> Scene {
        Scene::bundled().scaled(3_000)
    }

    /// A sim whose parallel batches go to the thread pool however little work they hold.
    fn eager_parallel(scene: &Scene, seed: u64) -> Sim {
        let mut sim = Sim::new(scene, seed, ExecutorKind::Parallel);
        sim.schedule.set_parallel_threshold(Duration::ZERO);
        sim
    }

    #[test]
    fn systems_are_ordered_and_batched() {
        let mut sim = Sim::new(&small_scene(), 1, ExecutorKind::Parallel);
        let batches = sim.schedule.batches().unwrap();
        assert_eq!(batches, [vec!["movement", "lifetimes"], vec!["collisions"], vec!["spawners", "score"]]);
    }

    #[test]
    fn same_seed_same_checksum_other_seed_differs() {
        let scene = small_scene();
        let a = run(&scene, 7, 40, ExecutorKind::Parallel);
        let b = run(&scene, 7, 40, ExecutorKind::Parallel);
        assert_eq!(a.checksum, b.checksum);
        assert_eq!((a.entities_end, a.spawned, a.despawned), (b.entities_end, b.spawned, b.despawned));
        assert_eq!(a.teams, b.teams);
        assert_ne!(run(&scene, 8, 40, ExecutorKind::Parallel).checksum, a.checksum);
    }

    #[test]
    fn executors_agree_frame_by_frame() {
        let scene = small_scene();
        let mut single = Sim::new(&scene, 11, ExecutorKind::SingleThreaded);
        let mut parallel = eager_parallel(&scene, 11);
        for frame in 0..60 {
            assert_eq!(single.step(), parallel.step(), "frame {frame}");
            assert_eq!(checksum(single.world()), checksum(parallel.world()), "frame {frame}");
        }
        assert_eq!(single.teams(), parallel.teams());
        let summary = run(&scene, 11, 60, ExecutorKind::SingleThreaded);
        assert_eq!(summary.checksum, checksum(parallel.world()));
    }

    #[test]
    fn every_frame_changes_structure_and_population_stays_bounded() {
        let scene = small_scene();
        let mut sim = Sim::new(&scene, 3, ExecutorKind::Parallel);
        let start = sim.world().len();
        for frame in 0..150 {
            let changes = sim.step();
            assert!(changes.spawned > 0 && changes.despawned > 0, "frame {frame}: {changes:?}");
            let len = sim.world().len();
            assert!(
                (start * 3 / 4..=start * 5 / 4).contains(&len),
                "frame {frame}: {len} entities, started with {start}"
            );
        }
    }

    #[test]
    fn score_and_hook_count_every_fighter_that_falls_or_joins() {
        let scene = small_scene();
        let mut sim = Sim::new(&scene, 5, ExecutorKind::Parallel);
        let fighters = |sim: &Sim| {
            let mut per_team = [0u64; 2];
            for team in sim.world.query_ref::<&Team>() {
                per_team[usize::from(team.0)] += 1;
            }
            per_team
        };
        let before = fighters(&sim);
        for _ in 0..80 {
            sim.step();
        }
        let after = fighters(&sim);
        let teams = sim.teams();
        assert_eq!(teams.iter().map(|t| t.team).collect::<Vec<_>>(), [0, 1]);
        for t in &teams {
            let i = usize::from(t.team);
            assert!(t.losses > 0 && t.reinforcements > 0, "{t:?}");
            // Fighters leave only by dying in combat and join only through the hook's count.
            assert_eq!(before[i] + t.reinforcements - t.losses, after[i], "{t:?}");
        }
        let events = sim.world.resource::<Events<Killed>>();
        assert!(events.is_empty(), "the score read and released every event");
    }

    #[test]
    fn movers_stay_inside_the_arena() {
        let scene = small_scene();
        let mut sim = eager_parallel(&scene, 1);
        for _ in 0..50 {
            sim.step();
        }
        let (width, height) = (scene.width, scene.height);
        for position in sim.world.query::<&Position>() {
            let p = mosaic::View::read(&position);
            assert!((0.0..=width).contains(&p.x), "{p:?}");
            assert!((0.0..=height).contains(&p.y), "{p:?}");
        }
    }

    #[test]
    fn enemies_in_range_lose_health_and_die() {
        let scene = Scene::parse(
            r#"Scene(width: 10.0, height: 10.0, collision_radius: 1.0, damage: 3, templates: [])"#,
            "t.ron",
        )
        .unwrap();
        let mut sim = Sim::new(&scene, 0, ExecutorKind::SingleThreaded);
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
        let teams = sim.teams();
        assert_eq!(
            teams,
            [
                TeamReport { team: 0, losses: 2, reinforcements: 2 },
                TeamReport { team: 1, losses: 1, reinforcements: 2 },
            ]
        );
    }
}

//! The world, its schedule, and the frame loop.
//!
//! [`Sim::new`] spawns the scene, inserts the resources the systems of [`crate::systems`] share,
//! registers the [`Team`] hook, and orders the systems with explicit `after` constraints, so what
//! each system sees does not depend on how the schedule groups them into batches. One frame is one
//! [`Schedule::run`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mosaic::rollback::{RollbackError, RollbackRing};
use mosaic::schedule::FrameProfile;
use mosaic::serialize::SnapshotError;
use mosaic::{ExecutorKind, Schedule, World};
use serde::{Deserialize, Serialize};

use crate::components::{Health, Lifetime, Position, Spawner, Team, Velocity};
use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::grid::Grid;
use crate::report::{FrameTimes, Summary, TeamReport, checksum};
use crate::scene::Scene;
use crate::systems::{
    Arena, EntityCap, Fighters, Reinforcements, Score, collisions, lifetimes, movement, score, sort_fighters,
    spawners,
};

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
    /// Whether the [`EntityCap`] warning was printed (once a run).
    cap_warned: bool,
}

/// Declares, once, every type the arena saves, restores and hashes, in `world`'s type registry:
/// every component (plain data: copied and hashed as bytes by rollback, serde for snapshots; their
/// derives say so), the random generator (saved by snapshots and rollback, hashed by the next two
/// numbers a copy of it would draw), the run's totals ([`Totals`], snapshots only), the score and
/// the reinforcement counts (rollback and the hash only).
///
/// Everything else a frame depends on is rebuilt from the scene ([`Arena`], the [`Grid`], which
/// each frame clears) or is empty between frames (the `Killed` channel, which the score drains
/// every frame, and the systems' command buffers); the systems keep no other state between
/// frames. A snapshot also restores the entity allocator and every pool's row order, so queries
/// visit entities, draw random numbers and recycle ids exactly as the saved run would have.
pub fn declare_types(world: &mut World) {
    world.register::<Position>();
    world.register::<Velocity>();
    world.register::<Health>();
    world.register::<Team>();
    world.register::<Lifetime>();
    world.register::<Spawner>();
    world.register_resource::<Pcg64Mcg>().name("rng").serde().hash_with(|rng, hasher| {
        let mut copy = rng.clone();
        hasher.write_word(copy.next_u64());
        hasher.write_word(copy.next_u64());
    });
    world.register_resource::<Totals>().name("totals").serde();
    world.register_resource::<Score>().name("score").hash();
    world.register_resource::<Reinforcements>().name("reinforcements").hash();
}

impl Sim {
    /// Spawns `scene`'s initial world with a generator seeded from `seed`, and builds the schedule
    /// with the given executor.
    ///
    /// Entities spawned here are not counted as [`Reinforcements`]: the hook is registered after.
    pub fn new(scene: &Scene, seed: u64, executor: ExecutorKind) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut world = World::new();
        declare_types(&mut world);
        Self::groups(&mut world);
        scene.spawn_initial(&mut world, &mut rng);
        world.insert_resource(rng);
        Self::finish(world, scene, Score::default(), Reinforcements::default(), executor)
    }

    /// The owning groups every sim's world has, made before any entity: movers packed at the
    /// front of the position and velocity pools (`movement` walks them as slices), and within
    /// them fighters, first in all four of their pools ([`Fighters`]).
    fn groups(world: &mut World) {
        world.group::<(Position, Velocity)>();
        world.group::<Fighters>();
    }

    /// Adds what every sim has besides its entities and generator: reserved headroom, the
    /// scene's settings, the grid, the score and reinforcement counts, the [`Team`] hook
    /// (registered after the entities exist, so they are not counted), and the schedule.
    fn finish(
        mut world: World,
        scene: &Scene,
        losses: Score,
        reinforcements: Reinforcements,
        executor: ExecutorKind,
    ) -> Self {
        // Headroom, so the population's ups and downs do not reallocate pools mid-run: memory is
        // sized once and then reused (a warm frame allocates nothing; see tests/steady_state.rs).
        let headroom = world.len() as usize / 2;
        world.reserve(headroom);
        world.reserve_component::<Position>(headroom);
        world.reserve_component::<Velocity>(headroom);
        world.reserve_component::<Health>(headroom);
        world.reserve_component::<Team>(headroom);
        world.reserve_component::<Lifetime>(headroom);
        world.insert_resource(Arena::new(scene));
        world.insert_resource(Grid::new(scene.width, scene.height, scene.collision_radius));
        world.insert_resource(losses);
        world.insert_resource(reinforcements);
        let live = world.len();
        world.insert_resource(EntityCap { limit: EntityCap::default_limit(live), live, refused: 0 });
        world.on_add::<Team>(|ctx| {
            let team = ctx.world.get::<Team>(ctx.entity).expect("on_add runs after the Team is added");
            ctx.world.resource::<Reinforcements>().record(team.0);
        });

        let mut schedule = Schedule::new();
        schedule.set_executor(executor);
        schedule.add_system(movement);
        schedule.add_system(lifetimes);
        schedule.add_system(collisions).after(movement).after(lifetimes);
        schedule.add_system(spawners).after(collisions);
        schedule.add_system(score).after(collisions);
        schedule.add_system(sort_fighters).after(spawners).after(score);
        schedule.build().expect("the arena's systems form no cycle and name only each other");
        Self { world, schedule, cap_warned: false }
    }

    /// Sets the [`EntityCap`]: spawners stop spawning when the world holds `limit` live entities
    /// (they spawn again as entities die). Default [`EntityCap::default_limit`] of the entities
    /// at creation (or load). A `limit` below the live count spawns nothing until the world
    /// shrinks under it.
    pub fn set_entity_cap(&mut self, limit: u32) {
        self.world.resource_mut::<EntityCap>().limit = limit;
    }

    /// The [`EntityCap`]: its limit and the spawns it refused.
    pub fn entity_cap(&self) -> EntityCap {
        *self.world.resource::<EntityCap>()
    }

    /// Saves the world, the generator and the totals (see [`declare_types`]) as RON
    /// text if `path` ends in `.ron`, else in postcard's binary form. `scene` is recorded so a
    /// load can check it is given the same one.
    ///
    /// # Errors
    /// [`SnapshotFileError`] if encoding or writing fails.
    pub fn save(&mut self, scene: &Scene, path: &Path) -> Result<(), SnapshotFileError> {
        let totals = Totals::of(self, scene);
        self.world.insert_resource(totals);
        let encoded = if is_ron(path) {
            self.world.save_ron().map(String::into_bytes)
        } else {
            self.world.save_binary()
        };
        self.world.remove_resource::<Totals>();
        let bytes = encoded.map_err(|source| SnapshotFileError::Snapshot { path: path.into(), source })?;
        std::fs::write(path, bytes).map_err(|source| SnapshotFileError::Io { path: path.into(), source })
    }

    /// A sim that continues from the snapshot at `path` (written by [`Sim::save`] for the same
    /// `scene`), with `executor`. Running N frames from it gives the same world as running the
    /// saved run N frames further.
    ///
    /// # Errors
    /// [`SnapshotFileError`] if the file cannot be read, is larger than
    /// [`crate::files::MAX_SNAPSHOT_BYTES`] or is not a valid snapshot (a changed bit included:
    /// the snapshot's checksum), was saved for another scene, or names a template the scene
    /// does not have. Every message names the file.
    pub fn load(scene: &Scene, path: &Path, executor: ExecutorKind) -> Result<Self, SnapshotFileError> {
        let bytes = crate::files::read_capped(path, crate::files::MAX_SNAPSHOT_BYTES, "a snapshot")
            .map_err(|source| SnapshotFileError::Io { path: path.into(), source })?;
        let snapshot = |source| SnapshotFileError::Snapshot { path: path.into(), source };
        let mut world = World::new();
        declare_types(&mut world);
        // The same groups as a fresh sim: their pools keep the saved row order.
        Self::groups(&mut world);
        if is_ron(path) {
            let text =
                String::from_utf8(bytes).map_err(|_| SnapshotFileError::NotText { path: path.into() })?;
            world.load_ron(&text).map_err(snapshot)?;
        } else {
            world.load_binary(&bytes).map_err(snapshot)?;
        }
        let missing = |what| SnapshotFileError::Missing { path: path.into(), what };
        let totals = world.remove_resource::<Totals>().ok_or_else(|| missing("totals"))?;
        if !world.contains_resource::<Pcg64Mcg>() {
            return Err(missing("rng"));
        }
        let expected = scene_fingerprint(scene);
        if totals.scene != expected {
            return Err(SnapshotFileError::OtherScene {
                path: path.into(),
                saved: totals.scene,
                given: expected,
            });
        }
        let reinforcements = Reinforcements::default();
        for &(team, count) in &totals.reinforcements {
            reinforcements.add(team, count);
        }
        let score = Score { losses: totals.losses };
        let sim = Self::finish(world, scene, score, reinforcements, executor);
        crate::validate::world(sim.world())
            .map_err(|source| SnapshotFileError::Invalid { path: path.into(), source })?;
        Ok(sim)
    }

    /// Saves the world's state into `ring` as frame `frame` (see [`RollbackRing::save`]).
    ///
    /// # Errors
    /// As [`RollbackRing::save`].
    pub fn save_frame(&mut self, ring: &mut RollbackRing, frame: u64) -> Result<(), RollbackError> {
        self.world.save_frame(ring, frame)
    }

    /// Puts the world back in the state `ring` saved as frame `frame` (see
    /// [`RollbackRing::restore`]). The schedule keeps no state between frames, so the sim then
    /// continues exactly as it did from that frame.
    ///
    /// # Errors
    /// As [`RollbackRing::restore`].
    pub fn restore_frame(&mut self, ring: &RollbackRing, frame: u64) -> Result<(), RollbackError> {
        self.world.restore_frame(ring, frame)
    }

    /// The world, for reports and tests.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world and the schedule, for a frame loop of its own (the inspector's).
    pub fn parts_mut(&mut self) -> (&mut World, &mut Schedule) {
        (&mut self.world, &mut self.schedule)
    }

    /// Records each system's run time over the last `frames` frames; see [`Sim::profile`].
    pub fn enable_profiling(&mut self, frames: usize) {
        self.schedule.enable_profiling(frames);
    }

    /// Per-system run times over the profiling window (empty unless enabled).
    pub fn profile(&self) -> FrameProfile {
        self.schedule.profile()
    }

    /// Runs one frame (one pass of the schedule) and returns its structural changes. The first
    /// time the [`EntityCap`] refuses a spawn, prints one warning to stderr (`arena: warning: the
    /// world reached its cap of N entities at frame F ...`); the run goes on.
    pub fn step(&mut self) -> FrameChanges {
        let _frame = tracing::info_span!("frame", index = self.schedule.frame()).entered();
        let live = self.world.len();
        self.world.resource_mut::<EntityCap>().live = live;
        self.schedule.run(&mut self.world);
        let cap = self.world.resource::<EntityCap>();
        if cap.refused > 0 && !self.cap_warned {
            self.cap_warned = true;
            crate::say!(
                "arena: warning: the world reached its cap of {} entities at frame {}: spawners and \
                 self-spawning templates spawn only what fits until entities die (raise it with \
                 --max-entities, up to {})",
                cap.limit,
                self.schedule.frame(),
                crate::scene::MAX_ENTITIES
            );
        }
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
    run_sim(Sim::new(scene, seed, executor), frames).0
}

/// Runs `sim` for `frames` frames, timing and profiling each frame; returns the summary and the
/// sim (to save it).
pub fn run_sim(mut sim: Sim, frames: u32) -> (Summary, Sim) {
    // The profile keeps the last 2^16 frames; the frame times all of them, in a histogram of
    // constant size.
    sim.enable_profiling((frames as usize).min(1 << 16));
    let entities_start = sim.world().len();
    let mut frame_times = FrameTimes::new();
    let mut total = FrameChanges::default();
    for _ in 0..frames {
        let start = Instant::now();
        let changes = sim.step();
        frame_times.record(start.elapsed());
        total.spawned += changes.spawned;
        total.despawned += changes.despawned;
    }
    let summary = Summary {
        teams: sim.teams(),
        profile: sim.profile(),
        ..Summary::new(entities_start, sim.world().len(), &frame_times, total, checksum(sim.world()))
    };
    (summary, sim)
}

/// Run totals kept in a snapshot beside the world: the [`Score`] and [`Reinforcements`] counts,
/// and which scene the run was on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// [`scene_fingerprint`] of the run's scene.
    pub scene: String,
    /// Entities killed per team, in entities.
    pub losses: BTreeMap<u8, u64>,
    /// Entities that joined each team, in entities; teams with none are absent.
    pub reinforcements: Vec<(u8, u64)>,
}

impl Totals {
    fn of(sim: &Sim, scene: &Scene) -> Self {
        let joined = sim.world.resource::<Reinforcements>();
        Self {
            scene: scene_fingerprint(scene),
            losses: sim.world.resource::<Score>().losses.clone(),
            reinforcements: joined.teams().map(|team| (team, joined.get(team))).collect(),
        }
    }
}

/// What identifies a scene for snapshots: its file, size, combat settings and template count
/// (`--entities` scaling changes the size, so it is covered).
pub fn scene_fingerprint(scene: &Scene) -> String {
    format!(
        "{} {}x{} radius {} damage {} templates {}",
        scene.file,
        scene.width,
        scene.height,
        scene.collision_radius,
        scene.damage,
        scene.templates.len()
    )
}

/// Whether a snapshot path is for the RON text form.
fn is_ron(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("ron"))
}

/// Why a snapshot file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotFileError {
    /// Reading or writing the file failed.
    #[error("snapshot `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Encoding failed, or the contents are not a valid snapshot.
    #[error("snapshot `{}`: {source}", path.display())]
    Snapshot {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        source: SnapshotError,
    },
    /// A `.ron` snapshot is not UTF-8 text.
    #[error("snapshot `{}` is not UTF-8 text; a `.ron` snapshot must be", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// The snapshot lacks a resource the arena saves.
    #[error("snapshot `{}` has no `{what}` resource; it was not written by `arena --save`", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
        /// The resource's snapshot name.
        what: &'static str,
    },
    /// A value in the snapshot the arena cannot run on (the check scene files and inspector
    /// writes pass too).
    #[error("snapshot `{}`: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The component, field and problem.
        source: crate::validate::Invalid,
    },
    /// The snapshot was saved for another scene than the one given.
    #[error(
        "snapshot `{}` was saved for {saved}, not for {given}; pass the same --scene and --entities as the run that saved it",
        path.display()
    )]
    OtherScene {
        /// The scene recorded in the snapshot.
        path: PathBuf,
        /// What the snapshot says.
        saved: String,
        /// What was given.
        given: String,
    },
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
        assert_eq!(
            batches,
            [
                vec!["movement", "lifetimes"],
                vec!["collisions"],
                vec!["spawners", "score"],
                vec!["sort_fighters"]
            ]
        );
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
    fn a_loaded_sim_continues_frame_by_frame() {
        let scene = small_scene();
        let path = std::env::temp_dir().join(format!("arena-sim-{}-continue.bin", std::process::id()));
        let mut straight = Sim::new(&scene, 21, ExecutorKind::SingleThreaded);
        for _ in 0..30 {
            straight.step();
        }
        straight.save(&scene, &path).unwrap();
        let mut resumed = Sim::load(&scene, &path, ExecutorKind::Parallel).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(checksum(resumed.world()), checksum(straight.world()));
        assert_eq!(resumed.teams(), straight.teams());
        for frame in 0..40 {
            assert_eq!(resumed.step(), straight.step(), "frame {frame}");
            assert_eq!(checksum(resumed.world()), checksum(straight.world()), "frame {frame}");
        }
        assert_eq!(resumed.teams(), straight.teams());
    }

    /// Snapshots holding values the systems cannot run on load as errors naming the component
    /// and field (the check scene files and inspector writes pass), never as a world that
    /// panics or silently differs.
    #[test]
    fn snapshots_with_invalid_values_are_refused_naming_the_field() {
        use crate::components::Spawner;
        let scene = small_scene();
        type Case = (&'static str, &'static str, fn(&mut World));
        let cases: [Case; 4] = [
            ("spawner", "template", |w| {
                w.spawn(Spawner { template: 999, every: 1, count: 1, timer: 0 });
            }),
            ("spawner", "every", |w| {
                w.spawn(Spawner { template: 0, every: 0, count: 1, timer: 0 });
            }),
            ("spawner", "count", |w| {
                w.spawn(Spawner { template: 0, every: 2, count: u32::MAX, timer: 0 });
            }),
            ("position", "x", |w| {
                w.spawn(Position { x: f32::NAN, y: 1.0 });
            }),
        ];
        for (i, (component, field, corrupt)) in cases.into_iter().enumerate() {
            let path = std::env::temp_dir().join(format!("arena-sim-{}-invalid-{i}.bin", std::process::id()));
            let mut sim = Sim::new(&scene, 5, ExecutorKind::SingleThreaded);
            corrupt(&mut sim.world);
            sim.save(&scene, &path).unwrap();
            let loaded = Sim::load(&scene, &path, ExecutorKind::SingleThreaded);
            std::fs::remove_file(&path).ok();
            match loaded {
                Err(SnapshotFileError::Invalid { source, .. }) => {
                    assert_eq!((source.component, source.field), (component, field), "{source}");
                }
                other => panic!("{component}.{field}: loaded as {:?}", other.map(|_| "a sim")),
            }
        }
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

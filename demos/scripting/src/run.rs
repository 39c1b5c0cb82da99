//! [`ScriptedSim`]: the arena with a script's systems run after its Rust systems every frame,
//! straight or with rollback, and the checksum that covers both.
//!
//! Where the script runs: after [`Sim::step`], that is after the whole Rust schedule of the
//! frame (movement, lifetimes, collisions and the deaths they cause, spawners, score, the
//! fighters' sort). The script sees the frame's outcome and its writes are what the next
//! frame's Rust systems see. It runs on the calling thread, its systems in the order the script
//! declared them; the Rust systems run on the rayon pool as the arena's do. Running it as an
//! exclusive system inside the schedule would work too, but a script error then has to be
//! carried out of the schedule through a resource; here `step` returns it.

use std::time::{Duration, Instant};

use arena::report::checksum;
use arena::scene::Scene;
use arena::sim::{FrameChanges, Sim};
use mosaic::ExecutorKind;
use mosaic::rollback::{RollbackError, RollbackRegistry, RollbackRing, hash_words};

use crate::{Script, ScriptError};

/// Why a scripted run stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The script failed (or could not be loaded).
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// Saving or restoring a frame failed.
    #[error("rollback: {0}")]
    Rollback(#[from] RollbackError),
}

/// The checksums of a world: the arena's own, the hash of what the script added, and both
/// combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksums {
    /// [`arena::report::checksum`]: every Rust component of every entity.
    pub arena: u64,
    /// The world hash of an empty [`RollbackRegistry`]: the entity allocator and every
    /// run-time component with a schema (the script's), which the hash covers with no
    /// registration.
    pub script: u64,
    /// Both, hashed together: what the run prints as its checksum.
    pub combined: u64,
}

impl Checksums {
    /// The checksums of `world`.
    pub fn of(world: &mosaic::World) -> Self {
        let arena = checksum(world);
        let script = RollbackRegistry::new().hash(world);
        Self { arena, script, combined: hash_words(0x5c41_7074, [arena, script]) }
    }
}

/// The arena and a script run beside it.
///
/// Where the script runs: after [`Sim::step`], that is after the whole Rust schedule of the
/// frame (movement, lifetimes, collisions and the deaths they cause, spawners, score, the
/// fighters' sort). The script sees the frame's outcome and its writes are what the next
/// frame's Rust systems see. It runs on the calling thread, its systems in the order the script
/// declared them; the Rust systems run on the rayon pool as the arena's do. An exclusive system
/// inside the schedule would work too, but a script error would then have to leave the schedule
/// through a resource; here [`ScriptedSim::step`] returns it.
#[derive(Debug)]
pub struct ScriptedSim {
    sim: Sim,
    script: Script,
}

/// What a run reports.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Frames run (re-simulated ones not counted).
    pub frames: u32,
    /// Live entities at the end.
    pub entities: u32,
    /// Rows of each script component at the end, by name.
    pub rows: Vec<(String, usize)>,
    /// The final checksums.
    pub checksums: Checksums,
    /// Time in the Rust schedule, over the run (re-simulation included).
    pub rust_time: Duration,
    /// Time in the script's systems, over the run (re-simulation included).
    pub script_time: Duration,
}

impl ScriptedSim {
    /// `scene` from `seed` with `executor`, and the script `file` (text `source`) loaded into its
    /// world.
    ///
    /// # Errors
    /// As [`Script::load`].
    pub fn new(
        scene: &Scene,
        seed: u64,
        executor: ExecutorKind,
        file: &str,
        source: &str,
    ) -> Result<Self, ScriptError> {
        let mut sim = Sim::new(scene, seed, executor);
        let script = Script::load(file, source, sim.parts_mut().0)?;
        Ok(Self { sim, script })
    }

    /// The arena.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The script.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// The arena and the script, mutably.
    pub fn parts_mut(&mut self) -> (&mut Sim, &mut Script) {
        (&mut self.sim, &mut self.script)
    }

    /// One frame: the arena's schedule, then the script's systems.
    ///
    /// # Errors
    /// As [`Script::run`]; the arena's part of the frame has run.
    pub fn step(&mut self) -> Result<FrameChanges, ScriptError> {
        let changes = self.sim.step();
        self.script.run(self.sim.parts_mut().0)?;
        Ok(changes)
    }

    /// The frame timed: (time in the arena's schedule, time in the script).
    fn timed_step(&mut self, times: &mut (Duration, Duration)) -> Result<(), ScriptError> {
        let start = Instant::now();
        self.sim.step();
        let middle = Instant::now();
        self.script.run(self.sim.parts_mut().0)?;
        times.0 += middle - start;
        times.1 += middle.elapsed();
        Ok(())
    }

    /// Runs `frames` frames; with `rollback` K > 0, after every frame restores the state of K
    /// frames before and re-simulates to the present (as `arena --rollback K` does, through a
    /// [`RollbackRing`] of the arena's registry, which saves the script's components with no
    /// registration). Re-simulation reproduces the same frames, so the final checksum is a
    /// straight run's.
    ///
    /// # Errors
    /// The first script error, or a rollback save or restore refused.
    pub fn run(mut self, frames: u32, rollback: u32) -> Result<Outcome, RunError> {
        let mut times = (Duration::ZERO, Duration::ZERO);
        let k = u64::from(rollback);
        let mut ring = RollbackRing::new(arena::rollback::rollback_registry(), rollback as usize + 1);
        if k > 0 {
            self.sim.save_frame(&mut ring, 0)?;
        }
        for frame in 0..u64::from(frames) {
            self.timed_step(&mut times)?;
            if k == 0 {
                continue;
            }
            let from = (frame + 1).saturating_sub(k);
            let next_from = (frame + 2).saturating_sub(k);
            self.sim.restore_frame(&ring, from)?;
            for again in from..=frame {
                self.timed_step(&mut times)?;
                if again + 1 == next_from {
                    self.sim.save_frame(&mut ring, again + 1)?;
                }
            }
        }
        let world = self.sim.world();
        let rows = self
            .script
            .components()
            .map(|(name, id)| {
                (
                    name.to_owned(),
                    world.query_builder().with(id).build().and_then(|q| q.count(world)).unwrap_or(0),
                )
            })
            .collect();
        Ok(Outcome {
            frames,
            entities: world.len(),
            rows,
            checksums: Checksums::of(world),
            rust_time: times.0,
            script_time: times.1,
        })
    }
}

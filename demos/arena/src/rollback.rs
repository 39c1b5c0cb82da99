//! Rollback in the arena: every frame, go back K frames and re-simulate to the present, as a
//! rollback-netcode client does when a late input arrives; per-frame hash logs; and a timing mode
//! that measures save, restore and hash against a plain `memcpy` in the same run.
//!
//! The arena has no outside input, so re-simulation reproduces the same frames: the final
//! checksum equals a straight run's, which is what the test checks (`tests/rollback.rs`).

use std::time::{Duration, Instant};

use mosaic::World;
use mosaic::rollback::{HashLog, RollbackRegistry, RollbackRing};

use crate::report::{FrameTimes, Summary, checksum};
use crate::sim::{FrameChanges, Sim};

/// What rollback saves, restores and hashes: the rollback view of the types
/// [`declare_types`](crate::sim::declare_types) declares (every component, the random generator,
/// the score and the reinforcement counts). The grid is cleared every frame and the arena
/// settings never change, so neither is saved.
pub fn rollback_registry() -> RollbackRegistry {
    let mut world = World::new();
    crate::sim::declare_types(&mut world);
    world.types().rollback().clone()
}

/// Runs frame `frame` (taking the world from the state after `frame` frames to the one after
/// `frame + 1`) with rollback `k`: the frame itself, then back to the state after
/// `frame + 1 - k` frames (or the start) and `k` frames again. Saves only the state the next
/// frame restores, so each frame costs `k + 1` frames, one restore and one save. `record` gets
/// each frame run and its changes (a re-simulated frame replaces the earlier run's).
fn advance(
    sim: &mut Sim,
    ring: &mut RollbackRing,
    frame: u64,
    k: u32,
    mut record: impl FnMut(u64, FrameChanges),
) {
    record(frame, sim.step());
    if k == 0 {
        return;
    }
    let from = (frame + 1).saturating_sub(u64::from(k));
    let next_from = (frame + 2).saturating_sub(u64::from(k));
    sim.restore_frame(ring, from).expect("the ring holds the state this frame restores");
    for again in from..=frame {
        record(again, sim.step());
        if again + 1 == next_from {
            sim.save_frame(ring, again + 1).expect("the arena registers every component");
        }
    }
}

/// Runs `sim` for `frames` frames; with `rollback` K > 0, every frame restores the state of K
/// frames before and re-simulates to the present ([`RollbackRing`] of K + 1 frames). When `log`
/// is given, the world hash after each frame is appended (frame numbers from 1: the state after
/// that many frames). Frame times include the rollback work.
///
/// # Panics
/// If saving or restoring fails, which the arena's registry rules out (every component is
/// registered, the group never changes).
pub fn run_rollback(
    mut sim: Sim,
    frames: u32,
    rollback: u32,
    mut log: Option<&mut HashLog>,
) -> (Summary, Sim) {
    sim.enable_profiling((frames as usize).min(1 << 16));
    let entities_start = sim.world().len();
    let registry = rollback_registry();
    let mut ring = RollbackRing::new(rollback_registry(), rollback as usize + 1);
    // The changes of the last K + 1 frames, by frame % (K + 1): a re-simulated frame replaces
    // its earlier run's; a frame older than that is final and summed into `total`. Constant
    // memory whatever `frames` is.
    let slots = rollback as usize + 1;
    let mut recent = vec![FrameChanges::default(); slots];
    let mut total = FrameChanges::default();
    let mut newest: Option<u64> = None;
    let mut frame_times = FrameTimes::new();
    if rollback > 0 {
        sim.save_frame(&mut ring, 0).expect("the arena registers every component");
    }
    for frame in 0..u64::from(frames) {
        let start = Instant::now();
        advance(&mut sim, &mut ring, frame, rollback, |f, c| {
            let slot = &mut recent[(f % slots as u64) as usize];
            if newest.is_none_or(|newest| f > newest) {
                // A new frame: the one K + 1 before it in this slot is final.
                total.spawned += slot.spawned;
                total.despawned += slot.despawned;
                newest = Some(f);
            }
            *slot = c;
        });
        frame_times.record(start.elapsed());
        if let Some(log) = log.as_deref_mut() {
            log.push(frame + 1, registry.hash(sim.world()));
        }
    }
    for c in &recent {
        total.spawned += c.spawned;
        total.despawned += c.despawned;
    }
    let summary = Summary {
        teams: sim.teams(),
        profile: sim.profile(),
        ..Summary::new(entities_start, sim.world().len(), &frame_times, total, checksum(sim.world()))
    };
    (summary, sim)
}

/// Medians of the rollback operations measured side by side in one run, in the same frames.
#[derive(Clone, Debug)]
pub struct RollbackTimings {
    /// Live entities during the measurement (at its start).
    pub entities: u32,
    /// Bytes one save copies (see [`RollbackRing::frame_bytes`]).
    pub bytes: usize,
    /// K of the rollback frame measured.
    pub rollback: u32,
    /// Samples per figure.
    pub samples: usize,
    /// A straight frame (one schedule run).
    pub frame: Duration,
    /// Saving the world into the ring.
    pub save: Duration,
    /// Restoring a saved frame.
    pub restore: Duration,
    /// `memcpy` of `bytes` bytes between two buffers (the physical limit).
    pub memcpy: Duration,
    /// The world hash.
    pub hash: Duration,
    /// A rollback frame: the frame, then restoring K frames back and re-simulating K frames,
    /// saving the one the next frame restores.
    pub rollback_frame: Duration,
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// Measures save, restore, hash and a rollback-K frame against a straight frame and a plain
/// `memcpy` of the same bytes, `samples` times each, interleaved in the same frames so a noisy
/// machine slows all of them alike; returns the medians.
///
/// # Panics
/// If `samples` or `rollback` is 0.
pub fn measure(mut sim: Sim, samples: usize, rollback: u32) -> RollbackTimings {
    assert!(samples > 0 && rollback > 0, "measure at least one sample of a rollback of at least one frame");
    let registry = rollback_registry();
    let mut ring = RollbackRing::new(rollback_registry(), rollback as usize + 1);
    // A ring of its own for the save and restore timed alone, so they never touch the frames
    // the rollback frames restore.
    let mut alone = RollbackRing::new(rollback_registry(), 1);
    let entities = sim.world().len();
    // Warm up: run rollback frames until every buffer has its size.
    let mut frame = 0u64;
    sim.save_frame(&mut ring, 0).expect("registered");
    sim.save_frame(&mut alone, 0).expect("registered");
    for _ in 0..=rollback + 1 {
        advance(&mut sim, &mut ring, frame, rollback, |_, _| {});
        frame += 1;
    }
    let bytes = ring.frame_bytes(frame + 1 - u64::from(rollback)).expect("saved by the last frame");
    let source = vec![1u8; bytes];
    let mut target = vec![0u8; bytes];
    let mut times: [Vec<Duration>; 6] = Default::default();
    for _ in 0..samples {
        let start = Instant::now();
        target.copy_from_slice(std::hint::black_box(&source));
        std::hint::black_box(&mut target);
        times[3].push(start.elapsed());

        let start = Instant::now();
        sim.save_frame(&mut alone, 0).expect("registered");
        times[1].push(start.elapsed());

        let start = Instant::now();
        sim.restore_frame(&alone, 0).expect("just saved");
        times[2].push(start.elapsed());

        let start = Instant::now();
        std::hint::black_box(registry.hash(sim.world()));
        times[4].push(start.elapsed());

        // A straight frame, then the same frame with rollback (which ends in the same state).
        let start = Instant::now();
        sim.step();
        times[0].push(start.elapsed());
        let start = Instant::now();
        advance(&mut sim, &mut ring, frame, rollback, |_, _| {});
        times[5].push(start.elapsed());
        frame += 1;
    }
    let [frame, save, restore, memcpy, hash, rollback_frame] = times.map(median);
    RollbackTimings { entities, bytes, rollback, samples, frame, save, restore, memcpy, hash, rollback_frame }
}

impl std::fmt::Display for RollbackTimings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-12);
        writeln!(
            f,
            "rollback timings: {} entities, {} bytes per save, medians of {} samples",
            self.entities, self.bytes, self.samples
        )?;
        writeln!(f, "  frame            {:8.3} ms", ms(self.frame))?;
        writeln!(f, "  memcpy           {:8.3} ms", ms(self.memcpy))?;
        writeln!(
            f,
            "  save             {:8.3} ms  {:5.2}x memcpy",
            ms(self.save),
            ratio(self.save, self.memcpy)
        )?;
        writeln!(
            f,
            "  restore          {:8.3} ms  {:5.2}x memcpy",
            ms(self.restore),
            ratio(self.restore, self.memcpy)
        )?;
        writeln!(f, "  hash             {:8.3} ms", ms(self.hash))?;
        let budget = self.frame * (self.rollback + 1) + self.restore;
        writeln!(
            f,
            "  rollback {} frame {:8.3} ms  {:5.2}x frame; budget {}x frame + restore = {:.3} ms ({:.2} of it)",
            self.rollback,
            ms(self.rollback_frame),
            ratio(self.rollback_frame, self.frame),
            self.rollback + 1,
            ms(budget),
            ratio(self.rollback_frame, budget)
        )
    }
}

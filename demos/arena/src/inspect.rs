//! `--inspect`: the frame loop with a browser inspector ([`mosaic_inspect`]) attached.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use mosaic::rollback::RollbackRing;
use mosaic_inspect::{InspectError, Inspector, InspectorOptions};

use crate::report::{FrameTimes, Summary, checksum};
use crate::rollback::rollback_registry;
use crate::sim::{FrameChanges, Sim};

/// How the arena is served to the inspector.
#[derive(Clone, Debug)]
pub struct InspectSettings {
    /// Where and how the inspector serves.
    pub options: InspectorOptions,
    /// Frames kept for time travel ([`Inspector::keep_frames`], the arena's
    /// [`rollback_registry`]), in frames; 0 keeps none.
    pub saved_frames: usize,
    /// Frames per second to pace to; 0 runs unpaced.
    pub fps: u32,
    /// The most memory the time-travel ring may take, in bytes ([`ring_frames`]).
    pub memory: usize,
}

/// How many of `asked` frames of `frame_bytes` bytes each a time-travel ring keeps within
/// `memory` bytes, leaving room for the world to double (frames grow with it; the run then
/// caps the world at what the ring holds, [`ring_entity_cap`]): `asked`, or fewer if they would
/// not fit, with a message saying what `asked` would take.
pub fn ring_frames(asked: usize, frame_bytes: usize, memory: usize) -> (usize, Option<String>) {
    let per_frame = frame_bytes.max(1).saturating_mul(2);
    let fit = memory / per_frame;
    if asked <= fit {
        return (asked, None);
    }
    let gb = |bytes: usize| bytes as f64 / 1e9;
    let message = format!(
        "--inspect-frames {asked} would keep {:.1} GB ({asked} frames of {:.1} MB, twice that as the \
         world grows), over --inspect-memory {} MiB; keeping {fit} frames",
        gb(asked.saturating_mul(per_frame)),
        frame_bytes as f64 / 1e6,
        memory >> 20
    );
    (fit, Some(message))
}

/// Runs `sim` for `frames` frames (0: until the process is stopped) with an inspector serving
/// it, paced to `settings.fps` frames per second and published after every frame, keeping the
/// last `settings.saved_frames` frames for time travel (numbered by the sim's frame count). The
/// summary's frame times run from the frame's start to the end of its publish; pause and step from the
/// page (with writes allowed) hold or advance it. `on_start` is given the page's URL once the
/// server listens; after the last frame `on_end` is given the run's summary and the sim (to
/// report and save it), and the last frame stays served until the process is stopped: this
/// function returns only on error.
///
/// # Errors
/// [`InspectError`] if the server cannot start (address taken, or not loopback without
/// `allow_remote`).
///
/// # Panics
/// If the first frame cannot be saved for time travel, which the arena's rollback registry
/// rules out (it names every component the arena uses).
pub fn run_inspected(
    mut sim: Sim,
    frames: u32,
    settings: InspectSettings,
    on_start: impl FnOnce(&str),
    on_end: impl FnOnce(Summary, &mut Sim),
) -> Result<Infallible, InspectError> {
    let mut inspector = Inspector::for_world(settings.options, sim.world())?;
    // Writes pass the check scene files and snapshot loads pass.
    inspector.check_writes(crate::validate::write);
    if settings.saved_frames > 0 {
        // Size the ring from one frame saved now: a request past the memory budget is
        // shortened to fit, and said so, instead of growing until the process aborts.
        let mut probe = RollbackRing::new(rollback_registry(), 1);
        sim.save_frame(&mut probe, 0).expect("the arena's rollback registry names every component");
        let frame_bytes = probe.frame_bytes(0).unwrap_or(0);
        drop(probe);
        let (frames, message) = ring_frames(settings.saved_frames, frame_bytes, settings.memory);
        if let Some(message) = message {
            crate::say!("arena: {message}");
        }
        if frames > 0 {
            // Frames grow with the world: keep the world within what the ring was sized for.
            let live = sim.world().len();
            let cap = ring_entity_cap(settings.memory, frames, frame_bytes, live);
            if cap < sim.entity_cap().limit {
                sim.set_entity_cap(cap);
                crate::say!(
                    "arena: time travel keeps {frames} frames within --inspect-memory {} MiB: the \
                     world may grow to {cap} entities (now {live}); fewer --inspect-frames or more \
                     --inspect-memory allow more",
                    settings.memory >> 20
                );
            }
            let ring = RollbackRing::new(rollback_registry(), frames);
            let (world, schedule) = sim.parts_mut();
            let frame = schedule.frame();
            inspector
                .keep_frames(world, ring, frame)
                .expect("the arena's rollback registry names every component");
        }
    }
    let pace = if settings.fps == 0 { Duration::ZERO } else { Duration::from_secs(1) / settings.fps };
    on_start(&inspector.url());
    sim.enable_profiling(600);
    let entities_start = sim.world().len();
    let mut frame_times = FrameTimes::new();
    let mut total = FrameChanges::default();
    let mut on_end = Some(on_end);
    loop {
        let start = Instant::now();
        let more = frames == 0 || frame_times.len() < u64::from(frames);
        let frame_time = (more && inspector.should_run()).then(|| {
            let changes = sim.step();
            total.spawned += changes.spawned;
            total.despawned += changes.despawned;
            start.elapsed()
        });
        let (world, schedule) = sim.parts_mut();
        inspector.publish(world, Some(schedule), frame_time);
        if frame_time.is_some() {
            // The summary's frame time counts the inspector's share too (saving the frame for
            // time travel, applying writes, copying a view when a client asked); the page's
            // chart shows the schedule's run alone.
            frame_times.record(start.elapsed());
        }
        if !more && let Some(on_end) = on_end.take() {
            let end = sim.world();
            let summary = Summary {
                teams: sim.teams(),
                profile: sim.profile(),
                ..Summary::new(entities_start, end.len(), &frame_times, total, checksum(end))
            };
            on_end(summary, &mut sim);
        }
        let rest = pace.saturating_sub(start.elapsed());
        if !rest.is_zero() {
            std::thread::sleep(rest);
        } else if !more || inspector.paused() {
            // Unpaced, but nothing to run: do not spin.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The most live entities a world may grow to while a ring of `frames` frames stays within
/// `memory` bytes, from one frame of `frame_bytes` bytes saved with `live` entities (a frame's
/// bytes grow about linearly with the entities; the fixed part counts as per-entity, which errs
/// low). At least `live`; `u32::MAX` for an empty ring.
pub fn ring_entity_cap(memory: usize, frames: usize, frame_bytes: usize, live: u32) -> u32 {
    if frames == 0 {
        return u32::MAX;
    }
    let per_entity = (frame_bytes / live.max(1) as usize).max(1);
    let fit = memory / frames.saturating_mul(per_entity);
    u32::try_from(fit).unwrap_or(u32::MAX).max(live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_past_the_budget_is_shortened_and_says_what_it_would_take() {
        assert_eq!(ring_frames(120, 1_000_000, 1 << 30), (120, None));
        let (frames, message) = ring_frames(65_536, 7_000_000, 1 << 30);
        assert_eq!(frames, (1 << 30) / 14_000_000);
        let message = message.unwrap();
        assert!(message.contains("--inspect-frames 65536 would keep 917.5 GB"), "{message}");
        assert!(message.contains("keeping 76 frames"), "{message}");
        assert_eq!(ring_frames(10, 1 << 30, 1 << 20).0, 0, "not even one frame fits");
    }

    #[test]
    fn the_world_may_grow_only_as_far_as_the_ring_holds() {
        // 100,000 entities in 7.5 MB (75 bytes each), 71 frames in 1 GiB: about 201,000.
        let cap = ring_entity_cap(1 << 30, 71, 7_500_000, 100_000);
        assert_eq!(cap, ((1usize << 30) / (71 * 75)) as u32);
        assert!(cap >= 200_000, "room for the world to double: {cap}");
        assert_eq!(ring_entity_cap(1 << 30, 0, 7_500_000, 100_000), u32::MAX);
        assert_eq!(ring_entity_cap(1 << 20, 1000, 7_500_000, 100_000), 100_000, "never below the world");
    }
}

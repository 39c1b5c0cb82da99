//! `--inspect`: the frame loop with a browser inspector ([`mosaic_inspect`]) attached.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use mosaic::rollback::RollbackRing;
use mosaic_inspect::{InspectError, Inspector, InspectorOptions};

use crate::report::{Summary, checksum};
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
    let mut inspector = Inspector::start(settings.options, Sim::snapshot_registry())?;
    // Writes pass the check scene files and snapshot loads pass.
    inspector.check_writes(crate::validate::write);
    if settings.saved_frames > 0 {
        let ring = RollbackRing::new(rollback_registry(), settings.saved_frames);
        let (world, schedule) = sim.parts_mut();
        let frame = schedule.frame();
        inspector
            .keep_frames(world, ring, frame)
            .expect("the arena's rollback registry names every component");
    }
    let pace = if settings.fps == 0 { Duration::ZERO } else { Duration::from_secs(1) / settings.fps };
    on_start(&inspector.url());
    sim.enable_profiling(600);
    let entities_start = sim.world().len();
    let mut frame_times = Vec::new();
    let mut total = FrameChanges::default();
    let mut on_end = Some(on_end);
    loop {
        let start = Instant::now();
        let more = frames == 0 || frame_times.len() < frames as usize;
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
            frame_times.push(start.elapsed());
        }
        if !more && let Some(on_end) = on_end.take() {
            let end = sim.world();
            let summary = Summary {
                teams: sim.teams(),
                profile: sim.profile(),
                ..Summary::new(entities_start, end.len(), frame_times.clone(), total, checksum(end))
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

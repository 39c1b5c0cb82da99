//! `--inspect`: the frame loop with a browser inspector ([`mosaic_inspect`]) attached.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use mosaic_inspect::{InspectError, Inspector, InspectorOptions};

use crate::report::{Summary, checksum};
use crate::sim::{FrameChanges, Sim};

/// The shortest frame while inspected, so a person can watch: 60 frames per second.
const FRAME_PACE: Duration = Duration::from_micros(16_667);

/// Runs `sim` for `frames` frames (0: until the process is stopped) with an inspector serving
/// it, paced to 60 frames per second and published after every frame; pause and step from the
/// page (with writes allowed) hold or advance it. `on_start` is given the page's URL once the
/// server listens; after the last frame `on_end` is given the run's summary and the sim (to
/// report and save it), and the last frame stays served until the process is stopped: this
/// function returns only on error.
///
/// # Errors
/// [`InspectError`] if the server cannot start (address taken, or not loopback without
/// `allow_remote`).
pub fn run_inspected(
    mut sim: Sim,
    frames: u32,
    options: InspectorOptions,
    on_start: impl FnOnce(&str),
    on_end: impl FnOnce(Summary, &mut Sim),
) -> Result<Infallible, InspectError> {
    let mut inspector = Inspector::start(options, Sim::snapshot_registry())?;
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
        frame_times.extend(frame_time);
        let (world, schedule) = sim.parts_mut();
        inspector.publish(world, Some(schedule), frame_time);
        if !more && let Some(on_end) = on_end.take() {
            let end = sim.world();
            let summary = Summary {
                teams: sim.teams(),
                profile: sim.profile(),
                ..Summary::new(entities_start, end.len(), frame_times.clone(), total, checksum(end))
            };
            on_end(summary, &mut sim);
        }
        std::thread::sleep(FRAME_PACE.saturating_sub(start.elapsed()));
    }
}

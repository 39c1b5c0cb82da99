//! GGRS's `SyncTestSession` on the arena: every frame rolls back `check_distance` frames,
//! re-simulates them and compares the world hashes with the first run's.

use std::time::{Duration, Instant};

use arena::sim::Sim;
use ggrs::{Frame, GgrsError, PlayerType, SessionBuilder};
use mosaic::rollback::RollbackRegistry;

use crate::game::{ArenaConfig, GgrsArena, GgrsArenaError, RequestCounts};
use crate::input::Steer;

/// Players in the sync test, both local, each with [`Steer::scripted`] input.
pub const PLAYERS: usize = 2;

/// What a sync test did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncTestReport {
    /// Frames advanced on the session's timeline.
    pub frames: Frame,
    /// Requests fulfilled: `loads` rollbacks, `advances` frames run in all.
    pub counts: RequestCounts,
    /// The world hash after the last frame.
    pub hash: u64,
    /// Wall time of the whole test, inputs and requests included.
    pub elapsed: Duration,
}

/// Runs `sim` for `frames` frames under a GGRS `SyncTestSession` with `check_distance` (2 or
/// more compares hashes; GGRS requires it below the prediction window, which is raised to
/// `check_distance + 1` when the default 8 is too small), two local players giving
/// [`Steer::scripted`] inputs. Costs about `check_distance + 1` frames per frame.
///
/// # Errors
/// - [`SyncTestError::Ggrs`] with `GgrsError::MismatchedChecksum` when a re-simulated frame's hash
///   differs from the first run's: the arena is not deterministic under rollback;
/// - [`SyncTestError::Arena`] if a request could not be fulfilled.
pub fn run_synctest(sim: Sim, frames: Frame, check_distance: usize) -> Result<SyncTestReport, SyncTestError> {
    run_synctest_with(sim, arena::rollback::rollback_registry(), frames, check_distance)
}

/// As [`run_synctest`], saving and hashing what `registry` names.
///
/// # Errors
/// As [`run_synctest`].
pub fn run_synctest_with(
    sim: Sim,
    registry: RollbackRegistry,
    frames: Frame,
    check_distance: usize,
) -> Result<SyncTestReport, SyncTestError> {
    let start = Instant::now();
    let mut builder = SessionBuilder::<ArenaConfig>::new().with_num_players(PLAYERS)?;
    if check_distance >= 8 {
        builder = builder.with_max_prediction_window(check_distance + 1);
    }
    for player in 0..PLAYERS {
        builder = builder.add_player(PlayerType::Local, player)?;
    }
    let mut session = builder.with_check_distance(check_distance).start_synctest_session()?;
    let mut game = GgrsArena::with_registry(sim, registry, session.max_prediction());
    for _ in 0..frames {
        let frame = session.current_frame();
        for player in 0..PLAYERS {
            session.add_local_input(player, Steer::scripted(player, frame))?;
        }
        game.handle_requests(session.advance_frame()?)?;
    }
    Ok(SyncTestReport {
        frames: game.frame(),
        counts: game.counts(),
        hash: game.hash(),
        elapsed: start.elapsed(),
    })
}

/// The inputs a sync test gives at frame `frame`: each player's [`Steer::scripted`] input (a
/// sync test has no input delay). For [`crate::game::straight_run`].
pub fn scripted_inputs(frame: Frame) -> Vec<Steer> {
    (0..PLAYERS).map(|player| Steer::scripted(player, frame)).collect()
}

/// Why a sync test stopped.
#[derive(Debug, thiserror::Error)]
pub enum SyncTestError {
    /// GGRS refused a call or found a mismatch (`GgrsError::MismatchedChecksum` names the
    /// frames).
    #[error("GGRS: {0}")]
    Ggrs(#[from] GgrsError),
    /// A request could not be fulfilled.
    #[error(transparent)]
    Arena(#[from] GgrsArenaError),
}

//! GGRS's requests fulfilled on a Mosaic world: save and load through a
//! [`RollbackRing`], advance through [`Sim::step`].

use std::net::SocketAddr;

use arena::rollback::rollback_registry;
use arena::sim::Sim;
use ggrs::{Frame, GgrsRequest, PredictRepeatLast};
use mosaic::rollback::{RollbackError, RollbackRegistry, RollbackRing};

use crate::input::{self, Steer};

/// The GGRS configuration of the arena game: [`Steer`] inputs (one byte), GGRS predicting a
/// missing input by repeating the player's last one, UDP socket addresses, and as the saved state
/// only the frame number: the state itself is in the [`GgrsArena`]'s ring.
#[derive(Debug)]
pub struct ArenaConfig;

impl ggrs::Config for ArenaConfig {
    type Input = Steer;
    type InputPredictor = PredictRepeatLast;
    /// The frame saved: the key of the ring slot that holds it.
    type State = u64;
    type Address = SocketAddr;
}

/// How many requests of each kind a [`GgrsArena`] has fulfilled, in requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestCounts {
    /// Frames saved.
    pub saves: u64,
    /// Frames loaded: one per rollback.
    pub loads: u64,
    /// Frames advanced, re-simulated ones included.
    pub advances: u64,
}

/// The arena as a GGRS game: a [`Sim`] and the [`RollbackRing`] that GGRS's save and load
/// requests go to.
///
/// The ring has as many slots as GGRS has state cells (`max_prediction + 1`), keyed the same way
/// (frame modulo the count), so every frame GGRS may ask to load is still in the ring. GGRS's
/// cell holds only the frame number and the world hash ([`RollbackRing::hash`], widened to
/// `u128`), which GGRS compares between re-simulations (sync test) and peers (desync detection).
///
/// After a load, the world is exactly the saved frame's: entities, row order, the random
/// generator, the score (see [`rollback_registry`]), so a re-simulated frame with the same inputs
/// gives the same world, and one with corrected inputs gives what the straight run would have.
#[derive(Debug)]
pub struct GgrsArena {
    sim: Sim,
    ring: RollbackRing,
    /// Frames advanced on the current timeline: the frame a save request must name.
    frame: Frame,
    /// `(frame, hash)` of the last save into each ring slot.
    hashes: Vec<Option<(Frame, u64)>>,
    counts: RequestCounts,
    /// Reused for each advance's inputs.
    inputs: Vec<Steer>,
}

impl GgrsArena {
    /// The arena `sim` (at frame 0 of the session) for a GGRS session whose prediction window is
    /// `max_prediction` frames (`session.max_prediction()`), saving what
    /// [`rollback_registry`] names.
    pub fn new(sim: Sim, max_prediction: usize) -> Self {
        Self::with_registry(sim, rollback_registry(), max_prediction)
    }

    /// As [`GgrsArena::new`], saving, restoring and hashing what `registry` names. A registry that
    /// leaves out state the systems read makes re-simulation differ, which a sync test reports.
    pub fn with_registry(sim: Sim, registry: RollbackRegistry, max_prediction: usize) -> Self {
        let slots = max_prediction + 1;
        Self {
            sim,
            ring: RollbackRing::new(registry, slots),
            frame: 0,
            hashes: vec![None; slots],
            counts: RequestCounts::default(),
            inputs: Vec::new(),
        }
    }

    /// Fulfils `requests` in order, as GGRS requires.
    ///
    /// Save: saves the world into the ring under the frame number and records the world hash in
    /// GGRS's cell (O(entities) for the save and the hash). Load: restores the frame the cell
    /// names. Advance: applies each player's [`Steer`] ([`input::apply`]), then runs one frame.
    ///
    /// # Errors
    /// - [`GgrsArenaError::FrameMismatch`] if a save names a frame other than the one the world
    ///   is at, or a cell holds a frame other than the one the load names;
    /// - [`GgrsArenaError::EmptyCell`] if a load's cell holds no state;
    /// - [`GgrsArenaError::Rollback`] if the ring refuses the save or the restore.
    ///
    /// Requests after the failing one are not fulfilled.
    pub fn handle_requests(&mut self, requests: Vec<GgrsRequest<ArenaConfig>>) -> Result<(), GgrsArenaError> {
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    if frame != self.frame || frame < 0 {
                        return Err(GgrsArenaError::FrameMismatch { requested: frame, held: self.frame });
                    }
                    let key = frame.unsigned_abs().into();
                    self.sim.save_frame(&mut self.ring, key)?;
                    let hash = self.ring.hash(self.sim.world());
                    let slot = self.slot(frame);
                    self.hashes[slot] = Some((frame, hash));
                    cell.save(frame, Some(key), Some(u128::from(hash)));
                    self.counts.saves += 1;
                }
                GgrsRequest::LoadGameState { cell, frame } => {
                    let key = cell.load().ok_or(GgrsArenaError::EmptyCell { frame })?;
                    if Frame::try_from(key).ok() != Some(frame) {
                        return Err(GgrsArenaError::FrameMismatch { requested: frame, held: key as Frame });
                    }
                    self.sim.restore_frame(&self.ring, key)?;
                    self.frame = frame;
                    self.counts.loads += 1;
                }
                GgrsRequest::AdvanceFrame { inputs } => {
                    self.inputs.clear();
                    self.inputs.extend(inputs.iter().map(|&(steer, _status)| steer));
                    input::apply(self.sim.parts_mut().0, &self.inputs);
                    self.sim.step();
                    self.frame += 1;
                    self.counts.advances += 1;
                }
            }
        }
        Ok(())
    }

    /// The ring slot of `frame` (also GGRS's cell index).
    fn slot(&self, frame: Frame) -> usize {
        frame.unsigned_abs() as usize % self.hashes.len()
    }

    /// Frames advanced on the current timeline: the state the world holds is the one after this
    /// many frames of the session.
    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// The world hash recorded at the last save of `frame`, if that save is still the latest in
    /// its ring slot (the ring holds `max_prediction + 1` frames). After GGRS has confirmed every
    /// input before `frame`, this is the hash of the straight run's state at `frame`.
    pub fn saved_hash(&self, frame: Frame) -> Option<u64> {
        match self.hashes[self.slot(frame)] {
            Some((saved, hash)) if saved == frame => Some(hash),
            _ => None,
        }
    }

    /// The world hash of the current state (as GGRS's checksums), O(entities).
    pub fn hash(&self) -> u64 {
        self.ring.hash(self.sim.world())
    }

    /// Requests fulfilled so far.
    pub fn counts(&self) -> RequestCounts {
        self.counts
    }

    /// The simulation, for reports (`arena::report::checksum(game.sim().world())`).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }
}

/// Runs `sim` for `frames` frames with no GGRS and no rollback, every frame applying the inputs
/// `inputs(frame)` gives (one per player) before stepping, as a session's advance requests do:
/// the straight run a rollback session must reproduce. Returns the world hash by `registry`
/// after the last frame.
pub fn straight_run(
    mut sim: Sim,
    registry: RollbackRegistry,
    frames: Frame,
    mut inputs: impl FnMut(Frame) -> Vec<Steer>,
) -> u64 {
    for frame in 0..frames {
        input::apply(sim.parts_mut().0, &inputs(frame));
        sim.step();
    }
    registry.hash(sim.world())
}

/// Why a [`GgrsArena`] could not fulfil a GGRS request.
#[derive(Debug, thiserror::Error)]
pub enum GgrsArenaError {
    /// A save named a frame other than the one the world is at, or a load's cell another frame
    /// than the load names: the requests were not fulfilled in the order GGRS gave them.
    #[error(
        "GGRS asked about frame {requested}, but the arena holds frame {held}; fulfil GGRS's requests in order"
    )]
    FrameMismatch {
        /// The frame in the request.
        requested: Frame,
        /// The frame the arena's world (save) or the cell (load) holds.
        held: Frame,
    },
    /// A load request's cell held no saved state.
    #[error("GGRS asked to load frame {frame}, which was never saved")]
    EmptyCell {
        /// The frame in the request.
        frame: Frame,
    },
    /// The ring refused to save or restore.
    #[error(transparent)]
    Rollback(#[from] RollbackError),
}

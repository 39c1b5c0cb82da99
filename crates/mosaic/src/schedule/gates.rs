//! Run conditions on sets (`configure_set(..).run_if(..)`): each set's conditions are evaluated
//! at most once per frame, when the first of its systems comes up, and gate every system in it.

use super::core::Condition;
use crate::world::World;

/// One set's run conditions and this frame's verdict.
pub(crate) struct SetGate {
    /// The set's name.
    pub(crate) set: String,
    pub(crate) conditions: Vec<Condition>,
    /// The frame `verdict` was taken on; `None` before the first.
    frame: Option<u64>,
    verdict: bool,
}

impl SetGate {
    /// A gate with no condition yet.
    pub(crate) fn new(set: String) -> Self {
        Self { set, conditions: Vec::new(), frame: None, verdict: true }
    }

    /// Whether the set's systems run on frame `frame`: every condition, each evaluated once per
    /// frame (the first call of the frame evaluates all of them, without short-circuit, as a
    /// system's own conditions are; later calls reuse the verdict).
    pub(crate) fn holds(&mut self, frame: u64, world: &World) -> bool {
        if self.frame != Some(frame) {
            self.verdict = self.conditions.iter().fold(true, |all, condition| condition(world) & all);
            self.frame = Some(frame);
        }
        self.verdict
    }
}

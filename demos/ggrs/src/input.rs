//! The players' input: player `p` steers the fighters of team `p`.

use arena::components::{Team, Velocity};
use mosaic::World;
use serde::{Deserialize, Serialize};

/// Velocity added per frame of steering to each axis pressed, in arena units per frame.
pub const PUSH: f32 = 0.05;

/// Largest speed steering leaves on an axis, in arena units per frame (the bundled scene's
/// templates start fighters at up to 2).
pub const MAX_SPEED: f32 = 2.0;

/// One player's input for one frame: four direction bits (GGRS sends it as one byte).
///
/// Opposite directions pressed together cancel. The default (nothing pressed) is also what GGRS
/// gives for a disconnected player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Steer(u8);

impl Steer {
    /// Towards smaller x.
    pub const LEFT: u8 = 1;
    /// Towards larger x.
    pub const RIGHT: u8 = 2;
    /// Towards smaller y.
    pub const UP: u8 = 4;
    /// Towards larger y.
    pub const DOWN: u8 = 8;

    /// The input with the given direction bits; bits above the four directions are dropped.
    pub fn new(bits: u8) -> Self {
        Self(bits & 0b1111)
    }

    /// The direction bits, a combination of [`Steer::LEFT`], [`Steer::RIGHT`], [`Steer::UP`]
    /// and [`Steer::DOWN`].
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The velocity change this input makes in one frame, `(dx, dy)` in arena units per frame:
    /// each component is `-PUSH`, 0 or `PUSH`.
    pub fn push(self) -> (f32, f32) {
        let axis = |minus: u8, plus: u8| {
            let pressed = |bit: u8| if self.0 & bit != 0 { 1.0 } else { 0.0 };
            (pressed(plus) - pressed(minus)) * PUSH
        };
        (axis(Self::LEFT, Self::RIGHT), axis(Self::UP, Self::DOWN))
    }

    /// A scripted player: the input player `player` gives at frame `frame`, a new direction
    /// every 16 frames, drawn from a hash of the player and the period. The same on every machine,
    /// so tests and the peers of a session can compute each other's inputs.
    pub fn scripted(player: usize, frame: i32) -> Self {
        let period = u64::from(frame.max(0).unsigned_abs() / 16);
        Self::new((splitmix64(period << 8 | player as u64) >> 60) as u8)
    }
}

/// SplitMix64's finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", 2014): a well-mixed 64-bit hash of `x`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Applies one frame of input: every entity with a [`Velocity`] and a [`Team`] whose index is
/// below `inputs.len()` gets `inputs[team].push()` added, each axis clamped to
/// `[-MAX_SPEED, MAX_SPEED]`. Teams without a player are left alone. O(n) in the entities with
/// both components; nothing when no player presses anything.
///
/// Runs on the world between frames (before [`arena::sim::Sim::step`]), on the calling thread, in
/// query order: deterministic, and part of the frame GGRS re-simulates.
pub fn apply(world: &mut World, inputs: &[Steer]) {
    if inputs.iter().all(|steer| steer.0 == 0) {
        return;
    }
    for (velocity, team) in world.query::<(&mut Velocity, &Team)>() {
        if let Some(steer) = inputs.get(usize::from(team.0)) {
            let (dx, dy) = steer.push();
            velocity.x = (velocity.x + dx).clamp(-MAX_SPEED, MAX_SPEED);
            velocity.y = (velocity.y + dy).clamp(-MAX_SPEED, MAX_SPEED);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_directions_cancel_and_extra_bits_are_dropped() {
        assert_eq!(Steer::new(Steer::LEFT | Steer::RIGHT).push(), (0.0, 0.0));
        assert_eq!(Steer::new(Steer::RIGHT | Steer::UP).push(), (PUSH, -PUSH));
        assert_eq!(Steer::new(0xF0), Steer::default());
    }

    #[test]
    fn scripted_inputs_hold_for_16_frames_and_differ_between_players() {
        assert!((0..16).all(|f| Steer::scripted(0, f) == Steer::scripted(0, 0)));
        let changes =
            (0..64).filter(|&p| Steer::scripted(0, p * 16) != Steer::scripted(0, p * 16 + 16)).count();
        assert!(changes > 32, "{changes} changes in 64 periods");
        let differ = (0..64).filter(|&p| Steer::scripted(0, p * 16) != Steer::scripted(1, p * 16)).count();
        assert!(differ > 32, "players differ in {differ} of 64 periods");
    }

    #[test]
    fn steering_moves_only_the_players_team_and_is_clamped() {
        let mut world = World::new();
        let ours = world.spawn((Velocity { x: 1.99, y: 0.0 }, Team(0)));
        let theirs = world.spawn((Velocity { x: 0.0, y: 0.0 }, Team(1)));
        let nobody = world.spawn((Velocity { x: 0.0, y: 0.0 }, Team(7)));
        apply(&mut world, &[Steer::new(Steer::RIGHT | Steer::DOWN), Steer::default()]);
        assert_eq!(world.get::<Velocity>(ours), Ok(&Velocity { x: MAX_SPEED, y: PUSH }));
        assert_eq!(world.get::<Velocity>(theirs), Ok(&Velocity { x: 0.0, y: 0.0 }));
        assert_eq!(world.get::<Velocity>(nobody), Ok(&Velocity { x: 0.0, y: 0.0 }));
    }
}

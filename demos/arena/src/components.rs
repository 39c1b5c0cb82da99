//! The arena's component types.
//!
//! All are plain `Copy` data with no padding (`NoUninit`, `#[repr(C)]`), so rollback copies and
//! hashes them as raw bytes; each declares once, on its derive (`#[register(...)]`), its stable
//! name and what it supports, which [`crate::sim::declare_types`] applies to a world; the systems in [`crate::systems`] read and write them through
//! queries and change the set of entities through [`mosaic::Commands`].

use mosaic::Component;
use mosaic::rollback::NoUninit;
use serde::{Deserialize, Serialize};

/// Where an entity is, in arena units; `0 <= x <= width`, `0 <= y <= height` after each frame.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[cfg_attr(not(feature = "aos-position"), component(storage = "soa"))]
#[register(name = "position", plain, serde)]
pub struct Position {
    /// Horizontal coordinate, in arena units.
    pub x: f32,
    /// Vertical coordinate, in arena units.
    pub y: f32,
}

/// How far an entity moves per frame, in arena units per frame.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "velocity", plain, serde)]
pub struct Velocity {
    /// Horizontal speed, in arena units per frame.
    pub x: f32,
    /// Vertical speed, in arena units per frame.
    pub y: f32,
}

/// Hit points; the entity is despawned at the end of the frame in which they drop to 0 or below.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "health", plain, serde)]
pub struct Health(pub i32);

/// The side an entity fights for. Entities with a [`Health`] damage those of other teams within
/// the collision radius.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "team", plain, serde)]
pub struct Team(pub u8);

/// Frames left to live; the entity is despawned in the frame this reaches 0.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "lifetime", plain, serde)]
pub struct Lifetime(pub u32);

/// Spawns `count` entities from a scene template every `every` frames, at its own [`Position`]
/// if it has one.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "spawner", plain, serde)]
pub struct Spawner {
    /// Index of the template in the scene's template list (resolved from its name at load time).
    pub template: u32,
    /// Period, in frames; at least 1.
    pub every: u32,
    /// Entities spawned per period.
    pub count: u32,
    /// Frames since the last spawn, in `0..every`.
    pub timer: u32,
}

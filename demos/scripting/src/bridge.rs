//! [`Bridge`]: the arena's Rust components a script may name, each as one field of the row.
//!
//! Scripts define their own components at run time; to touch the arena's typed ones they go
//! through this small, explicit list: `Health` as the field `health` (an `i32`, read and
//! written) and `Team` as `team` (a `u8`, read-only). A system names them like its own
//! components (`system("shield", ["Shield", "Health"])`); they filter the walk and their field
//! is read before each call and, for `health`, written back after the walk when the script set
//! it.

use arena::components::{Health, Team};
use mosaic::dynamic::Scalar;
use mosaic::{ComponentId, Entity, World};

use crate::value::Value;

/// A Rust component of the arena that scripts may read (and, for `Health`, write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bridge {
    /// [`Health`], as the field `health` (`i32`, read and written).
    Health,
    /// [`Team`], as the field `team` (`u8`, read-only).
    Team,
}

impl Bridge {
    /// Every bridged component.
    pub const ALL: [Bridge; 2] = [Bridge::Health, Bridge::Team];

    /// The bridged component a script calls `name`, if any.
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The name scripts use for the component.
    pub fn name(self) -> &'static str {
        match self {
            Self::Health => "Health",
            Self::Team => "Team",
        }
    }

    /// The row field, its type, and whether scripts may write it.
    pub fn field(self) -> (&'static str, Scalar, bool) {
        match self {
            Self::Health => ("health", Scalar::I32, true),
            Self::Team => ("team", Scalar::U8, false),
        }
    }

    /// The component's id in `world`, if it is registered there.
    pub fn id(self, world: &World) -> Option<ComponentId> {
        match self {
            Self::Health => world.components().id::<Health>(),
            Self::Team => world.components().id::<Team>(),
        }
    }

    /// `entity`'s value, or `None` if it has none (the walk requires it, so it has).
    #[inline]
    pub fn read(self, world: &World, entity: Entity) -> Option<Value> {
        match self {
            Self::Health => world.get::<Health>(entity).ok().map(|h| Value::Int(h.0.into())),
            Self::Team => world.get::<Team>(entity).ok().map(|t| Value::Int(t.0.into())),
        }
    }

    /// Writes `value` (checked for the field's type) as `entity`'s component; nothing for a
    /// read-only component or an entity without it.
    pub fn write(self, world: &mut World, entity: Entity, value: Value) {
        if let (Self::Health, Value::Int(v)) = (self, value)
            && let Ok(health) = world.get_mut::<Health>(entity)
        {
            health.0 = i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX });
        }
    }
}

//! Entity ids and their allocator.
//!
//! An [`Entity`] is a generational handle: a 32-bit slot index plus a 24-bit generation and an
//! 8-bit world tag. The
//! [`Entities`] allocator recycles freed slots through a free list and bumps the generation on
//! every free, so a handle kept past its entity's despawn never matches the slot's next occupant.
//! A slot whose generation would wrap is retired instead of reused. The world tag tells a handle
//! of another world from a stale one.

mod allocator;
mod error;
mod id;
mod tag;

pub use allocator::{AliveIter, Entities, ReservedIter};
#[cfg(feature = "rollback")]
pub(crate) use allocator::{EntitiesImage, Slot};
pub use error::EntityError;
pub use id::Entity;

//! Entity ids and their allocator.
//!
//! An [`Entity`] is a generational handle: a 32-bit slot index plus a 32-bit generation. The
//! [`Entities`] allocator recycles freed slots through a free list and bumps the generation on
//! every free, so a handle kept past its entity's despawn never matches the slot's next occupant.
//! A slot whose generation would wrap is retired instead of reused.

mod allocator;
mod error;
mod id;

pub use allocator::{AliveIter, Entities};
pub use error::EntityError;
pub use id::Entity;

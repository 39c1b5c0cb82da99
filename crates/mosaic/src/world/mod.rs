//! The [`World`]: entities, their components, resources, and the command buffer.

mod chunk_commands;
mod command_buffer;
mod component_sets;
mod core;
mod entity_ref;
mod error;
mod group;
mod lazy;
mod observe;
mod removed;
mod resources;
mod sort;
mod spawn;
mod template;
mod ticks;

pub use self::core::World;
pub use chunk_commands::ChunkedCommands;
pub(crate) use command_buffer::OpOutcome;
pub use command_buffer::{ApplyReport, CommandBuffer};
#[cfg(feature = "rollback")]
pub(crate) use component_sets::SetsImage;
pub use entity_ref::{EntityMut, EntityRef};
pub use error::{ComponentError, ResourceError};
pub use group::{GroupError, GroupId};
pub use observe::{Hook, HookContext, HookId, WatchId};
pub use removed::RemovedComponents;
pub(crate) use resources::Resources;
pub use sort::SortError;
pub use template::Template;

//! The [`World`]: entities, their components, resources, and the command buffer.

mod batch;
mod chunk_commands;
mod column_batch;
mod command_buffer;
mod command_runs;
mod component_sets;
mod core;
mod deferred;
mod despawn_run;
mod disabled;
mod dynamic_rows;
mod entity_commands;
mod entity_ref;
mod error;
mod from_world;
mod group;
mod hooks;
mod index;
mod insert_if;
mod lazy;
mod observers;
#[cfg(any(feature = "serialize", feature = "rollback"))]
mod parts;
mod prefetch;
mod reader_ticks;
mod removed;
mod required;
mod resources;
pub(crate) mod row_events;
mod sort;
mod spawn;
mod take;
mod template;
mod ticks;
mod watches;

pub use self::core::World;
pub use chunk_commands::ChunkedCommands;
pub use column_batch::{ColumnBatch, ColumnBatchError};
pub(crate) use command_buffer::OpOutcome;
pub use command_buffer::{ApplyReport, CommandBuffer};
#[cfg(feature = "rollback")]
pub(crate) use component_sets::SetsImage;
pub use disabled::{Disabled, MAX_DISABLING_COMPONENTS};
pub use entity_commands::EntityCommands;
pub use entity_ref::{EntityMut, EntityRef};
pub use error::{ComponentError, IndexError, ResourceError};
pub use from_world::FromWorld;
pub use group::{GroupError, GroupId};
pub(crate) use group::{Groups, OwningGroup};
pub(crate) use hooks::HookKind;
pub use hooks::{Hook, HookContext, HookId};
pub use index::ComponentIndex;
pub(crate) use index::Indexes;
pub(crate) use observers::{Lifecycle, ObserverKey, ObserverRunner, TriggerContext};
#[cfg(feature = "serialize")]
pub(crate) use parts::Parts;
#[cfg(feature = "rollback")]
pub(crate) use reader_ticks::ReaderTicksImage;
pub use removed::RemovedComponents;
pub use required::{RequiredComponents, RequiredComponentsError};
pub(crate) use resources::Resources;
pub use sort::SortError;
pub use template::Template;
pub(crate) use template::{Cloner, Entry as TemplateEntry};
pub use watches::WatchId;

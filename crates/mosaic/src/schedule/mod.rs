//! Systems and the schedule: functions that declare what they access, ordered by constraints and
//! priorities, run in parallel where their accesses do not conflict.
//!
//! - A system is a plain function whose parameters are [`SystemParam`]s ([`Query`](crate::Query),
//!   [`Res`], [`ResMut`], [`Commands`], [`Local`], event readers and writers), or an exclusive
//!   function taking `&mut World`. Its [`Access`] set is computed when it is added.
//! - [`Schedule`] sorts systems topologically by `before`/`after` constraints between systems and
//!   named sets, breaking ties by priority, then insertion order, so the order is the same on
//!   every run and machine. Orders between sets are transitive, through sets that hold no system
//!   too; a cycle (of systems or of sets, with or without systems) and a system in two sets that
//!   are ordered apart are errors at [`Schedule::build`] naming the systems and sets involved.
//! - The systems are then grouped into batches of consecutive systems that neither conflict nor
//!   depend on each other, and batches into segments up to the next sync point (a batch whose
//!   systems have commands, a batch with run conditions, an exclusive system). A segment runs on
//!   rayon as a dependency graph when it is worth a thread hand-off (feature `parallel`; without
//!   it, on the calling thread): a system starts once the systems it conflicts with or is
//!   ordered after have finished. The systems' commands are applied at the end of each batch
//!   that has any, in system order, so every executor and thread count gives the same world.
//! - With the `trace` feature, each system run is a `tracing` span named `system`.
//! - Run conditions (`run_if`) are evaluated at the start of a system's segment (which starts
//!   at its batch), all of them every frame, so a condition that keeps state sees every frame.

mod access;
mod conditions;
mod core;
#[cfg(feature = "parallel")]
mod dag;
mod error;
mod executor;
mod gates;
mod graph;
mod index;
mod oneshot;
mod par_commands;
mod param;
mod param_set;
mod profile;
mod res;
mod segment;
mod single;
mod system;

pub use self::core::{ExecutorKind, FrameEndTasks, Schedule, SetConfig, SystemConfig};
pub use access::{Access, AccessItem, AccessTarget, Conflict};
pub use conditions::{resource_added, resource_changed, resource_exists};
pub use error::ScheduleError;
pub use index::Index;
pub use par_commands::ParCommands;
pub use param::{Commands, Local, ParamConflict, ParamError, SystemParam, SystemParamItem};
pub use param_set::ParamSet;
pub use profile::{FrameProfile, SystemProfile};
pub(crate) use res::require_resource;
pub use res::{Res, ResMut};
pub use single::{Populated, Single};
pub use system::{ExclusiveSystem, FunctionSystem, IntoLabel, IntoSystem, System, SystemParamFunction};
pub(crate) use system::{pretty_type_name, short_name};

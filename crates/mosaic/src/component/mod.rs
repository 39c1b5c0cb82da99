//! Component types: the [`Component`] trait, dense [`ComponentId`]s, the registry that owns one
//! pool per type, and [`Bundle`]s (tuples of components inserted together).

mod bundle;
mod registry;
mod scalar_value;
pub(crate) mod schema;
mod view;

pub use crate::storage::Stored;
pub use crate::world::{RequiredComponents, RequiredComponentsError};
pub use bundle::{BatchSink, Bundle, BundleSink, BundleSource, CloneSink, TemplateBundle};
pub use registry::{AosComponent, Component, ComponentId, Components, DynamicInfo, MutableComponent};
pub use scalar_value::ScalarValue;
pub use view::{View, ViewMut};

//! [`ComponentDescriptor`]: what registering a component at run time takes.

use std::alloc::Layout;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashSet;

use super::DynamicError;
use crate::component::schema::{MAX_SCHEMA_SIZE, Schema};

/// The longest component name, in bytes.
pub const MAX_COMPONENT_NAME: usize = 256;

/// How a run-time component's values are described.
#[derive(Debug, Clone)]
pub(super) enum Storage {
    /// Plain bytes laid out by a schema: safe field access.
    Schema(Arc<Schema>),
    /// A layout and a drop function given by the caller of an `unsafe` constructor.
    Raw { layout: Layout, drop: Option<unsafe fn(*mut u8)> },
}

/// A component type defined at run time: its name, how its values are laid out, and whether
/// its changes are tracked. Registered with
/// [`World::register_dynamic`](crate::World::register_dynamic); bevy's `ComponentDescriptor`
/// and flecs' `ecs_component_init` are the models.
///
/// # Examples
/// ```
/// use mosaic::dynamic::{ComponentDescriptor, Field, Scalar, Schema};
///
/// let shield = ComponentDescriptor::new(
///     "Shield",
///     Schema::new(vec![Field::new("absorb", Scalar::F32), Field::new("charges", Scalar::U8)]).unwrap(),
/// )
/// .with_change_tracking();
/// assert_eq!(shield.name(), "Shield");
/// assert_eq!(shield.layout().size(), 8);
/// ```
#[derive(Debug, Clone)]
pub struct ComponentDescriptor {
    pub(super) name: String,
    pub(super) storage: Storage,
    pub(super) track_changes: bool,
}

impl ComponentDescriptor {
    /// A component named `name` whose values are laid out by `schema` (plain bytes: no drop,
    /// every field reachable through the safe API). The name is checked at registration.
    pub fn new(name: impl Into<String>, schema: Schema) -> Self {
        Self { name: name.into(), storage: Storage::Schema(Arc::new(schema)), track_changes: false }
    }

    /// A component named `name` whose values have `layout` and are dropped with `drop` (`None`:
    /// nothing to drop), with no schema: its values are reached only through the `unsafe`
    /// byte functions (`World::insert_by_id_raw`, `World::get_ptr_by_id`).
    ///
    /// # Safety
    /// - every value written into such a component (by `insert_by_id_raw`) is `layout`-shaped,
    ///   may be moved by copying its bytes, and may be sent to and shared between threads;
    /// - `drop`, if any, may be called once on a pointer to such a value (aligned to `layout`)
    ///   and leaves nothing that needs dropping.
    pub unsafe fn from_raw_parts(
        name: impl Into<String>,
        layout: Layout,
        drop: Option<unsafe fn(*mut u8)>,
    ) -> Self {
        Self { name: name.into(), storage: Storage::Raw { layout, drop }, track_changes: false }
    }

    /// The same, with change tracking on from registration (`Changed`/`Added` readers, the
    /// removal log), as `#[component(track_changes)]` does for a Rust type.
    pub fn with_change_tracking(mut self) -> Self {
        self.track_changes = true;
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Size and alignment of one value.
    pub fn layout(&self) -> Layout {
        match &self.storage {
            Storage::Schema(schema) => schema.layout(),
            Storage::Raw { layout, .. } => *layout,
        }
    }

    /// The schema, if it has one.
    pub fn schema(&self) -> Option<&Arc<Schema>> {
        match &self.storage {
            Storage::Schema(schema) => Some(schema),
            Storage::Raw { .. } => None,
        }
    }

    /// Checks the name and the size.
    pub(super) fn check(&self) -> Result<(), DynamicError> {
        let name = &self.name;
        if name.is_empty() || name.len() > MAX_COMPONENT_NAME || name.chars().any(char::is_control) {
            return Err(DynamicError::InvalidName { name: name.chars().take(80).collect() });
        }
        let size = self.layout().size();
        if size > MAX_SCHEMA_SIZE {
            return Err(DynamicError::TooLarge { name: name.clone(), size, max: MAX_SCHEMA_SIZE });
        }
        Ok(())
    }
}

/// The names of run-time components, kept for the life of the process: pools and messages name
/// their type with a `&'static str`. Interned, so the memory is bounded by the distinct names
/// registered (at most [`MAX_COMPONENT_NAME`] bytes each), however many worlds register them.
static NAMES: Mutex<Option<FxHashSet<&'static str>>> = Mutex::new(None);

/// `name`, interned.
pub(super) fn intern(name: &str) -> &'static str {
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(FxHashSet::default);
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

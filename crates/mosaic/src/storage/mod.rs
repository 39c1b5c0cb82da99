//! Packed component storage: type-erased columns behind a typed, checked API.
//!
//! Per component type one [`SparseSet`]: a paged [`SparseArray`] from entity index to dense row,
//! a packed array of the entities, and the packed values in a type-erased [`Column`]. Insert and
//! remove are O(1) (remove by swap with the last row). The design follows EnTT's `basic_sparse_set`
//! and shipyard's `SparseSet`; the column is an erased `Vec` in the manner of bevy's `BlobVec`.
//!
//! Resources (one value per type) are stored here too, in a [`ResourceMap`] whose cells let the
//! scheduler hand one system a `&mut` while others share the map.
//!
//! Storage never names the world, queries or systems: it only knows entities and values.
//!
//! The module is private to the crate. What `#[derive(Component)]` expands to needs a few of its
//! items by path; they are re-exported in the hidden module `mosaic::__private`. Every type there
//! whose fields carry soundness ([`ColumnInfo`], [`SoaInfo`]) has private fields and is built only
//! from a real `Send + Sync + 'static` type, so no safe call sequence reaches undefined behaviour
//! (the compile-fail tests in `tests/ui/storage_*.rs` pin this).

mod changes;
mod column;
#[cfg(feature = "rollback")]
mod image;
mod prefetch;
mod resource_map;
mod row_events;
mod soa;
mod sparse;
mod sparse_set;
mod stored;
mod tick;

#[cfg(feature = "rollback")]
pub use changes::TrackerImage;
pub use changes::{ChangeMarker, ChangeTracker, LogEntry, RowStamp};
pub use column::{Column, ColumnInfo};
#[cfg(feature = "rollback")]
pub use image::PoolImage;
pub(crate) use prefetch::prefetch;
pub use resource_map::{ResourceMap, ResourceTicks};
pub use row_events::RowEvents;
pub use soa::{FieldColumn, SoaColumns, SoaInfo, SoaLayout, SoaReader, SoaWriter};
pub use sparse::{SparseArray, SparseView};
pub(crate) use sparse_set::PermuteScratch;
pub use sparse_set::{IndexOrder, RowLookup, SparseSet};
#[cfg(feature = "serialize")]
pub use stored::try_for_each_row;
pub use stored::{StorageInfo, Stored, row_keys_into, sorted_rows};
pub use tick::{Clock, ReaderTick, Tick, TickWindow, Ticks};

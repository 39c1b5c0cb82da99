//! Packed component storage: the only layer that holds `unsafe` besides query fetch.
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

mod column;
mod resource_map;
mod soa;
mod sparse;
mod sparse_set;
mod stored;

pub use column::{Column, ColumnInfo};
pub use resource_map::ResourceMap;
pub use soa::{DropRowFn, FieldColumn, SoaColumns, SoaInfo, SoaLayout, SoaReader, SoaWriter};
pub use sparse::{PAGE_SIZE, SparseArray, SparseView};
pub use sparse_set::{RowLookup, SparseSet};
pub use stored::{StorageInfo, Stored, sorted_rows, try_for_each_row};

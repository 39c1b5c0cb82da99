// The storage layer is private: its erased columns cannot be named from outside the crate.
use mosaic::storage::{Column, ColumnInfo};

fn main() {
    let _ = Column::new(ColumnInfo::of::<u64>());
}

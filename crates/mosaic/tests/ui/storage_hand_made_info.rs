// A column's description cannot be made from hand-made parts: a layout of one type with the type
// id of another would let `push` write past the buffer, and a hand-made drop fn would run on
// foreign bytes.
use std::alloc::Layout;
use std::any::TypeId;

use mosaic::__private::{ColumnInfo, SparseSet, StorageInfo};

unsafe fn not_a_drop(_: *mut u8) {}

fn main() {
    let info = ColumnInfo {
        layout: Layout::new::<u8>(),
        drop: Some(not_a_drop as unsafe fn(*mut u8)),
        type_id: TypeId::of::<u64>(),
        type_name: "u64",
    };
    let _ = SparseSet::new(StorageInfo::Aos(info));
}

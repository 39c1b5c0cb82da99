// Pools are `Send + Sync`, so they may only hold `Send + Sync` values: a column of `Rc` would let
// two threads touch one reference count.
use std::rc::Rc;

use mosaic::Component;
use mosaic::__private::{ColumnInfo, SparseSet, StorageInfo};

#[derive(Component)]
struct Shared(Rc<u8>);

#[derive(Component)]
#[component(storage = "soa")]
struct SharedFields {
    count: Rc<u8>,
}

fn main() {
    let _ = ColumnInfo::of::<Rc<u8>>();
    let _ = SparseSet::new(StorageInfo::aos::<Rc<u8>>());
}

//! Unit tests of the sparse set.

use super::*;
use std::num::NonZeroU32;

fn entity(index: u32, generation: u32) -> Entity {
    Entity::new(index, NonZeroU32::new(generation).unwrap(), 1)
}

#[test]
fn insert_replace_remove() {
    let mut set = SparseSet::new(StorageInfo::aos::<String>());
    let a = entity(1, 1);
    let b = entity(70_000, 1);
    let c = entity(2, 1);
    assert_eq!(set.insert(a, "a".to_string()), None);
    assert_eq!(set.insert(b, "b".to_string()), None);
    assert_eq!(set.insert(c, "c".to_string()), None);
    assert_eq!(set.insert(a, "a2".to_string()).as_deref(), Some("a"));
    set.assert_invariants();
    assert_eq!(set.remove::<String>(a).as_deref(), Some("a2"));
    set.assert_invariants();
    assert_eq!(set.entities(), &[c, b]);
    assert_eq!(set.get::<String>(b).map(String::as_str), Some("b"));
    assert!(set.remove_and_drop(b));
    assert!(!set.remove_and_drop(b));
    set.assert_invariants();
    assert_eq!(set.values::<String>(), &["c".to_string()]);
}

#[test]
fn alignment_of_pools() {
    let mut a = SparseSet::new(StorageInfo::aos::<u8>());
    let mut b = SparseSet::new(StorageInfo::aos::<u8>());
    let es: Vec<Entity> = (0..100).map(|i| entity(i, 1)).collect();
    for &e in &es {
        a.insert(e, 0u8);
    }
    for &e in &es[40..] {
        b.insert(e, 0u8);
    }
    // b's rows are a's rows 40.. in the same order.
    assert_eq!(a.aligned_with(b.entities()), (40, 60));
    assert_eq!(b.aligned_with(&a.entities()[40..]), (0, 60));
    assert_eq!(b.aligned_with(a.entities()), (0, 0), "a's first entity is not in b");
    b.remove::<u8>(es[70]);
    // Row 30 of b now holds es[99]: the prefix stops there.
    assert_eq!(a.aligned_with(b.entities()), (40, 30));
    // Every structural change moves the version (which caches of alignments key on).
    let version = b.version();
    b.remove::<u8>(es[40]);
    assert!(b.version() > version);
    a.clear();
    assert_eq!(a.aligned_with(b.entities()), (0, 0));
}

#[test]
fn alignment_from_a_known_prefix_is_the_full_answer() {
    let mut a = SparseSet::new(StorageInfo::aos::<u8>());
    let mut b = SparseSet::new(StorageInfo::aos::<u8>());
    let es: Vec<Entity> = (0..100).map(|i| entity(i, 1)).collect();
    for &e in &es {
        a.insert(e, 0u8);
    }
    // b: the first 60 in a's order, then the rest reversed.
    for &e in es[..60].iter().chain(es[60..].iter().rev()) {
        b.insert(e, 0u8);
    }
    let full = a.aligned_with(b.entities());
    assert_eq!(full, (0, 60));
    for known in [0, 1, 30, 60] {
        assert_eq!(a.aligned_with_from(b.entities(), known), full, "known {known}");
    }
    // A claim past the slices is cut to them; a claim whose ends do not match is ignored.
    assert_eq!(b.aligned_with_from(&a.entities()[..50], 1_000), (0, 50));
    assert_eq!(a.aligned_with_from(&b.entities()[60..], 20), a.aligned_with(&b.entities()[60..]));
}

#[test]
fn contains_alive_matches_contains() {
    let mut set = SparseSet::new(StorageInfo::aos::<u8>());
    for i in (0..100).step_by(3) {
        set.insert(entity(i, 1), 0u8);
    }
    set.remove::<u8>(entity(30, 1));
    for i in 0..110 {
        assert_eq!(set.contains_alive(entity(i, 1)), set.contains(entity(i, 1)), "index {i}");
    }
    set.set_lazy(true);
    assert!(!set.contains_alive(entity(3, 2)), "a lazy pool checks the generation");
}

#[test]
fn stale_generation_misses() {
    let mut set = SparseSet::new(StorageInfo::aos::<u8>());
    set.insert(entity(4, 1), 1u8);
    assert!(!set.contains(entity(4, 2)));
    assert_eq!(set.get::<u8>(entity(4, 2)), None);
    assert_eq!(set.remove::<u8>(entity(4, 2)), None);
    assert!(set.contains(entity(4, 1)));
}

#[test]
fn permute_range_moves_owned_values_and_leaves_the_rest() {
    // Owned, heap-holding values: a move that duplicated or lost one would double-free or leak
    // (Miri checks both).
    let mut set = SparseSet::new(StorageInfo::aos::<String>());
    let es: Vec<Entity> = (0..6).map(|i| entity(i * 1000, 1)).collect();
    for (i, &e) in es.iter().enumerate() {
        set.insert(e, format!("v{i}"));
    }
    set.permute_range(1, &[4, 1, 3, 2]);
    set.assert_invariants();
    assert_eq!(set.entities(), &[es[0], es[4], es[1], es[3], es[2], es[5]]);
    let values: Vec<&str> = set.values::<String>().iter().map(String::as_str).collect();
    assert_eq!(values, ["v0", "v4", "v1", "v3", "v2", "v5"]);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(set.get::<String>(e).map(String::as_str), Some(format!("v{i}").as_str()));
    }
    set.permute_range(6, &[]);
    set.assert_invariants();
}

#[test]
fn permute_range_refuses_what_is_not_a_permutation_of_the_range() {
    let build = || {
        let mut set = SparseSet::new(StorageInfo::aos::<u32>());
        for i in 0..4 {
            set.insert(entity(i, 1), i);
        }
        set
    };
    for (start, order) in [(1, vec![1, 1, 2]), (1, vec![0, 1, 2]), (2, vec![2, 3, 4]), (usize::MAX, vec![0])]
    {
        let result = std::panic::catch_unwind(move || build().permute_range(start, &order));
        assert!(result.is_err(), "start {start}");
    }
}

#[test]
fn index_order_follows_the_rows() {
    let mut set = SparseSet::new(StorageInfo::aos::<u8>());
    assert_eq!(set.index_order(), IndexOrder { sorted: true, base: None }, "empty");
    // 100 consecutive indices from 7, in order: more than the scan's chunk of 32.
    for i in 7..107 {
        set.insert(entity(i, 1), 0u8);
    }
    assert_eq!(set.index_order(), IndexOrder { sorted: true, base: Some(7) });
    // A gap keeps the order sorted but not consecutive.
    set.insert(entity(200, 1), 0u8);
    assert_eq!(set.index_order(), IndexOrder { sorted: true, base: None });
    // A removal moves the last row into the hole: out of order.
    set.remove::<u8>(entity(50, 1));
    assert_eq!(set.index_order(), IndexOrder { sorted: false, base: None });
    // Out of order in the first chunk, and in the tail after the chunks.
    let mut early = SparseSet::new(StorageInfo::aos::<u8>());
    let mut late = SparseSet::new(StorageInfo::aos::<u8>());
    for i in 0..70 {
        early.insert(entity(if i == 3 { 500 } else { i }, 1), 0u8);
        late.insert(entity(if i == 68 { 1 } else { i + 2 }, 1), 0u8);
    }
    assert!(!early.index_order().sorted);
    assert!(!late.index_order().sorted);
    // Equal indices (a stale row and its successor in a lazy pool) are not sorted.
    let mut stale = SparseSet::new(StorageInfo::aos::<u8>());
    stale.set_lazy(true);
    stale.insert(entity(4, 1), 0u8);
    stale.insert(entity(4, 2), 0u8);
    assert!(!stale.index_order().sorted);
}

/// A batch insert does what `insert` row by row does: new rows pushed, present ones replaced
/// (the old value dropped), refused rows skipped, and `added` told of the new entities only.
#[test]
fn insert_rows_matches_insert_row_by_row() {
    let es: Vec<Entity> = (0..10).map(|i| entity(i * 3_000, 1)).collect();
    let mut batch = SparseSet::new(StorageInfo::aos::<String>());
    let mut single = SparseSet::new(StorageInfo::aos::<String>());
    for &e in &es[..4] {
        batch.insert(e, format!("old {}", e.index()));
        single.insert(e, format!("old {}", e.index()));
    }
    let rows = || es.iter().map(|&e| (e, format!("new {}", e.index())));
    let refused = |e: Entity| e.index() == 6_000 || e.index() == 15_000;
    let mut added = Vec::new();
    batch.insert_rows(rows(), |e| !refused(e), |e| added.push(e));
    for (e, value) in rows() {
        if !refused(e) {
            single.insert(e, value);
        }
    }
    batch.assert_invariants();
    assert_eq!(batch.entities(), single.entities());
    assert_eq!(batch.values::<String>(), single.values::<String>());
    let expected: Vec<Entity> = es[4..].iter().copied().filter(|&e| !refused(e)).collect();
    assert_eq!(added, expected);
}

/// A batch removal does what `remove` does per entity, passing over entities not in the pool
/// (and stale handles of an index that is), and hands each removed value over once.
#[test]
fn remove_rows_matches_remove_one_by_one() {
    let es: Vec<Entity> = (0..8).map(|i| entity(i * 5_000, 1)).collect();
    let mut batch = SparseSet::new(StorageInfo::aos::<String>());
    let mut single = SparseSet::new(StorageInfo::aos::<String>());
    for &e in &es[..6] {
        batch.insert(e, e.index().to_string());
        single.insert(e, e.index().to_string());
    }
    let targets = [es[0], es[7], es[3], entity(es[2].index(), 2), es[5], es[0]];
    let mut checked = 0;
    let mut removed = Vec::new();
    batch.remove_rows(targets.iter().copied(), |_| checked += 1, |e, value: String| removed.push((e, value)));
    let expected: Vec<(Entity, String)> =
        targets.iter().filter_map(|&e| single.remove::<String>(e).map(|v| (e, v))).collect();
    batch.assert_invariants();
    assert_eq!(checked, targets.len());
    assert_eq!(removed, expected);
    assert_eq!(batch.entities(), single.entities());
    assert_eq!(batch.values::<String>(), single.values::<String>());
}

/// `push_new` appends as `insert` does for an entity the pool does not hold.
#[test]
fn push_new_appends_like_insert() {
    let mut set = SparseSet::new(StorageInfo::aos::<String>());
    set.push_new(entity(9_000, 1), "a".to_string());
    set.push_new(entity(1, 1), "b".to_string());
    set.assert_invariants();
    assert_eq!(set.entities(), &[entity(9_000, 1), entity(1, 1)]);
    assert_eq!(set.get::<String>(entity(1, 1)).map(String::as_str), Some("b"));
}

#[test]
#[should_panic(expected = "column holds")]
fn insert_rows_of_the_wrong_type_panics() {
    let mut set = SparseSet::new(StorageInfo::aos::<u32>());
    set.insert_rows([(entity(1, 1), 1u64)].into_iter(), |_| true, |_| {});
}

#[test]
#[should_panic(expected = "column holds")]
fn remove_rows_of_the_wrong_type_panics() {
    let mut set = SparseSet::new(StorageInfo::aos::<u32>());
    set.insert(entity(1, 1), 1u32);
    set.remove_rows::<u64>([entity(1, 1)].into_iter(), |_| {}, |_, _| {});
}

//! A paged map from entity index to dense row.

/// Entries per page. A page is 16 KiB of `u32` rows.
pub const PAGE_SIZE: usize = 4096;

/// Marks an index with no dense row.
pub(super) const EMPTY: u32 = u32::MAX;

/// A map from entity index (`u32`) to dense row (`u32`), stored in pages of [`PAGE_SIZE`]
/// entries allocated on first use, so a pool holding a few entities with large indices costs a
/// few pages, not an array as long as the largest index.
///
/// Complexity: `get`, `insert`, `remove` are O(1); memory is one pointer per page of index space
/// up to the largest index inserted, plus 16 KiB per page touched.
#[derive(Debug, Default, Clone)]
pub struct SparseArray {
    pages: Vec<Option<Box<[u32; PAGE_SIZE]>>>,
}

impl SparseArray {
    /// An empty map. Allocates nothing.
    pub const fn new() -> Self {
        Self { pages: Vec::new() }
    }

    /// The row stored for `index`, if any.
    #[inline]
    pub fn get(&self, index: u32) -> Option<u32> {
        self.view().get(index)
    }

    /// Stores `row` for `index`, allocating the page if needed.
    ///
    /// # Panics
    /// If `row == u32::MAX` (reserved for "empty").
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, index: u32, row: u32) {
        assert!(row != EMPTY, "sparse set row overflow: more than u32::MAX - 1 values in one pool");
        let index = index as usize;
        let page_index = index / PAGE_SIZE;
        if page_index >= self.pages.len() {
            self.pages.resize_with(page_index + 1, || None);
        }
        let page = self.pages[page_index].get_or_insert_with(|| Box::new([EMPTY; PAGE_SIZE]));
        page[index % PAGE_SIZE] = row;
    }

    /// The entry for `index`, mutably, allocating its page if needed: [`SparseArray::get`] and
    /// [`SparseArray::insert`] in one page lookup. The entry reads `u32::MAX` when empty; store
    /// only rows below it.
    #[inline]
    pub fn entry_mut(&mut self, index: u32) -> &mut u32 {
        let index = index as usize;
        let page_index = index / PAGE_SIZE;
        if page_index >= self.pages.len() {
            self.pages.resize_with(page_index + 1, || None);
        }
        let page = self.pages[page_index].get_or_insert_with(|| Box::new([EMPTY; PAGE_SIZE]));
        &mut page[index % PAGE_SIZE]
    }

    /// Stores rows `first_row, first_row + 1, ...` for the entities of `entities`, in order:
    /// one page lookup per run of entities in the same page (a batch of new entities is mostly
    /// one run per page), creating pages as needed. O(n).
    ///
    /// # Panics
    /// If a row would reach `u32::MAX` (the empty marker).
    pub fn assign_rows(&mut self, entities: &[crate::entity::Entity], first_row: u32) {
        let last = u64::from(first_row) + entities.len() as u64;
        assert!(
            last < u64::from(EMPTY),
            "sparse set row overflow: more than u32::MAX - 1 values in one pool"
        );
        let mut row = first_row;
        let mut rest = entities;
        while let Some(first) = rest.first() {
            let page_index = first.index() as usize / PAGE_SIZE;
            let run =
                rest.iter().position(|e| e.index() as usize / PAGE_SIZE != page_index).unwrap_or(rest.len());
            if page_index >= self.pages.len() {
                self.pages.resize_with(page_index + 1, || None);
            }
            let page = self.pages[page_index].get_or_insert_with(|| Box::new([EMPTY; PAGE_SIZE]));
            for entity in &rest[..run] {
                page[entity.index() as usize % PAGE_SIZE] = row;
                row += 1;
            }
            rest = &rest[run..];
        }
    }

    /// The entry for `index`, mutably, if its page exists (the entry reads `u32::MAX` when
    /// empty). Allocates nothing.
    #[inline]
    pub fn get_mut(&mut self, index: u32) -> Option<&mut u32> {
        let index = index as usize;
        let page = self.pages.get_mut(index / PAGE_SIZE)?.as_deref_mut()?;
        Some(&mut page[index % PAGE_SIZE])
    }

    /// Stores `row` for an `index` that already has an entry (its page exists): the entry of an
    /// entity that moved rows. One page lookup and no allocation check; falls back to
    /// [`SparseArray::insert`] if the page is missing after all.
    #[inline]
    pub fn set_existing(&mut self, index: u32, row: u32) {
        match self.get_mut(index) {
            Some(entry) => *entry = row,
            None => self.insert(index, row),
        }
    }

    /// Hints the CPU to fetch the entry for `index` (nothing if its page is absent). O(1).
    #[inline]
    pub(crate) fn prefetch(&self, index: u32) {
        let index = index as usize;
        if let Some(Some(page)) = self.pages.get(index / PAGE_SIZE) {
            super::prefetch(&page[index % PAGE_SIZE]);
        }
    }

    /// Clears the entry for `index`. Does nothing if there is none.
    #[inline]
    pub fn remove(&mut self, index: u32) {
        let index = index as usize;
        if let Some(Some(page)) = self.pages.get_mut(index / PAGE_SIZE) {
            page[index % PAGE_SIZE] = EMPTY;
        }
    }

    /// Clears every entry, keeping the pages.
    pub fn clear(&mut self) {
        for page in self.pages.iter_mut().flatten() {
            page.fill(EMPTY);
        }
    }

    /// A copyable read-only view for hot lookup loops (no indirection through `self`).
    #[inline]
    pub fn view(&self) -> SparseView<'_> {
        SparseView { pages: &self.pages }
    }

    /// Makes `self` hold exactly the entries of `src`, reusing its pages: pages both have are
    /// copied (16 KiB `memcpy` each), pages only `self` has are emptied but kept, and pages only
    /// `src` has are allocated. O(pages of either).
    #[cfg(feature = "rollback")]
    pub fn copy_from(&mut self, src: &SparseArray) {
        if self.pages.len() < src.pages.len() {
            self.pages.resize_with(src.pages.len(), || None);
        }
        for (i, page) in self.pages.iter_mut().enumerate() {
            match (page, src.pages.get(i).and_then(Option::as_deref)) {
                (Some(dst), Some(from)) => dst.copy_from_slice(from),
                (Some(dst), None) => dst.fill(EMPTY),
                (dst @ None, Some(from)) => *dst = Some(Box::new(*from)),
                (None, None) => {}
            }
        }
    }

    /// Bytes held in allocated pages (16 KiB each).
    #[cfg(feature = "rollback")]
    pub fn page_bytes(&self) -> usize {
        self.pages.iter().flatten().count() * PAGE_SIZE * size_of::<u32>()
    }

    /// Number of pages allocated.
    #[cfg(test)]
    pub fn page_count(&self) -> usize {
        self.pages.iter().filter(|p| p.is_some()).count()
    }
}

/// A read-only view of a [`SparseArray`], cheap to copy into a query's fetch state.
#[derive(Clone, Copy, Debug)]
pub struct SparseView<'a> {
    pages: &'a [Option<Box<[u32; PAGE_SIZE]>>],
}

impl SparseView<'_> {
    /// The row stored for `index`, if any. O(1).
    #[inline(always)]
    pub fn get(&self, index: u32) -> Option<u32> {
        let index = index as usize;
        let page = self.pages.get(index / PAGE_SIZE)?.as_deref()?;
        let row = page[index % PAGE_SIZE];
        (row != EMPTY).then_some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_mut_and_set_existing() {
        let mut sparse = SparseArray::new();
        assert!(sparse.get_mut(7).is_none(), "no page, no entry, nothing allocated");
        assert_eq!(sparse.page_count(), 0);
        sparse.insert(7, 1);
        assert_eq!(sparse.get_mut(8).copied(), Some(EMPTY));
        sparse.set_existing(7, 4);
        assert_eq!(sparse.get(7), Some(4));
        *sparse.get_mut(7).unwrap() = EMPTY;
        assert_eq!(sparse.get(7), None);
        sparse.set_existing(3 * PAGE_SIZE as u32, 2); // no page yet: inserts
        assert_eq!(sparse.get(3 * PAGE_SIZE as u32), Some(2));
    }

    #[test]
    fn entry_mut_reads_and_writes_through_one_lookup() {
        let mut sparse = SparseArray::new();
        let index = 2 * PAGE_SIZE as u32 + 5;
        assert_eq!(*sparse.entry_mut(index), EMPTY, "a fresh entry is empty");
        assert_eq!(sparse.page_count(), 1, "the page is allocated on first use");
        *sparse.entry_mut(index) = 9;
        assert_eq!(sparse.get(index), Some(9));
        assert_eq!(*sparse.entry_mut(index), 9);
        assert_eq!(sparse.get(index + 1), None);
    }

    #[test]
    fn assign_rows_writes_each_entity_its_row_across_pages() {
        use crate::entity::Entities;
        let mut entities = Entities::new();
        let mut made = Vec::new();
        entities.alloc_many(2 * PAGE_SIZE + 10, &mut made).unwrap();
        // Out of page order, and back again: runs per page, several per page.
        let order: Vec<_> = made[PAGE_SIZE - 3..].iter().chain(&made[..PAGE_SIZE - 3]).copied().collect();
        let mut sparse = SparseArray::new();
        sparse.assign_rows(&order, 7);
        for (i, e) in order.iter().enumerate() {
            assert_eq!(sparse.get(e.index()), Some(7 + i as u32));
        }
        assert_eq!(sparse.page_count(), 3);
        sparse.assign_rows(&[], 0);
    }

    #[test]
    fn pages_on_demand() {
        let mut sparse = SparseArray::new();
        assert_eq!(sparse.get(5), None);
        sparse.insert(3 * PAGE_SIZE as u32 + 1, 7);
        assert_eq!(sparse.page_count(), 1);
        assert_eq!(sparse.get(3 * PAGE_SIZE as u32 + 1), Some(7));
        assert_eq!(sparse.get(3 * PAGE_SIZE as u32), None);
        assert_eq!(sparse.get(u32::MAX - 1), None);
        sparse.remove(3 * PAGE_SIZE as u32 + 1);
        assert_eq!(sparse.get(3 * PAGE_SIZE as u32 + 1), None);
        sparse.remove(u32::MAX - 1);
    }
}

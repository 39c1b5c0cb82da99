//! World tags: the 8 bits of every handle that say which world made it.
//!
//! Each [`Entities`](super::Entities) allocator (so each [`World`](crate::World)) holds a lease
//! on one tag in `1..=255` for as long as it lives, and stamps it into the high byte of every
//! generation it hands out. A handle whose tag differs from the world's is then reported as
//! coming from another world instead of as merely stale, at no cost on the success path: the
//! tag is part of the generation the liveness check compares anyway.
//!
//! Tags are leased round-robin among the ones no live allocator holds, so worlds alive at the
//! same time get distinct tags, and a freed tag is not reused until the other 254 have been
//! handed out. With more than 255 allocators alive at once, tags are shared (round-robin again),
//! and a handle from a world sharing this world's tag reads as stale or, if its index and
//! generation happen to match, as this world's entity. Loading a snapshot into an empty world
//! makes the world take the saved tag, so handles saved inside components keep working.

use std::sync::{Mutex, PoisonError};

/// Live leases per tag; index 0 is never leased.
struct Table {
    leases: [u32; 256],
    /// Where the round-robin search for the next tag starts.
    next: u8,
}

static TABLE: Mutex<Table> = Mutex::new(Table { leases: [0; 256], next: 1 });

fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    // Nothing panics while the lock is held, so a poisoned table is still consistent.
    f(&mut TABLE.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The first tag at or after `from` in round-robin order over `1..=255`.
fn after(from: u8) -> u8 {
    if from == 0 { 1 } else { from }
}

/// A held world tag, released when dropped; cloning takes another lease on the same tag.
#[derive(Debug)]
pub(crate) struct TagLease(u8);

impl TagLease {
    /// Leases the next tag no live lease holds, round-robin; shares one if all 255 are held.
    /// O(255) at worst, behind a global lock: once per world, never per entity.
    pub(crate) fn new() -> Self {
        with_table(|table| {
            let start = after(table.next);
            let mut tag = start;
            loop {
                if table.leases[tag as usize] == 0 {
                    break;
                }
                tag = after(tag.wrapping_add(1));
                if tag == start {
                    break; // every tag is held: share `start`
                }
            }
            table.leases[tag as usize] += 1;
            table.next = after(tag.wrapping_add(1));
            Self(tag)
        })
    }

    /// Takes a lease on `tag` itself, shared with any other holder. Tag 0 is leased as tag 1.
    pub(crate) fn on(tag: u8) -> Self {
        let tag = after(tag);
        with_table(|table| table.leases[tag as usize] += 1);
        Self(tag)
    }

    /// The tag, in `1..=255`.
    #[inline]
    pub(crate) fn get(&self) -> u8 {
        self.0
    }
}

impl Clone for TagLease {
    fn clone(&self) -> Self {
        Self::on(self.0)
    }
}

impl Drop for TagLease {
    fn drop(&mut self) {
        with_table(|table| table.leases[self.0 as usize] -= 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test, so that its two halves never run at the same time.
    #[test]
    fn live_leases_are_distinct_until_all_are_held() {
        let leases: Vec<TagLease> = (0..100).map(|_| TagLease::new()).collect();
        let mut tags: Vec<u8> = leases.iter().map(TagLease::get).collect();
        assert!(tags.iter().all(|&t| t != 0));
        tags.sort_unstable();
        tags.dedup();
        // Other tests hold a few leases at the same time, but none of ours is handed out twice.
        assert_eq!(tags.len(), 100);
        drop(leases);

        let leases: Vec<TagLease> = (0..300).map(|_| TagLease::new()).collect();
        assert!(leases.iter().all(|l| l.get() != 0), "shared tags are still nonzero");
        assert_eq!(leases[0].clone().get(), leases[0].get());
        assert_eq!(TagLease::on(0).get(), 1);
    }
}

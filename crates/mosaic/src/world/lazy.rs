//! Collecting the rows that despawn leaves in lazily cleaned pools.

use super::World;

/// A collector stops sampling a pool after this many live rows in a row.
const LIVE_STREAK: u32 = 4;

impl World {
    /// Removes dead entities' rows from lazily cleaned pools (`#[component(cleanup = "lazy")]`)
    /// by random sampling: in each such pool, rows are picked at random and dead ones removed,
    /// until four live rows come up in a row. Cheap per call, and over repeated calls (the
    /// schedule calls it once per frame) the garbage stays a small fraction of the pool.
    /// Returns the number of rows removed.
    ///
    /// Bitsquid's lazy garbage collection of component instances (the founding design).
    pub fn collect_lazy(&mut self) -> usize {
        let mut removed = 0;
        for index in 0..self.components.len() {
            if !self.components.pools()[index].is_lazy() {
                continue;
            }
            let mut streak = 0;
            loop {
                let len = self.components.pools()[index].len();
                if len == 0 || streak >= LIVE_STREAK {
                    break;
                }
                let row = (self.next_random() % len as u64) as usize;
                if self.entities.is_alive(self.components.pools()[index].entities()[row]) {
                    streak += 1;
                } else {
                    self.components.pools_mut()[index].remove_row_and_drop(row);
                    removed += 1;
                    streak = 0;
                }
            }
        }
        removed
    }

    /// Removes every dead entity's row from lazily cleaned pools. O(n) in their rows; run before
    /// anything that must see only live data (a snapshot). Returns the number removed.
    pub fn sweep_lazy(&mut self) -> usize {
        let mut removed = 0;
        for index in 0..self.components.len() {
            if !self.components.pools()[index].is_lazy() {
                continue;
            }
            let mut row = 0;
            while row < self.components.pools()[index].len() {
                let entity = self.components.pools()[index].entities()[row];
                if self.entities.is_alive(entity) {
                    row += 1;
                } else {
                    // The last row moves into `row`: look at it next.
                    self.components.pools_mut()[index].remove_row_and_drop(row);
                    removed += 1;
                }
            }
        }
        removed
    }

    /// Rows of lazily cleaned pools that belong to dead entities (garbage not yet collected).
    /// O(n) in those pools' rows.
    pub fn lazy_garbage(&self) -> usize {
        self.components
            .pools()
            .iter()
            .filter(|p| p.is_lazy())
            .map(|p| p.entities().iter().filter(|&&e| !self.entities.is_alive(e)).count())
            .sum()
    }

    /// The next number of the world's sampling sequence (xorshift64: deterministic per world).
    fn next_random(&mut self) -> u64 {
        let mut x = self.sampler;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.sampler = x;
        x
    }
}

//! A uniform grid (spatial hash) for finding enemies within the collision radius.

/// Side of a grid cell, in collision radii. Two: a body's neighbours then lie in the 2 x 2
/// cells its radius box touches (an area of 16 r^2 read, against 9 r^2 for the 3 x 3 cells of
/// side r), in two row ranges instead of three, and the grid has a quarter of the cells to
/// clear and count, which at 10^6 entities is what keeps it in cache.
pub const CELL_RADII: f32 = 2.0;

/// How many cell rows apart two bodies given one after the other may be and still count as in
/// order for [`Grid::disorder`]: a few rows of the grid stay in cache together, so drift of a
/// few cells costs little; a jump across the arena costs a cache miss.
pub const FAR_ROWS: usize = 8;

/// Bodies from which [`Grid::build_from`] runs on the rayon pool (feature `parallel`): about
/// 1 ms of work on one thread. The parallel build hands work to the pool four times and each
/// band reads every body's cell twice; for the bundled scene's 10^5 fighters on the 2-CPU VM
/// that made the build slower on two threads than on one (0.54-0.71 ms against 0.38-0.48 in
/// one band, four interleaved trace rounds), while at 10^6 two bands take 3.7 ms against 5.1.
pub const PARALLEL_BUILD: usize = 1 << 18;

/// Most bands of cells [`Grid::build_from`] cuts the grid into; each reads every body's cell.
#[cfg(feature = "parallel")]
const MAX_BANDS: usize = 64;

/// Bodies per task when [`Grid::build_from`] computes cells.
const CELL_CHUNK: usize = 1 << 14;

/// Lanes [`Grid::contacts_of`] tests at once in each row of cells it reads: a row range (two
/// cells, mostly) holds 1.8 bodies on average at the arena's density and more than four in
/// 2.6% of them (counted over 10^6 lookups), so one block of 4 with a mask answers almost every
/// range without a loop whose length varies (whose exit the processor mispredicts). The sorted arrays have this many padding
/// entries after the last body, so a block read at the end stays in bounds.
const LANES: usize = 4;

/// The bodies in cell order, one array per field (structure of arrays), so that
/// [`Grid::contacts_of`] loads [`LANES`] positions with one vector load each. Every array has
/// [`LANES`] padding entries after the bodies (never counted: lookups mask lanes past their
/// range).
#[derive(Debug, Default)]
struct Sorted {
    xs: Vec<f32>,
    ys: Vec<f32>,
    teams: Vec<u8>,
}

impl Sorted {
    /// Makes room for `n` bodies plus the padding, keeping capacity.
    fn resize(&mut self, n: usize) {
        let len = n + LANES;
        self.xs.resize(len, f32::NAN);
        self.ys.resize(len, f32::NAN);
        self.teams.resize(len, 0);
    }

    /// The first `n` entries of every array, to be written by [`Scatter`].
    fn body_slots(&mut self, n: usize) -> Slots<'_> {
        Slots { xs: &mut self.xs[..n], ys: &mut self.ys[..n], teams: &mut self.teams[..n] }
    }
}

/// A run of [`Sorted`]'s entries, one `&mut` slice per field.
struct Slots<'a> {
    xs: &'a mut [f32],
    ys: &'a mut [f32],
    teams: &'a mut [u8],
}

impl<'a> Slots<'a> {
    /// The entries before `mid` and those from it.
    fn split_at(self, mid: usize) -> (Slots<'a>, Slots<'a>) {
        let (xs, xs2) = self.xs.split_at_mut(mid);
        let (ys, ys2) = self.ys.split_at_mut(mid);
        let (teams, teams2) = self.teams.split_at_mut(mid);
        (Slots { xs, ys, teams }, Slots { xs: xs2, ys: ys2, teams: teams2 })
    }

    #[inline]
    fn set(&mut self, k: usize, (x, y, team): (f32, f32, u8)) {
        self.xs[k] = x;
        self.ys[k] = y;
        self.teams[k] = team;
    }
}

/// The last step of [`Grid::build_from`]: each band of cells places its bodies into its own part of
/// the sorted array. Bands are split in halves with `rayon::join` (or one after the other), so
/// each gets its part as a separate `&mut` slice: no shared writes.
struct Scatter<'a, F> {
    /// The bodies, by index (called once for each, by the band of its cell).
    body: &'a F,
    /// The cell of every body.
    cell_of: &'a [u32],
    /// Per band, the index in `sorted` of its first body.
    offsets: &'a [u32],
    band_cells: usize,
    parallel: bool,
}

impl<F: Fn(usize) -> (f32, f32, u8) + Sync> Scatter<'_, F> {
    /// Places the bodies of `bands`, whose cursors (one per cell, each the global start of its
    /// cell, advanced past each body placed) are `cursors` and whose part of the sorted array is
    /// `out`.
    fn bands(&self, bands: std::ops::Range<usize>, cursors: &mut [u32], out: Slots<'_>) {
        if bands.len() > 1 {
            let mid = bands.start + bands.len() / 2;
            let (left_cursors, right_cursors) = cursors.split_at_mut((mid - bands.start) * self.band_cells);
            let split = (self.offsets[mid] - self.offsets[bands.start]) as usize;
            let (left, right) = out.split_at(split);
            let (low, high) = (bands.start..mid, mid..bands.end);
            if self.parallel {
                join(|| self.bands(low, left_cursors, left), || self.bands(high, right_cursors, right));
            } else {
                self.bands(low, left_cursors, left);
                self.bands(high, right_cursors, right);
            }
            return;
        }
        let lo = bands.start * self.band_cells;
        let base = self.offsets[bands.start];
        let mut out = out;
        for (i, &cell) in self.cell_of.iter().enumerate() {
            if let Some(cursor) = cursors.get_mut((cell as usize).wrapping_sub(lo)) {
                out.set((*cursor - base) as usize, (self.body)(i));
                *cursor += 1;
            }
        }
    }
}

#[cfg(feature = "parallel")]
use rayon::{join, prelude::*};

/// Without threads, both halves on the calling thread (never called: `parallel` is false).
#[cfg(not(feature = "parallel"))]
fn join(a: impl FnOnce(), b: impl FnOnce()) {
    a();
    b();
}

/// The cell numbering of a [`Grid`]: square cells of side `cell`, `cols` x `rows` of them,
/// numbered row by row.
#[derive(Clone, Copy, Debug)]
pub struct Cells {
    /// `1 / cell`, for a cell side `cell`: cells are found by a multiplication, not a division
    /// (a division's latency was a fifth of a contact lookup). Exact when `cell` is a power of
    /// two, as in the bundled scene; otherwise a point within a rounding error of a cell edge
    /// may count in the neighbouring cell, the same way everywhere, which the lookups tolerate
    /// (they read every cell the radius box touches, by the same function).
    inv_cell: f32,
    cols: usize,
    rows: usize,
}

impl Cells {
    /// The cell of a coordinate along an axis whose last cell is `last` (as a float). Positions
    /// outside the arena count in the nearest cell; NaN in cell 0.
    #[inline]
    fn axis_cell(self, value: f32, last: f32) -> usize {
        // Clamped as floats (`max` ignores NaN), so the conversion needs no saturation of its
        // own: cheaper than clamping the integer, which was a fifth of a lookup.
        (value * self.inv_cell).max(0.0).min(last) as u32 as usize
    }

    /// The last column and the last row, as floats, for [`Cells::axis_cell`].
    #[inline]
    fn last(self) -> (f32, f32) {
        ((self.cols - 1) as f32, (self.rows - 1) as f32)
    }

    /// How many cells there are: every [`Cells::cell_of`] is below it.
    pub fn count(self) -> usize {
        self.cols * self.rows
    }

    /// The cell `(x, y)` falls in: `row * cols + col`. O(1).
    #[inline]
    pub fn cell_of(self, x: f32, y: f32) -> u32 {
        let (last_col, last_row) = self.last();
        (self.axis_cell(y, last_row) * self.cols + self.axis_cell(x, last_col)) as u32
    }
}

/// A uniform grid with cells [`CELL_RADII`] collision radii wide, rebuilt every frame by a
/// counting sort over cells.
///
/// Use: [`Grid::build_from`] the bodies where they are (no copy), or [`Grid::clear`],
/// [`Grid::push`] every body and [`Grid::build`]; then [`Grid::contacts_of`] any point, or
/// [`Grid::count_contacts`] every pushed body. Every buffer is cleared and refilled, never
/// dropped, so a grid reused across frames stops allocating once it has seen its largest frame.
///
/// Complexity: O(n + c) to build for n bodies and c cells, and O(n * k) to count contacts, with k
/// the mean number of bodies in the cells around a body (constant at a fixed density).
//
// Invariants after `build`:
// - `starts.len() == cells + 2`, non-decreasing, `starts[cells] == cell_of.len()`;
// - `sorted[starts[c]..starts[c + 1]]` are the bodies in cell `c`, in push order.
#[derive(Debug)]
pub struct Grid {
    /// One over the side of a cell, in 1 / arena units (cells are [`CELL_RADII`] collision
    /// radii wide).
    inv_cell: f32,
    cols: usize,
    rows: usize,
    radius_sq: f32,
    /// The collision radius with a margin for rounding: the half-width of the box
    /// [`Grid::contacts_of`] looks in.
    reach: f32,
    /// Bodies pushed since the last [`Grid::clear`], for [`Grid::build`].
    pushed: Vec<(f32, f32, u8)>,
    /// The cell of every body of the last build, in the order they were given.
    cell_of: Vec<u32>,
    /// Start of every cell in `sorted` (`cells + 2` entries; see [`Grid::build_from`]).
    starts: Vec<u32>,
    /// Per band of cells in [`Grid::build_from`]: its body count, then its offset.
    band_totals: Vec<u32>,
    sorted: Sorted,
    /// [`Grid::count_contacts`]'s answer, by push index.
    contacts: Vec<u32>,
    /// [`Grid::count_contacts`]'s cursors per cell, then the push index of every sorted body.
    order: Vec<u32>,
    /// Bodies of the last build counted far by [`Grid::disorder`].
    far_steps: usize,
}

impl Grid {
    /// An empty grid over a `width` x `height` arena, for contacts closer than `radius`.
    ///
    /// # Panics
    /// If `radius` is not positive and finite.
    #[track_caller]
    pub fn new(width: f32, height: f32, radius: f32) -> Self {
        assert!(
            radius.is_finite() && radius > 0.0,
            "collision radius must be positive and finite, got {radius}"
        );
        let cell = CELL_RADII * radius;
        let cols = ((width / cell).ceil() as usize).max(1);
        let rows = ((height / cell).ceil() as usize).max(1);
        Self {
            inv_cell: 1.0 / cell,
            reach: radius * (1.0 + 1e-3),
            cols,
            rows,
            radius_sq: radius * radius,
            pushed: Vec::new(),
            cell_of: Vec::new(),
            starts: Vec::new(),
            band_totals: Vec::new(),
            order: Vec::new(),
            sorted: Sorted::default(),
            contacts: Vec::new(),
            far_steps: 0,
        }
    }

    /// Bodies sorted by the last build ([`Grid::build`] or [`Grid::build_from`]).
    pub fn len(&self) -> usize {
        self.cell_of.len()
    }

    /// Whether the last build sorted no body.
    pub fn is_empty(&self) -> bool {
        self.cell_of.is_empty()
    }

    /// Forgets the bodies pushed since the last build, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.pushed.clear();
    }

    /// Adds a body of `team` at `(x, y)` for the next [`Grid::build`]. Positions outside the
    /// arena count in the nearest cell.
    #[inline]
    pub fn push(&mut self, x: f32, y: f32, team: u8) {
        self.pushed.push((x, y, team));
    }

    /// Adds `n` bodies, body `i` at `body(i) = (x, y, team)`, as `n` calls of [`Grid::push`]
    /// would in order of `i`. With the `parallel` feature and at least [`PARALLEL_BUILD`] bodies,
    /// `body` is called on the rayon pool (in chunks; each index once).
    pub fn push_with(&mut self, n: usize, body: impl Fn(usize) -> (f32, f32, u8) + Send + Sync) {
        // Written in place (no zeroing pass first), in parallel when many.
        #[cfg(feature = "parallel")]
        if n >= PARALLEL_BUILD {
            self.pushed.par_extend((0..n).into_par_iter().with_min_len(CELL_CHUNK).map(body));
            return;
        }
        self.pushed.extend((0..n).map(body));
    }

    /// The grid's cell numbering, detached from the grid (to compute sort keys while the grid
    /// is borrowed elsewhere).
    pub fn cells(&self) -> Cells {
        Cells { inv_cell: self.inv_cell, cols: self.cols, rows: self.rows }
    }

    /// The cell `(x, y)` falls in, numbered row by row (`row * cols + col`): the order
    /// [`Grid::build_from`] sorts bodies into, so bodies given in increasing cell order are read
    /// in memory order by [`Grid::contacts_of`].
    #[inline]
    pub fn cell_of(&self, x: f32, y: f32) -> u32 {
        self.cells().cell_of(x, y)
    }

    /// How far the order of the last build's bodies is from cell order, in `0..=1`: the
    /// share of bodies more than [`FAR_ROWS`] cell rows away from the body given before them.
    /// Near 0 when the bodies were given sorted by [`Grid::cell_of`] and have drifted a few
    /// cells since (they are still read from nearby memory); near 1 for an order unrelated to
    /// space.
    pub fn disorder(&self) -> f64 {
        if self.cell_of.is_empty() { 0.0 } else { self.far_steps as f64 / self.cell_of.len() as f64 }
    }

    /// Sorts the bodies pushed since the last [`Grid::clear`] into their cells:
    /// [`Grid::build_from`] over them.
    pub fn build(&mut self) {
        let pushed = std::mem::take(&mut self.pushed);
        self.build_from(pushed.len(), |i| pushed[i]);
        self.pushed = pushed;
    }

    /// Sorts `n` bodies, body `i` at `body(i) = (x, y, team)`, into their cells, for
    /// [`Grid::contacts_of`]: a stable counting sort (order of `i` within a cell), reading the
    /// bodies where they are (a world's columns) instead of a copy. O(n + c) for n bodies and c
    /// cells; `body` is called twice per index (for its cell, then to place it); allocates only
    /// to grow. Bodies pushed since the last [`Grid::clear`] are left alone.
    ///
    /// With the `parallel` feature and at least [`PARALLEL_BUILD`] bodies, every step runs on the
    /// rayon pool: the cells are cut into one band per thread, each band counts and places its
    /// own bodies (each band reads every body's cell, n per band, and places only its own), and
    /// the result is the same sort whatever the number of bands.
    pub fn build_from(&mut self, n: usize, body: impl Fn(usize) -> (f32, f32, u8) + Sync) {
        #[cfg(feature = "parallel")]
        let bands = if n >= PARALLEL_BUILD { rayon::current_num_threads().clamp(1, MAX_BANDS) } else { 1 };
        #[cfg(not(feature = "parallel"))]
        let bands = 1;
        let cells = self.cols * self.rows;
        let band_cells = cells.div_ceil(bands);
        let bands = cells.div_ceil(band_cells);

        // 1. The cell of every body, and how many bodies are far from the one given before.
        let (cols, grid) = (self.cols, self.cells());
        let (last_col, last_row) = grid.last();
        self.cell_of.resize(n, 0);
        let cell_chunk = |(k, out): (usize, &mut [u32])| {
            let first = k * CELL_CHUNK;
            let mut previous_row = (k > 0).then(|| grid.axis_cell(body(first - 1).1, last_row));
            let mut far = 0;
            for (i, out) in (first..).zip(out) {
                let (x, y, _) = body(i);
                let row = grid.axis_cell(y, last_row);
                *out = (row * cols + grid.axis_cell(x, last_col)) as u32;
                far += usize::from(previous_row.is_some_and(|p: usize| p.abs_diff(row) > FAR_ROWS));
                previous_row = Some(row);
            }
            far
        };
        self.far_steps = match () {
            #[cfg(feature = "parallel")]
            () if bands > 1 => self.cell_of.par_chunks_mut(CELL_CHUNK).enumerate().map(cell_chunk).sum(),
            () => self.cell_of.chunks_mut(CELL_CHUNK).enumerate().map(cell_chunk).sum(),
        };

        // `starts` is used shifted while it is built: cell `c` is counted in slot `c + 2`; an
        // inclusive sum per band, plus the band's offset, leaves the start of cell `c` in slot
        // `c + 1`, which is cell `c`'s cursor while bodies are placed; each placed body advances
        // it, so at the end slot `c + 1` holds the end of cell `c`, the start of `c + 1`: slot
        // `c` is the start of cell `c`, as lookups read it. No copy of the starts as cursors.
        self.starts.clear();
        self.starts.resize(cells + 2, 0);

        // 2. Per band: count its cells' bodies, then sum the counts (inclusive) within the band.
        let cell_of = &self.cell_of;
        let count_band = |(b, counts): (usize, &mut [u32])| {
            let (lo, len) = (b * band_cells, counts.len());
            for &cell in cell_of {
                let local = (cell as usize).wrapping_sub(lo);
                if local < len {
                    counts[local] += 1;
                }
            }
            let mut total = 0;
            for count in counts {
                total += *count;
                *count = total;
            }
            total
        };
        self.band_totals.clear();
        match () {
            #[cfg(feature = "parallel")]
            () if bands > 1 => {
                let counts = self.starts[2..].par_chunks_mut(band_cells).enumerate();
                counts.map(count_band).collect_into_vec(&mut self.band_totals);
            }
            () => {
                self.band_totals.extend(self.starts[2..].chunks_mut(band_cells).enumerate().map(count_band))
            }
        }

        // 3. The bands' offsets (their totals before them), added to their sums.
        let mut offset = 0;
        for total in &mut self.band_totals {
            (*total, offset) = (offset, offset + *total);
        }
        let offsets = &self.band_totals;
        // With one band the offset is 0: nothing to add.
        #[cfg(feature = "parallel")]
        if bands > 1 {
            let shift = |(b, sums): (usize, &mut [u32])| sums.iter_mut().for_each(|s| *s += offsets[b]);
            self.starts[2..].par_chunks_mut(band_cells).enumerate().for_each(shift);
        }

        // 4. Per band: place its bodies, in the order given, into its part of `sorted`.
        self.sorted.resize(n);
        let scatter = Scatter { body: &body, cell_of, offsets, band_cells, parallel: bands > 1 };
        scatter.bands(0..bands, &mut self.starts[1..=cells], self.sorted.body_slots(n));
    }

    /// How many bodies of a team other than `team` lie within the collision radius of `(x, y)`
    /// (inclusive), among those sorted by the last [`Grid::build_from`]. Read-only, so any number of
    /// threads may ask at once; for a pushed body it is the count [`Grid::count_contacts`] gives
    /// (the distance test is symmetric). O(k) for the k bodies in the (mostly 2 x 2) cells its
    /// radius box touches, tested four at a time.
    #[inline]
    pub fn contacts_of(&self, x: f32, y: f32, team: u8) -> u32 {
        // The cells the box of half-width `reach` around the point touches: 2 x 2 of them
        // mostly (cells are `CELL_RADII` radii wide), 3 in a line when the box straddles one.
        let cells = self.cells();
        let (last_col, last_row) = cells.last();
        let (col_lo, col_hi) =
            (cells.axis_cell(x - self.reach, last_col), cells.axis_cell(x + self.reach, last_col));
        let (row_lo, row_hi) =
            (cells.axis_cell(y - self.reach, last_row), cells.axis_cell(y + self.reach, last_row));
        let mut hits = 0;
        let mut row = row_lo * self.cols;
        loop {
            let (lo, hi) = (self.starts[row + col_lo] as usize, self.starts[row + col_hi + 1] as usize);
            hits += self.count_in(lo, hi, x, y, team);
            if row >= row_hi * self.cols {
                return hits;
            }
            row += self.cols;
        }
    }

    /// Bodies of a team other than `team` within the radius of `(x, y)` among the sorted
    /// bodies `lo..hi`: the first [`LANES`] as one block with the lanes past `hi` masked (the
    /// padding keeps the block in bounds), then the rest, if any, one by one.
    #[inline(always)]
    fn count_in(&self, lo: usize, hi: usize, x: f32, y: f32, team: u8) -> u32 {
        let near = |bx: f32, by: f32, bteam: u8| {
            let (dx, dy) = (x - bx, y - by);
            (bteam != team) & (dx * dx + dy * dy <= self.radius_sq)
        };
        let sorted = &self.sorted;
        let (xs, ys, teams) =
            (&sorted.xs[lo..lo + LANES], &sorted.ys[lo..lo + LANES], &sorted.teams[lo..lo + LANES]);
        let len = hi - lo;
        let mut hits = 0;
        for k in 0..LANES {
            hits += u32::from((k < len) & near(xs[k], ys[k], teams[k]));
        }
        if len > LANES {
            for k in lo + LANES..hi {
                hits += u32::from(near(sorted.xs[k], sorted.ys[k], sorted.teams[k]));
            }
        }
        hits
    }

    /// For every body pushed since the last [`Grid::clear`], in push order: how many bodies of
    /// another team lie within the collision radius (inclusive). Builds the grid
    /// ([`Grid::build`]) and looks at each pair once, on the calling thread: the reference
    /// [`Grid::contacts_of`] is tested against, and half its distance tests.
    pub fn count_contacts(&mut self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.build();
        let n = self.cell_of.len();
        self.contacts.clear();
        self.contacts.resize(n, 0);
        // The push index of every sorted body, placed as `build` placed them (stably, in push
        // order within a cell).
        let cells_len = self.cols * self.rows;
        self.order.clear();
        self.order.extend_from_slice(&self.starts[..cells_len]);
        self.order.resize(cells_len + n, 0);
        let (cursors, order) = self.order.split_at_mut(cells_len);
        for (i, &cell) in self.cell_of.iter().enumerate() {
            let cursor = &mut cursors[cell as usize];
            order[*cursor as usize] = i as u32;
            *cursor += 1;
        }
        // Each pair is looked at once, by the body that comes first in this sweep: the rest of
        // its row range (its own cell after it, and the cell to the right), and the three cells
        // of the next row. Bodies in the cells to the left and above find it in their sweep.
        // Cells are at least a radius wide, so the 3 x 3 cells around a body hold every body
        // within its radius.
        let (cols, rows, radius_sq) = (self.cols, self.rows, self.radius_sq);
        let cells = Cells { inv_cell: self.inv_cell, cols, rows };
        let (sorted, starts, contacts) = (&self.sorted, &self.starts, &mut self.contacts);
        for i in 0..n {
            let (ax, ay, ateam) = (sorted.xs[i], sorted.ys[i], sorted.teams[i]);
            let cell = cells.cell_of(ax, ay) as usize;
            let (row, col) = (cell / cols, cell % cols);
            let col_lo = col.saturating_sub(1);
            let col_hi = (col + 1).min(cols - 1);
            let mut hits = 0;
            let mut sweep = |range: std::ops::Range<usize>| {
                for b in range {
                    let (dx, dy) = (sorted.xs[b] - ax, sorted.ys[b] - ay);
                    if sorted.teams[b] != ateam && dx * dx + dy * dy <= radius_sq {
                        hits += 1;
                        contacts[order[b] as usize] += 1;
                    }
                }
            };
            sweep(i + 1..starts[row * cols + col_hi + 1] as usize);
            if row + 1 < rows {
                let first = (row + 1) * cols;
                sweep(starts[first + col_lo] as usize..starts[first + col_hi + 1] as usize);
            }
            contacts[order[i] as usize] += hits;
        }
        self.contacts.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// The same count by brute force, O(n^2).
    fn naive(bodies: &[(f32, f32, u8)], radius: f32) -> Vec<u32> {
        bodies
            .iter()
            .map(|a| {
                bodies
                    .iter()
                    .filter(|b| {
                        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                        b.2 != a.2 && dx * dx + dy * dy <= radius * radius
                    })
                    .count() as u32
            })
            .collect()
    }

    /// Both ways of counting agree with brute force on `bodies`.
    fn check(grid: &mut Grid, bodies: &[(f32, f32, u8)], radius: f32) -> Vec<u32> {
        grid.clear();
        for &(x, y, team) in bodies {
            grid.push(x, y, team);
        }
        let expected = naive(bodies, radius);
        let counted: Vec<u32> = grid.count_contacts().collect();
        assert_eq!(counted, expected);
        let asked: Vec<u32> = bodies.iter().map(|&(x, y, team)| grid.contacts_of(x, y, team)).collect();
        assert_eq!(asked, expected);
        expected
    }

    #[test]
    fn matches_brute_force() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let mut grid = Grid::new(50.0, 30.0, 2.5);
        for round in 0..3 {
            let bodies: Vec<(f32, f32, u8)> = (0..400 + round * 100)
                .map(|_| (rng.random::<f32>() * 50.0, rng.random::<f32>() * 30.0, rng.random_range(0..3)))
                .collect();
            assert!(check(&mut grid, &bodies, 2.5).iter().any(|&c| c > 0));
        }
    }

    #[test]
    fn pairs_exactly_one_radius_apart_across_cell_edges_count() {
        // Radius 1, cells 2 wide: bodies on the cell edges (x = 2, 4) and pairs at distance
        // exactly 1 straddling them, both axes.
        let mut grid = Grid::new(8.0, 8.0, 1.0);
        let bodies = [
            (1.5, 1.0, 0),
            (2.5, 1.0, 1),
            (2.0, 3.0, 0),
            (3.0, 3.0, 1),
            (4.0, 4.0, 0),
            (4.0, 5.0, 1),
            (6.0, 1.5, 0),
            (6.0, 2.5, 1),
        ];
        assert_eq!(check(&mut grid, &bodies, 1.0), [1, 1, 1, 1, 1, 1, 1, 1]);
    }

    #[test]
    fn edges_and_outside_positions_count() {
        let mut grid = Grid::new(10.0, 10.0, 1.0);
        let bodies =
            [(10.0, 10.0, 0), (9.5, 9.5, 1), (-0.5, 0.0, 0), (0.2, 0.1, 1), (25.0, 3.0, 0), (24.5, 3.0, 1)];
        assert_eq!(check(&mut grid, &bodies, 1.0), [1, 1, 1, 1, 1, 1]);
    }

    /// The build cut into bands on a pool of several threads sorts exactly as on one: same
    /// bodies in the same order, same cell starts, same disorder, whether the bodies came one
    /// by one or through [`Grid::push_with`] (chunks on the pool); and that order is the
    /// stable sort by cell.
    #[cfg(feature = "parallel")]
    #[test]
    fn a_banded_build_sorts_as_a_single_band_does() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let n = PARALLEL_BUILD + 12_345;
        // Half in cell order with drift, half anywhere: both band paths see scattered bodies.
        let bodies: Vec<(f32, f32, u8)> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    ((i % 400) as f32 * 0.5 + rng.random::<f32>(), (i / 400) as f32 * 1.3, 0)
                } else {
                    (rng.random::<f32>() * 210.0, rng.random::<f32>() * 190.0, 1)
                }
            })
            .collect();
        let build = |threads: usize, one_by_one: bool| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let mut grid = Grid::new(200.0, 180.0, 0.7);
                grid.push(1.0, 1.0, 0);
                grid.build();
                grid.clear();
                if one_by_one {
                    for &(x, y, team) in &bodies {
                        grid.push(x, y, team);
                    }
                } else {
                    // The first one by one: `push_with` must carry on from it.
                    grid.push(bodies[0].0, bodies[0].1, bodies[0].2);
                    grid.push_with(n - 1, |i| bodies[i + 1]);
                }
                grid.build();
                let sorted = &grid.sorted;
                let sorted: Vec<(u32, u32, u8)> = (0..n)
                    .map(|k| (sorted.xs[k].to_bits(), sorted.ys[k].to_bits(), sorted.teams[k]))
                    .collect();
                (sorted, grid.starts.clone(), grid.far_steps)
            })
        };
        let one = build(1, true);
        assert_eq!(one.0.len(), n);
        assert!(one.2 > 0);
        for threads in [1, 2, 3, 7] {
            for one_by_one in [true, false] {
                assert!(
                    build(threads, one_by_one) == one,
                    "{threads} threads ({one_by_one}) sort differently"
                );
            }
        }
        // And the order is the stable sort by cell, with the starts of each cell.
        let cells = Grid::new(200.0, 180.0, 0.7).cells();
        let mut expected: Vec<(u32, (u32, u32, u8))> = bodies
            .iter()
            .map(|&(x, y, team)| (cells.cell_of(x, y), (x.to_bits(), y.to_bits(), team)))
            .collect();
        expected.sort_by_key(|&(cell, _)| cell);
        assert!(one.0.iter().eq(expected.iter().map(|(_, body)| body)));
        for (k, &(cell, _)) in expected.iter().enumerate() {
            assert!((one.1[cell as usize]..one.1[cell as usize + 1]).contains(&(k as u32)));
        }
    }

    #[test]
    fn disorder_measures_distance_from_cell_order() {
        let mut grid = Grid::new(100.0, 100.0, 0.5);
        let rows: Vec<f32> = (0..100).map(|r| r as f32 + 0.5).collect();
        for &y in &rows {
            grid.push(50.0, y, 0);
        }
        grid.build();
        assert_eq!(grid.disorder(), 0.0, "pushed in cell order");
        grid.clear();
        for &y in rows.iter().rev().step_by(FAR_ROWS + 1) {
            grid.push(50.0, y, 0);
            grid.push(50.0, 99.5 - y, 0);
        }
        grid.build();
        assert!(grid.disorder() > 0.9, "{}", grid.disorder());
    }
}

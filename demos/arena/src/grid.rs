//! A uniform grid (spatial hash) for finding enemies within the collision radius.

use mosaic::Entity;

/// One body pushed into the grid, copied out of the world.
#[derive(Clone, Copy, Debug)]
struct Body {
    x: f32,
    y: f32,
    team: u8,
    /// Index of the body in push order.
    index: u32,
}

/// A uniform grid with cells as wide as the collision radius, rebuilt every frame by a counting
/// sort over cells.
///
/// Use: [`Grid::clear`], [`Grid::push`] every body, then [`Grid::count_contacts`]. Every buffer
/// is cleared and refilled, never dropped, so a grid reused across frames stops allocating once
/// it has seen its largest frame.
///
/// Complexity: O(n + c) to build for n bodies and c cells, and O(n * k) to count contacts, with k
/// the mean number of bodies in the 3 x 3 cells around a body (constant at a fixed density).
//
// Invariants after `count_contacts`:
// - `starts.len() == cells + 1`, non-decreasing, `starts[cells] == bodies.len()`;
// - `sorted[starts[c]..starts[c + 1]]` are the bodies in cell `c`, in push order.
#[derive(Debug)]
pub struct Grid {
    /// Side of a cell, in arena units (the collision radius).
    cell: f32,
    cols: usize,
    rows: usize,
    radius_sq: f32,
    entities: Vec<Entity>,
    bodies: Vec<Body>,
    cell_of: Vec<u32>,
    starts: Vec<u32>,
    sorted: Vec<Body>,
    sorted_cell: Vec<u32>,
    contacts: Vec<u32>,
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
        let cols = ((width / radius).ceil() as usize).max(1);
        let rows = ((height / radius).ceil() as usize).max(1);
        Self {
            cell: radius,
            cols,
            rows,
            radius_sq: radius * radius,
            entities: Vec::new(),
            bodies: Vec::new(),
            cell_of: Vec::new(),
            starts: Vec::new(),
            sorted: Vec::new(),
            sorted_cell: Vec::new(),
            contacts: Vec::new(),
        }
    }

    /// Forgets every body, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.entities.clear();
        self.bodies.clear();
    }

    /// Adds a body of `team` at `(x, y)`. Positions outside the arena count in the nearest cell.
    #[inline]
    pub fn push(&mut self, entity: Entity, x: f32, y: f32, team: u8) {
        let index = self.bodies.len() as u32;
        self.entities.push(entity);
        self.bodies.push(Body { x, y, team, index });
    }

    /// The cell of a coordinate along an axis with `len` cells.
    #[inline]
    fn axis_cell(&self, value: f32, len: usize) -> usize {
        // `as` saturates: negatives and NaN give 0.
        ((value / self.cell) as usize).min(len - 1)
    }

    /// Sorts the bodies pushed since the last [`Grid::clear`] into their cells, for
    /// [`Grid::contacts_of`]. O(n + c) for n bodies and c cells; allocates only to grow.
    pub fn build(&mut self) {
        let cells = self.cols * self.rows;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        self.cell_of.clear();
        for body in &self.bodies {
            let cell = self.axis_cell(body.y, self.rows) * self.cols + self.axis_cell(body.x, self.cols);
            self.cell_of.push(cell as u32);
            self.starts[cell + 1] += 1;
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        // Scatter with a moving cursor per cell: `starts[c]` walks to the end of cell `c`, which
        // is the start of `c + 1`; shifting back afterwards restores the starts.
        self.sorted.clear();
        self.sorted.resize(self.bodies.len(), Body { x: 0.0, y: 0.0, team: 0, index: 0 });
        self.sorted_cell.clear();
        self.sorted_cell.resize(self.bodies.len(), 0);
        for (body, &cell) in self.bodies.iter().zip(&self.cell_of) {
            let slot = &mut self.starts[cell as usize];
            self.sorted[*slot as usize] = *body;
            self.sorted_cell[*slot as usize] = cell;
            *slot += 1;
        }
        self.starts.copy_within(0..cells, 1);
        self.starts[0] = 0;
    }

    /// How many bodies of a team other than `team` lie within the collision radius of `(x, y)`
    /// (inclusive), among those sorted by the last [`Grid::build`]. Read-only, so any number of
    /// threads may ask at once; for a pushed body it is the count [`Grid::count_contacts`] gives
    /// (the distance test is symmetric). O(k) for the k bodies in the 3 x 3 cells around.
    #[inline]
    pub fn contacts_of(&self, x: f32, y: f32, team: u8) -> u32 {
        let (row, col) = (self.axis_cell(y, self.rows), self.axis_cell(x, self.cols));
        let col_lo = col.saturating_sub(1);
        let col_hi = (col + 1).min(self.cols - 1);
        let mut hits = 0;
        for r in row.saturating_sub(1)..=(row + 1).min(self.rows - 1) {
            let range = self.starts[r * self.cols + col_lo] as usize
                ..self.starts[r * self.cols + col_hi + 1] as usize;
            for b in &self.sorted[range] {
                let (dx, dy) = (x - b.x, y - b.y);
                hits += u32::from(b.team != team && dx * dx + dy * dy <= self.radius_sq);
            }
        }
        hits
    }

    /// For every body pushed since the last [`Grid::clear`], in push order: its entity and how
    /// many bodies of another team lie within the collision radius (inclusive). Builds the grid
    /// ([`Grid::build`]) and looks at each pair once, on the calling thread.
    pub fn count_contacts(&mut self) -> impl ExactSizeIterator<Item = (Entity, u32)> + '_ {
        self.build();
        self.contacts.clear();
        self.contacts.resize(self.bodies.len(), 0);
        // Each pair is looked at once, by the body that comes first in this sweep: the rest of
        // its row range (its own cell after it, and the cell to the right), and the three cells
        // of the next row. Bodies in the cells to the left and above find it in their sweep.
        let (cols, rows, radius_sq) = (self.cols, self.rows, self.radius_sq);
        let (sorted, starts, contacts) = (&self.sorted, &self.starts, &mut self.contacts);
        for (i, (a, &cell)) in sorted.iter().zip(&self.sorted_cell).enumerate() {
            let cell = cell as usize;
            let (row, col) = (cell / cols, cell % cols);
            let col_lo = col.saturating_sub(1);
            let col_hi = (col + 1).min(cols - 1);
            let mut hits = 0;
            let mut sweep = |range: std::ops::Range<usize>| {
                for b in &sorted[range] {
                    let (dx, dy) = (b.x - a.x, b.y - a.y);
                    if b.team != a.team && dx * dx + dy * dy <= radius_sq {
                        hits += 1;
                        contacts[b.index as usize] += 1;
                    }
                }
            };
            sweep(i + 1..starts[row * cols + col_hi + 1] as usize);
            if row + 1 < rows {
                let first = (row + 1) * cols;
                sweep(starts[first + col_lo] as usize..starts[first + col_hi + 1] as usize);
            }
            contacts[a.index as usize] += hits;
        }
        self.entities.iter().copied().zip(self.contacts.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mosaic::World;
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

    #[test]
    fn matches_brute_force() {
        let mut world = World::new();
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let mut grid = Grid::new(50.0, 30.0, 2.5);
        for round in 0..3 {
            let bodies: Vec<(f32, f32, u8)> = (0..400 + round * 100)
                .map(|_| (rng.random::<f32>() * 50.0, rng.random::<f32>() * 30.0, rng.random_range(0..3)))
                .collect();
            grid.clear();
            for &(x, y, team) in &bodies {
                grid.push(world.spawn_empty(), x, y, team);
            }
            let expected = naive(&bodies, 2.5);
            assert!(expected.iter().any(|&c| c > 0));
            let counted: Vec<u32> = grid.count_contacts().map(|(_, c)| c).collect();
            assert_eq!(counted, expected);
            let asked: Vec<u32> = bodies.iter().map(|&(x, y, team)| grid.contacts_of(x, y, team)).collect();
            assert_eq!(asked, expected);
        }
    }

    #[test]
    fn edges_and_outside_positions_count() {
        let mut world = World::new();
        let mut grid = Grid::new(10.0, 10.0, 1.0);
        let mut entities = Vec::new();
        for (x, y, team) in [(10.0, 10.0, 0), (9.5, 9.5, 1), (-0.5, 0.0, 0), (0.2, 0.1, 1)] {
            entities.push(world.spawn_empty());
            grid.push(entities[entities.len() - 1], x, y, team);
        }
        let counted: Vec<(Entity, u32)> = grid.count_contacts().collect();
        let expected: Vec<(Entity, u32)> = entities.into_iter().map(|e| (e, 1)).collect();
        assert_eq!(counted, expected);
        for (x, y, team) in [(10.0, 10.0, 0), (9.5, 9.5, 1), (-0.5, 0.0, 0), (0.2, 0.1, 1)] {
            assert_eq!(grid.contacts_of(x, y, team), 1);
        }
    }
}

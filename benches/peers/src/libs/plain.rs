//! The plain-`Vec` baseline: one `Vec` per component type, rows lined up by index, the loops
//! written by hand. It is what an ECS would cost if bookkeeping were free; ratios to it show the
//! price of the bookkeeping.

use std::any::Any;
use std::hint::black_box;

use rayon::prelude::*;

use crate::components::{START_VELOCITY, heavy_step, start_position, tagged};
use crate::library::{
    Bench, Library, N_ADD_REMOVE, N_FILTER, N_FRAG, N_HEAVY, N_SCHEDULE, N_SERIALIZE, N_SIMPLE, Profile,
    Scale, Workload, fresh, keep, repeat,
};
use crate::libs::serde_rows;

crate::components!();

/// Four columns, one per component, row `i` is entity `i`.
#[derive(Default)]
struct Columns {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

impl Columns {
    fn push(&mut self, (t, p, r, v): Row) {
        self.transforms.push(t);
        self.positions.push(p);
        self.rotations.push(r);
        self.velocities.push(v);
    }

    fn filled(n: usize) -> Columns {
        let mut columns = Columns::default();
        columns.extend(n, (0..n).map(row));
        columns
    }

    /// Reserves `n` rows, then pushes each (what a batch spawn does).
    fn extend(&mut self, n: usize, rows: impl Iterator<Item = Row>) {
        self.transforms.reserve(n);
        self.positions.reserve(n);
        self.rotations.reserve(n);
        self.velocities.reserve(n);
        for r in rows {
            self.push(r);
        }
    }
}

/// Serializes the four columns as a sequence of rows, without building a row `Vec` first.
struct AsRows<'a>(&'a Columns);

impl serde::Serialize for AsRows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        serializer.collect_seq(
            c.transforms
                .iter()
                .zip(&c.positions)
                .zip(&c.rotations)
                .zip(&c.velocities)
                .map(|(((t, p), r), v)| (t, p, r, v)),
        )
    }
}

/// Position and velocity columns for the scaling grid and the memory figure.
#[derive(Default)]
struct Moving {
    positions: Vec<Position>,
    velocities: Vec<Velocity>,
}

impl Moving {
    fn spawn(&mut self, n: usize) {
        self.positions.extend((0..n).map(|i| Position(start_position(i))));
        self.velocities.extend((0..n).map(|_| Velocity(START_VELOCITY)));
    }
}

/// `filter_iter`'s columns: a `bool` per row says whether it has the tag.
fn tagged_columns() -> (Moving, Vec<bool>) {
    let mut moving = Moving::default();
    moving.spawn(N_FILTER);
    (moving, (0..N_FILTER).map(tagged).collect())
}

/// The baseline under test.
pub struct Plain;

fn swap_all<X, Y>(xs: &mut [X], ys: &mut [Y], f: impl Fn(&mut X, &mut Y)) {
    for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
        f(x, y);
    }
}

impl Library for Plain {
    fn name(&self) -> &'static str {
        "plain"
    }

    fn crate_name(&self) -> Option<&'static str> {
        None
    }

    fn notes(&self) -> &'static str {
        "one `Vec` per component, rows lined up by index; insert reserves then pushes; heavy_compute on \
         rayon's `par_iter_mut`; schedule runs the three loops in sequence; add_remove sets then clears a \
         `Vec<Option<B>>`; filter_iter / option_iter: a `Vec<bool>` tag column tested per row; serialize writes the columns as rows and reads rows back into columns"
    }

    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>> {
        Some(match workload {
            Workload::ChangeDetect => return None,
            Workload::SimpleInsert => fresh(Columns::default, |c| c.extend(N_SIMPLE, (0..N_SIMPLE).map(row))),
            Workload::SimpleIter => repeat(Columns::filled(N_SIMPLE), |c| {
                let c = black_box(c);
                for (p, v) in c.positions.iter_mut().zip(&c.velocities) {
                    p.0 += v.0;
                }
            }),
            Workload::SimpleIterFor => repeat(Columns::filled(N_SIMPLE), |c| {
                let c = black_box(c);
                for (p, v) in c.positions.iter_mut().zip(&c.velocities) {
                    p.0 += v.0;
                }
            }),
            Workload::FilterIter => repeat(tagged_columns(), |(m, tags)| {
                let (m, tags) = black_box((m, tags));
                for ((p, v), &t) in m.positions.iter_mut().zip(&m.velocities).zip(tags.iter()) {
                    if t {
                        p.0 += v.0;
                    }
                }
            }),
            Workload::OptionIter => repeat(tagged_columns(), |(m, tags)| {
                let (m, tags) = black_box((m, tags));
                for ((p, v), &t) in m.positions.iter_mut().zip(&m.velocities).zip(tags.iter()) {
                    if t { p.0 += v.0 } else { p.0 -= v.0 }
                }
            }),
            Workload::FragIter => {
                // Every frag type's entities hold `Data`: the baseline is one `Data` column.
                let data = vec![frag::Data(1.0); 26 * N_FRAG];
                repeat(data, |d| {
                    for x in black_box(d).iter_mut() {
                        x.0 *= 2.0;
                    }
                })
            }
            Workload::HeavyCompute => repeat(Columns::filled(N_HEAVY), |c| {
                let c = black_box(c);
                c.transforms
                    .par_iter_mut()
                    .zip(c.positions.par_iter_mut())
                    .for_each(|(t, p)| heavy_step(&mut t.0, &mut p.0));
            }),
            Workload::Schedule => {
                use sched::{A, B, C, D, E};
                // Rows 0..40k have A and B; C rows are entities 10k..40k; D and E 10k each.
                let state = (
                    vec![A(0.0); 4 * N_SCHEDULE],
                    vec![B(1.0); 4 * N_SCHEDULE],
                    vec![C(2.0); 3 * N_SCHEDULE],
                    vec![D(3.0); N_SCHEDULE],
                    vec![E(4.0); N_SCHEDULE],
                );
                repeat(state, |s| {
                    let (a, b, c, d, e) = black_box(s);
                    swap_all(a, b, |a, b| std::mem::swap(&mut a.0, &mut b.0));
                    let (_, c_rest) = c.split_at_mut(N_SCHEDULE);
                    let (c_d, c_e) = c_rest.split_at_mut(N_SCHEDULE);
                    swap_all(c_d, d, |c, d| std::mem::swap(&mut c.0, &mut d.0));
                    swap_all(c_e, e, |c, e| std::mem::swap(&mut c.0, &mut e.0));
                })
            }
            Workload::AddRemove => {
                let state = (vec![sched::A(0.0); N_ADD_REMOVE], vec![None::<sched::B>; N_ADD_REMOVE]);
                repeat(state, |(_, b)| {
                    for slot in black_box(&mut *b).iter_mut() {
                        *slot = Some(sched::B(0.0));
                    }
                    for slot in black_box(&mut *b).iter_mut() {
                        black_box(slot.take());
                    }
                })
            }
            Workload::SerializeBinary | Workload::SerializeText => {
                let text = workload == Workload::SerializeText;
                keep(Columns::filled(N_SERIALIZE), move |c| {
                    let rows: Vec<Row> = serde_rows::round_trip_from(&AsRows(c), text);
                    let mut out = Columns::default();
                    out.extend(rows.len(), rows.into_iter());
                    out
                })
            }
        })
    }

    fn scale(&self, op: Scale, n: usize, profile: Profile) -> Option<Box<dyn Bench>> {
        Some(match op {
            Scale::Create => fresh(Moving::default, move |m| m.spawn(n)),
            Scale::Iterate => {
                let mut moving = Moving::default();
                moving.spawn(n);
                // The idle systems have nothing to visit; the baseline runs only the moving loop.
                let _ = profile;
                repeat(moving, |m| {
                    let m = black_box(m);
                    for (p, v) in m.positions.iter_mut().zip(&m.velocities) {
                        p.0 += v.0;
                    }
                })
            }
            Scale::CreateDestroy => repeat(Moving::default(), move |m| {
                m.spawn(n);
                m.positions.clear();
                m.velocities.clear();
            }),
        })
    }

    fn populate(&self, n: usize) -> Option<Box<dyn Any>> {
        let mut moving = Moving::default();
        moving.spawn(n);
        Some(Box::new(moving))
    }
}

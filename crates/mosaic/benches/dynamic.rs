//! A query built at run time against the typed query doing the same work: 10^5 rows of a
//! two-field `f32` component, each round `x += 1; y += x / 2` on every row, through
//! `world.query::<&mut P>()` (typed), a `DynamicQuery` with one `write` term and two
//! `TermField<f32>` handles (dynamic), and a plain `Vec<[f32; 2]>` (the floor).
//!
//! Each round times the three in turn; the table gives each one's median over the rounds, in
//! ns per row, and its ratio to the typed query (the target: dynamic at most 1.5x).
//! Run: `cargo bench -p mosaic-ecs --bench dynamic` (`-- --rounds N`, default 21).
#![allow(missing_docs, reason = "a benchmark binary")]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{arg, median};
use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Field, Scalar, Schema};
use mosaic::{Component, World};

#[derive(Component, Clone, Copy)]
struct P {
    x: f32,
    y: f32,
}

const ROWS: usize = 100_000;

fn main() {
    let rounds: usize = arg("--rounds").and_then(|r| r.parse().ok()).unwrap_or(21);

    let mut typed = World::new();
    typed.spawn_batch((0..ROWS).map(|i| P { x: i as f32, y: 0.0 }));

    let mut dynamic = World::new();
    let schema = Schema::new(vec![Field::new("x", Scalar::F32), Field::new("y", Scalar::F32)]).unwrap();
    let p = dynamic.register_dynamic(ComponentDescriptor::new("P", schema)).unwrap();
    let schema = dynamic.dynamic_schema(p).unwrap().clone();
    let mut first = None;
    for i in 0..ROWS {
        let mut v = DynamicValue::new(&schema);
        v.set_path("x", i as f32).unwrap();
        let e = dynamic.spawn_dynamic([(p, v)]).unwrap();
        first.get_or_insert(e);
    }
    let query = dynamic.query_builder().write(p).build().unwrap();
    let (px, py) = (query.field::<f32>(0, "x").unwrap(), query.field::<f32>(0, "y").unwrap());

    let mut plain: Vec<[f32; 2]> = (0..ROWS).map(|i| [i as f32, 0.0]).collect();

    let (mut t_typed, mut t_dynamic, mut t_plain) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = Instant::now();
        typed.query::<&mut P>().for_each(|v| {
            v.x += 1.0;
            v.y += v.x * 0.5;
        });
        t_typed.push(start.elapsed());

        let start = Instant::now();
        query
            .for_each_mut(&mut dynamic, |mut row| {
                let x = row.get(px) + 1.0;
                row.set(px, x);
                row.set(py, row.get(py) + x * 0.5);
            })
            .unwrap();
        t_dynamic.push(start.elapsed());

        let start = Instant::now();
        for v in black_box(&mut plain).iter_mut() {
            v[0] += 1.0;
            v[1] += v[0] * 0.5;
        }
        t_plain.push(start.elapsed());
    }
    // The dynamic and plain loops did the same arithmetic: compare the first row.
    let y = dynamic.get_by_id(first.unwrap(), p).unwrap().get(schema.field::<f32>("y").unwrap());
    assert_eq!(y, plain[0][1]);

    let base = median(&mut t_typed);
    let per = |d: Duration| d.as_secs_f64() * 1e9 / ROWS as f64;
    println!("| way | ns per row (median of {rounds} rounds) | / typed |");
    println!("|---|---|---|");
    for (name, samples) in [("typed", &mut t_typed), ("dynamic", &mut t_dynamic), ("plain Vec", &mut t_plain)]
    {
        let m = median(samples);
        println!("| {name} | {:.2} | {:.2} |", per(m), m.as_secs_f64() / base.as_secs_f64());
    }
}

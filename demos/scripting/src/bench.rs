//! `arena-script --bench-script ROUNDS`: the cost per row of one system written four ways over
//! the same rows, timed in interleaved rounds (each round runs every form once, so a noisy
//! machine slows all of them alike), reported as medians and ratios.
//!
//! The system ([`REGEN`]): a shield's `absorb` grows by 0.25 a frame up to 4; a full shield
//! turns it into a charge, up to 3. The four forms:
//! 1. the Rhai script, through [`Script::run`] (walk, row copies, one script call per row);
//! 2. the same binding with the script call replaced by a Rust body that reads and writes back
//!    every field through the row object ([`Script::run_binding_only`]);
//! 3. a Rust closure over a dynamic query of the same run-time component, with field handles
//!    resolved once;
//! 4. a Rust closure over a typed component of the same fields.
//!
//! All four start from the same values and must end with the same ones (checked).

use std::fmt;
use std::time::{Duration, Instant};

use mosaic::dynamic::DynamicValue;
use mosaic::{Component, World};

use crate::{Script, ScriptError};

/// The benchmarked system, as a script.
pub const REGEN: &str = r#"
component("Shield", #{ absorb: "f32", charges: "u8", last: "i32" });
system("regen", ["Shield"]);
fn regen() {
    this.absorb = min(this.absorb + 0.25, 4.0);
    if this.absorb >= 4.0 && this.charges < 3 {
        this.charges += 1;
        this.absorb = 0.0;
    }
}
"#;

/// The typed twin of the script's `Shield`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct TypedShield {
    absorb: f32,
    charges: u8,
    last: i32,
}

/// The starting `absorb` of row `i` (varied, so the branch goes both ways).
fn start(i: usize) -> f32 {
    (i % 17) as f32 * 0.25
}

/// Medians of the four forms, per row.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Rows per run.
    pub rows: usize,
    /// Rounds (samples per form).
    pub rounds: u32,
    /// The Rhai script, in nanoseconds per row.
    pub script: f64,
    /// The binding alone (the script call replaced by a Rust body touching every field), in
    /// nanoseconds per row.
    pub binding: f64,
    /// A Rust closure over the dynamic query, in nanoseconds per row.
    pub rust_dynamic: f64,
    /// A Rust closure over the typed component, in nanoseconds per row.
    pub rust_typed: f64,
    /// Whether the script and both Rust forms ended with the same values (sums of `absorb`
    /// and `charges`).
    pub agree: bool,
}

/// Times the four forms over `rows` rows for `rounds` interleaved rounds.
///
/// # Errors
/// A script error (none for the built-in script), or a `rows` of 0 refused as a load error.
pub fn compare(rows: usize, rounds: u32) -> Result<Comparison, ScriptError> {
    let rows = rows.clamp(1, 1 << 22);
    let mut scripted = World::new();
    let mut script = Script::load("bench.rhai", REGEN, &mut scripted)?;
    let mut binding = World::new();
    let mut binding_script = Script::load("bench.rhai", REGEN, &mut binding)?;
    let mut dynamic = World::new();
    let _ = Script::load("bench.rhai", REGEN, &mut dynamic)?;
    let mut typed = World::new();
    for world in [&mut scripted, &mut binding, &mut dynamic] {
        let id = world.component_id_by_name("Shield").expect("declared");
        let schema = std::sync::Arc::clone(world.dynamic_schema(id).expect("a schema"));
        world.reserve(rows);
        for i in 0..rows {
            let mut value = DynamicValue::new(&schema);
            value.set_path("absorb", start(i)).expect("an f32 field");
            world.spawn_dynamic([(id, value)]).expect("a value of its schema");
        }
    }
    for i in 0..rows {
        typed.spawn(TypedShield { absorb: start(i), charges: 0, last: 0 });
    }
    let id = dynamic.component_id_by_name("Shield").expect("declared");
    let query = dynamic.query_builder().write(id).build().expect("one write term");
    let absorb = query.field::<f32>(0, "absorb").expect("declared");
    let charges = query.field::<u8>(0, "charges").expect("declared");
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..rounds {
        let t = Instant::now();
        script.run(&mut scripted)?;
        times[0].push(t.elapsed());

        let t = Instant::now();
        binding_script.run_binding_only(&mut binding)?;
        times[1].push(t.elapsed());

        let t = Instant::now();
        query
            .for_each_mut(&mut dynamic, |mut row| {
                let mut a = (row.get(absorb) + 0.25).min(4.0);
                let c = row.get(charges);
                if a >= 4.0 && c < 3 {
                    row.set(charges, c + 1);
                    a = 0.0;
                }
                row.set(absorb, a);
            })
            .expect("built on this world");
        times[2].push(t.elapsed());

        let t = Instant::now();
        typed.query::<&mut TypedShield>().for_each(|s| {
            let s = &mut *s;
            s.absorb = (s.absorb + 0.25).min(4.0);
            if s.absorb >= 4.0 && s.charges < 3 {
                s.charges += 1;
                s.absorb = 0.0;
            }
        });
        times[3].push(t.elapsed());
    }
    // The script and the Rust forms computed the same values.
    let sum = |world: &World| {
        let id = world.component_id_by_name("Shield").expect("declared");
        let q = world.query_builder().read(id).build().expect("one read term");
        let (a, c) = (q.field::<f32>(0, "absorb").expect("f32"), q.field::<u8>(0, "charges").expect("u8"));
        let mut total = (0.0f64, 0u64);
        q.for_each(world, |row| total = (total.0 + f64::from(row.get(a)), total.1 + u64::from(row.get(c))))
            .expect("reads");
        total
    };
    let mut typed_total = (0.0f64, 0u64);
    typed.query::<&TypedShield>().for_each(|s| {
        typed_total = (typed_total.0 + f64::from(s.absorb), typed_total.1 + u64::from(s.charges));
    });
    let (s, d) = (sum(&scripted), sum(&dynamic));
    let agree = s == d && d == typed_total;
    let per_row = |mut v: Vec<Duration>| {
        v.sort_unstable();
        v[v.len() / 2].as_secs_f64() * 1e9 / rows as f64
    };
    let [script, binding, rust_dynamic, rust_typed] = times.map(per_row);
    Ok(Comparison { rows, rounds, script, binding, rust_dynamic, rust_typed, agree })
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = |d: f64| d;
        let ratio = |d: f64| d / self.rust_typed.max(1e-3);
        writeln!(
            f,
            "per-row cost of the shield regen system, {} rows, medians of {} interleaved rounds",
            self.rows, self.rounds
        )?;
        let line = |f: &mut fmt::Formatter<'_>, name: &str, d: f64| {
            writeln!(f, "  {name:<40} {:9.2} ns/row  {:8.1}x typed Rust", ns(d), ratio(d))
        };
        line(f, "Rhai script (walk + copies + call)", self.script)?;
        line(f, "binding alone (no Rhai call)", self.binding)?;
        line(f, "Rust closure, dynamic query", self.rust_dynamic)?;
        line(f, "Rust closure, typed query", self.rust_typed)?;
        writeln!(f, "  script and Rust results agree: {}", if self.agree { "yes" } else { "NO" })?;
        write!(
            f,
            "  the script call is {:.0}% of the scripted row; the script is {:.1}x the Rust closure over the same dynamic query",
            100.0 * (1.0 - ns(self.binding) / ns(self.script).max(1e-3)),
            ns(self.script) / ns(self.rust_dynamic).max(1e-3)
        )
    }
}

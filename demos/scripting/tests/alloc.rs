//! Mosaic's side of the binding allocates nothing per row: the dynamic query walks, the copies
//! between query rows and the row object, the checked conversions of `this.x` / `this.x = v`,
//! the write-back walk and the bridged `Health` writes. Measured with
//! [`Script::run_binding_only`], which runs each system exactly as a frame does but replaces
//! each row's Rhai call with a Rust body that reads every field as a Rhai value and writes every
//! writable one back; a warmed-up frame over N rows and over 2N rows must both allocate nothing.
//!
//! The whole frame with the Rhai calls is measured too and its allocations per row printed:
//! those are Rhai's (each `call_fn` sets up its own runtime state), not Mosaic's.
//!
//! One test in this file, so no other test allocates concurrently under the counting allocator.

use arena::components::{Health, Team};
use mosaic::World;
use mosaic::dynamic::DynamicValue;
use mosaic_scripting::Script;

/// dhat's allocator counts every heap block (its testing mode makes the counts exact).
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

fn allocations() -> u64 {
    dhat::HeapStats::get().total_blocks
}

const SCRIPT: &str = r#"
component("Shield", #{ absorb: "f32", charges: "u8", last: "i32" });
system("shield", ["Shield", "Health", "Team"]);
fn shield() {
    let lost = this.last - this.health;
    if lost > 0 && this.absorb >= 1.0 { this.health += 1; this.absorb -= 1.0; }
    this.absorb = min(this.absorb + 0.25, 4.0);
    this.last = this.health;
}
"#;

/// A world of `rows` shielded fighters and the script loaded into it.
fn world(rows: u32) -> (World, Script) {
    let mut world = World::new();
    // Registers the bridged Rust components before the script names them.
    world.spawn((Health(1), Team(1)));
    let script = Script::load("alloc.rhai", SCRIPT, &mut world).unwrap();
    let shield = world.component_id_by_name("Shield").unwrap();
    let schema = std::sync::Arc::clone(world.dynamic_schema(shield).unwrap());
    for i in 0..rows {
        let mut value = DynamicValue::new(&schema);
        value.set_path("last", 10i32).unwrap();
        let e = world.spawn((Health(10 - (i % 3) as i32), Team((i % 2) as u8)));
        world.insert_by_id(e, shield, value).unwrap();
    }
    (world, script)
}

/// Allocations of one warmed-up frame: `frame` run twice to warm, then counted once.
fn counted(world: &mut World, script: &mut Script, frame: fn(&mut Script, &mut World)) -> u64 {
    frame(script, world);
    frame(script, world);
    let before = allocations();
    frame(script, world);
    allocations() - before
}

#[test]
fn the_binding_allocates_nothing_per_row() {
    let _profiler = dhat::Profiler::builder().testing().build();
    const N: u32 = 2_000;
    let binding: fn(&mut Script, &mut World) = |s, w| s.run_binding_only(w).unwrap();
    let scripted: fn(&mut Script, &mut World) = |s, w| s.run(w).unwrap();
    let (mut small, mut small_script) = world(N);
    let (mut large, mut large_script) = world(2 * N);
    let binding_n = counted(&mut small, &mut small_script, binding);
    let binding_2n = counted(&mut large, &mut large_script, binding);
    assert_eq!((binding_n, binding_2n), (0, 0), "binding allocations at {N} rows and {} rows", 2 * N);
    let rhai_n = counted(&mut small, &mut small_script, scripted);
    let rhai_2n = counted(&mut large, &mut large_script, scripted);
    eprintln!(
        "a frame with the Rhai calls: {rhai_n} allocations at {N} rows, {rhai_2n} at {} rows: {:.2} per row, all Rhai's",
        2 * N,
        (rhai_2n as f64 - rhai_n as f64) / f64::from(N)
    );
}

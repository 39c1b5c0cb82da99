//! The sample script over 600 frames: the same checksum at 1 and 2 threads and under rollback 8,
//! and the script changes the arena.

use arena::report::checksum;
use arena::scene::Scene;
use arena::sim::Sim;
use mosaic::ExecutorKind;
use mosaic_scripting::{Outcome, ScriptedSim};

const SHIELD: &str = include_str!("../../scripts/shield.rhai");
/// Small, so 600 frames (5,400 with rollback 8) stay quick in debug builds.
const ENTITIES: u64 = 600;
const FRAMES: u32 = 600;

fn run(threads: usize, rollback: u32) -> Outcome {
    let scene = Scene::bundled().scaled(ENTITIES);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let sim = ScriptedSim::new(&scene, 7, ExecutorKind::Parallel, "shield.rhai", SHIELD).unwrap();
        sim.run(FRAMES, rollback).unwrap()
    })
}

#[test]
fn same_checksum_on_1_and_2_threads_and_under_rollback_8() {
    let one = run(1, 0);
    let two = run(2, 0);
    let rollback = run(2, 8);
    assert_eq!(one.checksums, two.checksums, "1 thread vs 2");
    assert_eq!(one.checksums, rollback.checksums, "straight vs rollback 8");
    assert_eq!(one.rows, rollback.rows);
    assert_eq!(one.entities, rollback.entities);
}

#[test]
fn the_script_changes_the_arena_and_keeps_shields() {
    let scene = Scene::bundled().scaled(ENTITIES);
    let frames = 120;
    let mut plain = Sim::new(&scene, 7, ExecutorKind::SingleThreaded);
    let mut scripted =
        ScriptedSim::new(&scene, 7, ExecutorKind::SingleThreaded, "shield.rhai", SHIELD).unwrap();
    let shield = scripted.sim().world().component_id_by_name("Shield").unwrap();
    let mut most = 0;
    for _ in 0..frames {
        plain.step();
        scripted.step().unwrap();
        let world = scripted.sim().world();
        let rows = world.query_builder().read(shield).build().unwrap().count(world).unwrap();
        most = most.max(rows);
    }
    assert!(most > 10, "shields handed out: at most {most} at once");
    assert_ne!(checksum(plain.world()), checksum(scripted.sim().world()), "shields gave health back");
}

#[test]
fn the_script_checksum_covers_the_script_components() {
    let scene = Scene::bundled().scaled(300);
    let mut sim = ScriptedSim::new(&scene, 2, ExecutorKind::SingleThreaded, "shield.rhai", SHIELD).unwrap();
    for _ in 0..5 {
        sim.step().unwrap();
    }
    let before = mosaic_scripting::Checksums::of(sim.sim().world());
    let world = sim.parts_mut().0.parts_mut().0;
    let shield = world.component_id_by_name("Shield").unwrap();
    let query = world.query_builder().write(shield).build().unwrap();
    let absorb = query.field::<f32>(0, "absorb").unwrap();
    let mut first = true;
    query
        .for_each_mut(world, |mut row| {
            if std::mem::take(&mut first) {
                row.set(absorb, row.get(absorb) + 1.0);
            }
        })
        .unwrap();
    let after = mosaic_scripting::Checksums::of(sim.sim().world());
    assert_eq!(before.arena, after.arena, "no Rust component changed");
    assert_ne!(before.script, after.script, "one shield's absorb changed");
    assert_ne!(before.combined, after.combined);
}

#[test]
fn the_bench_forms_compute_the_same_values() {
    let comparison = mosaic_scripting::bench::compare(300, 12).unwrap();
    assert!(comparison.agree, "{comparison}");
}

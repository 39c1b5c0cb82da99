//! GGRS's SyncTestSession on the arena: 600 frames, each rolled back 7 frames and re-simulated,
//! with no checksum mismatch, ending where a straight run with the same inputs ends; and a save
//! that leaves out state the systems read is caught.

use arena::components::{Health, Lifetime, Position, Spawner, Team, Velocity};
use arena::rollback::rollback_registry;
use arena::scene::Scene;
use arena::sim::Sim;
use ggrs::GgrsError;
use mosaic::ExecutorKind;
use mosaic::rollback::RollbackRegistry;
use mosaic_ggrs::game::straight_run;
use mosaic_ggrs::synctest::{SyncTestError, run_synctest, run_synctest_with, scripted_inputs};

fn sim() -> Sim {
    Sim::new(&Scene::bundled().scaled(1_500), 42, ExecutorKind::SingleThreaded)
}

#[test]
fn six_hundred_frames_with_check_distance_7_match_a_straight_run() {
    let report = run_synctest(sim(), 600, 7).expect("no checksum mismatch");
    assert_eq!(report.frames, 600);
    // A rollback of 7 frames every frame from frame 8 on: 592 loads, 600 + 7 * 592 advances.
    assert_eq!(report.counts.loads, 592);
    assert_eq!(report.counts.advances, 600 + 7 * 592);
    assert_eq!(report.hash, straight_run(sim(), rollback_registry(), 600, scripted_inputs));
    // The inputs change the game: without them it ends elsewhere.
    assert_ne!(report.hash, straight_run(sim(), rollback_registry(), 600, |_| Vec::new()));
}

#[test]
fn a_save_that_leaves_out_the_random_generator_is_caught() {
    let mut registry = RollbackRegistry::new();
    registry
        .register::<Position>("position")
        .register::<Velocity>("velocity")
        .register::<Health>("health")
        .register::<Team>("team")
        .register::<Lifetime>("lifetime")
        .register::<Spawner>("spawner");
    match run_synctest_with(sim(), registry, 120, 7) {
        Err(SyncTestError::Ggrs(GgrsError::MismatchedChecksum { mismatched_frames, .. })) => {
            assert!(!mismatched_frames.is_empty());
        }
        other => panic!("expected a checksum mismatch, got {other:?}"),
    }
}

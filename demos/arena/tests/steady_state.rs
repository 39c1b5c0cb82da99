//! A warmed-up arena frame (systems, queries, events, hooks, a group, and commands that spawn and
//! despawn every frame) makes no heap allocation, on either executor.
//!
//! One test in this file, so nothing else allocates under the counting allocator meanwhile.

use arena::scene::Scene;
use arena::sim::Sim;
use mosaic::ExecutorKind;

/// dhat's allocator in testing mode counts every heap block exactly.
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

#[test]
fn warm_frames_allocate_nothing() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let scene = Scene::load(None).expect("the bundled scene loads").scaled(10_000);
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut sim = Sim::new(&scene, 7, executor);
        sim.enable_profiling(64);
        // The game loop runs inside the pool: rayon allocates when jobs are injected from
        // outside its threads (a block per 63 jobs), never for work among its own threads.
        #[cfg(feature = "parallel")]
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("thread pool");
        #[cfg(feature = "parallel")]
        let install = |frames: &mut (dyn FnMut() -> (u64, u64) + Send)| pool.install(frames);
        // Without threads every system runs on this one.
        #[cfg(not(feature = "parallel"))]
        let install = |frames: &mut (dyn FnMut() -> (u64, u64) + Send)| frames();
        let (allocations, changes) = install(&mut || {
            for _ in 0..300 {
                sim.step();
            }
            let before = dhat::HeapStats::get().total_blocks;
            let mut changes = 0;
            for _ in 0..100 {
                let frame = sim.step();
                changes += frame.spawned + frame.despawned;
            }
            (dhat::HeapStats::get().total_blocks - before, changes)
        });
        assert!(
            changes > 1_000,
            "{executor:?}: the frames changed the world ({changes} spawns and despawns)"
        );
        assert_eq!(allocations, 0, "{executor:?}: {allocations} heap blocks allocated in 100 warm frames");
    }
}

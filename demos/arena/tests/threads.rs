//! The arena gives the same checksum on every thread count and with both executors (with the
//! `parallel` feature: without it there is one thread).
#![cfg(feature = "parallel")]

use arena::scene::Scene;
use arena::sim::run;
use mosaic::ExecutorKind;

#[test]
fn same_checksum_on_1_2_4_threads_and_both_executors() {
    // Large enough that every par_for_each splits (thousands of fighters) on 2 and 4 threads.
    let scene = Scene::bundled().scaled(6_000);
    let mut runs = Vec::new();
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
            let summary = pool.install(|| run(&scene, 3, 40, executor));
            runs.push((threads, executor, summary.checksum, summary.despawned, summary.teams));
        }
    }
    let (_, _, checksum, despawned, teams) = &runs[0];
    assert!(*despawned > 0, "fighters must die for the damage pass to be exercised");
    for (threads, executor, c, d, t) in &runs {
        assert_eq!((c, d, t), (checksum, despawned, teams), "{threads} threads, {executor:?}");
    }
}

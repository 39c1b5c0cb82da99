//! `--rollback K`: restoring K frames back every frame and re-simulating gives the straight run's
//! checksum, totals and per-frame hashes, for K in 1, 2 and 8; and the CLI's hash logs and
//! `--compare` find the first frame where two runs differ.

use std::process::Command;

use arena::rollback::run_rollback;
use arena::scene::Scene;
use arena::sim::{Sim, run};
use mosaic::ExecutorKind;
use mosaic::rollback::HashLog;

#[test]
fn rollback_gives_the_straight_checksum_for_k_1_2_8() {
    let scene = Scene::bundled().scaled(3_000);
    let frames = 40;
    let straight = run(&scene, 9, frames, ExecutorKind::Parallel);
    let mut straight_log = HashLog::new();
    let (plain, _) =
        run_rollback(Sim::new(&scene, 9, ExecutorKind::Parallel), frames, 0, Some(&mut straight_log));
    assert_eq!(plain.checksum, straight.checksum);
    assert!(straight.despawned > 0 && straight.spawned > 0, "the run must churn entities");
    for k in [1, 2, 8] {
        let mut log = HashLog::new();
        let (summary, _) =
            run_rollback(Sim::new(&scene, 9, ExecutorKind::Parallel), frames, k, Some(&mut log));
        assert_eq!(summary.checksum, straight.checksum, "k = {k}");
        assert_eq!(
            (summary.spawned, summary.despawned, &summary.teams),
            (straight.spawned, straight.despawned, &straight.teams),
            "k = {k}"
        );
        assert_eq!(log.first_divergence(&straight_log), None, "k = {k}");
    }
}

#[test]
fn hash_logs_and_compare_find_the_first_differing_frame() {
    let dir = std::env::temp_dir();
    let path = |name: &str| dir.join(format!("arena-rollback-{}-{name}", std::process::id()));
    let (a, b, c) = (path("a.txt"), path("b.txt"), path("c.txt"));
    let run = |seed: &str, log: &std::path::Path, extra: &[&str]| {
        let status = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["--entities", "1500", "--frames", "12", "--seed", seed, "--hash-log"])
            .arg(log)
            .args(extra)
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
    };
    run("5", &a, &[]);
    run("5", &b, &["--rollback", "2", "--executor", "single"]);
    run("6", &c, &[]);
    let compare = |x: &std::path::Path, y: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_arena")).arg("--compare").arg(x).arg(y).output().unwrap()
    };
    let same = compare(&a, &b);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert!(String::from_utf8_lossy(&same.stdout).contains("agree: 12 frames"));
    let differ = compare(&a, &c);
    assert_eq!(differ.status.code(), Some(1), "{differ:?}");
    // Another seed spawns another scene: the hashes differ from the first frame on.
    assert!(String::from_utf8_lossy(&differ.stdout).contains("first divergence at frame 1:"), "{differ:?}");
    std::fs::write(&c, "1 nothex\n").unwrap();
    let bad = compare(&a, &c);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("line 1"), "{bad:?}");
    for p in [a, b, c] {
        std::fs::remove_file(p).ok();
    }
}

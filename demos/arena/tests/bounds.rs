//! What is bounded, and what the user sees at the bound: the world's entity cap (spawner writes
//! of any valid count, a template that spawns itself), input files read with a size cap, count
//! arguments in range, a trace that cannot be written, a snapshot with a changed bit.

use std::path::PathBuf;
use std::process::{Command, Output};

use arena::components::Spawner;
use arena::scene::Scene;
use arena::sim::Sim;
use arena::systems::EntityCap;
use mosaic::{Entity, ExecutorKind};

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena")).args(args).output().expect("the arena binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A scratch file unique to this test process.
fn scratch_file(name: &str, contents: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("arena-bounds-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).expect("temp dir is writable");
    path
}

/// A scene whose only template spawns itself: each spawner makes `count` more spawners every
/// frame, so the population grows geometrically until the cap.
const SELF_SPAWNING: &str = r#"Scene(
    width: 100.0,
    height: 100.0,
    collision_radius: 2.0,
    damage: 1,
    templates: [
        Template(name: "seed", count: 4, components: [
            Position,
            Spawner(template: "seed", every: 1, count: 8),
        ]),
    ],
)"#;

#[test]
fn a_self_spawning_scene_stops_at_the_cap_with_one_warning_and_the_run_goes_on() {
    let scene = scratch_file("self.ron", SELF_SPAWNING.as_bytes());
    let scene = scene.to_str().unwrap();
    let output =
        arena(&["--scene", scene, "--frames", "12", "--max-entities", "5000", "--executor", "single"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), stderr(&output));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stderr.matches("warning").count(), 1, "one warning: {stderr}");
    assert!(
        stderr.contains("arena: warning: the world reached its cap of 5000 entities at frame"),
        "{stderr}"
    );
    let end: u32 = stdout
        .lines()
        .find_map(|line| line.strip_prefix("entities at end"))
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `entities at end` in {stdout}"));
    assert_eq!(end, 5000, "the cap, exactly: {stdout}");
}

#[test]
fn spawner_writes_of_the_largest_valid_count_stop_at_the_cap() {
    let mut sim = Sim::new(&Scene::bundled().scaled(2_000), 3, ExecutorKind::SingleThreaded);
    let start = sim.world().len();
    let limit = sim.entity_cap().limit;
    assert_eq!(limit, EntityCap::default_limit(start));
    assert_eq!(limit, 1 << 20, "16 x 2,000 is under the floor of 2^20");
    // What four inspector writes of `count` 65,536 and `every` 1 do (the largest values
    // `validate::spawner` accepts), on a smaller cap so the test stays quick.
    sim.set_entity_cap(50_000);
    let (world, _) = sim.parts_mut();
    let spawners: Vec<Entity> =
        world.query::<(Entity, &Spawner)>().into_iter().map(|(e, _)| e).take(4).collect();
    for e in spawners {
        let written = Spawner { every: 1, count: 65_536, timer: 0, ..*world.get::<Spawner>(e).unwrap() };
        arena::validate::spawner(&written, 4).expect("a valid write");
        *world.get_mut::<Spawner>(e).unwrap() = written;
    }
    for _ in 0..5 {
        sim.step();
        assert!(sim.world().len() <= 50_000, "{} entities", sim.world().len());
    }
    let cap = sim.entity_cap();
    assert!(cap.refused > 4 * 65_536, "refused {}", cap.refused);
}

#[test]
fn endless_and_oversized_input_files_are_refused_naming_the_file() {
    for (args, expected) in [
        (
            &["--scene", "/dev/zero"][..],
            "cannot read scene file `/dev/zero`: larger than the limit of 1048576 bytes",
        ),
        (&["--load", "/dev/zero"][..], "snapshot `/dev/zero`: larger than the limit of 536870912 bytes"),
        (&["--compare", "/dev/zero", "/dev/null"][..], "cannot read `/dev/zero`: larger than the limit"),
    ] {
        let output = arena(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
    }
    let big = scratch_file("big.ron", &vec![b' '; (1 << 20) + 1]);
    let output = arena(&["--scene", big.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("larger than the limit of 1048576 bytes for a scene file"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn count_arguments_out_of_range_name_the_flag() {
    for args in [
        &["--rollback-timing", "0"][..],
        &["--rollback-timing", "1000000000000"][..],
        &["--max-entities", "67108865"][..],
        &["--inspect", "--inspect-fps", "100000"][..],
    ] {
        let output = arena(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(args[args.len() - 2]), "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn a_trace_that_cannot_be_written_exits_2_with_the_error() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let output = arena(&["--trace", "/dev/full", "--entities", "500", "--frames", "5"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = stderr(&output);
    assert!(stderr.contains("arena: error: cannot write trace file `/dev/full`"), "{stderr}");
    assert!(!stderr.contains("panicked"), "no thread panics: {stderr}");
}

#[test]
fn a_snapshot_with_a_changed_bit_is_refused_naming_the_file() {
    for name in ["flip.bin", "flip.ron"] {
        let path = scratch_file(name, b"");
        let path_text = path.to_str().unwrap();
        let saved = arena(&["--entities", "500", "--frames", "3", "--save", path_text]);
        assert!(saved.status.success(), "{saved:?}");
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x04;
        std::fs::write(&path, &bytes).unwrap();
        let output = arena(&["--entities", "500", "--frames", "3", "--load", path_text]);
        assert_eq!(output.status.code(), Some(2), "{name}: {output:?}");
        let stderr = stderr(&output);
        assert!(stderr.contains(&format!("snapshot `{path_text}`")), "{stderr}");
        assert!(stderr.contains("checksum") && stderr.contains("corrupt"), "{stderr}");
    }
}

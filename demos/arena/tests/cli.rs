//! Runs the built `arena` binary: determinism across runs and executors, the Chrome trace, exit
//! code 2 with a useful message for scene files that are missing or malformed, and `--inspect`'s
//! time travel.

use std::path::PathBuf;
use std::process::{Command, Output};

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena")).args(args).output().expect("the arena binary runs")
}

/// The `checksum` line of a successful run's table.
fn checksum_line(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .find(|line| line.starts_with("checksum"))
        .unwrap_or_else(|| panic!("no checksum line in:\n{stdout}"))
        .to_owned()
}

/// A scratch file unique to this test process.
fn scratch_file(name: &str, contents: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("arena-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).expect("temp dir is writable");
    path
}

#[test]
fn same_arguments_give_the_same_checksum() {
    let args = ["--entities", "2000", "--frames", "30"];
    let first = arena(&args);
    let second = arena(&args);
    let line = checksum_line(&first);
    assert_eq!(line, checksum_line(&second));
    let stdout = String::from_utf8_lossy(&first.stdout);
    for label in [
        "entities at start",
        "entities at end",
        "frames",
        "frame time median",
        "frame time p99",
        "frame time mean",
        "spawned",
        "despawned",
        "team 0 losses",
        "team 1 reinforcements",
        "parallel executor",
    ] {
        assert!(stdout.contains(label), "no `{label}` in:\n{stdout}");
    }
    let profile = stdout.split_once("\n\n").map_or("", |(_, profile)| profile);
    for system in ["system", "movement", "lifetimes", "collisions", "spawners", "score", "(last 30 frames)"] {
        assert!(profile.contains(system), "no `{system}` in the profile after the table:\n{stdout}");
    }
    let other_seed = arena(&["--entities", "2000", "--frames", "30", "--seed", "1"]);
    assert_ne!(line, checksum_line(&other_seed));
}

#[test]
fn both_executors_give_the_same_checksum() {
    // Large enough that the debug build's first batch (movement, lifetimes) takes longer than the
    // schedule's parallel threshold, so the parallel executor really runs it on the pool.
    let args = ["--entities", "20000", "--frames", "40", "--seed", "3"];
    let single = arena(&[&args[..], &["--executor", "single"]].concat());
    let parallel = arena(&[&args[..], &["--executor", "parallel"]].concat());
    assert!(String::from_utf8_lossy(&single.stdout).contains("single executor"));
    assert_eq!(checksum_line(&single), checksum_line(&parallel));
    assert_eq!(checksum_line(&parallel), checksum_line(&arena(&args)), "parallel is the default");
}

#[test]
fn trace_names_every_system() {
    let path = std::env::temp_dir().join(format!("arena-cli-{}-trace.json", std::process::id()));
    let output = arena(&["--entities", "500", "--frames", "3", "--trace", path.to_str().unwrap()]);
    let trace = std::fs::read_to_string(&path).expect("the trace file was written");
    std::fs::remove_file(&path).ok();
    checksum_line(&output);
    let trace = trace.trim();
    assert!(trace.starts_with('[') && trace.ends_with(']'), "not a JSON array:\n{trace}");
    assert!(trace.contains("\"name\":\"frame\""), "{trace}");
    for system in ["movement", "lifetimes", "collisions", "spawners", "score"] {
        assert!(trace.contains(&format!("\"name\":\"{system}\"")), "no `{system}` span in:\n{trace}");
    }
}

#[test]
fn unwritable_trace_exits_2_naming_the_file() {
    let output = arena(&["--frames", "1", "--entities", "100", "--trace", "no/such/dir/trace.json"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no/such/dir/trace.json"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn missing_scene_exits_2_naming_the_file() {
    let output = arena(&["--scene", "no/such/arena-scene.ron", "--frames", "1"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no/such/arena-scene.ron"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn malformed_scene_reports_line_and_column() {
    let path = scratch_file(
        "malformed.ron",
        "Scene(\n    width: 100.0,\n    height: 100.0,\n    collision_radius: [2.0],\n)\n",
    );
    let output = arena(&["--scene", path.to_str().unwrap(), "--frames", "1"]);
    std::fs::remove_file(&path).ok();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(path.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("4:23"), "{stderr}");
}

#[test]
fn unknown_spawner_template_exits_2() {
    let path = scratch_file(
        "unknown.ron",
        r#"Scene(width: 10.0, height: 10.0, collision_radius: 1.0, damage: 1, templates: [
    Template(name: "hive", count: 1, components: [Spawner(template: "ghost", every: 1, count: 1)]),
])"#,
    );
    let output = arena(&["--scene", path.to_str().unwrap(), "--frames", "1"]);
    std::fs::remove_file(&path).ok();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`ghost`"), "{stderr}");
}

#[test]
fn load_and_continue_equals_a_straight_run() {
    for (name, executor) in [("bin", "parallel"), ("ron", "single")] {
        let path = std::env::temp_dir().join(format!("arena-cli-{}-snapshot.{name}", std::process::id()));
        let path_arg = path.to_str().unwrap();
        let base = ["--entities", "3000", "--seed", "11", "--executor", executor];
        let first = arena(&[&base[..], &["--frames", "25", "--save", path_arg]].concat());
        checksum_line(&first);
        let resumed = arena(&[&base[..], &["--frames", "15", "--load", path_arg]].concat());
        std::fs::remove_file(&path).ok();
        let straight = arena(&[&base[..], &["--frames", "40"]].concat());
        assert_eq!(checksum_line(&resumed), checksum_line(&straight), "{name}");
        // The team totals carry over too.
        let teams = |output: &Output| {
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter(|line| line.starts_with("team"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(teams(&resumed), teams(&straight), "{name}");
        assert!(!teams(&straight).is_empty());
    }
}

#[test]
fn bad_snapshots_exit_2_naming_the_file() {
    let missing = arena(&["--entities", "500", "--frames", "1", "--load", "no/such/snapshot.bin"]);
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/snapshot.bin"));
    let garbage = scratch_file("garbage.bin", "not a snapshot at all");
    let output = arena(&["--entities", "500", "--frames", "1", "--load", garbage.to_str().unwrap()]);
    std::fs::remove_file(&garbage).ok();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("garbage.bin"));
    // A snapshot of another scene size is refused.
    let path = std::env::temp_dir().join(format!("arena-cli-{}-other.bin", std::process::id()));
    let saved = arena(&["--entities", "500", "--frames", "2", "--save", path.to_str().unwrap()]);
    checksum_line(&saved);
    let other = arena(&["--entities", "900", "--frames", "1", "--load", path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    assert_eq!(other.status.code(), Some(2), "{other:?}");
    assert!(String::from_utf8_lossy(&other.stderr).contains("--entities"), "{other:?}");
    let unwritable = arena(&["--entities", "100", "--frames", "1", "--save", "no/such/dir/s.bin"]);
    assert_eq!(unwritable.status.code(), Some(2), "{unwritable:?}");
}

/// One HTTP request to the inspector at `addr`, as its page sends it (writes with JSON and the
/// `token` the arena printed): (status, body as JSON).
fn http(addr: &str, token: &str, method: &str, path: &str) -> (u16, serde_json::Value) {
    http_body(addr, token, method, path, "")
}

/// [`http`] with a request body.
fn http_body(addr: &str, token: &str, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("the inspector listens");
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let write = if method == "GET" {
        String::new()
    } else {
        format!("Content-Type: application/json\r\nX-Mosaic-Token: {token}\r\n")
    };
    // HTTP/1.0: the answer comes whole, not in chunks.
    let length = body.len();
    write!(
        stream,
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\n{write}Content-Length: {length}\r\n\r\n{body}"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let json = serde_json::from_str(body);
    (status, json.unwrap_or_else(|e| panic!("{path}: {e}: {}", &body[..body.len().min(500)])))
}

/// Kills the child when the test ends, passed or not.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn inspect_keeps_frames_to_diff_and_rewind() {
    use std::io::BufRead;
    let mut child = Killed(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["--inspect", "127.0.0.1:0", "--inspect-writes", "--inspect-fps", "0"])
            .args(["--inspect-frames", "16", "--entities", "2000", "--frames", "0"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the arena binary runs"),
    );
    let mut stderr = std::io::BufReader::new(child.0.stderr.take().unwrap()).lines();
    let line = stderr.by_ref().map(Result::unwrap).find(|l| l.contains("inspector at")).expect("the URL");
    // Keep reading the arena's stderr: a closed pipe would make its next message fail.
    std::thread::spawn(move || stderr.for_each(drop));
    let addr = line.split("http://").nth(1).unwrap().split('/').next().unwrap().to_owned();
    let token: String = line
        .split("?token=")
        .nth(1)
        .expect("the URL carries the write token")
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    assert_eq!(token.len(), 32, "{line}");
    // Without the token, a write is refused.
    assert_eq!(http(&addr, "", "POST", "/api/pause").0, 403);

    // Asking is watching: frames are saved from now on.
    let mut saved = serde_json::Value::Null;
    for _ in 0..300 {
        saved = http(&addr, &token, "GET", "/api/frames/saved").1;
        if saved["frames"].as_array().is_some_and(|f| f.len() == 16) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(saved["frames"].as_array().map(Vec::len), Some(16), "{saved}");
    // Hold it still, so the frames held stay put.
    assert_eq!(http(&addr, &token, "POST", "/api/pause").0, 202);
    while http(&addr, &token, "GET", "/api/world").1["paused"] != true {}
    let saved = http(&addr, &token, "GET", "/api/frames/saved").1;
    let frames = saved["frames"].as_array().expect("frames").clone();
    assert_eq!(frames.len(), 16, "{saved}");
    let (oldest, newest) = (frames[0].as_u64().unwrap(), frames[15].as_u64().unwrap());
    let (_, world) = http(&addr, &token, "GET", "/api/world");
    assert!(world["errors"].as_array().unwrap().is_empty(), "every save works: {world}");

    let (status, diff) = http(&addr, &token, "GET", &format!("/api/diff?a={oldest}&b={newest}"));
    assert_eq!(status, 200, "{}", diff["error"]);
    let position = diff["components"].as_array().unwrap().iter().find(|c| c["name"] == "position");
    assert!(position.is_some_and(|p| p["changed"].as_u64() > Some(0)), "things move");

    let (_, then) = http(&addr, &token, "GET", &format!("/api/frames/{oldest}/world"));
    assert_eq!(http(&addr, &token, "POST", &format!("/api/rewind?frame={oldest}")).0, 202);
    let mut now = serde_json::Value::Null;
    for _ in 0..300 {
        now = http(&addr, &token, "GET", "/api/frames/saved").1;
        if now["current"] == oldest {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(now["current"], oldest, "{now}");
    assert_eq!(now["newest"], oldest, "frames after the rewind are not held");
    let (_, live) = http(&addr, &token, "GET", "/api/world");
    assert_eq!(live["paused"], true);
    assert_eq!(live["entities"], then["entities"], "the live world is frame {oldest} again");
    assert_eq!(live["components"], then["components"]);

    // A write the systems could not run on (a spawner of a template that does not exist) is
    // refused by the check scene files and snapshots pass, named in the errors; the arena runs on.
    let (_, page) = http(&addr, &token, "GET", "/api/entities?with=spawner&page_size=1");
    let id = page["entities"][0]["id"].as_str().expect("a spawner").to_owned();
    let bad = r#"{"template": 999, "every": 1, "count": 1, "timer": 0}"#;
    let path = format!("/api/entities/{id}/components/spawner");
    assert_eq!(http_body(&addr, &token, "POST", &path, bad).0, 202);
    assert_eq!(http(&addr, &token, "POST", "/api/step?frames=3").0, 202);
    let mut errors = serde_json::Value::Null;
    for _ in 0..300 {
        errors = http(&addr, &token, "GET", "/api/world").1["errors"].clone();
        if errors.as_array().is_some_and(|e| !e.is_empty()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(errors.to_string().contains("spawner.template"), "{errors}");
    let (status, _) = http(&addr, &token, "GET", &format!("/api/entities/{id}"));
    assert_eq!(status, 200, "the arena is alive and the spawner still there");
}

/// Sizes that cannot fit in memory are refused up front, naming the flag and the limit, with
/// exit code 2 (issue 27: each of these aborted or allocated tens of gigabytes).
#[test]
fn oversized_flags_are_refused_naming_the_flag() {
    for (args, flag) in [
        (&["--rollback", "100000000"][..], "--rollback"),
        (&["--inspect", "127.0.0.1:0", "--inspect-frames", "4000000000"][..], "--inspect-frames"),
        (&["--frames", "4294967295"][..], "--frames"),
        (&["--entities", "1000000000000"][..], "--entities"),
        (&["--entities", "60000000", "--frames", "1"][..], "--entities"),
    ] {
        let output = arena(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(flag) && (stderr.contains("limit") || stderr.contains("0..=")),
            "{args:?}: {stderr}"
        );
    }
}

/// A scene whose spawner makes more entities per period than the arena allows is a scene error
/// naming the field.
#[test]
fn a_scene_spawner_over_the_count_limit_is_refused() {
    let path = std::env::temp_dir().join(format!("arena-cli-{}-spawn-count.ron", std::process::id()));
    std::fs::write(
        &path,
        r#"Scene(width: 100.0, height: 100.0, collision_radius: 2.0, damage: 1, templates: [
    Template(name: "drone", count: 1, components: [Position]),
    Template(name: "hive", count: 1, components: [Spawner(template: "drone", every: 1, count: 4294967295)]),
])"#,
    )
    .unwrap();
    let output = arena(&["--scene", path.to_str().unwrap(), "--frames", "1"]);
    std::fs::remove_file(&path).ok();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("spawner.count"), "{stderr}");
}

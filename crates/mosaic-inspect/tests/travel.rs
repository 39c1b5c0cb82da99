//! Time travel against a real server on loopback: the frame loop runs on the test's thread, so
//! which frames are saved is exact; a client lists them, reads an entity as of a saved frame,
//! diffs two frames, rewinds, and is refused frames not held and malformed numbers.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
use mosaic::serialize::SnapshotRegistry;
use mosaic::{Component, Entity, World};
use mosaic_inspect::{Inspector, InspectorOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(transparent)]
struct Health(u32);

fn snapshot_registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Position>("position").register::<Health>("health");
    registry
}

fn ring(capacity: usize) -> RollbackRing {
    let mut registry = RollbackRegistry::new();
    registry.register::<Position>("position").register::<Health>("health");
    RollbackRing::new(registry, capacity)
}

/// Where the inspector listens and its write token (32 hex digits), as the page knows them.
#[derive(Clone, Copy)]
struct Client {
    addr: SocketAddr,
    token: [u8; 32],
}

impl Client {
    fn of(inspector: &Inspector) -> Self {
        let token = inspector.token().as_bytes().try_into().expect("a 32-digit token");
        Self { addr: inspector.addr(), token }
    }
}

/// Sends one request as the inspector's page would (its Host; for writes JSON and the token),
/// returns (status, body as JSON).
fn request(client: Client, method: &str, path: &str) -> (u16, Value) {
    let Client { addr, token } = client;
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let write = if method == "GET" {
        String::new()
    } else {
        format!(
            "Content-Type: application/json\r\nX-Mosaic-Token: {}\r\n",
            std::str::from_utf8(&token).unwrap()
        )
    };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{write}Connection: close\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")))
}

/// A world of two entities: `0v1` with a position and health, `1v1` with a position.
fn new_world() -> World {
    let mut world = World::new();
    world.spawn((Position { x: 0.0, y: 0.0 }, Health(10)));
    world.spawn(Position { x: 10.0, y: 0.0 });
    world
}

/// Frame `frame` (from 1): every position moves 1 in x; frame 4 spawns `2v1` with health 5;
/// frame 6 takes `0v1`'s health away.
fn step(world: &mut World, frame: u64) {
    world.query::<&mut Position>().for_each(|p| p.x += 1.0);
    if frame == 4 {
        world.spawn(Health(5));
    }
    if frame == 6 {
        world.remove::<Health>(first(world));
    }
}

fn first(world: &World) -> Entity {
    world.entities().iter().next().unwrap()
}

/// Runs frames `from..=to`, publishing (and so saving) after each.
fn run(inspector: &mut Inspector, world: &mut World, from: u64, to: u64) {
    for frame in from..=to {
        step(world, frame);
        inspector.publish(world, None, Some(Duration::from_millis(1)));
    }
}

fn x_at(addr: Client, frame: u64, id: &str) -> Option<f64> {
    let (status, body) = request(addr, "GET", &format!("/api/frames/{frame}/entities/{id}"));
    assert_eq!(status, 200, "{body}");
    body["entity"]["components"]["position"]["x"].as_f64()
}

#[test]
fn lists_reads_and_diffs_saved_frames() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).frames_idle(true);
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let addr = Client::of(&inspector);
    let mut world = new_world();
    inspector.keep_frames(&mut world, ring(8), 0).unwrap();
    run(&mut inspector, &mut world, 1, 10);
    assert_eq!(inspector.frame(), Some(10));

    let (status, saved) = request(addr, "GET", "/api/frames/saved");
    assert_eq!(status, 200);
    assert_eq!(saved["frames"], json!([3, 4, 5, 6, 7, 8, 9, 10]), "the last 8 frames");
    assert_eq!((&saved["current"], &saved["capacity"]), (&json!(10), &json!(8)));

    assert_eq!(x_at(addr, 4, "0v1"), Some(4.0));
    assert_eq!(x_at(addr, 4, "1v1"), Some(14.0));
    assert_eq!(x_at(addr, 10, "0v1"), Some(10.0));
    let (_, at_5) = request(addr, "GET", "/api/frames/5/entities/0v1");
    assert_eq!(at_5["entity"]["components"]["health"], 10);
    let (_, at_6) = request(addr, "GET", "/api/frames/6/entities/0v1");
    assert!(at_6["entity"]["components"].get("health").is_none(), "{at_6}");
    let (_, world_at_3) = request(addr, "GET", "/api/frames/3/world");
    assert_eq!((&world_at_3["entities"], &world_at_3["frame"]), (&json!(2), &json!(3)));
    let (_, page) = request(addr, "GET", "/api/frames/4/entities?with=health");
    assert_eq!(page["total"], 2, "0v1 and the entity spawned at frame 4");

    let (status, diff) = request(addr, "GET", "/api/diff?a=3&b=7");
    assert_eq!(status, 200, "{diff}");
    assert_eq!(diff["same"], false);
    assert!(diff["first_difference"].is_string());
    assert_eq!(diff["entities"]["spawned_ids"], json!(["2v1"]));
    assert_eq!(diff["entities"]["despawned"], 0);
    let component = |name: &str| {
        diff["components"].as_array().unwrap().iter().find(|c| c["name"] == name).cloned().unwrap()
    };
    let position = component("position");
    assert_eq!(
        (&position["changed"], &position["added"], &position["removed"]),
        (&json!(2), &json!(0), &json!(0))
    );
    assert_eq!(
        position["changed_values"][0],
        json!({ "id": "0v1", "a": { "x": 3.0, "y": 0.0 }, "b": { "x": 7.0, "y": 0.0 } })
    );
    let health = component("health");
    assert_eq!((&health["added_ids"], &health["removed_ids"]), (&json!(["2v1"]), &json!(["0v1"])));
    assert_eq!(health["changed"], 0);

    let (_, same) = request(addr, "GET", "/api/diff?a=8&b=8");
    assert_eq!((&same["same"], &same["components"]), (&json!(true), &json!([])));
    assert_eq!(same["unchanged_components"], json!(["health", "position"]));
}

#[test]
fn refuses_frames_not_held_and_malformed_numbers() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).frames_idle(true);
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let addr = Client::of(&inspector);
    let mut world = new_world();
    for path in ["/api/frames/saved", "/api/frames/0/entities/0v1", "/api/diff?a=0&b=0"] {
        let (status, body) = request(addr, "GET", path);
        assert_eq!(status, 404, "{path} before frames are kept: {body}");
        assert!(body["error"].as_str().unwrap().contains("keep_frames"), "{body}");
    }
    inspector.keep_frames(&mut world, ring(4), 0).unwrap();
    run(&mut inspector, &mut world, 1, 6);
    for (method, path, want) in [
        ("GET", "/api/frames/2/entities/0v1", 404), // overwritten: the ring holds 3..=6
        ("GET", "/api/frames/7/entities/0v1", 404), // not run yet
        ("GET", "/api/frames/3/entities/99v1", 404), // no such entity then
        ("GET", "/api/frames/3/entities/garbage", 404),
        ("GET", "/api/frames/x/entities/0v1", 400),
        ("GET", "/api/frames/-1/world", 400),
        ("GET", "/api/frames/99999999999999999999999/world", 400),
        ("GET", "/api/frames/3/nothing", 404),
        ("GET", "/api/diff?a=1&b=4", 404),
        ("GET", "/api/diff?a=3", 400),
        ("GET", "/api/diff?a=3&b=x", 400),
        ("POST", "/api/diff?a=3&b=4", 405),
        ("POST", "/api/rewind?frame=3", 403), // writes off
        ("GET", "/api/rewind?frame=3", 405),
        ("POST", "/api/frames/saved", 405),
    ] {
        let (status, body) = request(addr, method, path);
        assert_eq!(status, want, "{method} {path}: {body}");
        assert_eq!(body["status"], want, "{method} {path}");
        assert!(body["error"].is_string());
    }
    let (_, body) = request(addr, "GET", "/api/frames/2/world");
    assert!(body["error"].as_str().unwrap().contains("frames 3 to 6"), "names what is held: {body}");
}

#[test]
fn rewind_restores_the_live_world_and_pauses() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true).frames_idle(true);
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let addr = Client::of(&inspector);
    let mut world = new_world();
    inspector.keep_frames(&mut world, ring(16), 0).unwrap();
    run(&mut inspector, &mut world, 1, 8);
    assert_eq!(request(addr, "POST", "/api/rewind?frame=20").0, 404);
    assert_eq!(request(addr, "POST", "/api/rewind?frame=x").0, 400);
    assert_eq!(request(addr, "POST", "/api/rewind").0, 400);
    let (status, body) = request(addr, "POST", "/api/rewind?frame=3");
    assert_eq!(status, 202, "{body}");
    assert!(inspector.paused(), "a rewind pauses at once");
    assert_eq!(inspector.publish(&mut world, None, None), 1, "the rewind is applied at the publish point");
    let e = first(&world);
    assert_eq!(world.get::<Position>(e), Ok(&Position { x: 3.0, y: 0.0 }));
    assert_eq!(world.len(), 2, "the entity spawned at frame 4 is gone");
    assert_eq!(inspector.frame(), Some(3));
    let (_, saved) = request(addr, "GET", "/api/frames/saved");
    assert_eq!(saved["frames"], json!([0, 1, 2, 3]), "frames after the rewind are another timeline");
    assert_eq!(request(addr, "GET", "/api/frames/5/world").0, 404);
    // Running on saves over the old timeline.
    world.get_mut::<Position>(e).unwrap().y = 100.0;
    run(&mut inspector, &mut world, 4, 5);
    let (_, at_5) = request(addr, "GET", "/api/frames/5/entities/0v1");
    assert_eq!(at_5["entity"]["components"]["position"], json!({ "x": 5.0, "y": 100.0 }));
    assert_eq!(request(addr, "GET", "/api/frames/saved").1["frames"], json!([0, 1, 2, 3, 4, 5]));
}

#[test]
fn frames_of_the_timeline_a_rewind_replaced_stay_gone_across_a_gap() {
    // Watched until a rewind to 3, then 2 frames nobody watches, then watched again: the ring
    // still holds the old 4..8 where the new frames were not saved, and must not offer them.
    let mut options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true);
    options.watch_window = Duration::from_millis(300);
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let addr = Client::of(&inspector);
    let mut world = new_world();
    inspector.keep_frames(&mut world, ring(16), 0).unwrap();
    assert_eq!(request(addr, "GET", "/api/frames/saved").0, 200); // now watched
    run(&mut inspector, &mut world, 1, 8);
    assert_eq!(request(addr, "POST", "/api/rewind?frame=3").0, 202);
    inspector.publish(&mut world, None, None);
    assert_eq!(inspector.frame(), Some(3));
    std::thread::sleep(Duration::from_millis(400)); // nobody watches now
    run(&mut inspector, &mut world, 4, 5);
    assert_eq!(
        request(addr, "GET", "/api/frames/saved").1["frames"],
        json!([0, 1, 2, 3]),
        "4 and 5 not saved"
    );
    run(&mut inspector, &mut world, 6, 6); // watched again
    let (_, saved) = request(addr, "GET", "/api/frames/saved");
    assert_eq!(saved["frames"], json!([6]), "not the old timeline's 4 and 5 before it");
    assert_eq!(x_at(addr, 6, "0v1"), Some(6.0));
    for old in [4, 5, 7] {
        assert_eq!(request(addr, "GET", &format!("/api/frames/{old}/world")).0, 404, "{old}");
    }
}

#[test]
fn saves_frames_only_while_a_client_watches() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let addr = Client::of(&inspector);
    let mut world = new_world();
    inspector.keep_frames(&mut world, ring(8), 0).unwrap();
    run(&mut inspector, &mut world, 1, 5);
    assert_eq!(inspector.frame(), Some(5), "frames are counted");
    let (_, saved) = request(addr, "GET", "/api/frames/saved");
    assert_eq!(
        (&saved["frames"], &saved["current"]),
        (&json!([0]), &json!(5)),
        "but not saved: nobody watched"
    );
    run(&mut inspector, &mut world, 6, 8);
    let (_, saved) = request(addr, "GET", "/api/frames/saved");
    assert_eq!(saved["frames"], json!([6, 7, 8]), "saved once a client asked; frame 0 is before the gap");
    assert_eq!(x_at(addr, 7, "0v1"), Some(7.0));
    assert_eq!(request(addr, "GET", "/api/frames/0/world").0, 404);
}

/// Past the record budget, a watching client saves nothing until it asks to record; asking needs
/// the token but not writes, and stopping stops the saves.
#[test]
fn past_the_record_budget_frames_are_saved_only_while_recording() {
    let mut options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    options.record_budget = 0;
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let addr = Client::of(&inspector);
    let mut world = new_world();
    inspector.keep_frames(&mut world, ring(8), 0).unwrap();
    let (_, saved) = request(addr, "GET", "/api/frames/saved"); // now watched
    assert_eq!((&saved["auto"], &saved["recording"]), (&json!(false), &json!(false)), "{saved}");
    assert!(saved["ring_bytes"].as_u64().unwrap() > 0, "{saved}");
    run(&mut inspector, &mut world, 1, 3);
    assert_eq!(request(addr, "GET", "/api/frames/saved").1["frames"], json!([0]), "watched, not recording");
    let tokenless = Client { addr: addr.addr, token: *b"00000000000000000000000000000000" };
    assert_eq!(request(tokenless, "POST", "/api/frames/record").0, 403, "the token is needed");
    assert_eq!(request(addr, "POST", "/api/frames/record?on=maybe").0, 400);
    let (status, body) = request(addr, "POST", "/api/frames/record?on=true");
    assert_eq!((status, &body["recording"]), (202, &json!(true)), "writes are off, recording is not a write");
    run(&mut inspector, &mut world, 4, 6);
    let (_, saved) = request(addr, "GET", "/api/frames/saved");
    assert_eq!((&saved["frames"], &saved["recording"]), (&json!([4, 5, 6]), &json!(true)));
    assert_eq!(x_at(addr, 5, "0v1"), Some(5.0));
    assert_eq!(request(addr, "POST", "/api/frames/record?on=false").0, 202);
    run(&mut inspector, &mut world, 7, 8);
    assert_eq!(request(addr, "GET", "/api/frames/saved").1["frames"], json!([4, 5, 6]), "stopped");
}

/// A gate that makes rebuilding a saved frame as slow as a test likes: a [`Gated`] value cloned
/// off the frame loop's thread while the gate is shut waits for it to open (5 s at most). The
/// frame loop's own clones (its saves) never wait.
mod gate {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Condvar, Mutex, OnceLock};
    use std::thread::ThreadId;
    use std::time::Duration;

    static SHUT: Mutex<bool> = Mutex::new(false);
    static OPENED: Condvar = Condvar::new();
    static WAITING: AtomicBool = AtomicBool::new(false);
    static FRAME_LOOP: OnceLock<ThreadId> = OnceLock::new();

    /// Makes the calling thread the frame loop, whose clones never wait.
    pub fn frame_loop_is_here() {
        FRAME_LOOP.set(std::thread::current().id()).expect("one frame loop");
    }

    pub fn shut() {
        *SHUT.lock().unwrap() = true;
    }

    pub fn open() {
        *SHUT.lock().unwrap() = false;
        OPENED.notify_all();
    }

    /// Whether a clone is waiting at the gate.
    pub fn waiting() -> bool {
        WAITING.load(Ordering::Acquire)
    }

    /// Called by every clone: waits while the gate is shut, unless on the frame loop.
    pub fn pass() {
        if FRAME_LOOP.get() == Some(&std::thread::current().id()) {
            return;
        }
        let shut = SHUT.lock().unwrap();
        if *shut {
            WAITING.store(true, Ordering::Release);
            let _ = OPENED.wait_timeout_while(shut, Duration::from_secs(5), |shut| *shut).unwrap();
            WAITING.store(false, Ordering::Release);
        }
    }
}

/// A component with a clone that passes the [`gate`].
#[derive(Component, Debug, PartialEq, Eq, Hash)]
struct Gated(u32);

impl Clone for Gated {
    fn clone(&self) -> Self {
        gate::pass();
        Self(self.0)
    }
}

/// Issue 42: a read of a saved frame rebuilt the frame while holding the lock the frame loop
/// saves through, so the game stalled behind it. Here the rebuild is held at the gate for as
/// long as the test likes, and meanwhile the frame loop saves 20 frames, each at once; the read
/// is then answered with the frame it asked for.
#[test]
fn a_saved_frame_being_rebuilt_does_not_hold_up_the_frame_loop() {
    gate::frame_loop_is_here();
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).frames_idle(true);
    let mut inspector = Inspector::start(options, snapshot_registry()).unwrap();
    let client = Client::of(&inspector);
    let mut world = new_world();
    world.spawn(Gated(7));
    let mut registry = RollbackRegistry::new();
    registry.register::<Position>("position").register::<Health>("health").register_clone::<Gated>("gated");
    inspector.keep_frames(&mut world, RollbackRing::new(registry, 64), 0).unwrap();
    run(&mut inspector, &mut world, 1, 3);

    gate::shut();
    let reader = std::thread::spawn(move || request(client, "GET", "/api/frames/2/world"));
    let start = Instant::now();
    while !gate::waiting() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(gate::waiting(), "the rebuild of frame 2 reached the gate");
    for frame in 4..=23 {
        step(&mut world, frame);
        let publish = Instant::now();
        inspector.publish(&mut world, None, Some(Duration::from_millis(1)));
        let took = publish.elapsed();
        assert!(took < Duration::from_secs(1), "frame {frame} waited {took:?} to be saved");
    }
    assert_eq!(inspector.frame(), Some(23), "every frame was saved");
    assert!(gate::waiting() && !reader.is_finished(), "the rebuild is still held");
    gate::open();
    let (status, body) = reader.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!((&body["frame"], &body["entities"]), (&json!(2), &json!(3)), "{body}");
}

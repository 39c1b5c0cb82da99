//! The JSON API against a real server on loopback (port 0): what a client sees, and what it is
//! refused.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mosaic::serialize::SnapshotRegistry;
use mosaic::{Component, Query, Schedule, World};
use mosaic_inspect::{InspectError, Inspector, InspectorOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod common;
use common::Game;

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Health(u32);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Score(u64);

/// A many-to-many pair kind with a value, shown on its sources' pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Owes(u32);
impl mosaic::hierarchy::PairRelation for Owes {}

fn drift(mut query: Query<&mut Position>) {
    query.for_each(|p| p.x += 1.0);
}

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry
        .register::<Position>("position")
        .register::<Health>("health")
        .register_resource::<Score>("score")
        .register_pair::<Owes>("owes");
    registry
}

/// The game of these tests: a root with a child, a lone `Health`, a `Score`, three unread
/// events, and a schedule that moves every `Position`; writes on or off.
fn start(writes: bool) -> Game {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(writes);
    Game::start(options, registry(), |world| {
        let root = world.spawn((Position { x: 0.0, y: 0.0 }, Health(10)));
        let child = world.spawn(Position { x: 1.0, y: 2.0 });
        world.spawn(Health(3));
        world.set_parent(child, root).unwrap();
        world.add_pair_with(child, root, Owes(7));
        world.insert_resource(Score(42));
        // Three events held by a reader that never reads: a backlog of 3.
        let _idle_reader = world.add_event::<u32>().register_reader();
        world.resource_mut::<mosaic::Events<u32>>().send_batch([1, 2, 3]);
        let mut schedule = Schedule::new();
        schedule.add_system(drift);
        schedule.enable_profiling(16);
        Some(schedule)
    })
}

impl Game {
    /// Sends one request as the inspector's page would (its Host; for writes JSON and the
    /// token), returns (status, body).
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let write = if method == "GET" || method == "HEAD" {
            String::new()
        } else {
            format!("Content-Type: application/json\r\nX-Mosaic-Token: {}\r\n", self.token)
        };
        self.raw(method, path, &format!("Host: {}\r\n{write}", self.addr), body)
    }

    /// Sends one request with exactly `headers` (each ending in CRLF) besides Connection and
    /// Content-Length, returns (status, body).
    fn raw(&self, method: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        (status, body_of(head, body))
    }

    fn json(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let (status, text) = self.request(method, path, body);
        (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}")))
    }
}

/// The body of a response with `head`, as sent (`body`): as it is, or decoded from chunks
/// (`Transfer-Encoding: chunked`, what a streamed answer such as the map is sent as).
fn body_of(head: &str, body: &str) -> String {
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return body.to_owned();
    }
    let (mut decoded, mut rest) = (String::new(), body);
    loop {
        let (size, after) = rest.split_once("\r\n").expect("a chunk size line");
        let size =
            usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).expect("a hex chunk size");
        if size == 0 {
            return decoded;
        }
        decoded.push_str(&after[..size]);
        rest = after[size..].strip_prefix("\r\n").expect("CRLF after a chunk");
    }
}

#[test]
fn reads_world_entities_hierarchy_schedule_and_frames() {
    let game = start(false);
    let (status, world) = game.json("GET", "/api/world", "");
    assert_eq!(status, 200);
    assert_eq!(world["entities"], 3);
    let names: Vec<&str> =
        world["components"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["health", "position"]);
    assert_eq!(world["components"][1]["entities"], 2);
    assert_eq!(world["components"][1]["bytes"], 16); // 2 rows of 8-byte positions
    assert_eq!(world["resources"]["score"], 42);
    assert_eq!(world["pairs"][0]["name"], "owes");
    assert_eq!(world["pairs"][0]["sources"], 1);
    assert_eq!(world["writes"], false);

    let (_, page) = game.json("GET", "/api/entities?with=position&page_size=1", "");
    assert_eq!((page["total"].as_u64(), page["pages"].as_u64()), (Some(2), Some(2)));
    assert_eq!(page["entities"][0]["id"], "0v1");
    let (_, page) = game.json("GET", "/api/entities?with=health,position", "");
    assert_eq!(page["total"], 1);

    let (status, entity) = game.json("GET", "/api/entities/1v1", "");
    assert_eq!(status, 200);
    assert_eq!(entity["entity"]["components"]["position"]["y"], 2.0);
    assert_eq!(entity["entity"]["parent"], "0v1");
    assert_eq!(entity["entity"]["pairs"]["owes"], json!([{ "target": "0v1", "value": 7 }]));
    let (_, root) = game.json("GET", "/api/entities/0v1", "");
    assert_eq!(root["entity"]["pairs"], json!({}), "a target shows no pairs of its own");

    // The map: every entity with a position as a point, coloured by its health (none: `null`).
    let (status, map) = game.json("GET", "/api/map?component=position&color=health", "");
    assert_eq!(status, 200, "{map}");
    assert_eq!(map["count"], 2);
    assert_eq!(map["index"], serde_json::json!([0, 1]));
    assert_eq!(map["ys"], serde_json::json!([0.0, 2.0]));
    assert_eq!(map["categories"], serde_json::json!(["10", "null"]));
    assert_eq!(map["colors"], serde_json::json!([0, 1]));
    let (status, error) = game.json("GET", "/api/map?component=velocity", "");
    assert_eq!((status, error["error"].as_str().unwrap().contains("velocity")), (404, true));

    let (_, tree) = game.json("GET", "/api/hierarchy", "");
    assert_eq!(tree["roots"], serde_json::json!(["0v1"]));
    assert_eq!(tree["nodes"].as_array().unwrap().len(), 2);

    let (_, schedule) = game.json("GET", "/api/schedule", "");
    let systems = schedule["schedule"]["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 1);
    assert!(systems[0]["name"].as_str().unwrap().contains("drift"));
    assert!(systems[0]["median_ms"].is_number());

    let (status, events) = game.json("GET", "/api/events", "");
    assert_eq!(status, 200);
    let channels = events["events"].as_array().unwrap();
    assert_eq!(channels.len(), 1);
    assert_eq!(channels[0]["name"], "u32");
    assert_eq!((&channels[0]["backlog"], &channels[0]["sent"]), (&3.into(), &3.into()));
    assert_eq!(channels[0]["readers"], 1);

    let (_, frames) = game.json("GET", "/api/frames", "");
    assert!(!frames["frame_times_ms"].as_array().unwrap().is_empty());
    assert_eq!(frames["median_ms"], 0.5);

    let (status, page) = game.request("GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("<html"));
    assert!(page.contains(r#"id="events""#), "the page has the event channel table");
    let (_, script) = game.request("GET", "/assets/app.js", "");
    assert!(script.contains("/api/events"), "the page reads the event channels");
    assert!(
        page.contains(r#"id="scrub""#) && page.contains(r#"id="diff""#),
        "the page has the time-travel panel"
    );
    assert!(
        script.contains("/api/frames/saved") && script.contains("/api/diff"),
        "the panel reads saved frames"
    );
    game.stop();
}

#[test]
fn refuses_bad_requests_with_json_errors() {
    let game = start(false);
    for (method, path, want) in [
        ("GET", "/api/nothing", 404),
        ("GET", "/nothing.txt", 404),
        ("GET", "/assets/../Cargo.toml", 404),
        ("GET", "/assets/%2e%2e/src/lib.rs", 404),
        ("GET", "/api/entities/99v0", 404),
        ("GET", "/api/entities/garbage", 404),
        ("GET", "/api/entities?page_size=1000000", 400),
        ("GET", "/api/entities?page_size=0", 400),
        ("GET", "/api/entities?page=-1", 400),
        ("GET", "/api/entities?with=nope", 404),
        ("GET", "/api/entities?search=%zz", 400),
        ("PUT", "/api/world", 405),
        ("GET", "/api/pause", 405),
        ("GET", "/api/world/extra", 404),
        ("POST", "/", 405),
        ("POST", "/api/pause", 403),
        ("POST", "/api/step", 403),
        ("DELETE", "/api/entities/0v1", 403),
        ("POST", "/api/entities/0v1/components/health", 403),
    ] {
        let (status, body) = game.json(method, path, "7");
        assert_eq!(status, want, "{method} {path}: {body}");
        assert_eq!(body["status"], want, "{method} {path}");
        assert!(body["error"].is_string());
        if want == 403 {
            let error = body["error"].as_str().unwrap();
            assert!(error.contains("InspectorOptions::writes(true)"), "says how to turn writes on: {error}");
        }
    }
    let (status, _) = game.request("POST", "/api/pause", &"x".repeat(70 * 1024));
    assert!((400..500).contains(&status), "{status}");
    // Garbage that is not HTTP gets an answer or a closed connection, and the server lives on.
    let mut stream = TcpStream::connect(game.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.write_all(b"\x00\x01garbage\r\n\r\n").unwrap();
    let _ = stream.read_to_end(&mut Vec::new());
    assert_eq!(game.json("GET", "/api/world", "").0, 200);
    game.stop();
}

#[test]
fn writes_when_enabled_are_applied_at_the_publish_point() {
    let game = start(true);
    assert_eq!(game.json("POST", "/api/pause", "").0, 202);
    let (status, _) = game.json("POST", "/api/entities/2v1/components/health", "99");
    assert_eq!(status, 202);
    let (status, _) = game.json("POST", "/api/entities/2v1/components/position", r#"{"x": 5.0, "y": 6.0}"#);
    assert_eq!(status, 202);
    assert_eq!(game.json("POST", "/api/entities/2v1/components/nope", "1").0, 404);
    assert_eq!(game.json("POST", "/api/entities/2v1/components/health", "{not json").0, 400);
    // A value of the wrong shape is queued, then reported in the summary's errors.
    assert_eq!(game.json("POST", "/api/entities/2v1/components/health", r#""text""#).0, 202);
    let mut entity = Value::Null;
    for _ in 0..100 {
        entity = game.json("GET", "/api/entities/2v1", "").1;
        if entity["entity"]["components"]["position"]["x"] == 5.0 {
            break;
        }
    }
    assert_eq!(entity["entity"]["components"]["health"], 99);
    assert_eq!(entity["entity"]["components"]["position"]["x"], 5.0);
    let (_, world) = game.json("GET", "/api/world", "");
    assert_eq!(world["paused"], true);
    assert!(world["errors"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains("health")));

    // Paused: the drift system does not run, until one step.
    let x = |game: &Game| {
        game.json("GET", "/api/entities/0v1", "").1["entity"]["components"]["position"]["x"].as_f64()
    };
    let before = x(&game);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(x(&game), before);
    assert_eq!(game.json("POST", "/api/step", "").0, 202);
    let mut after = before;
    for _ in 0..100 {
        after = x(&game);
        if after != before {
            break;
        }
    }
    assert_eq!(after, before.map(|x| x + 1.0));

    assert_eq!(game.json("DELETE", "/api/entities/1v1", "").0, 202);
    let mut status = 0;
    for _ in 0..100 {
        status = game.json("GET", "/api/entities/1v1", "").0;
        if status == 404 {
            break;
        }
    }
    assert_eq!(status, 404);
    let world = game.stop();
    assert_eq!(world.len(), 2);
}

#[test]
fn refuses_non_loopback_addresses_unless_asked() {
    let options = InspectorOptions::with_addr("0.0.0.0:0".parse().unwrap());
    assert!(matches!(Inspector::start(options, registry()), Err(InspectError::NotLoopback(_))));
}

/// Sends `request` to `inspector` from another thread and publishes `world` every 2 ms until the
/// answer is in, as a game's frame loop would (reads are answered from the world at a publish
/// point). Returns the raw answer.
fn read_while_publishing(inspector: &mut Inspector, world: &mut World, request: String) -> String {
    let addr = inspector.addr();
    let reader = std::thread::spawn(move || exchange(addr, &request));
    while !reader.is_finished() {
        inspector.publish(world, None, None);
        std::thread::sleep(Duration::from_millis(2));
    }
    reader.join().unwrap()
}

/// Sends `request` (whole, ending the connection's requests) to `addr` and reads the whole
/// answer, waiting at most 20 s.
fn exchange(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn a_hung_client_does_not_stall_publish() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    let mut inspector = Inspector::start(options, registry()).unwrap();
    // A client that sends half a request and never finishes.
    let mut hung = TcpStream::connect(inspector.addr()).unwrap();
    hung.write_all(format!("GET /api/world HTTP/1.1\r\nHost: {}\r\n", inspector.addr()).as_bytes()).unwrap();
    let mut world = World::new();
    world.spawn(Health(1));
    let start = std::time::Instant::now();
    for _ in 0..100 {
        inspector.publish(&mut world, None, Some(Duration::from_millis(1)));
    }
    assert!(start.elapsed() < Duration::from_secs(2));
    // Another client is still answered.
    let request =
        format!("GET /api/world HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", inspector.addr());
    let text = read_while_publishing(&mut inspector, &mut world, request);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    drop(hung);
}

/// The refusals of cross-site and DNS-rebinding requests, each with its status, on a server with
/// writes on; the world is untouched by every refused write.
#[test]
fn refuses_foreign_hosts_cross_site_writes_and_missing_tokens() {
    let game = start(true);
    let host = format!("Host: {}\r\n", game.addr);
    let port = game.addr.port();
    let json = "Content-Type: application/json\r\n";
    let token = format!("X-Mosaic-Token: {}\r\n", game.token);
    let cases: Vec<(&str, &str, String, u16, &str)> = vec![
        ("GET", "/api/world", format!("Host: evil.example:{port}\r\n"), 403, "DNS rebinding read"),
        ("GET", "/", format!("Host: evil.example:{port}\r\n"), 403, "DNS rebinding page"),
        ("GET", "/api/world", String::new(), 400, "no Host"),
        ("GET", "/api/world", "Host: 127.0.0.1:1\r\n".to_owned(), 403, "another port"),
        (
            "POST",
            "/api/pause",
            format!("{host}Content-Type: text/plain\r\n{token}"),
            415,
            "a form-style POST",
        ),
        ("POST", "/api/pause", format!("{host}{token}"), 415, "no content type"),
        (
            "POST",
            "/api/pause",
            format!("{host}{json}Origin: http://evil.example\r\n{token}"),
            403,
            "cross-site",
        ),
        ("POST", "/api/pause", format!("{host}{json}Origin: null\r\n{token}"), 403, "opaque origin"),
        ("POST", "/api/pause", format!("{host}{json}"), 403, "no token"),
        ("POST", "/api/pause", format!("{host}{json}X-Mosaic-Token: 0000\r\n"), 403, "wrong token"),
        ("DELETE", "/api/entities/0v1", format!("{host}{json}"), 403, "delete without token"),
    ];
    for (method, path, headers, want, what) in cases {
        let (status, body) = game.raw(method, path, &headers, "5");
        assert_eq!(status, want, "{what}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
        assert_eq!(body["status"], want, "{what}");
    }
    let (_, world) = game.json("GET", "/api/world", "");
    assert_eq!(world["paused"], false, "no refused write reached the world");
    assert_eq!(game.json("GET", "/api/entities/0v1", "").0, 200);
    // The page's own request passes: same origin, JSON, token; localhost as the host too.
    let own = format!("Host: localhost:{port}\r\n{json}Origin: http://localhost:{port}\r\n{token}");
    assert_eq!(game.raw("POST", "/api/pause", &own, "").0, 202);
    game.stop();
}

/// Reads a web page of another site could make the browser send (issue 42: no-cors GETs of
/// `/api/diff` and the like reached the server) are refused: `Sec-Fetch-Site` naming another
/// site, or an `Origin` other than the server's own, is 403 with a JSON error. The page's own
/// reads (same origin), a typed URL (`none`) and clients that are not browsers (no header) pass,
/// and a link from another site still opens the page itself.
#[test]
fn refuses_reads_from_other_sites_and_origins() {
    let game = start(false);
    let host = format!("Host: {}\r\n", game.addr);
    let port = game.addr.port();
    let refused = [
        ("/api/world", "Sec-Fetch-Site: cross-site\r\n", "a no-cors read from another site"),
        ("/api/diff?a=0&b=1", "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n", "a diff"),
        ("/api/frames/0/map", "sec-fetch-site: CROSS-SITE\r\n", "a saved frame's map"),
        ("/api/entities", "Sec-Fetch-Site: same-site\r\n", "another port of localhost"),
        ("/api/world", "Origin: http://evil.example\r\n", "a CORS read from another origin"),
        ("/api/world", "Origin: null\r\n", "an opaque origin"),
        ("/", "Origin: http://evil.example\r\n", "the page, from another origin"),
    ];
    for (path, headers, what) in refused {
        let (status, body) = game.raw("HEAD", path, &format!("{host}{headers}"), "");
        assert_eq!(status, 403, "HEAD {what}");
        assert!(body.is_empty(), "HEAD {what}: {body}");
        let (status, body) = game.raw("GET", path, &format!("{host}{headers}"), "");
        assert_eq!(status, 403, "{what}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
        assert_eq!(body["status"], 403, "{what}");
    }
    let allowed = [
        ("/api/world", "Sec-Fetch-Site: same-origin\r\n".to_owned()),
        ("/api/world", format!("Sec-Fetch-Site: same-origin\r\nOrigin: http://127.0.0.1:{port}\r\n")),
        ("/api/world", "Sec-Fetch-Site: none\r\n".to_owned()),
        ("/api/world", String::new()),
        ("/", "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\n".to_owned()),
    ];
    for (path, headers) in allowed {
        let (status, body) = game.raw("GET", path, &format!("{host}{headers}"), "");
        assert_eq!(status, 200, "{path} with {headers:?}: {body}");
    }
}

/// Steps banked while paused end at the next pause (issue 27: 185 more frames ran after a pause
/// that followed `step?frames=1000`).
#[test]
fn a_pause_drops_the_steps_not_yet_run() {
    let game = start(true);
    let x = |game: &Game| {
        game.json("GET", "/api/entities/0v1", "").1["entity"]["components"]["position"]["x"].as_f64()
    };
    assert_eq!(game.json("POST", "/api/pause", "").0, 202);
    assert_eq!(game.json("POST", "/api/step?frames=1000", "").0, 202);
    std::thread::sleep(Duration::from_millis(20)); // some of them run
    assert_eq!(game.json("POST", "/api/pause", "").0, 202);
    std::thread::sleep(Duration::from_millis(50)); // a frame under way when paused may finish
    let held = x(&game);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(x(&game), held, "no frame runs after the pause");
    let frames_run = held.expect("a position") as i64;
    assert!(frames_run < 1000, "the pause cut the 1,000 steps short: {frames_run} ran");
    game.stop();
}

/// A game's write check refuses a value before it is written, and the refusal shows in the
/// view's errors.
#[test]
fn the_games_write_check_refuses_values_before_they_are_written() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true);
    let mut inspector = Inspector::start(options, registry()).unwrap();
    inspector.check_writes(|_, name, value| match (name, value.as_i64()) {
        ("health", Some(h)) if h > 100 => Err(format!("`health`: {h} is over the limit of 100")),
        _ => Ok(()),
    });
    let mut world = World::new();
    let e = world.spawn(Health(7));
    // Writes are queued without waiting for the frame loop, which applies them at its publish.
    let (addr, token) = (inspector.addr(), inspector.token().to_owned());
    let post = |path: &str, body: &str| {
        exchange(
            addr,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nX-Mosaic-Token: {token}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let id = format!("{}v{}", e.index(), e.generation());
    assert!(post(&format!("/api/entities/{id}/components/health"), "500").starts_with("HTTP/1.1 202"));
    inspector.publish(&mut world, None, None);
    assert_eq!(world.get::<Health>(e).unwrap().0, 7, "the refused value was not written");
    assert!(post(&format!("/api/entities/{id}/components/health"), "50").starts_with("HTTP/1.1 202"));
    inspector.publish(&mut world, None, None);
    assert_eq!(world.get::<Health>(e).unwrap().0, 50, "an accepted value is written");
    let get = format!("GET /api/world HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let text = read_while_publishing(&mut inspector, &mut world, get);
    assert!(text.contains("over the limit of 100"), "{text}");
}

/// Requests sized to make the server work for the URL, not the world, are cut short: a 90 KB
/// URL gets 414 at once, and a `with` filter naming one component thousands of times costs what
/// naming it once costs.
#[test]
fn oversized_urls_and_repeated_filters_are_bounded() {
    let game = start(false);
    let start = std::time::Instant::now();
    let long = format!("/api/entities?with={}", "health,".repeat(13_000));
    let (status, body) = game.request("GET", &long, "");
    assert_eq!(status, 414, "{}", &body[..body.len().min(200)]);
    let repeated = format!("/api/entities?with={}", "health,".repeat(1_000));
    let (status, body) = game.json("GET", &repeated, "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["total"], 2, "the entities with health: {body}");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    game.stop();
}

/// A client that sends part of a body, large or small, and then nothing holds up no one else:
/// a large one is answered 413 without its body being waited for, a small one is waited for on
/// its own connection only.
#[test]
fn a_client_sending_half_a_body_blocks_no_one() {
    let game = start(true);
    let mut stalled = Vec::new();
    for length in [100_000, 600] {
        let mut stream = TcpStream::connect(game.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            stream,
            "POST /api/pause HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nX-Mosaic-Token: {}\r\nContent-Length: {length}\r\n\r\n{{\"half\":",
            game.addr, game.token
        )
        .unwrap();
        stalled.push(stream);
    }
    // The large one is answered at once, unread.
    let mut answer = [0u8; 12];
    stalled[0].read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 413", "{}", String::from_utf8_lossy(&answer));
    // Every other client is served meanwhile.
    let start = std::time::Instant::now();
    for _ in 0..5 {
        assert_eq!(game.json("GET", "/api/world", "").0, 200);
    }
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    drop(stalled);
    game.stop();
}

/// With a client asking as fast as it can, answering takes about the budgeted share of the frame
/// loop (10% by default), not all of it; and the first answer shows the world as it is.
#[test]
fn reads_keep_to_their_share_of_the_frame_loop() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    let mut inspector = Inspector::start(options, registry()).unwrap();
    let mut world = World::new();
    world.spawn_batch((0..50_000).map(|i| (Position { x: i as f32, y: 0.0 }, Health(i))));
    let addr = inspector.addr();
    let stop = Arc::new(AtomicBool::new(false));
    let client = std::thread::spawn({
        let stop = Arc::clone(&stop);
        move || {
            let mut answers = Vec::new();
            while !stop.load(Ordering::Acquire) {
                let mut stream = TcpStream::connect(addr).unwrap();
                stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
                write!(stream, "GET /api/world HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
                    .unwrap();
                let mut text = String::new();
                stream.read_to_string(&mut text).unwrap();
                let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
                answers.push(serde_json::from_str::<Value>(&body).unwrap());
            }
            answers
        }
    });
    let (start, mut in_publish, mut frames) = (std::time::Instant::now(), Duration::ZERO, 0u32);
    while start.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(2)); // the frame's own work
        let publish = std::time::Instant::now();
        inspector.publish(&mut world, None, Some(Duration::from_millis(2)));
        in_publish += publish.elapsed();
        frames += 1;
    }
    let wall = start.elapsed();
    stop.store(true, Ordering::Release);
    // Let the client's last read finish.
    for _ in 0..200 {
        inspector.publish(&mut world, None, None);
        std::thread::sleep(Duration::from_millis(5));
        if client.is_finished() {
            break;
        }
    }
    let answers = client.join().unwrap();
    assert_eq!(answers[0]["entities"], 50_000, "the first answer is the world as it is");
    assert!(answers.len() > 5, "the client was answered throughout: {} answers", answers.len());
    let share = in_publish.as_secs_f64() / wall.as_secs_f64();
    assert!(share < 0.35, "reads took {:.0}% of the frame loop over {frames} frames", share * 100.0);
}

/// A read is answered from the world as it is at the publish point that answers it: a world
/// changed between publishes shows the change, and a write queued before shows too.
#[test]
fn reads_show_the_world_at_the_publish_point_that_answers_them() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true);
    let mut inspector = Inspector::start(options, registry()).unwrap();
    let mut world = World::new();
    let e = world.spawn((Position { x: 1.0, y: 2.0 }, Health(5)));
    let get = |addr: SocketAddr, path: &str| {
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
    };
    let addr = inspector.addr();
    let text = read_while_publishing(&mut inspector, &mut world, get(addr, "/api/world"));
    assert!(text.contains("\"entities\":1"), "{text}");
    world.spawn_batch((0..9).map(Health));
    world.get_mut::<Health>(e).unwrap().0 = 77;
    let text = read_while_publishing(&mut inspector, &mut world, get(addr, "/api/world"));
    assert!(text.contains("\"entities\":10"), "{text}");
    let path = format!("/api/entities/{}v{}", e.index(), e.generation());
    let text = read_while_publishing(&mut inspector, &mut world, get(addr, &path));
    assert!(text.contains("\"health\":77"), "{text}");
    let text = read_while_publishing(&mut inspector, &mut world, get(addr, "/api/map?component=position"));
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let streamed = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    assert!(text.starts_with("HTTP/1.1 200") && streamed, "streamed: {text}");
    let body: Value = serde_json::from_str(&body_of(head, body)).unwrap();
    assert_eq!(
        (body["count"].clone(), body["xs"].clone(), body["ys"].clone()),
        (1.into(), json!([1.0]), json!([2.0]))
    );
}

/// A read waits a bounded time for a frame loop that does not publish, then gets 503 naming
/// `publish`; writes are queued without waiting at all.
#[test]
fn a_frame_loop_that_never_publishes_gets_503_not_a_hang() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true);
    let mut inspector = Inspector::start(options, registry()).unwrap();
    let addr = inspector.addr();
    let start = std::time::Instant::now();
    let text =
        exchange(addr, &format!("GET /api/world HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(text.contains("publish"), "{text}");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    let pause = format!(
        "POST /api/pause HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nX-Mosaic-Token: {}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        inspector.token()
    );
    let text = exchange(addr, &pause);
    assert!(text.starts_with("HTTP/1.1 202"), "{text}");
    let mut world = World::new();
    inspector.publish(&mut world, None, None);
    assert!(inspector.paused());
}

/// A component whose `Serialize` panics.
#[derive(Component, Clone, Debug, Deserialize)]
struct Cursed;

impl Serialize for Cursed {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        panic!("this value cannot be shown")
    }
}

/// A read that panics on the frame loop (a user's `Serialize` impl) answers 500 and leaves the
/// game running and the inspector answering.
#[test]
fn a_read_that_panics_answers_500_and_the_game_goes_on() {
    let mut registry = registry();
    registry.register::<Cursed>("cursed");
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    let mut inspector = Inspector::start(options, registry).unwrap();
    let mut world = World::new();
    let e = world.spawn((Cursed, Health(3)));
    let addr = inspector.addr();
    let get = |path: &str| format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let path = format!("/api/entities/{}v{}", e.index(), e.generation());
    let text = read_while_publishing(&mut inspector, &mut world, get(&path));
    assert!(text.starts_with("HTTP/1.1 500"), "{text}");
    let text = read_while_publishing(&mut inspector, &mut world, get("/api/world"));
    assert!(text.starts_with("HTTP/1.1 200") && text.contains("\"entities\":1"), "{text}");
}

/// Run-time components (`mosaic::dynamic`) are shown through their schema, with no per-type code:
/// in the entity view as `{dotted path: value}`, and by name in the entity list.
#[test]
fn run_time_components_are_shown_through_their_schema() {
    use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Field, FieldType, Scalar, Schema};
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    let mut inspector = Inspector::start(options, registry()).unwrap();
    let mut world = World::new();
    let schema = Schema::new(vec![
        Field::new("absorb", Scalar::F32),
        Field::new("charges", FieldType::array(Scalar::U8, 2)),
        Field::new("on", Scalar::Bool),
    ])
    .unwrap();
    let shield = world.register_dynamic(ComponentDescriptor::new("Shield", schema)).unwrap();
    let mut value = DynamicValue::new(world.dynamic_schema(shield).unwrap());
    value.set_path("absorb", 2.5f32).unwrap();
    value.set_path("charges.1", 3u8).unwrap();
    value.set_path("on", true).unwrap();
    let e = world.spawn_dynamic([(shield, value)]).unwrap();
    world.insert(e, Health(7));
    let addr = inspector.addr();
    let get = |path: &str| format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let text = read_while_publishing(
        &mut inspector,
        &mut world,
        get(&format!("/api/entities/{}v{}", e.index(), e.generation())),
    );
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let body: serde_json::Value = serde_json::from_str(&body_of(head, body)).unwrap();
    assert_eq!(
        body["entity"]["components"]["Shield"],
        json!({ "absorb": 2.5, "charges.0": 0, "charges.1": 3, "on": true }),
        "{text}"
    );
    let text = read_while_publishing(&mut inspector, &mut world, get("/api/entities"));
    assert!(text.contains("\"Shield\""), "{text}");
}

/// A run-time component is edited like a registered one: `{dotted path: value}`, each field
/// checked against its schema; other fields keep their values.
#[test]
fn run_time_components_are_edited_through_their_schema() {
    use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Field, Scalar, Schema};
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true);
    let game = Game::start(options, registry(), |world| {
        let schema =
            Schema::new(vec![Field::new("absorb", Scalar::F32), Field::new("charges", Scalar::U8)]).unwrap();
        let shield = world.register_dynamic(ComponentDescriptor::new("Shield", schema)).unwrap();
        let mut value = DynamicValue::new(world.dynamic_schema(shield).unwrap());
        value.set_path("charges", 2u8).unwrap();
        world.spawn_dynamic([(shield, value)]).unwrap();
        None
    });
    let shield =
        |game: &Game| game.json("GET", "/api/entities/0v1", "").1["entity"]["components"]["Shield"].clone();
    // The frame loop publishes the names before a write can name the component.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while game.json("POST", "/api/entities/0v1/components/Shield", r#"{"absorb": 4.5}"#).0 != 202 {
        assert!(std::time::Instant::now() < deadline, "the run-time component's name never became writable");
        std::thread::sleep(Duration::from_millis(20));
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while shield(&game) != json!({ "absorb": 4.5, "charges": 2 }) {
        assert!(std::time::Instant::now() < deadline, "the write was not applied: {}", shield(&game));
        std::thread::sleep(Duration::from_millis(20));
    }
    // Refused writes are recorded, naming the field, and change nothing.
    for bad in [r#"{"charges": 300}"#, r#"{"nope": 1}"#, r#"{"absorb": "x"}"#, "[1]"] {
        assert_eq!(game.json("POST", "/api/entities/0v1/components/Shield", bad).0, 202);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let errors = game.json("GET", "/api/world", "").1["errors"].clone();
        let text = errors.to_string();
        if text.contains("charges")
            && text.contains("nope")
            && text.contains("absorb")
            && text.contains("object")
        {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "errors: {text}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(shield(&game), json!({ "absorb": 4.5, "charges": 2 }));
    assert_eq!(game.json("POST", "/api/entities/0v1/components/Unknown", "{}").0, 404);
    game.stop();
}

/// A world that declares its types once (`World::register`) is inspected through that registry:
/// no snapshot registry written for the inspector.
#[test]
fn shows_the_types_the_world_declares() {
    let mut world = World::new();
    world.register::<Health>().name("health").serde();
    world.register_resource::<Score>().name("score").serde();
    world.spawn(Health(5));
    world.spawn(Position { x: 0.0, y: 0.0 }); // not declared: not shown
    world.insert_resource(Score(9));
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap());
    let mut inspector = Inspector::for_world(options, &world).unwrap();
    let request =
        format!("GET /api/world HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", inspector.addr());
    let text = read_while_publishing(&mut inspector, &mut world, request);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let body: Value = serde_json::from_str(text.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let names: Vec<&str> =
        body["components"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"health") && !names.contains(&"position"), "{names:?}");
    assert_eq!(body["resources"]["score"], 9);
}

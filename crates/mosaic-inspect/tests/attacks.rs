//! The HTTP server against clients that misbehave, on loopback (port 0): slow or silent
//! clients, oversized or malformed requests, more connections than the cap, and a shutdown
//! while clients hold connections. Every test runs in a few seconds at most.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mosaic::serialize::SnapshotRegistry;
use mosaic_inspect::{Inspector, InspectorOptions};
use serde_json::Value;

mod common;
use common::Game;

#[derive(mosaic::Component, Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Health(u32);

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry.register::<Health>("health");
    registry
}

/// The connection cap these tests give the server (`InspectorOptions::max_connections`; 4,096
/// by default).
const MAX_CONNECTIONS: usize = 64;

/// A game of one `Health` and no schedule, with writes on, `timeout` as the inspector's
/// request timeout and [`MAX_CONNECTIONS`] as its connection cap.
fn start(timeout: Duration) -> Game {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap())
        .writes(true)
        .request_timeout(timeout)
        .connections(MAX_CONNECTIONS);
    Game::start(options, registry(), |world| {
        world.spawn(Health(3));
        None
    })
}

impl Game {
    /// A connection with a 5-second read timeout.
    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream
    }

    /// Sends `bytes` and reads the whole answer.
    fn exchange(&self, bytes: &[u8]) -> Answer {
        let mut stream = self.connect();
        stream.write_all(bytes).unwrap();
        Answer::read(&mut stream)
    }

    /// `GET path` as the page sends it.
    fn get(&self, path: &str) -> Answer {
        self.exchange(format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.addr).as_bytes())
    }
}

/// A response as read off the wire.
#[derive(Debug)]
struct Answer {
    status: u16,
    /// Header lines, names lowercased.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    /// Reads a whole response (the server closes after it).
    fn read(stream: &mut TcpStream) -> Self {
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        Self::parse(&bytes)
    }

    fn parse(bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head: {text:?}"));
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
        let headers = lines
            .map(|line| {
                let (name, value) = line.split_once(':').unwrap();
                (name.to_ascii_lowercase(), value.trim().to_owned())
            })
            .collect();
        Self { status, headers, body: body.as_bytes().to_vec() }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON, with its `status` checked against the response's.
    fn error(&self) -> Value {
        let body: Value = serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"));
        assert_eq!(body["status"], self.status, "{body}");
        assert!(body["error"].is_string(), "{body}");
        body
    }
}

/// A client that sends half a request, or half a body, and stalls holds only its own worker:
/// others are answered meanwhile, and it gets 408 once the request timeout has passed.
#[test]
fn a_stalled_client_blocks_no_one_and_gets_408() {
    let timeout = Duration::from_millis(1000);
    let game = start(timeout);
    let sent = Instant::now();
    let mut half_head = game.connect();
    write!(half_head, "GET /api/world HTTP/1.1\r\nHost: {}\r\n", game.addr).unwrap();
    let mut half_body = game.connect();
    write!(
        half_body,
        "POST /api/pause HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nX-Mosaic-Token: {}\r\nContent-Length: 600\r\n\r\n{{\"half\":",
        game.addr, game.token
    )
    .unwrap();
    // Others are served while both stall.
    for path in ["/", "/api/world", "/", "/api/world", "/"] {
        let answer = game.get(path);
        assert_eq!(answer.status, 200, "{path}: {answer:?}");
    }
    assert!(sent.elapsed() < timeout, "answered before the stalled clients time out: {:?}", sent.elapsed());
    for mut stalled in [half_head, half_body] {
        let answer = Answer::read(&mut stalled);
        let waited = sent.elapsed();
        assert_eq!(answer.status, 408, "{answer:?}");
        answer.error();
        assert!(waited >= timeout - Duration::from_millis(20), "{waited:?}");
        assert!(waited < Duration::from_secs(3), "{waited:?}");
    }
}

/// Each limit on the request line, headers and body is refused with its status and a JSON
/// error, without waiting for what the request announces.
#[test]
fn oversized_and_malformed_requests_are_refused_with_their_status() {
    let game = start(Duration::from_secs(5));
    let host = format!("Host: {}\r\n", game.addr);
    let many_headers: String = (0..100).map(|i| format!("X-Filler-{i}: {i}\r\n")).collect();
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "a 20 KB header",
            format!("GET /api HTTP/1.1\r\n{host}X-Big: {}\r\n\r\n", "a".repeat(20_000)).into_bytes(),
            431,
        ),
        ("100 headers", format!("GET /api HTTP/1.1\r\n{host}{many_headers}\r\n").into_bytes(), 431),
        (
            "a 9 KB URL",
            format!("GET /api/entities?search={} HTTP/1.1\r\n{host}\r\n", "a".repeat(9_000)).into_bytes(),
            414,
        ),
        (
            "a 90 KB URL",
            format!("GET /api/entities?search={} HTTP/1.1\r\n{host}\r\n", "a".repeat(90_000)).into_bytes(),
            414,
        ),
        (
            "Content-Length 2000, body not sent",
            format!("POST /api/pause HTTP/1.1\r\n{host}Content-Length: 2000\r\n\r\n").into_bytes(),
            413,
        ),
        (
            "chunked",
            format!("POST /api/pause HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
                .into_bytes(),
            411,
        ),
        ("a garbage request line", b"\x00\x01garbage\r\n\r\n".to_vec(), 400),
        ("no version", format!("GET /api\r\n{host}\r\n").into_bytes(), 400),
        ("HTTP/2.0", format!("GET /api HTTP/2.0\r\n{host}\r\n").into_bytes(), 505),
        (
            "a bad Content-Length",
            format!("POST /api/pause HTTP/1.1\r\n{host}Content-Length: 12x\r\n\r\n").into_bytes(),
            400,
        ),
        (
            "two Content-Lengths that differ",
            format!("POST /api/pause HTTP/1.1\r\n{host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab")
                .into_bytes(),
            400,
        ),
        ("two Hosts", format!("GET /api HTTP/1.1\r\n{host}{host}\r\n").into_bytes(), 400),
        (
            "a header value that is not UTF-8",
            [format!("GET /api HTTP/1.1\r\n{host}X-Name: ").as_bytes(), b"\xff\xfe\r\n\r\n"].concat(),
            400,
        ),
        ("Expect: other", format!("GET /api HTTP/1.1\r\n{host}Expect: 200-ok\r\n\r\n").into_bytes(), 417),
        ("the connection ends mid-head", format!("GET /api HTTP/1.1\r\n{host}").into_bytes(), 400),
    ];
    for (what, request, want) in cases {
        let start = Instant::now();
        let mut stream = game.connect();
        stream.write_all(&request).unwrap();
        if what == "the connection ends mid-head" {
            stream.shutdown(std::net::Shutdown::Write).unwrap();
        }
        let answer = Answer::read(&mut stream);
        assert_eq!(answer.status, want, "{what}: {answer:?}");
        answer.error();
        assert_eq!(answer.header("connection"), Some("close"), "{what}");
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"), "{what}");
        assert!(start.elapsed() < Duration::from_secs(2), "{what}: {:?}", start.elapsed());
    }
    // The server lives on.
    assert_eq!(game.get("/api/world").status, 200);
}

/// A body within the limit is read, also after `Expect: 100-continue`; HTTP/1.0 is served.
#[test]
fn small_bodies_continue_and_http_1_0_are_served() {
    let game = start(Duration::from_secs(5));
    let mut stream = game.connect();
    write!(
        stream,
        "POST /api/pause HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nX-Mosaic-Token: {}\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
        game.addr, game.token
    )
    .unwrap();
    let mut interim = [0u8; 25];
    stream.read_exact(&mut interim).unwrap();
    assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
    stream.write_all(b"{}").unwrap();
    let answer = Answer::read(&mut stream);
    assert_eq!(answer.status, 202, "{answer:?}");
    let answer = game.exchange(format!("GET /api/world HTTP/1.0\r\nHost: {}\r\n\r\n", game.addr).as_bytes());
    assert_eq!(answer.status, 200, "{answer:?}");
}

/// HEAD is answered with the GET's headers (its Content-Length included) and no body; every
/// response carries its type, length, nosniff and `Connection: close`.
#[test]
fn head_has_the_headers_of_get_and_no_body() {
    let game = start(Duration::from_secs(5));
    let get = game.get("/");
    assert_eq!(get.status, 200);
    assert_eq!(get.header("content-length"), Some(get.body.len().to_string().as_str()));
    let head = game.exchange(format!("HEAD / HTTP/1.1\r\nHost: {}\r\n\r\n", game.addr).as_bytes());
    assert_eq!(head.status, 200, "{head:?}");
    assert!(head.body.is_empty(), "{head:?}");
    assert_eq!(head.header("content-length"), get.header("content-length"));
    for answer in [&get, &head] {
        assert_eq!(answer.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(answer.header("connection"), Some("close"));
    }
    // A refused HEAD has no body either.
    let refused = game.exchange(
        format!("HEAD /api/world HTTP/1.1\r\nHost: evil.example:{}\r\n\r\n", game.addr.port()).as_bytes(),
    );
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(refused.body.is_empty(), "{refused:?}");
    let missing = game.get("/api/nothing");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("content-type"), Some("application/json"));
    assert_eq!(missing.header("content-length"), Some(missing.body.len().to_string().as_str()));
}

/// With the cap of connections held open, more are refused (503 or closed) at once, and once
/// they are released a request is answered.
#[test]
fn connections_past_the_cap_are_refused_until_others_close() {
    let game = start(Duration::from_secs(4));
    let held: Vec<TcpStream> = (0..MAX_CONNECTIONS).map(|_| game.connect()).collect();
    let start = Instant::now();
    for _ in 0..3 {
        let mut extra = game.connect();
        // The request may be cut off by the refusal: the write's result does not matter.
        let _ = write!(extra, "GET /api HTTP/1.1\r\nHost: {}\r\n\r\n", game.addr);
        let mut bytes = Vec::new();
        // 503 on loopback in practice; a reset if the refusal raced the request.
        match extra.read_to_end(&mut bytes) {
            Ok(_) if bytes.is_empty() => {}
            Ok(_) => {
                let answer = Answer::parse(&bytes);
                assert_eq!(answer.status, 503, "{answer:?}");
                answer.error();
            }
            Err(error) => assert!(
                matches!(error.kind(), ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted),
                "{error}"
            ),
        }
    }
    assert!(start.elapsed() < Duration::from_secs(2), "refused at once: {:?}", start.elapsed());
    drop(held);
    let start = Instant::now();
    let answer = game.get("/api/world");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}

/// Dropping the inspector returns promptly while clients hold connections (silent, half a
/// request, half a body), closes them, and stops listening.
#[test]
fn dropping_the_inspector_is_prompt_while_clients_hold_connections() {
    let options = InspectorOptions::with_addr("127.0.0.1:0".parse().unwrap()).writes(true);
    let inspector = Inspector::start(options, registry()).unwrap();
    let addr = inspector.addr();
    let connect = || {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream
    };
    let silent = connect();
    let mut half_head = connect();
    write!(half_head, "GET /api/world HTTP/1.1\r\nHost: {addr}\r\n").unwrap();
    let mut half_body = connect();
    write!(
        half_body,
        "POST /api/pause HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nX-Mosaic-Token: {}\r\nContent-Length: 100\r\n\r\n{{",
        inspector.token()
    )
    .unwrap();
    // Let the workers take them up.
    std::thread::sleep(Duration::from_millis(100));
    let start = Instant::now();
    drop(inspector);
    assert!(start.elapsed() < Duration::from_secs(1), "dropped in {:?}", start.elapsed());
    for mut held in [silent, half_head, half_body] {
        let start = Instant::now();
        // Closed (an answer, an end or a reset), not left waiting for the 5-second timeout.
        let _ = held.read_to_end(&mut Vec::new());
        assert!(start.elapsed() < Duration::from_secs(1), "{:?}", start.elapsed());
    }
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err(), "no longer listening");
}

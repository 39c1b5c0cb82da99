//! The routes: parses a request and answers it from the live world at the frame loop's next
//! publish point ([`live::read`]) or from a saved frame, or queues a write.

use std::sync::atomic::Ordering;

use serde::Serialize;
use serde_json::{Value, json};

use crate::assets;
use crate::error::ApiError;
use crate::inspector::{Command, Shared, lock};
use crate::live;
use crate::map::{MapQuery, Points};
use crate::travel;
use crate::view::{self, PageQuery};

/// The page size when none is given, in entities.
const DEFAULT_PAGE_SIZE: usize = 50;

/// What a reply's body is.
pub(crate) enum Body {
    /// Bytes in memory, sent with their `Content-Length`.
    Bytes(Vec<u8>),
    /// A value written as JSON straight to the connection as it is serialized, with no
    /// `Content-Length` (the connection's close ends it): for large answers (the map), so no
    /// whole JSON text is ever held in memory.
    Json(Box<dyn erased_serde::Serialize + Send>),
}

/// An answer, ready to send.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: Body,
}

impl Reply {
    /// `value` as JSON text in memory.
    fn json(status: u16, value: &impl Serialize) -> Self {
        match serde_json::to_vec(value) {
            Ok(body) => Self { status, content_type: "application/json", body: Body::Bytes(body) },
            Err(error) => Self::error(&ApiError::NotSerializable(error.to_string())),
        }
    }

    /// `value`, written as JSON while it is sent ([`Body::Json`]).
    fn stream(status: u16, value: impl Serialize + Send + 'static) -> Self {
        Self { status, content_type: "application/json", body: Body::Json(Box::new(value)) }
    }

    /// `{"error": message, "status": code}` with the error's status.
    pub(crate) fn error(error: &ApiError) -> Self {
        Self::json(error.status(), &json!({ "error": error.to_string(), "status": error.status() }))
    }
}

/// Answers `method url` with `body`.
pub(crate) fn handle(method: &str, url: &str, body: &[u8], shared: &Shared) -> Reply {
    match route(method, url, body, shared) {
        Ok(reply) => reply,
        Err(error) => Reply::error(&error),
    }
}

/// A query string's `(key, value)` pairs, percent-decoded, in order.
type Pairs = Vec<(String, String)>;

/// Splits `url` into its path and its query pairs.
fn split(url: &str) -> Result<(&str, Pairs), ApiError> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((decode(k)?, decode(v)?))
        })
        .collect::<Result<_, ApiError>>()?;
    Ok((path, pairs))
}

/// Percent-decodes `text` (and `+` as a space).
fn decode(text: &str) -> Result<String, ApiError> {
    let bad = || ApiError::BadRequest(format!("bad percent-encoding in `{text}`"));
    let mut bytes = Vec::with_capacity(text.len());
    let mut input = text.bytes();
    while let Some(b) = input.next() {
        match b {
            b'%' => {
                let hex = [input.next().ok_or_else(bad)?, input.next().ok_or_else(bad)?];
                let hex = std::str::from_utf8(&hex).map_err(|_| bad())?;
                bytes.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
            }
            b'+' => bytes.push(b' '),
            b => bytes.push(b),
        }
    }
    String::from_utf8(bytes).map_err(|_| bad())
}

fn query<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn number(pairs: &[(String, String)], key: &str, default: usize) -> Result<usize, ApiError> {
    query(pairs, key).map_or(Ok(default), |v| {
        v.parse().map_err(|_| ApiError::BadRequest(format!("`{key}` must be a whole number, not `{v}`")))
    })
}

/// The map's parameters: `component` (default `position`), `x` and `y` (default `x`, `y`),
/// `color` (none when absent or empty).
fn map_query(pairs: &[(String, String)]) -> MapQuery {
    MapQuery {
        component: query(pairs, "component").unwrap_or("position").to_owned(),
        x: query(pairs, "x").unwrap_or("x").to_owned(),
        y: query(pairs, "y").unwrap_or("y").to_owned(),
        color: query(pairs, "color").filter(|c| !c.is_empty()).map(str::to_owned),
    }
}

/// A page of entities as asked for by `pairs`, checked: `page_size` from 1 to the inspector's
/// maximum, `with` names registered (each once: the filter's cost is bounded by the registered
/// types, not by the URL), `search` in lower case.
fn page_query(pairs: &[(String, String)], shared: &Shared) -> Result<PageQuery, ApiError> {
    let max = shared.options.max_page_size.max(1);
    let page_size = number(pairs, "page_size", DEFAULT_PAGE_SIZE.min(max))?;
    if page_size == 0 || page_size > max {
        return Err(ApiError::BadRequest(format!("`page_size` must be from 1 to {max}")));
    }
    let page = number(pairs, "page", 0)?;
    let mut with: Vec<&str> =
        query(pairs, "with").map_or_else(Vec::new, |w| w.split(',').filter(|s| !s.is_empty()).collect());
    with.sort_unstable();
    with.dedup();
    for name in &with {
        view::registered(&shared.component_names, name)?;
    }
    Ok(PageQuery {
        page,
        page_size,
        with: with.into_iter().map(str::to_owned).collect(),
        search: query(pairs, "search").unwrap_or("").to_lowercase(),
    })
}

/// The live entity `id` as JSON, or 404.
fn live_entity_json(source: &view::Source<'_>, id: &str) -> Result<Value, ApiError> {
    let entity = view::live_entity(source.world, id).ok_or_else(|| ApiError::NoSuchEntity(id.to_owned()))?;
    Ok(view::entity(source, entity))
}

fn route(method: &str, url: &str, body: &[u8], shared: &Shared) -> Result<Reply, ApiError> {
    let (path, pairs) = split(url)?;
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let not_allowed = || ApiError::MethodNotAllowed { method: method.to_owned(), path: path.to_owned() };
    if segments.first() != Some(&"api") {
        if method != "GET" && method != "HEAD" {
            return Err(not_allowed());
        }
        let (content_type, text) = assets::get(path).ok_or_else(|| ApiError::NotFound(path.to_owned()))?;
        return Ok(Reply { status: 200, content_type, body: Body::Bytes(text.as_bytes().to_vec()) });
    }
    match (method, &segments[1..]) {
        ("GET", [] | [""]) => Ok(Reply::json(200, &index())),
        ("GET", ["world"]) => {
            Ok(Reply::json(200, &live::read(shared, |live| Ok(view::summary(&live.source)))?))
        }
        ("GET", ["entities"]) => {
            let page = page_query(&pairs, shared)?;
            Ok(Reply::json(200, &live::read(shared, move |live| Ok(view::entities(&live.source, &page)))?))
        }
        ("GET", ["entities", id]) => {
            let id = (*id).to_owned();
            let answer = live::read(shared, move |live| {
                let entity = live_entity_json(&live.source, &id)?;
                Ok(json!({ "version": live.source.version, "entity": entity }))
            })?;
            Ok(Reply::json(200, &answer))
        }
        ("GET", ["map"]) => {
            let q = map_query(&pairs);
            Ok(Reply::stream(200, live::read(shared, move |live| Points::of(&live.source, &q))?))
        }
        ("GET", ["frames", frame, "map"]) => {
            let frame = travel::parse_frame("frame", frame)?;
            let world = travel::frame_world(shared, frame)?;
            let points = Points::of(&travel::frame_source(shared, &world, frame), &map_query(&pairs))?;
            Ok(Reply::stream(200, points.at_frame(frame)))
        }
        ("GET", ["hierarchy"]) => {
            Ok(Reply::json(200, &live::read(shared, |live| Ok(view::hierarchy(&live.source)))?))
        }
        ("GET", ["schedule"]) => {
            let answer = live::read(shared, |live| {
                let schedule = live.schedule.as_deref_mut().map(view::schedule).unwrap_or_default();
                Ok(json!({ "version": live.source.version, "schedule": schedule }))
            })?;
            Ok(Reply::json(200, &answer))
        }
        ("GET", ["events"]) => {
            let answer = live::read(shared, |live| {
                Ok(json!({ "version": live.source.version, "events": view::events(live.source.world) }))
            })?;
            Ok(Reply::json(200, &answer))
        }
        ("GET", ["frames"]) => Ok(Reply::json(
            200,
            &live::read(shared, |live| Ok(view::frames(live.source.version, live.frame_times)))?,
        )),
        ("GET", ["frames", "saved"]) => Ok(Reply::json(200, &travel::saved(shared)?)),
        ("GET", ["frames", frame, "world"]) => {
            let frame = travel::parse_frame("frame", frame)?;
            let world = travel::frame_world(shared, frame)?;
            Ok(Reply::json(200, &view::summary(&travel::frame_source(shared, &world, frame))))
        }
        ("GET", ["frames", frame, "entities"]) => {
            let frame = travel::parse_frame("frame", frame)?;
            let page = page_query(&pairs, shared)?;
            let world = travel::frame_world(shared, frame)?;
            Ok(Reply::json(200, &view::entities(&travel::frame_source(shared, &world, frame), &page)))
        }
        ("GET", ["frames", frame, "entities", id]) => {
            let frame = travel::parse_frame("frame", frame)?;
            let world = travel::frame_world(shared, frame)?;
            let entity = view::live_entity(&world, id)
                .ok_or_else(|| ApiError::NoSuchEntityAt { id: (*id).to_owned(), frame })?;
            let entity = view::entity(&travel::frame_source(shared, &world, frame), entity);
            Ok(Reply::json(200, &json!({ "frame": frame, "entity": entity })))
        }
        ("GET", ["diff"]) => {
            let side = |key: &str| {
                let text = query(&pairs, key)
                    .ok_or_else(|| ApiError::BadRequest(format!("`{key}` (a frame number) is missing")))?;
                travel::parse_frame(key, text)
            };
            let (a, b) = (side("a")?, side("b")?);
            Ok(Reply::json(200, &travel::diff(shared, a, b, shared.options.max_page_size.max(1))?))
        }
        ("POST", ["frames", "record"]) => {
            // Not a write to the world: allowed with writes off (the guard still asks for the
            // token, JSON and the page's own origin).
            lock(&shared.travel).as_ref().ok_or(ApiError::NoFrames)?;
            let on = match query(&pairs, "on").unwrap_or("true") {
                "true" | "1" => true,
                "false" | "0" => false,
                other => {
                    return Err(ApiError::BadRequest(format!("`on` must be true or false, not `{other}`")));
                }
            };
            shared.recording.store(on, Ordering::Release);
            Ok(Reply::json(202, &json!({ "recording": on })))
        }
        ("POST", ["rewind"]) => {
            writable(shared)?;
            let text = query(&pairs, "frame")
                .ok_or_else(|| ApiError::BadRequest("`frame` (a frame number) is missing".into()))?;
            let frame = travel::parse_frame("frame", text)?;
            lock(&shared.travel).as_ref().ok_or(ApiError::NoFrames)?.check(frame)?;
            shared.paused.store(true, Ordering::Release);
            shared.steps.store(0, Ordering::Release); // steps asked for before end here
            queue(shared, Command::Rewind { frame })?;
            Ok(Reply::json(202, &json!({ "queued": true, "rewind": frame, "paused": true })))
        }
        ("POST" | "PUT", ["entities", id, "components", name]) => {
            writable(shared)?;
            check_target(shared, id, Some(name))?;
            let value: Value = serde_json::from_slice(body)
                .map_err(|e| ApiError::BadRequest(format!("the body is not JSON: {e}")))?;
            queue(shared, Command::Set { entity: (*id).to_owned(), component: (*name).to_owned(), value })
        }
        ("DELETE", ["entities", id]) => {
            writable(shared)?;
            check_target(shared, id, None)?;
            queue(shared, Command::Despawn { entity: (*id).to_owned() })
        }
        ("POST", ["pause"]) => {
            writable(shared)?;
            // Pause means paused: steps asked for and not yet run are dropped.
            shared.paused.store(true, Ordering::Release);
            shared.steps.store(0, Ordering::Release);
            shared.next_view_us.store(0, Ordering::Release); // a write is shown at once
            Ok(Reply::json(202, &json!({ "paused": true })))
        }
        ("POST", ["resume"]) => {
            writable(shared)?;
            shared.paused.store(false, Ordering::Release);
            shared.steps.store(0, Ordering::Release);
            shared.next_view_us.store(0, Ordering::Release); // a write is shown at once
            Ok(Reply::json(202, &json!({ "paused": false })))
        }
        ("POST", ["step"]) => {
            writable(shared)?;
            let frames = number(&pairs, "frames", 1)?.clamp(1, 1000) as u32;
            let _ = shared
                .steps
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| Some(n.saturating_add(frames)));
            shared.next_view_us.store(0, Ordering::Release); // a write is shown at once
            Ok(Reply::json(202, &json!({ "steps": frames })))
        }
        // Write routes read with GET, and reads written to, are routes with another method; a GET
        // under a read route that matched nothing above is an unknown route.
        (_, ["pause" | "resume" | "step" | "rewind"]) => Err(not_allowed()),
        (_, ["world" | "entities" | "map" | "hierarchy" | "schedule" | "events" | "frames" | "diff", ..])
            if method != "GET" =>
        {
            Err(not_allowed())
        }
        _ => Err(ApiError::NotFound(path.to_owned())),
    }
}

fn index() -> Value {
    json!({ "routes": [
        "GET /api/world",
        "GET /api/entities?page=N&page_size=N&with=a,b&search=text",
        "GET /api/entities/{id}",
        "GET /api/map?component=C&x=X&y=Y&color=K  (every entity with C as a point; GET /api/frames/{F}/map for a saved frame)",
        "GET /api/hierarchy",
        "GET /api/schedule",
        "GET /api/events",
        "GET /api/frames",
        "GET /api/frames/saved  (frames kept for time travel)",
        "POST /api/frames/record?on=true|false  (token; save every frame even past the record budget)",
        "GET /api/frames/{F}/world, GET /api/frames/{F}/entities?..., GET /api/frames/{F}/entities/{id}",
        "GET /api/diff?a=F1&b=F2",
        "POST /api/entities/{id}/components/{name}  (writes on; body: the value as JSON)",
        "DELETE /api/entities/{id}  (writes on)",
        "POST /api/pause, POST /api/resume, POST /api/step?frames=N  (writes on)",
        "POST /api/rewind?frame=F  (writes on; frames kept)",
    ]})
}

fn writable(shared: &Shared) -> Result<(), ApiError> {
    if shared.options.allow_writes { Ok(()) } else { Err(ApiError::WritesOff(shared.options.writes_hint)) }
}

/// Refuses a write to an unregistered component, or to an id that is not of the form
/// `{index}v{generation}`. Whether the entity is alive is checked where the write is applied, at
/// the publish point (a write to an entity gone by then is reported in the summary's `errors`):
/// a write never waits for the frame loop.
fn check_target(shared: &Shared, id: &str, component: Option<&str>) -> Result<(), ApiError> {
    if let Some(name) = component
        && view::registered(&shared.component_names, name).is_err()
    {
        // A run-time component of the world (names refreshed at each publish).
        view::registered(&lock(&shared.dynamic_names), name)?;
    }
    let well_formed = id
        .split_once('v')
        .is_some_and(|(index, generation)| index.parse::<u32>().is_ok() && generation.parse::<u32>().is_ok());
    if !well_formed {
        return Err(ApiError::NoSuchEntity(id.to_owned()));
    }
    Ok(())
}

fn queue(shared: &Shared, command: Command) -> Result<Reply, ApiError> {
    let mut commands = lock(&shared.commands);
    if commands.len() >= 1024 {
        return Err(ApiError::BadRequest("over 1024 writes are queued; wait for the next frame".into()));
    }
    commands.push(command);
    Ok(Reply::json(202, &json!({ "queued": true })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_percent_and_plus() {
        assert_eq!(decode("a%20b+c").unwrap(), "a b c");
        assert!(decode("%zz").is_err());
        assert!(decode("%2").is_err());
    }

    #[test]
    fn an_answer_that_is_not_json_is_the_servers_failure() {
        // JSON object keys must be strings: serde_json refuses this map.
        let map: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let reply = Reply::json(200, &map);
        assert_eq!(reply.status, 500);
        let Body::Bytes(body) = reply.body else { panic!("an error is sent as bytes") };
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["status"], 500);
        assert!(body["error"].as_str().unwrap().contains("could not be written as JSON"), "{body}");
    }

    #[test]
    fn splits_query() {
        let (path, pairs) = split("/api/entities?page=2&with=a%2Cb").unwrap();
        assert_eq!(path, "/api/entities");
        assert_eq!(query(&pairs, "with"), Some("a,b"));
        assert_eq!(number(&pairs, "page", 0).unwrap(), 2);
    }
}

//! The routes: parses a request and answers it from the last published view, or queues a write.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use crate::assets;
use crate::error::ApiError;
use crate::inspector::{Command, Shared, lock};
use crate::map;
use crate::travel;
use crate::view::WorldView;

/// How long a read waits for the frame loop to publish a fresher view before it answers from the
/// last one.
const FRESH_WAIT: Duration = Duration::from_millis(250);
/// The page size when none is given, in entities.
const DEFAULT_PAGE_SIZE: usize = 50;

/// An answer, ready to send.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    fn json(status: u16, value: &Value) -> Self {
        Self { status, content_type: "application/json", body: value.to_string().into_bytes() }
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
fn map_query(pairs: &[(String, String)]) -> map::MapQuery<'_> {
    map::MapQuery {
        component: query(pairs, "component").unwrap_or("position"),
        x: query(pairs, "x").unwrap_or("x"),
        y: query(pairs, "y").unwrap_or("y"),
        color: query(pairs, "color").filter(|c| !c.is_empty()),
    }
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
        return Ok(Reply { status: 200, content_type, body: text.as_bytes().to_vec() });
    }
    match (method, &segments[1..]) {
        ("GET", [] | [""]) => Ok(Reply::json(200, &index())),
        ("GET", ["world"]) => Ok(Reply::json(200, &summary(&shared.fresh(FRESH_WAIT)))),
        ("GET", ["entities"]) => entities(&shared.fresh(FRESH_WAIT), &pairs, shared),
        ("GET", ["entities", id]) => {
            let view = shared.fresh(FRESH_WAIT);
            let entity = view.entity(id).ok_or_else(|| ApiError::NoSuchEntity((*id).to_owned()))?;
            Ok(Reply::json(200, &json!({ "version": view.version, "entity": entity })))
        }
        ("GET", ["map"]) => Ok(Reply::json(200, &map::map(&shared.fresh(FRESH_WAIT), &map_query(&pairs))?)),
        ("GET", ["frames", frame, "map"]) => {
            let frame = travel::parse_frame("frame", frame)?;
            let view = travel::frame_view(shared, frame)?;
            let mut map = map::map(&view, &map_query(&pairs))?;
            map["frame"] = json!(frame);
            Ok(Reply::json(200, &map))
        }
        ("GET", ["hierarchy"]) => Ok(Reply::json(200, &hierarchy(&shared.fresh(FRESH_WAIT)))),
        ("GET", ["schedule"]) => {
            let view = shared.fresh(FRESH_WAIT);
            Ok(Reply::json(200, &json!({ "version": view.version, "schedule": view.schedule })))
        }
        ("GET", ["events"]) => {
            let view = shared.fresh(FRESH_WAIT);
            Ok(Reply::json(200, &json!({ "version": view.version, "events": view.events })))
        }
        ("GET", ["frames"]) => Ok(Reply::json(200, &frames(&shared.fresh(FRESH_WAIT)))),
        ("GET", ["frames", "saved"]) => Ok(Reply::json(200, &travel::saved(shared)?)),
        ("GET", ["frames", frame, "world"]) => {
            let view = travel::frame_view(shared, travel::parse_frame("frame", frame)?)?;
            Ok(Reply::json(200, &summary(&view)))
        }
        ("GET", ["frames", frame, "entities"]) => {
            let view = travel::frame_view(shared, travel::parse_frame("frame", frame)?)?;
            entities(&view, &pairs, shared)
        }
        ("GET", ["frames", frame, "entities", id]) => {
            let frame = travel::parse_frame("frame", frame)?;
            let view = travel::frame_view(shared, frame)?;
            let entity =
                view.entity(id).ok_or_else(|| ApiError::NoSuchEntityAt { id: (*id).to_owned(), frame })?;
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
            shared.wanted.store(true, Ordering::Release);
            shared.next_view_us.store(0, Ordering::Release); // a write is shown at once
            Ok(Reply::json(202, &json!({ "paused": true })))
        }
        ("POST", ["resume"]) => {
            writable(shared)?;
            shared.paused.store(false, Ordering::Release);
            shared.steps.store(0, Ordering::Release);
            shared.wanted.store(true, Ordering::Release);
            shared.next_view_us.store(0, Ordering::Release); // a write is shown at once
            Ok(Reply::json(202, &json!({ "paused": false })))
        }
        ("POST", ["step"]) => {
            writable(shared)?;
            let frames = number(&pairs, "frames", 1)?.clamp(1, 1000) as u32;
            let _ = shared
                .steps
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| Some(n.saturating_add(frames)));
            shared.wanted.store(true, Ordering::Release);
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
        "GET /api/frames/{F}/world, GET /api/frames/{F}/entities?..., GET /api/frames/{F}/entities/{id}",
        "GET /api/diff?a=F1&b=F2",
        "POST /api/entities/{id}/components/{name}  (writes on; body: the value as JSON)",
        "DELETE /api/entities/{id}  (writes on)",
        "POST /api/pause, POST /api/resume, POST /api/step?frames=N  (writes on)",
        "POST /api/rewind?frame=F  (writes on; frames kept)",
    ]})
}

fn writable(shared: &Shared) -> Result<(), ApiError> {
    if shared.options.allow_writes { Ok(()) } else { Err(ApiError::WritesOff) }
}

/// Refuses a write to an entity that is not in the last view, or to an unregistered component.
fn check_target(shared: &Shared, id: &str, component: Option<&str>) -> Result<(), ApiError> {
    if let Some(name) = component
        && shared.component_names.binary_search_by(|n| n.as_str().cmp(name)).is_err()
    {
        return Err(ApiError::NoSuchComponent(name.to_owned()));
    }
    // Before the first publish the view is empty: wait for one rather than refuse.
    let view = shared.current();
    let view = if view.version == 0 { shared.fresh(FRESH_WAIT) } else { view };
    if view.entity(id).is_none() {
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

fn summary(view: &WorldView) -> Value {
    json!({
        "version": view.version,
        "frame": view.schedule.frame,
        "entities": view.entities.len(),
        "components": view.components,
        "resources": view.resources,
        "paused": view.paused,
        "writes": view.writes,
        "errors": view.errors,
    })
}

fn entities(view: &WorldView, pairs: &[(String, String)], shared: &Shared) -> Result<Reply, ApiError> {
    let max = shared.options.max_page_size.max(1);
    let page_size = number(pairs, "page_size", DEFAULT_PAGE_SIZE.min(max))?;
    if page_size == 0 || page_size > max {
        return Err(ApiError::BadRequest(format!("`page_size` must be from 1 to {max}")));
    }
    let page = number(pairs, "page", 0)?;
    // Each name once: the filter's cost is bounded by the registered types, not by the URL.
    let mut with: Vec<&str> =
        query(pairs, "with").map_or_else(Vec::new, |w| w.split(',').filter(|s| !s.is_empty()).collect());
    with.sort_unstable();
    with.dedup();
    for name in &with {
        if !view.components.iter().any(|c| c.name == *name)
            && shared.component_names.binary_search_by(|n| n.as_str().cmp(name)).is_err()
        {
            return Err(ApiError::NoSuchComponent((*name).to_owned()));
        }
    }
    let search = query(pairs, "search").unwrap_or("").to_lowercase();
    let matching: Vec<_> = view
        .entities
        .iter()
        .filter(|e| with.iter().all(|name| e.components.contains_key(*name)))
        .filter(|e| {
            search.is_empty() || e.id.contains(&search) || e.components.keys().any(|k| k.contains(&search))
        })
        .collect();
    let total = matching.len();
    let rows: Vec<Value> = matching
        .iter()
        .skip(page.saturating_mul(page_size))
        .take(page_size)
        .map(|e| json!({ "id": e.id, "parent": e.parent, "children": e.children.len(), "components": e.components.keys().collect::<Vec<_>>() }))
        .collect();
    Ok(Reply::json(
        200,
        &json!({
            "version": view.version,
            "total": total,
            "page": page,
            "page_size": page_size,
            "pages": total.div_ceil(page_size),
            "entities": rows,
        }),
    ))
}

fn hierarchy(view: &WorldView) -> Value {
    let nodes: Vec<Value> = view
        .entities
        .iter()
        .filter(|e| e.parent.is_some() || !e.children.is_empty())
        .map(|e| json!({ "id": e.id, "parent": e.parent, "children": e.children }))
        .collect();
    let roots: Vec<&str> = view
        .entities
        .iter()
        .filter(|e| e.parent.is_none() && !e.children.is_empty())
        .map(|e| e.id.as_str())
        .collect();
    json!({ "version": view.version, "roots": roots, "nodes": nodes })
}

fn frames(view: &WorldView) -> Value {
    let mut sorted = view.frame_times_ms.clone();
    sorted.sort_unstable_by(f64::total_cmp);
    json!({
        "version": view.version,
        "frame_times_ms": view.frame_times_ms,
        "median_ms": sorted.get(sorted.len() / 2),
        "max_ms": sorted.last(),
    })
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
    fn splits_query() {
        let (path, pairs) = split("/api/entities?page=2&with=a%2Cb").unwrap();
        assert_eq!(path, "/api/entities");
        assert_eq!(query(&pairs, "with"), Some("a,b"));
        assert_eq!(number(&pairs, "page", 0).unwrap(), 2);
    }
}

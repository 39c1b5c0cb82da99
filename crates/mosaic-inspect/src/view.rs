//! What the routes show of a world, built from the world itself when a client asks: the live
//! world at the frame loop's publish point ([`crate::live`]), or a saved frame rebuilt from the
//! rollback ring ([`crate::travel`]). No copy of the world is kept between requests.

use std::collections::VecDeque;
use std::time::Duration;

use mosaic::serialize::{NamedPool, SnapshotRegistry};
use mosaic::{Entity, Schedule, World};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::ApiError;

/// The world a request is answered from, and what the answer says about it.
pub(crate) struct Source<'a> {
    pub(crate) world: &'a World,
    /// How components and resources turn into JSON.
    pub(crate) registry: &'a SnapshotRegistry,
    /// Publish points that answered reads before this one (0 for a saved frame).
    pub(crate) version: u64,
    /// The schedule's frame (0 without a schedule), or the saved frame's number.
    pub(crate) frame: u64,
    pub(crate) paused: bool,
    pub(crate) writes: bool,
    /// Errors of writes applied, most recent last.
    pub(crate) errors: Vec<String>,
}

/// What a job of the frame loop's read queue gets: the live world and what only the frame loop
/// holds.
pub(crate) struct Live<'a> {
    pub(crate) source: Source<'a>,
    pub(crate) schedule: Option<&'a mut Schedule>,
    /// Frame times in milliseconds, oldest first.
    pub(crate) frame_times: &'a VecDeque<f64>,
}

/// One registered component type of a world.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ComponentSummary {
    pub(crate) name: String,
    pub(crate) type_name: &'static str,
    /// Rows in the pool (live entities with it, plus rows not yet swept).
    pub(crate) pool_rows: usize,
    /// Live entities with it.
    pub(crate) entities: usize,
    /// What the pool's values take, `pool_rows * size_of`, in bytes (without the pool's index).
    pub(crate) bytes: usize,
}

/// One registered many-to-many pair kind of a world.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PairKindSummary {
    pub(crate) name: String,
    pub(crate) type_name: &'static str,
    /// Entities with at least one pair of the kind.
    pub(crate) sources: usize,
}

/// One system's row of the schedule view.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SystemView {
    pub(crate) name: String,
    /// Position in run order, from 0.
    pub(crate) order: usize,
    /// Batch index, from 0.
    pub(crate) batch: usize,
    /// Median run time over the profile window, in milliseconds (`null` without profiling).
    pub(crate) median_ms: Option<f64>,
    /// Longest run time over the profile window, in milliseconds.
    pub(crate) max_ms: Option<f64>,
    pub(crate) runs: Option<u64>,
}

/// One event channel: its type and backlog.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EventView {
    pub(crate) name: &'static str,
    /// Events held (sent, not yet released).
    pub(crate) backlog: usize,
    /// Events ever sent.
    pub(crate) sent: u64,
    pub(crate) readers: usize,
    pub(crate) capacity: usize,
}

/// The schedule as the page shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ScheduleView {
    pub(crate) frame: u64,
    pub(crate) systems: Vec<SystemView>,
    /// System names per batch, in run order.
    pub(crate) batches: Vec<Vec<String>>,
    /// The profile window, in frames (0: profiling off).
    pub(crate) profile_window: usize,
    /// Why the plan could not be built, if it could not.
    pub(crate) error: Option<String>,
}

/// `d` in milliseconds, rounded to the microsecond.
pub(crate) fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// `GET /api/world`: entity count, the registered components with their pools, the registered
/// pair kinds with their sources, the resources as JSON. O(registered rows + resources).
pub(crate) fn summary(source: &Source<'_>) -> Value {
    let (world, registry) = (source.world, source.registry);
    let mut errors = source.errors.clone();
    let components: Vec<ComponentSummary> = registry
        .component_data(world)
        .map(|column| ComponentSummary {
            name: column.name.to_owned(),
            type_name: column.type_name,
            pool_rows: column.rows,
            entities: registry.component_pool(world, column.name).map_or(0, |pool| pool.entities().count()),
            bytes: column.rows * column.value_bytes,
        })
        .collect();
    let pairs: Vec<PairKindSummary> = registry
        .pair_data(world)
        .map(|kind| PairKindSummary {
            name: kind.name.to_owned(),
            type_name: kind.type_name,
            sources: kind.rows,
        })
        .collect();
    let mut resources = serde_json::Map::new();
    for resource in registry.resource_data(world) {
        // JSON has no 128-bit numbers (a random generator's state): such values are shown as
        // their RON text instead.
        let value = serde_json::to_value(&*resource.data)
            .or_else(|_| ron::to_string(&*resource.data).map(Value::String));
        match value {
            Ok(value) => {
                resources.insert(resource.name.to_owned(), value);
            }
            Err(error) => errors.push(format!("resource `{}`: {error}", resource.name)),
        }
    }
    json!({
        "version": source.version,
        "frame": source.frame,
        "entities": world.entities().len(),
        "components": components,
        "pairs": pairs,
        "resources": resources,
        "paused": source.paused,
        "writes": source.writes,
        "errors": errors,
    })
}

/// Parses an entity id as the routes write it, `"{index}v{generation}"`, and finds it in `world`
/// if it is alive there.
pub(crate) fn live_entity(world: &World, id: &str) -> Option<Entity> {
    let (index, generation) = id.split_once('v')?;
    let index: u32 = index.parse().ok()?;
    let generation: u32 = generation.parse().ok()?;
    world.entities().alive_at(index).filter(|e| e.generation() == generation)
}

/// `entity` with its parent, children, registered components and pairs as JSON (`{id, index,
/// generation, parent, children, components: {name: value}, pairs: {kind name: [{target,
/// value}]}}`, names sorted, each kind's targets in the entity's order). Run-time components
/// (`mosaic::dynamic`) are listed too, each as `{dotted path: value}` read through its schema.
/// O(registered and run-time components and pair kinds + children + pairs of the entity). A
/// value that cannot be JSON is `null`.
pub(crate) fn entity(source: &Source<'_>, entity: Entity) -> Value {
    let (world, registry) = (source.world, source.registry);
    let mut components = serde_json::Map::new();
    for name in registry.component_names() {
        if let Some(value) = registry.component_value(world, name, entity) {
            components.insert(name.to_owned(), serde_json::to_value(&*value).unwrap_or(Value::Null));
        }
    }
    // Run-time components, read through their schemas; a registered Rust type of the same name
    // keeps its entry.
    for (name, value) in crate::dynamic::components_of(world, entity) {
        components.entry(name.to_owned()).or_insert(value);
    }
    let mut pairs = serde_json::Map::new();
    for kind in registry.pairs_of(world, entity) {
        let values = match serde_json::to_value(&*kind.values) {
            Ok(Value::Array(values)) => values,
            _ => Vec::new(),
        };
        let list = kind.targets.iter().enumerate().map(|(i, target)| {
            json!({ "target": target.to_string(), "value": values.get(i).cloned().unwrap_or(Value::Null) })
        });
        pairs.insert(kind.name.to_owned(), Value::Array(list.collect()));
    }
    json!({
        "id": entity.to_string(),
        "index": entity.index(),
        "generation": entity.generation(),
        "parent": world.parent(entity).map(|p| p.to_string()),
        "children": world.children(entity).map(|c| c.to_string()).collect::<Vec<_>>(),
        "components": components,
        "pairs": pairs,
    })
}

/// A page of entities asked for: checked by the route before the world is read.
#[derive(Debug, Clone)]
pub(crate) struct PageQuery {
    pub(crate) page: usize,
    /// From 1 to the inspector's `max_page_size`.
    pub(crate) page_size: usize,
    /// Registered component names, each once: the entities listed have all of them.
    pub(crate) with: Vec<String>,
    /// Lower case; empty for none: the entities listed have it in their id or in one of their
    /// component names.
    pub(crate) search: String,
}

/// `GET /api/entities`: the live entities by index that match `query`, one page of them with
/// their component names, and how many match. O(entities * (`with` + registered components))
/// with at most `page_size` rows built.
pub(crate) fn entities(source: &Source<'_>, query: &PageQuery) -> Value {
    let (world, registry) = (source.world, source.registry);
    let names: Vec<&str> = registry.component_names().collect();
    let pools: Vec<Option<NamedPool<'_>>> =
        names.iter().map(|name| registry.component_pool(world, name)).collect();
    let pool_of = |name: &str| names.iter().position(|n| *n == name).and_then(|at| pools[at]);
    let with: Option<Vec<NamedPool<'_>>> = query.with.iter().map(|name| pool_of(name)).collect();
    // Registered components whose names contain the search text.
    let named: Vec<NamedPool<'_>> = names
        .iter()
        .zip(&pools)
        .filter(|(name, _)| !query.search.is_empty() && name.contains(&query.search))
        .filter_map(|(_, pool)| *pool)
        .collect();
    let (first, mut total, mut rows, mut id) =
        (query.page.saturating_mul(query.page_size), 0usize, Vec::new(), String::new());
    if let Some(with) = with {
        for e in world.entities().iter() {
            // `e` comes from the live list: the pools need not check liveness again.
            if !with.iter().all(|pool| pool.contains_alive(e)) {
                continue;
            }
            if !query.search.is_empty() {
                id.clear();
                std::fmt::Write::write_fmt(&mut id, format_args!("{e}")).expect("a String takes any text");
                if !id.contains(&query.search) && !named.iter().any(|pool| pool.contains_alive(e)) {
                    continue;
                }
            }
            if total >= first && rows.len() < query.page_size {
                let mut components: Vec<&str> = names
                    .iter()
                    .zip(&pools)
                    .filter(|(_, pool)| pool.is_some_and(|p| p.contains_alive(e)))
                    .map(|(name, _)| *name)
                    .collect();
                for name in crate::dynamic::names_of(world, e) {
                    components.push(name);
                }
                rows.push(json!({
                    "id": e.to_string(),
                    "parent": world.parent(e).map(|p| p.to_string()),
                    "children": world.children(e).count(),
                    "components": components,
                }));
            }
            total += 1;
        }
    }
    json!({
        "version": source.version,
        "total": total,
        "page": query.page,
        "page_size": query.page_size,
        "pages": total.div_ceil(query.page_size),
        "entities": rows,
    })
}

/// `GET /api/hierarchy`: the entities with a parent or children, and the roots (no parent, some
/// children). O(entities + hierarchy links).
pub(crate) fn hierarchy(source: &Source<'_>) -> Value {
    let world = source.world;
    let (mut nodes, mut roots) = (Vec::new(), Vec::new());
    for e in world.entities().iter() {
        let parent = world.parent(e);
        let mut children = world.children(e).peekable();
        if parent.is_none() && children.peek().is_none() {
            continue;
        }
        let children: Vec<String> = children.map(|c| c.to_string()).collect();
        if parent.is_none() {
            roots.push(e.to_string());
        }
        nodes.push(
            json!({ "id": e.to_string(), "parent": parent.map(|p| p.to_string()), "children": children }),
        );
    }
    json!({ "version": source.version, "roots": roots, "nodes": nodes })
}

/// `GET /api/events`: the world's event channels, in the order they were added.
pub(crate) fn events(world: &World) -> Vec<EventView> {
    world
        .event_channels()
        .map(|c| EventView {
            name: c.type_name,
            backlog: c.len,
            sent: c.sent,
            readers: c.readers,
            capacity: c.capacity,
        })
        .collect()
}

/// `GET /api/frames`: the frame times given to `publish`, with their median and maximum.
pub(crate) fn frames(version: u64, frame_times: &VecDeque<f64>) -> Value {
    let mut sorted: Vec<f64> = frame_times.iter().copied().collect();
    sorted.sort_unstable_by(f64::total_cmp);
    json!({
        "version": version,
        "frame_times_ms": frame_times,
        "median_ms": sorted.get(sorted.len() / 2),
        "max_ms": sorted.last(),
    })
}

/// `GET /api/schedule`: systems in run order with their batches and profile. O(systems).
pub(crate) fn schedule(schedule: &mut Schedule) -> ScheduleView {
    let frame = schedule.frame();
    let batches: Vec<Vec<String>> = match schedule.batches() {
        Ok(batches) => batches.into_iter().map(|b| b.into_iter().map(str::to_owned).collect()).collect(),
        Err(error) => {
            return ScheduleView { frame, error: Some(error.to_string()), ..ScheduleView::default() };
        }
    };
    let profile = schedule.profile();
    let mut systems = Vec::new();
    for (batch, names) in batches.iter().enumerate() {
        for name in names {
            let row = profile.systems.iter().find(|s| &s.name == name);
            systems.push(SystemView {
                name: name.clone(),
                order: systems.len(),
                batch,
                median_ms: row.map(|s| ms(s.median)),
                max_ms: row.map(|s| ms(s.max)),
                runs: row.map(|s| s.runs),
            });
        }
    }
    ScheduleView { frame, systems, batches, profile_window: profile.window, error: None }
}

/// Refuses an unregistered component name.
pub(crate) fn registered(names: &[String], name: &str) -> Result<(), ApiError> {
    match names.binary_search_by(|n| n.as_str().cmp(name)) {
        Ok(_) => Ok(()),
        Err(_) => Err(ApiError::NoSuchComponent(name.to_owned())),
    }
}

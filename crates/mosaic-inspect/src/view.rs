//! The view: a JSON-ready copy of a world, built by the frame loop at its publish point and read
//! by the server thread.

use std::collections::BTreeMap;
use std::time::Duration;

use mosaic::serialize::SnapshotRegistry;
use mosaic::{Entity, Schedule, World};
use serde::Serialize;
use serde_json::Value;

/// One entity as the view holds it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EntityView {
    /// `"{index}v{generation}"`, as `Entity`'s `Display` writes it.
    pub(crate) id: String,
    pub(crate) index: u32,
    pub(crate) generation: u32,
    pub(crate) parent: Option<String>,
    pub(crate) children: Vec<String>,
    /// Registered component name -> value, sorted by name.
    pub(crate) components: BTreeMap<String, Value>,
}

/// One registered component type.
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

/// One event channel: its type and backlog when the view was built.
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

/// The schedule as the view holds it.
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

/// A consistent copy of the world at one publish point.
#[derive(Debug, Clone, Default)]
pub(crate) struct WorldView {
    /// How many views were published before this one, from 0.
    pub(crate) version: u64,
    pub(crate) entities: Vec<EntityView>,
    /// Entity id -> position in `entities`.
    pub(crate) by_id: BTreeMap<String, usize>,
    pub(crate) components: Vec<ComponentSummary>,
    pub(crate) resources: BTreeMap<String, Value>,
    pub(crate) schedule: ScheduleView,
    /// The world's event channels, in the order they were added.
    pub(crate) events: Vec<EventView>,
    /// Frame times in milliseconds, oldest first.
    pub(crate) frame_times_ms: Vec<f64>,
    pub(crate) paused: bool,
    pub(crate) writes: bool,
    /// Values that could not be turned into JSON: (type name, why).
    pub(crate) errors: Vec<String>,
}

/// `d` in milliseconds, rounded to the microsecond.
pub(crate) fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

impl WorldView {
    /// Copies what the inspector shows out of `world` and `schedule`. O(entities * registered
    /// components + registered rows) time and memory.
    pub(crate) fn build(
        version: u64,
        world: &World,
        registry: &SnapshotRegistry,
        schedule: Option<&mut Schedule>,
        frame_times_ms: Vec<f64>,
    ) -> Self {
        let mut errors = Vec::new();
        let mut entities: Vec<EntityView> = world
            .entities()
            .iter()
            .map(|e| EntityView {
                id: e.to_string(),
                index: e.index(),
                generation: e.generation(),
                parent: world.parent(e).map(|p| p.to_string()),
                children: world.children(e).map(|c| c.to_string()).collect(),
                components: BTreeMap::new(),
            })
            .collect();
        entities.sort_unstable_by_key(|e| e.index);
        let position: BTreeMap<u32, usize> = entities.iter().enumerate().map(|(i, e)| (e.index, i)).collect();
        let mut components = Vec::new();
        for column in registry.component_data(world) {
            let rows: Vec<(u32, Value)> =
                match serde_json::to_value(&*column.data).and_then(serde_json::from_value) {
                    Ok(rows) => rows,
                    Err(error) => {
                        errors.push(format!("component `{}`: {error}", column.name));
                        Vec::new()
                    }
                };
            components.push(ComponentSummary {
                name: column.name.to_owned(),
                type_name: column.type_name,
                pool_rows: column.rows,
                entities: rows.len(),
                bytes: column.rows * column.value_bytes,
            });
            for (index, value) in rows {
                if let Some(&at) = position.get(&index) {
                    entities[at].components.insert(column.name.to_owned(), value);
                }
            }
        }
        let mut resources = BTreeMap::new();
        for resource in registry.resource_data(world) {
            // JSON has no 128-bit numbers (a random generator's state): such values are shown
            // as their RON text instead.
            let value = serde_json::to_value(&*resource.data)
                .or_else(|_| ron::to_string(&*resource.data).map(Value::String));
            match value {
                Ok(value) => {
                    resources.insert(resource.name.to_owned(), value);
                }
                Err(error) => errors.push(format!("resource `{}`: {error}", resource.name)),
            }
        }
        let by_id = entities.iter().enumerate().map(|(i, e)| (e.id.clone(), i)).collect();
        let schedule = schedule.map(schedule_view).unwrap_or_default();
        let events = world
            .event_channels()
            .map(|c| EventView {
                name: c.type_name,
                backlog: c.len,
                sent: c.sent,
                readers: c.readers,
                capacity: c.capacity,
            })
            .collect();
        Self {
            version,
            entities,
            by_id,
            components,
            resources,
            schedule,
            events,
            frame_times_ms,
            paused: false,
            writes: false,
            errors,
        }
    }

    /// The entity with id `id` (`"{index}v{generation}"`).
    pub(crate) fn entity(&self, id: &str) -> Option<&EntityView> {
        self.by_id.get(id).map(|&at| &self.entities[at])
    }
}

fn schedule_view(schedule: &mut Schedule) -> ScheduleView {
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

/// Parses an entity id as the view writes it, `"{index}v{generation}"`, and finds it in `world`
/// if it is alive there.
pub(crate) fn live_entity(world: &World, id: &str) -> Option<Entity> {
    let (index, generation) = id.split_once('v')?;
    let index: u32 = index.parse().ok()?;
    let generation: u32 = generation.parse().ok()?;
    world.entities().alive_at(index).filter(|e| e.generation() == generation)
}

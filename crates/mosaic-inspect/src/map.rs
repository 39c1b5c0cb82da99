//! The map: every entity with a chosen component as a point, for the page's 2D view.
//!
//! `GET /api/map?component=C&x=X&y=Y&color=K` (and `/api/frames/F/map?...` for a saved frame)
//! reads fields `X` and `Y` (default `x` and `y`) of component `C`'s value, which must be
//! numbers where its JSON object would have them (see [`crate::pick`]), and colours each point
//! by the value of component `K` if given (entities without `K` get the category `null`). The
//! answer holds parallel arrays, one entry per point, in entity index order: `index`,
//! `generation`, `xs`, `ys` (32-bit floats), `colors` (an index into `categories`, the distinct colour values as
//! JSON text in first-seen order, at most [`MAX_CATEGORIES`]; the rest share the last,
//! `"other"`), with `bounds` `[min x, min y, max x, max y]` over the points and `skipped`:
//! entities with `C` whose fields are missing or not finite numbers.
//!
//! Built from the world ([`Points::of`]: O(entity slots + rows of `C` and `K`), about 2.5 MB
//! of arrays at 10^5 entities for the time of one request, no JSON per entity); written as JSON
//! by the server thread straight to the connection, off the frame loop and never whole in memory.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::ApiError;
use crate::pick::pick_xy;
use crate::view::Source;

/// Most colour categories; values past them share one more, `"other"`.
pub(crate) const MAX_CATEGORIES: usize = 32;

/// Distinct colour values told apart while reading a colour column; values past them are
/// "other" (their first-seen order cannot matter: only 32 categories are shown).
const MAX_DISTINCT: usize = 4096;

/// What a map request asks for.
#[derive(Debug, Clone)]
pub(crate) struct MapQuery {
    pub(crate) component: String,
    pub(crate) x: String,
    pub(crate) y: String,
    pub(crate) color: Option<String>,
}

/// A map as the route answers it (see the module docs).
#[derive(Debug, Serialize)]
pub(crate) struct Points {
    component: String,
    x: String,
    y: String,
    color: Option<String>,
    count: usize,
    skipped: usize,
    /// `[min x, min y, max x, max y]`, or `null` without points.
    bounds: Option<[f32; 4]>,
    categories: Vec<String>,
    index: Vec<u32>,
    generation: Vec<u32>,
    /// As 32-bit floats: the map is for drawing, and their JSON is half as long.
    xs: Vec<f32>,
    ys: Vec<f32>,
    colors: Vec<u8>,
    /// The saved frame shown, for `/api/frames/F/map`.
    #[serde(skip_serializing_if = "Option::is_none")]
    frame: Option<u64>,
}

/// No colour value read for the slot.
const NO_COLOR: u16 = u16::MAX;
/// A colour value past [`MAX_DISTINCT`].
const OVERFLOW: u16 = u16::MAX - 1;

impl Points {
    /// The map of `source`'s world.
    ///
    /// # Errors
    /// [`ApiError::NoSuchComponent`] if `component` or `color` is not a registered component name.
    pub(crate) fn of(source: &Source<'_>, query: &MapQuery) -> Result<Self, ApiError> {
        let (world, registry) = (source.world, source.registry);
        let known = |name: &str| registry.component_names().any(|n| n == name);
        if !known(&query.component) {
            return Err(ApiError::NoSuchComponent(query.component.clone()));
        }
        if let Some(color) = query.color.as_deref().filter(|c| !known(c)) {
            return Err(ApiError::NoSuchComponent(color.to_owned()));
        }
        let slots = world.entities().slot_count() as usize;
        // Per entity slot, its point (NaN: none) and its colour value's id among `distinct`.
        let mut at: Vec<[f32; 2]> = vec![[f32::NAN; 2]; slots];
        let mut skipped = 0usize;
        registry.for_each_value(world, &query.component, &mut |entity, value| match pick_xy(
            value, &query.x, &query.y,
        )
        .map(|(x, y)| [x as f32, y as f32])
        {
            Some(point) if point.iter().all(|v| v.is_finite()) => at[entity.index() as usize] = point,
            _ => skipped += 1,
        });
        let mut color_of: Vec<u16> = Vec::new();
        let mut distinct: Vec<String> = Vec::new();
        if let Some(color) = &query.color {
            color_of = vec![NO_COLOR; slots];
            let mut ids: HashMap<Vec<u8>, u16> = HashMap::new();
            let mut text = Vec::new();
            registry.for_each_value(world, color, &mut |entity, value| {
                text.clear();
                if serde_json::to_writer(&mut text, value).is_err() {
                    text.clear();
                    text.extend_from_slice(b"null");
                }
                let id = match ids.get(&text) {
                    Some(&id) => id,
                    None if distinct.len() < MAX_DISTINCT => {
                        let id = distinct.len() as u16;
                        distinct.push(String::from_utf8_lossy(&text).into_owned());
                        ids.insert(text.clone(), id);
                        id
                    }
                    None => OVERFLOW,
                };
                color_of[entity.index() as usize] = id;
            });
        }
        // In entity index order: categories numbered as first seen.
        let mut category_of: Vec<Option<u8>> = vec![None; distinct.len()];
        let (mut categories, mut null_category, mut other) = (Vec::new(), None, false);
        let mut points = Self {
            component: query.component.clone(),
            x: query.x.clone(),
            y: query.y.clone(),
            color: query.color.clone(),
            count: 0,
            skipped,
            bounds: None,
            categories: Vec::new(),
            index: Vec::new(),
            generation: Vec::new(),
            xs: Vec::new(),
            ys: Vec::new(),
            colors: Vec::new(),
            frame: None,
        };
        let mut bounds = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
        for entity in world.entities().iter() {
            let slot = entity.index() as usize;
            let [x, y] = at[slot];
            if x.is_nan() {
                continue;
            }
            let new_category = |name: String, categories: &mut Vec<String>| {
                if categories.len() < MAX_CATEGORIES {
                    categories.push(name);
                    Some((categories.len() - 1) as u8)
                } else {
                    None
                }
            };
            let category = match color_of.get(slot).copied() {
                None => Some(0),
                Some(NO_COLOR) => {
                    *null_category.get_or_insert_with(|| new_category("null".to_owned(), &mut categories))
                }
                Some(OVERFLOW) => None,
                Some(id) => {
                    let id = usize::from(id);
                    match category_of[id] {
                        Some(category) => Some(category),
                        None => {
                            let category = new_category(distinct[id].clone(), &mut categories);
                            category_of[id] = Some(category.unwrap_or(MAX_CATEGORIES as u8));
                            category
                        }
                    }
                }
            };
            let category = category.unwrap_or_else(|| {
                other = true;
                MAX_CATEGORIES as u8
            });
            points.index.push(entity.index());
            points.generation.push(entity.generation());
            points.xs.push(x);
            points.ys.push(y);
            points.colors.push(category);
            bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
        }
        if query.color.is_none() {
            categories.push("all".to_owned());
        } else if other {
            categories.push("other".to_owned());
        }
        points.count = points.xs.len();
        points.bounds = (points.count > 0).then_some(bounds);
        points.categories = categories;
        Ok(points)
    }

    /// These points marked as saved frame `frame`'s.
    pub(crate) fn at_frame(mut self, frame: u64) -> Self {
        self.frame = Some(frame);
        self
    }
}

#[cfg(test)]
mod tests {
    use mosaic::serialize::SnapshotRegistry;
    use mosaic::{Component, World};
    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::*;

    #[derive(Component, Clone, Debug, Serialize, Deserialize)]
    struct Pos {
        x: Option<f32>,
        y: f32,
    }

    #[derive(Component, Clone, Debug, Serialize, Deserialize)]
    struct Team(u32);

    fn registry() -> SnapshotRegistry {
        let mut registry = SnapshotRegistry::new();
        registry.register::<Pos>("pos").register::<Team>("team");
        registry
    }

    fn pos(x: f32, y: f32) -> Pos {
        Pos { x: Some(x), y }
    }

    fn world() -> World {
        let mut world = World::new();
        world.spawn((pos(1.0, 2.0), Team(0)));
        world.spawn((pos(-3.0, 5.5), Team(1)));
        world.spawn(pos(4.0, 0.0));
        world.spawn((Pos { x: None, y: 0.0 }, Team(0)));
        world.spawn(Team(1));
        world
    }

    fn map(world: &World, query: &MapQuery) -> Result<Value, ApiError> {
        let registry = registry();
        let source = Source {
            world,
            registry: &registry,
            version: 0,
            frame: 0,
            paused: false,
            writes: false,
            errors: Vec::new(),
        };
        Points::of(&source, query).map(|points| serde_json::to_value(points).unwrap())
    }

    fn query(component: &str, x: &str, y: &str, color: Option<&str>) -> MapQuery {
        MapQuery { component: component.into(), x: x.into(), y: y.into(), color: color.map(Into::into) }
    }

    #[test]
    fn points_carry_their_entity_position_and_colour() {
        let m = map(&world(), &query("pos", "x", "y", Some("team"))).unwrap();
        assert_eq!(m["count"], 3);
        assert_eq!(m["skipped"], 1, "a position whose x is not a number");
        assert_eq!(m["index"], json!([0, 1, 2]));
        assert_eq!(m["generation"], json!([1, 1, 1]));
        assert_eq!(m["xs"], json!([1.0, -3.0, 4.0]));
        assert_eq!(m["ys"], json!([2.0, 5.5, 0.0]));
        assert_eq!(m["categories"], json!(["0", "1", "null"]));
        assert_eq!(m["colors"], json!([0, 1, 2]));
        assert_eq!(m["bounds"], json!([-3.0, 0.0, 4.0, 5.5]));
        assert!(m.get("frame").is_none());
    }

    #[test]
    fn points_follow_despawns_and_reused_slots() {
        let mut world = world();
        let first = world.entities().alive_at(0).unwrap();
        world.despawn(first);
        let again = world.spawn((pos(7.0, 8.0), Team(1)));
        assert_eq!(again.index(), 0, "the freed slot is reused");
        let m = map(&world, &query("pos", "x", "y", Some("team"))).unwrap();
        assert_eq!(m["index"], json!([0, 1, 2]));
        assert_eq!(m["generation"][0], again.generation());
        assert_eq!(m["xs"], json!([7.0, -3.0, 4.0]));
        assert_eq!(m["categories"], json!(["1", "null"]), "first seen in entity order");
        assert_eq!(m["colors"], json!([0, 0, 1]));
    }

    #[test]
    fn unknown_components_are_refused_by_name_and_other_fields_can_be_chosen() {
        let world = world();
        let refused = map(&world, &query("nope", "x", "y", None));
        assert!(matches!(refused, Err(ApiError::NoSuchComponent(name)) if name == "nope"));
        let refused = map(&world, &query("pos", "x", "y", Some("colour")));
        assert!(matches!(refused, Err(ApiError::NoSuchComponent(name)) if name == "colour"));
        let m = map(&world, &query("pos", "y", "x", None)).unwrap();
        assert_eq!(m["xs"], json!([2.0, 5.5, 0.0]));
        assert_eq!(m["categories"], json!(["all"]));
        assert_eq!(m["colors"], json!([0, 0, 0]));
        let empty = map(&World::new(), &query("pos", "x", "y", None)).unwrap();
        assert_eq!((empty["count"].clone(), empty["bounds"].clone()), (json!(0), Value::Null));
    }

    #[test]
    fn colours_past_the_limit_share_other() {
        let mut world = World::new();
        world.spawn_batch((0..40).map(|i| (pos(0.0, 0.0), Team(i))));
        let m = map(&world, &query("pos", "x", "y", Some("team"))).unwrap();
        let categories = m["categories"].as_array().unwrap();
        assert_eq!(categories.len(), MAX_CATEGORIES + 1);
        assert_eq!(categories[MAX_CATEGORIES], "other");
        assert_eq!(m["colors"][39], MAX_CATEGORIES);
        assert_eq!(m["colors"][31], 31);
    }
}

//! The map: every entity with a chosen component as a point, for the page's 2D view.
//!
//! `GET /api/map?component=C&x=X&y=Y&color=K` (and `/api/frames/F/map?...` for a saved frame)
//! reads fields `X` and `Y` (default `x` and `y`) of component `C`'s value, which must be JSON
//! numbers, and colours each point by the value of component `K` if given (entities without `K`
//! get the category `null`). The answer holds parallel arrays, one entry per point, in the view's
//! entity order: `index`, `generation`, `xs`, `ys`, `colors` (an index into `categories`, the
//! distinct colour values as JSON text in first-seen order, at most [`MAX_CATEGORIES`]; the rest
//! share the last, `"other"`), with `bounds` `[min x, min y, max x, max y]` over the points and
//! `skipped`: entities with `C` whose fields are missing or not finite numbers.
//!
//! O(entities) per request, from the view (no access to the world); no parameter changes that.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::view::WorldView;

/// Most colour categories; values past them share one more, `"other"`.
pub(crate) const MAX_CATEGORIES: usize = 32;

/// What a map request asks for.
pub(crate) struct MapQuery<'a> {
    pub(crate) component: &'a str,
    pub(crate) x: &'a str,
    pub(crate) y: &'a str,
    pub(crate) color: Option<&'a str>,
}

/// The map of `view` as JSON (see the module docs).
///
/// # Errors
/// [`ApiError::NoSuchComponent`] if `component` or `color` is not a registered component name.
pub(crate) fn map(view: &WorldView, query: &MapQuery<'_>) -> Result<Value, ApiError> {
    let known = |name: &str| view.components.iter().any(|c| c.name == name);
    if !known(query.component) {
        return Err(ApiError::NoSuchComponent(query.component.to_owned()));
    }
    if let Some(color) = query.color.filter(|c| !known(c)) {
        return Err(ApiError::NoSuchComponent(color.to_owned()));
    }
    let n = view.entities.len();
    let (mut index, mut generation) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut xs, mut ys, mut colors) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut categories: Vec<String> = Vec::new();
    let (mut skipped, mut bounds) =
        (0usize, [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY]);
    let field = |value: &Value, name: &str| value.get(name).and_then(Value::as_f64).filter(|v| v.is_finite());
    for entity in &view.entities {
        let Some(value) = entity.components.get(query.component) else { continue };
        let (Some(x), Some(y)) = (field(value, query.x), field(value, query.y)) else {
            skipped += 1;
            continue;
        };
        let category = match query.color {
            None => 0,
            Some(color) => {
                let key = entity.components.get(color).map_or_else(|| "null".to_owned(), Value::to_string);
                match categories.iter().position(|c| *c == key) {
                    Some(i) => i,
                    None if categories.len() < MAX_CATEGORIES => {
                        categories.push(key);
                        categories.len() - 1
                    }
                    None => MAX_CATEGORIES,
                }
            }
        };
        index.push(entity.index);
        generation.push(entity.generation);
        xs.push(x);
        ys.push(y);
        colors.push(category as u8);
        bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
    }
    if query.color.is_none() {
        categories.push("all".to_owned());
    } else if colors.iter().any(|&c| usize::from(c) == MAX_CATEGORIES) {
        categories.push("other".to_owned());
    }
    let bounds = if xs.is_empty() { Value::Null } else { json!(bounds) };
    Ok(json!({
        "component": query.component,
        "x": query.x,
        "y": query.y,
        "color": query.color,
        "count": xs.len(),
        "skipped": skipped,
        "bounds": bounds,
        "categories": categories,
        "index": index,
        "generation": generation,
        "xs": xs,
        "ys": ys,
        "colors": colors,
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::view::{ComponentSummary, EntityView};

    fn entity(index: u32, components: &[(&str, Value)]) -> EntityView {
        EntityView {
            id: format!("{index}v1"),
            index,
            generation: 1,
            parent: None,
            children: Vec::new(),
            components: components
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect::<BTreeMap<_, _>>(),
        }
    }

    fn view() -> WorldView {
        let summary = |name: &str| ComponentSummary {
            name: name.to_owned(),
            type_name: "T",
            pool_rows: 0,
            entities: 0,
            bytes: 0,
        };
        WorldView {
            entities: vec![
                entity(0, &[("pos", json!({"x": 1.0, "y": 2.0})), ("team", json!(0))]),
                entity(1, &[("pos", json!({"x": -3.0, "y": 5.5})), ("team", json!(1))]),
                entity(2, &[("pos", json!({"x": 4.0, "y": 0.0}))]),
                entity(3, &[("pos", json!({"x": "a", "y": 0.0})), ("team", json!(0))]),
                entity(4, &[("team", json!(1))]),
            ],
            components: vec![summary("pos"), summary("team")],
            ..WorldView::default()
        }
    }

    #[test]
    fn points_carry_their_entity_position_and_colour() {
        let q = MapQuery { component: "pos", x: "x", y: "y", color: Some("team") };
        let m = map(&view(), &q).unwrap();
        assert_eq!(m["count"], 3);
        assert_eq!(m["skipped"], 1, "a position whose x is not a number");
        assert_eq!(m["index"], json!([0, 1, 2]));
        assert_eq!(m["xs"], json!([1.0, -3.0, 4.0]));
        assert_eq!(m["ys"], json!([2.0, 5.5, 0.0]));
        assert_eq!(m["categories"], json!(["0", "1", "null"]));
        assert_eq!(m["colors"], json!([0, 1, 2]));
        assert_eq!(m["bounds"], json!([-3.0, 0.0, 4.0, 5.5]));
    }

    #[test]
    fn unknown_components_are_refused_by_name_and_other_fields_can_be_chosen() {
        let q = MapQuery { component: "nope", x: "x", y: "y", color: None };
        assert!(matches!(map(&view(), &q), Err(ApiError::NoSuchComponent(name)) if name == "nope"));
        let q = MapQuery { component: "pos", x: "x", y: "y", color: Some("colour") };
        assert!(matches!(map(&view(), &q), Err(ApiError::NoSuchComponent(name)) if name == "colour"));
        let q = MapQuery { component: "pos", x: "y", y: "x", color: None };
        let m = map(&view(), &q).unwrap();
        assert_eq!(m["xs"], json!([2.0, 5.5, 0.0]));
        assert_eq!(m["categories"], json!(["all"]));
    }

    #[test]
    fn colours_past_the_limit_share_other() {
        let mut v = view();
        v.entities =
            (0..40).map(|i| entity(i, &[("pos", json!({"x": 0.0, "y": 0.0})), ("team", json!(i))])).collect();
        let q = MapQuery { component: "pos", x: "x", y: "y", color: Some("team") };
        let m = map(&v, &q).unwrap();
        let categories = m["categories"].as_array().unwrap();
        assert_eq!(categories.len(), MAX_CATEGORIES + 1);
        assert_eq!(categories[MAX_CATEGORIES], "other");
        assert_eq!(m["colors"][39], MAX_CATEGORIES);
    }
}

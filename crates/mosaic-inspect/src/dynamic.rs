//! Run-time components (`mosaic::dynamic`) in the inspector's views: read through their field
//! schema, so no per-type code is needed (the reflection a script or a mod needs to be seen).

use mosaic::dynamic::{DynamicRef, DynamicValue, Scalar, ScalarValue, Schema};
use mosaic::{ComponentId, Entity, World};
use serde_json::{Map, Value};

use crate::inspector::{Shared, lock};

/// One value as a JSON object of its scalars by dotted path (`{"pos.x": 1.5, "alive": true}`).
/// O(leaves).
pub(crate) fn value_json(value: DynamicRef<'_>) -> Value {
    let bytes = value.bytes();
    let mut out = Map::new();
    for leaf in value.schema().leaves() {
        let scalar = ScalarValue::read(leaf.scalar, &bytes[leaf.offset as usize..]);
        // Non-finite floats have no JSON form: `null`, as serde_json writes them.
        let field = serde_json::to_value(scalar).unwrap_or(Value::Null);
        out.insert(leaf.path.to_string(), field);
    }
    Value::Object(out)
}

/// The run-time components `entity` has (those with a schema), by name, in registration order.
/// O(run-time components).
pub(crate) fn components_of(
    world: &World,
    entity: Entity,
) -> impl Iterator<Item = (&'static str, Value)> + '_ {
    world
        .components()
        .dynamic_components()
        .filter(|(_, info)| info.schema.is_some())
        .filter_map(move |(id, info)| Some((info.name, value_json(world.get_by_id(entity, id).ok()?))))
}

/// The names of the run-time components `entity` has, in registration order.
pub(crate) fn names_of(world: &World, entity: Entity) -> impl Iterator<Item = &'static str> + '_ {
    world
        .components()
        .dynamic_components()
        .filter(move |&(id, _)| world.contains_by_id(entity, id))
        .map(|(_, info)| info.name)
}

/// Refreshes `shared`'s list of run-time component names from `world` when their number
/// changed (they are never unregistered). O(1) when it did not.
pub(crate) fn refresh_names(shared: &Shared, world: &World) {
    let count = world.components().dynamic_components().filter(|(_, info)| info.schema.is_some()).count();
    let mut names = lock(&shared.dynamic_names);
    if names.len() != count {
        *names = world
            .components()
            .dynamic_components()
            .filter(|(_, info)| info.schema.is_some())
            .map(|(_, info)| info.name.to_owned())
            .collect();
        names.sort_unstable();
    }
}

/// Sets `entity`'s run-time component `id` from `json`, an object of `{dotted path: value}`:
/// the fields named are written over the entity's present value (zeros when it has none), each
/// checked against the schema (its path, its type, its range). O(fields).
///
/// # Errors
/// A message naming the field: not an object, an unknown path, a value of another type or out
/// of the field's range, or a write the world refuses.
pub(crate) fn set(world: &mut World, id: ComponentId, entity: Entity, json: &Value) -> Result<(), String> {
    let schema = world.dynamic_schema(id).map_err(|e| e.to_string())?.clone();
    let fields = json.as_object().ok_or("the value is not a JSON object of {field path: value}")?;
    let mut value = match world.get_by_id(entity, id) {
        Ok(present) => present.to_value(),
        Err(_) => DynamicValue::new(&schema),
    };
    for (path, field) in fields {
        write_field(&schema, &mut value, path, field)?;
    }
    world.insert_by_id(entity, id, value).map(|_| ()).map_err(|e| e.to_string())
}

/// Writes one field of `value` from JSON, checked against `schema`.
fn write_field(schema: &Schema, value: &mut DynamicValue, path: &str, field: &Value) -> Result<(), String> {
    let leaf = schema.leaf(path).ok_or_else(|| format!("no field `{path}`"))?;
    let wrong = || format!("field `{path}` is a {}, not {field}", leaf.scalar.name());
    /// An integer of type `$t` from a JSON number, in range.
    macro_rules! int {
        ($t:ty) => {{
            let n = field
                .as_i64()
                .map(i128::from)
                .or_else(|| field.as_u64().map(i128::from))
                .ok_or_else(wrong)?;
            value.set_path::<$t>(path, <$t>::try_from(n).map_err(|_| wrong())?).map_err(|e| e.to_string())
        }};
    }
    match leaf.scalar {
        Scalar::Bool => value.set_path(path, field.as_bool().ok_or_else(wrong)?).map_err(|e| e.to_string()),
        Scalar::U8 => int!(u8),
        Scalar::U16 => int!(u16),
        Scalar::U32 => int!(u32),
        Scalar::U64 => int!(u64),
        Scalar::I8 => int!(i8),
        Scalar::I16 => int!(i16),
        Scalar::I32 => int!(i32),
        Scalar::I64 => int!(i64),
        Scalar::F32 => {
            let n = field.as_f64().ok_or_else(wrong)?;
            let narrow = n as f32;
            if !narrow.is_finite() {
                return Err(format!("field `{path}` is an f32: {n} is out of its range"));
            }
            value.set_path(path, narrow).map_err(|e| e.to_string())
        }
        Scalar::F64 => value.set_path(path, field.as_f64().ok_or_else(wrong)?).map_err(|e| e.to_string()),
    }
}

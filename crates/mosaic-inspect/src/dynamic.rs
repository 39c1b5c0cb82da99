//! Run-time components (`mosaic::dynamic`) in the inspector's views: read through their field
//! schema, so no per-type code is needed (the reflection a script or a mod needs to be seen).

use mosaic::dynamic::{DynamicRef, Primitive, Scalar};
use mosaic::{Entity, World};
use serde_json::{Map, Value, json};

/// One value as a JSON object of its scalars by dotted path (`{"pos.x": 1.5, "alive": true}`).
/// O(leaves).
pub(crate) fn value_json(value: DynamicRef<'_>) -> Value {
    let bytes = value.bytes();
    let mut out = Map::new();
    for leaf in value.schema().leaves() {
        let at = &bytes[leaf.offset as usize..];
        let field = match leaf.scalar {
            Scalar::Bool => json!(bool::read(at)),
            Scalar::U8 => json!(u8::read(at)),
            Scalar::U16 => json!(u16::read(at)),
            Scalar::U32 => json!(u32::read(at)),
            Scalar::U64 => json!(u64::read(at)),
            Scalar::I8 => json!(i8::read(at)),
            Scalar::I16 => json!(i16::read(at)),
            Scalar::I32 => json!(i32::read(at)),
            Scalar::I64 => json!(i64::read(at)),
            // Non-finite floats have no JSON form: `null`, as serde_json writes them.
            Scalar::F32 => json!(f32::read(at)),
            Scalar::F64 => json!(f64::read(at)),
        };
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

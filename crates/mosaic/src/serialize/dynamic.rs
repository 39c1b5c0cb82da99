//! Run-time components in snapshots (format 8): each schema component with rows is written as
//! `(name, leaves, rows, order)`: its schema's leaves as `(path, scalar type)` pairs (so a load
//! checks the world declares the same schema), rows `(entity index, (scalar, ...))` in index
//! order with each scalar written as its own type (RON shows numbers, postcard packs them), and
//! the entity indices in the pool's row order. Padding is never written; values are read back
//! into zeroed buffers and checked against the schema.

use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Serialize, Serializer};

use super::SnapshotError;
use crate::component::{ComponentId, ScalarValue};
use crate::dynamic::{DynamicValue, Scalar, Schema};
use crate::entity::Entity;
use crate::world::World;

/// One run-time component's column as written.
pub(super) struct DynamicColumnOut<'a> {
    name: &'static str,
    schema: &'a Schema,
    /// `(entity index, value bytes)` in index order.
    rows: Vec<(u32, &'a [u8])>,
    /// The live entities' indices in the pool's row order.
    order: Vec<u32>,
}

impl DynamicColumnOut<'_> {
    /// Bytes the column adds to a binary snapshot, about: to size its buffer.
    pub(super) fn size_hint(&self) -> usize {
        let value: usize = self.schema.leaves().iter().map(|l| l.scalar.size()).sum();
        self.rows.len() * (value + 5)
            + self.order.len() * 5
            + self.name.len()
            + 16 * self.schema.leaves().len()
    }
}

/// The columns of every run-time component with a schema and live rows, sorted by name.
pub(super) fn columns(world: &World) -> Vec<DynamicColumnOut<'_>> {
    let components = world.components();
    let mut out: Vec<DynamicColumnOut<'_>> = components
        .dynamic_components()
        .filter_map(|(id, info)| {
            let schema = info.schema.as_deref()?;
            let pool = components.pool(id);
            let live = |e: &&Entity| world.is_alive(**e);
            let order: Vec<u32> = pool.entities().iter().filter(live).map(|e| e.index()).collect();
            if order.is_empty() {
                return None;
            }
            let mut rows: Vec<(u32, &[u8])> = pool
                .entities()
                .iter()
                .filter(live)
                .filter_map(|&e| Some((e.index(), world.get_by_id(e, id).ok()?.bytes())))
                .collect();
            rows.sort_unstable_by_key(|&(index, _)| index);
            Some(DynamicColumnOut { name: info.name, schema, rows, order })
        })
        .collect();
    out.sort_unstable_by_key(|c| c.name);
    out
}

impl Serialize for DynamicColumnOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let leaves: Vec<(&str, &str)> =
            self.schema.leaves().iter().map(|l| (&*l.path, l.scalar.name())).collect();
        let mut tuple = serializer.serialize_tuple(4)?;
        tuple.serialize_element(self.name)?;
        tuple.serialize_element(&leaves)?;
        tuple.serialize_element(&RowsOut(self))?;
        tuple.serialize_element(&self.order)?;
        tuple.end()
    }
}

struct RowsOut<'a, 'b>(&'a DynamicColumnOut<'b>);

impl Serialize for RowsOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.rows.len()))?;
        for &(index, bytes) in &self.0.rows {
            seq.serialize_element(&(index, ValueOut { schema: self.0.schema, bytes }))?;
        }
        seq.end()
    }
}

/// One value: its scalars in leaf order, each as its own type.
struct ValueOut<'a> {
    schema: &'a Schema,
    bytes: &'a [u8],
}

impl Serialize for ValueOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(self.schema.leaves().len())?;
        for leaf in self.schema.leaves() {
            tuple.serialize_element(&ScalarValue::read(leaf.scalar, &self.bytes[leaf.offset as usize..]))?;
        }
        tuple.end()
    }
}

/// A run-time component the world loaded into declares: its name, id and schema.
pub(super) struct Known {
    name: &'static str,
    id: ComponentId,
    schema: Arc<Schema>,
}

/// The run-time components with a schema `world` has registered, sorted by name.
pub(super) fn known(world: &World) -> Vec<Known> {
    let mut out: Vec<Known> = world
        .components()
        .dynamic_components()
        .filter_map(|(id, info)| {
            Some(Known { name: info.name, id, schema: Arc::clone(info.schema.as_ref()?) })
        })
        .collect();
    out.sort_unstable_by_key(|k| k.name);
    out
}

/// One run-time component's column as read and checked against the world's schema.
pub(super) struct LoadedDynamic {
    pub(super) name: String,
    pub(super) id: ComponentId,
    /// `(entity index, value)` in the order read.
    pub(super) rows: Vec<(u32, DynamicValue)>,
    pub(super) order: Vec<u32>,
}

/// Puts the rows of run-time component `id` into `world` (the entity of a saved index by
/// `entity_of`).
pub(super) fn insert_rows(
    world: &mut World,
    id: ComponentId,
    rows: Vec<(u32, DynamicValue)>,
    entity_of: &dyn Fn(u32) -> Entity,
) {
    for (index, value) in rows {
        // Checked before: the entity is alive and the value is of the component's schema.
        // A user's hook may have despawned the entity meanwhile: the value is then dropped.
        let _ = world.insert_by_id(entity_of(index), id, value);
    }
}

/// Reads the `dynamic` field: a sequence of columns.
pub(super) struct DynamicSeed<'a> {
    pub(super) known: &'a [Known],
    pub(super) stash: super::load::Stash<'a>,
}

impl<'de> DeserializeSeed<'de> for DynamicSeed<'_> {
    type Value = Vec<LoadedDynamic>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for DynamicSeed<'_> {
    type Value = Vec<LoadedDynamic>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of run-time component columns")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // No capacity from the declared length: a hostile count must not reserve memory.
        let mut out = Vec::new();
        while let Some(column) = seq.next_element_seed(ColumnSeed { parent: &self })? {
            out.push(column);
        }
        Ok(out)
    }
}

/// One `(name, leaves, rows, order)` column.
struct ColumnSeed<'a> {
    parent: &'a DynamicSeed<'a>,
}

impl<'de> DeserializeSeed<'de> for ColumnSeed<'_> {
    type Value = LoadedDynamic;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(4, self)
    }
}

impl<'de> Visitor<'de> for ColumnSeed<'_> {
    type Value = LoadedDynamic;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a run-time component column (name, leaves, rows, order)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let stash = self.parent.stash;
        let name: String = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let Ok(at) = self.parent.known.binary_search_by(|k| k.name.cmp(&name)) else {
            let error = SnapshotError::Unknown { kind: "run-time component", name };
            return Err(super::load::stash(stash, error));
        };
        let known = &self.parent.known[at];
        let leaves: Vec<(String, String)> =
            seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if let Some(detail) = schema_difference(&known.schema, &leaves) {
            return Err(super::load::stash(stash, SnapshotError::DynamicSchema { component: name, detail }));
        }
        let rows = seq
            .next_element_seed(RowsSeed { schema: &known.schema })?
            .ok_or_else(|| de::Error::invalid_length(2, &self))?;
        let order = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(3, &self))?;
        Ok(LoadedDynamic { name, id: known.id, rows, order })
    }
}

/// How the saved leaves differ from `schema`'s, if they do.
fn schema_difference(schema: &Schema, saved: &[(String, String)]) -> Option<String> {
    let ours = schema.leaves();
    for (i, (path, scalar)) in saved.iter().enumerate() {
        let Some(leaf) = ours.get(i) else {
            return Some(format!("the snapshot has field `{path}` past the world's {} fields", ours.len()));
        };
        if *leaf.path != **path || leaf.scalar.name() != scalar {
            return Some(format!(
                "field {i} is `{path}: {scalar}` in the snapshot, `{}: {}` in the world",
                leaf.path,
                leaf.scalar.name()
            ));
        }
    }
    (saved.len() < ours.len()).then(|| format!("the snapshot lacks field `{}`", ours[saved.len()].path))
}

/// The rows of one column: `(entity index, value)`s.
struct RowsSeed<'a> {
    schema: &'a Arc<Schema>,
}

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = Vec<(u32, DynamicValue)>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RowsSeed<'_> {
    type Value = Vec<(u32, DynamicValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of (entity index, value) rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(row) = seq.next_element_seed(RowSeed { schema: self.schema })? {
            out.push(row);
        }
        Ok(out)
    }
}

/// One `(entity index, value)` row.
struct RowSeed<'a> {
    schema: &'a Arc<Schema>,
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = (u32, DynamicValue);

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(2, self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_> {
    type Value = (u32, DynamicValue);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an (entity index, value) row")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let index = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let value = seq
            .next_element_seed(ValueSeed { schema: self.schema })?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok((index, value))
    }
}

/// One value: its scalars in leaf order.
struct ValueSeed<'a> {
    schema: &'a Arc<Schema>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = DynamicValue;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(self.schema.leaves().len(), self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = DynamicValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of {} scalars", self.schema.leaves().len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut bytes = vec![0u8; self.schema.layout().size()];
        for (i, leaf) in self.schema.leaves().iter().enumerate() {
            let missing = || de::Error::invalid_length(i, &self);
            let value = match leaf.scalar {
                Scalar::Bool => ScalarValue::Bool(seq.next_element()?.ok_or_else(missing)?),
                Scalar::U8 => ScalarValue::U8(seq.next_element()?.ok_or_else(missing)?),
                Scalar::U16 => ScalarValue::U16(seq.next_element()?.ok_or_else(missing)?),
                Scalar::U32 => ScalarValue::U32(seq.next_element()?.ok_or_else(missing)?),
                Scalar::U64 => ScalarValue::U64(seq.next_element()?.ok_or_else(missing)?),
                Scalar::I8 => ScalarValue::I8(seq.next_element()?.ok_or_else(missing)?),
                Scalar::I16 => ScalarValue::I16(seq.next_element()?.ok_or_else(missing)?),
                Scalar::I32 => ScalarValue::I32(seq.next_element()?.ok_or_else(missing)?),
                Scalar::I64 => ScalarValue::I64(seq.next_element()?.ok_or_else(missing)?),
                Scalar::F32 => ScalarValue::F32(seq.next_element()?.ok_or_else(missing)?),
                Scalar::F64 => ScalarValue::F64(seq.next_element()?.ok_or_else(missing)?),
            };
            value.write(&mut bytes[leaf.offset as usize..]);
        }
        DynamicValue::from_bytes(self.schema, &bytes).map_err(de::Error::custom)
    }
}

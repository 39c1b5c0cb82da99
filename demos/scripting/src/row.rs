//! [`Row`]: what a system's function sees as `this`, one matching entity at a time: its fields by
//! name (`this.absorb`), the entity (`this.entity`), and `add` / `remove` of run-time components,
//! applied after the system's walk.

use std::sync::Arc;

use mosaic::dynamic::{DynamicValue, Scalar, Schema};
use mosaic::{ComponentId, Entity};
use rhai::{Dynamic, EvalAltResult, Map};

use crate::value::{Value, from_dynamic, write_value};

/// The most `add` / `remove` one system may ask for in one frame (over all its rows): a script
/// that asks for more is stopped with an error instead of growing memory without bound.
pub const MAX_DEFERRED_PER_FRAME: usize = 1 << 20;

/// No slot: the row has no field of that name.
pub(crate) const NO_SLOT: u16 = u16::MAX;

/// One field of a system's row: its name, type, and whether scripts may write it.
#[derive(Clone, Debug)]
pub struct SlotInfo {
    /// The field name scripts use (`absorb`, `health`).
    pub name: String,
    /// Its type.
    pub scalar: Scalar,
    /// Whether `this.name = ...` is allowed (a bridged read-only field, such as `team`, is not).
    pub writable: bool,
}

/// A run-time component a script declared: its name, id and schema, for `add`.
#[derive(Clone, Debug)]
pub struct Declared {
    /// The name.
    pub name: String,
    /// Its id in the world.
    pub id: ComponentId,
    /// Its schema.
    pub schema: Arc<Schema>,
}

/// A structural change a system asked for, applied after its walk in the order asked.
#[derive(Clone, Debug)]
pub enum Deferred {
    /// Add (or replace) a run-time component.
    Add(Entity, ComponentId, DynamicValue),
    /// Remove a run-time component (nothing if the entity has none).
    Remove(Entity, ComponentId),
}

/// The row a system's function gets as `this`: one entity's fields, copied in before the call
/// and out after it. A Rhai custom type (`Row` in messages).
///
/// Invariant: `values.len() == slots.len()`, and `values[i]` is of `slots[i].scalar`'s kind and
/// range (every write goes through the checked conversion of `this.name = v`).
#[derive(Clone, Debug)]
pub struct Row {
    pub(crate) entity: Option<Entity>,
    pub(crate) values: Vec<Value>,
    /// Bit `i`: slot `i` was written by this call.
    pub(crate) written: u64,
    pub(crate) slots: Arc<[SlotInfo]>,
    /// Slot of each field name the script knows (by the engine's name index), or [`NO_SLOT`].
    pub(crate) by_name: Arc<[u16]>,
    pub(crate) declared: Arc<[Declared]>,
    pub(crate) deferred: Vec<Deferred>,
}

/// A runtime error for the script, placed by Rhai at the expression that caused it.
pub(crate) fn script_error(message: String) -> Box<EvalAltResult> {
    Box::new(EvalAltResult::ErrorRuntime(message.into(), rhai::Position::NONE))
}

impl Row {
    /// An empty row with these slots.
    pub(crate) fn new(slots: Arc<[SlotInfo]>, by_name: Arc<[u16]>, declared: Arc<[Declared]>) -> Self {
        let values = slots
            .iter()
            .map(|s| match s.scalar {
                Scalar::Bool => Value::Bool(false),
                Scalar::F32 => Value::Float(0.0),
                _ => Value::Int(0),
            })
            .collect();
        Self { entity: None, values, written: 0, slots, by_name, declared, deferred: Vec::new() }
    }

    /// The fields, for messages.
    fn field_list(&self) -> String {
        let names: Vec<&str> = self.slots.iter().map(|s| s.name.as_str()).collect();
        names.join(", ")
    }

    /// The slot of field `name` (engine name index `index`, when known).
    fn slot(&self, index: Option<usize>, name: &str) -> Result<usize, Box<EvalAltResult>> {
        let slot = match index {
            Some(i) => self.by_name.get(i).copied().unwrap_or(NO_SLOT),
            None => self.slots.iter().position(|s| s.name == name).map_or(NO_SLOT, |i| i as u16),
        };
        if slot == NO_SLOT {
            return Err(script_error(format!(
                "no field `{name}` in this system's row (its fields: entity, {})",
                self.field_list()
            )));
        }
        Ok(usize::from(slot))
    }

    /// `this.name`.
    pub(crate) fn get(&self, index: Option<usize>, name: &str) -> Result<Dynamic, Box<EvalAltResult>> {
        let slot = self.slot(index, name)?;
        Ok(self.values[slot].to_dynamic())
    }

    /// `this.name = value`.
    pub(crate) fn set(
        &mut self,
        index: Option<usize>,
        name: &str,
        value: &Dynamic,
    ) -> Result<(), Box<EvalAltResult>> {
        let slot = self.slot(index, name)?;
        let info = &self.slots[slot];
        if !info.writable {
            return Err(script_error(format!("field `{name}` is read-only in scripts")));
        }
        self.values[slot] = from_dynamic(info.scalar, name, value).map_err(script_error)?;
        self.written |= 1 << slot;
        Ok(())
    }

    /// Reads every field as a Rhai value and writes every writable one back through the same
    /// checked conversion `this.name = v` uses: a script body's field traffic without Rhai.
    pub(crate) fn touch_all(&mut self) -> Result<(), Box<EvalAltResult>> {
        for (i, info) in self.slots.iter().enumerate() {
            let value = self.values[i].to_dynamic();
            if info.writable {
                self.values[i] = from_dynamic(info.scalar, &info.name, &value).map_err(script_error)?;
                self.written |= 1 << i;
            }
        }
        Ok(())
    }

    /// Fails when the system has asked for [`MAX_DEFERRED_PER_FRAME`] operations this frame.
    fn check_deferred(&self) -> Result<(), Box<EvalAltResult>> {
        if self.deferred.len() >= MAX_DEFERRED_PER_FRAME {
            return Err(script_error(format!(
                "more than {MAX_DEFERRED_PER_FRAME} `add` / `remove` in one frame of one system"
            )));
        }
        Ok(())
    }

    /// The run-time component the script declared as `name`.
    fn declared(&self, name: &str) -> Result<&Declared, Box<EvalAltResult>> {
        self.declared.iter().find(|d| d.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.declared.iter().map(|d| d.name.as_str()).collect();
            script_error(format!(
                "no component `{name}` declared by the script (declared: {})",
                known.join(", ")
            ))
        })
    }

    /// `this.add(name, #{ field: value, .. })`: adds (or replaces) run-time component `name`
    /// on this row's entity after the walk; fields not given are zero.
    pub(crate) fn add(&mut self, name: &str, fields: &Map) -> Result<(), Box<EvalAltResult>> {
        self.check_deferred()?;
        let declared = self.declared(name)?;
        let mut value = DynamicValue::new(&declared.schema);
        for (field, given) in fields {
            let Some(leaf) = declared.schema.leaf(field.as_str()) else {
                let known: Vec<&str> = declared.schema.leaves().iter().map(|l| &*l.path).collect();
                return Err(script_error(format!(
                    "component `{name}` has no field `{field}` (its fields: {})",
                    known.join(", ")
                )));
            };
            let checked = from_dynamic(leaf.scalar, field, given).map_err(script_error)?;
            write_value(&mut value, field, leaf.scalar, checked).map_err(script_error)?;
        }
        let id = declared.id;
        let entity = self.entity.ok_or_else(|| script_error("`add` outside a system's row".into()))?;
        self.deferred.push(Deferred::Add(entity, id, value));
        Ok(())
    }

    /// `this.remove(name)`: removes run-time component `name` from this row's entity after the
    /// walk.
    pub(crate) fn remove(&mut self, name: &str) -> Result<(), Box<EvalAltResult>> {
        self.check_deferred()?;
        let id = self.declared(name)?.id;
        let entity = self.entity.ok_or_else(|| script_error("`remove` outside a system's row".into()))?;
        self.deferred.push(Deferred::Remove(entity, id));
        Ok(())
    }
}

//! [`ScriptSystem`]: one system a script declared, built into dynamic queries and field handles
//! once, then run every frame: a read walk that calls the script once per row, a write walk that
//! copies the row values back, the bridged writes, and the deferred `add` / `remove`.

use std::sync::Arc;

use mosaic::dynamic::{DynamicError, DynamicQuery, QueryBuilder};
use mosaic::{Entity, World};
use rhai::{Dynamic, EvalAltResult};

use crate::bridge::Bridge;
use crate::error::Place;
use crate::row::{Declared, Deferred, NO_SLOT, Row, SlotInfo};
use crate::value::{Handle, Value, scriptable};

/// The most fields one system's row may have.
pub const MAX_ROW_FIELDS: usize = 64;

/// A system as the script declared it: `system(name, [terms])`.
#[derive(Clone, Debug)]
pub struct SystemDecl {
    /// The system's name, also the name of the script function it runs.
    pub name: String,
    /// Component names; `!Name` excludes entities that have it.
    pub terms: Vec<String>,
    /// Where it was declared.
    pub place: Option<Place>,
}

/// Why a system stopped on a frame.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The script failed on this entity's row.
    Script(Entity, Box<EvalAltResult>),
    /// The function replaced `this` with something that is not its row.
    ReplacedThis(Entity),
    /// The world refused a query or an operation.
    World(DynamicError),
}

/// One of the script's systems, ready to run.
///
/// Invariant: `read` and `write` have the same terms (read and write access) and filters, so
/// they visit the same rows in the same order (the world does not change between the walks);
/// `staged` holds `handles.len()` values per row of the last read walk.
pub(crate) struct ScriptSystem {
    /// The name (and the script function's); shared, so a frame copies it without allocating.
    pub(crate) name: Arc<str>,
    /// Where its function is defined, for errors Rhai gives no position for.
    pub(crate) fn_place: Option<Place>,
    /// The read walk's query: every run-time term read, bridges and exclusions as filters.
    read: DynamicQuery,
    /// The write walk's query (run-time terms written), if the system has run-time terms.
    write: Option<DynamicQuery>,
    /// Per run-time field: its slot, its handle in `read`, and in `write`.
    handles: Vec<(usize, Handle, Handle)>,
    /// Per bridged field: its slot and component.
    bridges: Vec<(usize, Bridge)>,
    /// The row the function sees as `this`, reused row after row.
    this: Dynamic,
    /// A fresh row, to put back if a function replaced `this`.
    template: Row,
    /// The run-time field values after each call of the last walk, row after row.
    staged: Vec<Value>,
    /// Bridged writes of the last walk: entity, index in `bridges`, value.
    bridge_writes: Vec<(Entity, usize, Value)>,
    /// The deferred operations of the last walk (kept for their capacity).
    deferred: Vec<Deferred>,
}

/// A system whose row fields are known but whose row is not made yet (the engine's name table
/// is complete only when every system is).
pub(crate) struct Pending {
    system: ScriptSystem,
    slots: Vec<SlotInfo>,
}

impl Pending {
    /// Builds the queries and handles of `decl` in `world`; `declared` are the script's
    /// components. Adds the field names the row has to `names`.
    ///
    /// # Errors
    /// A message naming the system and the term or field: an unknown component, a field name
    /// twice in one row (or named `entity`), too many fields, or a query the world refuses.
    pub(crate) fn build(
        decl: &SystemDecl,
        world: &World,
        declared: &[Declared],
        names: &mut Vec<String>,
    ) -> Result<Self, String> {
        let name = &decl.name;
        let known = || {
            let mut all: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
            all.extend(Bridge::ALL.iter().map(|b| b.name()));
            all.join(", ")
        };
        let (mut read, mut write) = (world.query_builder(), world.query_builder());
        let mut slots: Vec<SlotInfo> = Vec::new();
        let mut runtime_terms = Vec::new();
        let mut bridges = Vec::new();
        for term in &decl.terms {
            let (excluded, component) = match term.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, term.as_str()),
            };
            let unknown = || {
                format!(
                    "system `{name}`: no component `{component}` (the script's and the bridged: {})",
                    known()
                )
            };
            if let Some(d) = declared.iter().find(|d| d.name == component) {
                if excluded {
                    read = read.without(d.id);
                    write = write.without(d.id);
                } else {
                    read = read.read(d.id);
                    write = write.write(d.id);
                    runtime_terms.push(d);
                }
            } else if let Some(bridge) = Bridge::by_name(component) {
                let id = bridge.id(world).ok_or_else(|| {
                    format!("system `{name}`: component `{component}` is not in this world")
                })?;
                let (read_next, write_next) = if excluded {
                    (read.without(id), write.without(id))
                } else {
                    (read.with(id), write.with(id))
                };
                (read, write) = (read_next, write_next);
                if !excluded {
                    let (field, scalar, writable) = bridge.field();
                    bridges.push((slots.len(), bridge));
                    slots.push(SlotInfo { name: field.into(), scalar, writable });
                }
            } else {
                return Err(unknown());
            }
        }
        if runtime_terms.is_empty() && bridges.is_empty() {
            return Err(format!("system `{name}` lists no component to walk: name at least one without `!`"));
        }
        let world_error = |e: DynamicError| format!("system `{name}`: {e}");
        let has_runtime = !runtime_terms.is_empty();
        let read = finish(read).map_err(world_error)?;
        let write = if has_runtime { Some(finish(write).map_err(world_error)?) } else { None };
        let mut handles = Vec::new();
        for (term, d) in runtime_terms.iter().enumerate() {
            for leaf in d.schema.leaves() {
                if !scriptable(leaf.scalar) {
                    return Err(format!(
                        "system `{name}`: field `{}` of `{}` is {}: scripts cannot hold it",
                        leaf.path,
                        d.name,
                        leaf.scalar.name()
                    ));
                }
                let r = Handle::resolve(&read, term, &leaf.path, leaf.scalar)
                    .map_err(|e| format!("system `{name}`: {e}"))?;
                let w = Handle::resolve(
                    write.as_ref().expect("has run-time terms"),
                    term,
                    &leaf.path,
                    leaf.scalar,
                )
                .map_err(|e| format!("system `{name}`: {e}"))?;
                handles.push((slots.len(), r, w));
                slots.push(SlotInfo { name: leaf.path.to_string(), scalar: leaf.scalar, writable: true });
            }
        }
        if slots.len() > MAX_ROW_FIELDS {
            return Err(format!(
                "system `{name}`: {} fields, over the limit of {MAX_ROW_FIELDS}",
                slots.len()
            ));
        }
        for (i, slot) in slots.iter().enumerate() {
            if slot.name == "entity" || slots[..i].iter().any(|s| s.name == slot.name) {
                return Err(format!(
                    "system `{name}`: two fields named `{}` in its row (field names must differ across its components, and `entity` is taken)",
                    slot.name
                ));
            }
            if !names.contains(&slot.name) {
                names.push(slot.name.clone());
            }
        }
        let template = Row::new(Arc::from(Vec::new()), Arc::from(Vec::new()), Arc::from(Vec::new()));
        let system = ScriptSystem {
            name: Arc::from(name.as_str()),
            fn_place: None,
            read,
            write,
            handles,
            bridges,
            this: Dynamic::UNIT,
            template,
            staged: Vec::new(),
            bridge_writes: Vec::new(),
            deferred: Vec::new(),
        };
        Ok(Self { system, slots })
    }

    /// The system, its row indexed by the engine's complete name table `names`.
    pub(crate) fn finish(self, names: &[String], declared: Arc<[Declared]>) -> ScriptSystem {
        let Self { mut system, slots } = self;
        let by_name: Arc<[u16]> = names
            .iter()
            .map(|n| slots.iter().position(|s| &s.name == n).map_or(NO_SLOT, |i| i as u16))
            .collect();
        system.template = Row::new(Arc::from(slots), by_name, declared);
        system.this = Dynamic::from(system.template.clone());
        system
    }
}

/// `builder.build()`.
fn finish(builder: QueryBuilder<'_>) -> Result<DynamicQuery, DynamicError> {
    builder.build()
}

impl ScriptSystem {
    /// Runs the system once over `world`: `call(this)` on every matching row (the script's
    /// function, or anything else: the binding is the same), then the writes and the deferred
    /// operations, in row order. On a failure nothing of this frame's walk is written.
    ///
    /// Allocates nothing per row once its buffers have grown to the row count (they keep their
    /// capacity between frames); `call` may.
    pub(crate) fn run(
        &mut self,
        world: &mut World,
        mut call: impl FnMut(&mut Dynamic) -> Result<(), Box<EvalAltResult>>,
    ) -> Result<(), Failure> {
        if !self.this.is::<Row>() {
            self.this = Dynamic::from(self.template.clone());
        }
        self.staged.clear();
        self.bridge_writes.clear();
        let mut failure = None;
        {
            let world: &World = world;
            let Self { read, handles, bridges, this, staged, bridge_writes, .. } = self;
            read.for_each(world, |row| {
                if failure.is_some() {
                    return;
                }
                let entity = row.entity();
                if let Some(mut r) = this.write_lock::<Row>() {
                    r.entity = Some(entity);
                    r.written = 0;
                    for &(slot, handle, _) in handles.iter() {
                        r.values[slot] = handle.read(&row);
                    }
                    for &(slot, bridge) in bridges.iter() {
                        if let Some(value) = bridge.read(world, entity) {
                            r.values[slot] = value;
                        }
                    }
                }
                if let Err(error) = call(this) {
                    failure = Some(Failure::Script(entity, error));
                    return;
                }
                let Some(r) = this.read_lock::<Row>() else {
                    failure = Some(Failure::ReplacedThis(entity));
                    return;
                };
                staged.extend(handles.iter().map(|&(slot, ..)| r.values[slot]));
                for (i, &(slot, _)) in bridges.iter().enumerate() {
                    if r.written & (1 << slot) != 0 {
                        bridge_writes.push((entity, i, r.values[slot]));
                    }
                }
            })
            .map_err(Failure::World)?;
        }
        if let Some(failure) = failure {
            if let Some(mut r) = self.this.write_lock::<Row>() {
                r.deferred.clear();
            }
            return Err(failure);
        }
        if let Some(write) = &self.write {
            let (handles, staged) = (&self.handles, &self.staged);
            let width = handles.len();
            let mut at = 0;
            write
                .for_each_mut(world, |mut row| {
                    if let Some(values) = staged.get(at..at + width) {
                        for (&(.., handle), &value) in handles.iter().zip(values) {
                            handle.write(&mut row, value);
                        }
                    }
                    at += width;
                })
                .map_err(Failure::World)?;
            debug_assert_eq!(at, staged.len(), "the write walk visits the read walk's rows");
        }
        for &(entity, i, value) in &self.bridge_writes {
            self.bridges[i].1.write(world, entity, value);
        }
        if let Some(mut r) = self.this.write_lock::<Row>() {
            std::mem::swap(&mut r.deferred, &mut self.deferred);
        }
        let mut result = Ok(());
        for op in self.deferred.drain(..) {
            let applied = match op {
                Deferred::Add(entity, id, value) => world.insert_by_id(entity, id, value).map(drop),
                Deferred::Remove(entity, id) => world.remove_by_id(entity, id).map(drop),
            };
            if let Err(error) = applied
                && result.is_ok()
            {
                result = Err(Failure::World(error));
            }
        }
        result
    }
}

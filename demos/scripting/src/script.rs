//! [`Script`]: a Rhai script loaded into a world: its components registered, its systems built,
//! run once per frame in the order declared.
//!
//! Loading compiles the script, runs its top level once (where `component(..)` and
//! `system(..)` declare what it adds), registers each component in the world through
//! [`Schema::new`] and [`World::register_dynamic`], and builds each system's queries and field
//! handles. From then on the top level never runs again and the declarations are closed: a
//! system function sees only its row (`this`) and locals, so no state lives outside the world
//! and a rollback re-simulation runs it exactly as the first time.

use std::path::Path;
use std::sync::{Arc, Mutex};

use mosaic::World;
use mosaic::dynamic::{ComponentDescriptor, Field, Scalar, Schema};
use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, Map, NativeCallContext, Scope};

use crate::error::{Place, ScriptError, unwrap_eval};
use crate::row::{Declared, Row, script_error};
use crate::system::{Failure, Pending, ScriptSystem, SystemDecl};
use crate::value::scriptable;

/// The largest script file read, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;
/// The most components one script may declare.
pub const MAX_COMPONENTS: usize = 64;
/// The most systems one script may declare.
pub const MAX_SYSTEMS: usize = 64;
/// The most Rhai operations one call of a system function (one row) may take: a runaway loop
/// is an error at its line, not a hung frame.
pub const MAX_OPERATIONS_PER_ROW: u64 = 100_000;

/// A component as the script declared it.
#[derive(Clone, Debug)]
struct ComponentDecl {
    name: String,
    fields: Vec<(String, String)>,
    place: Option<Place>,
}

/// What the script's top level declared; `open` until the top level has run.
#[derive(Debug, Default)]
struct Declarations {
    components: Vec<ComponentDecl>,
    systems: Vec<SystemDecl>,
    open: bool,
}

/// A Rhai script running in a world: its run-time components and systems.
///
/// # Examples
/// ```
/// use mosaic::World;
/// use mosaic::dynamic::DynamicValue;
/// use mosaic_scripting::Script;
///
/// let mut world = World::new();
/// let source = r#"
///     component("Charge", #{ level: "f32" });
///     system("fill", ["Charge"]);
///     fn fill() { this.level = min(this.level + 0.5, 1.0); }
/// "#;
/// let mut script = Script::load("fill.rhai", source, &mut world).unwrap();
/// let charge = world.component_id_by_name("Charge").unwrap();
/// let e = world.spawn_dynamic([(charge, DynamicValue::new(world.dynamic_schema(charge).unwrap()))]).unwrap();
/// for _ in 0..3 {
///     script.run(&mut world).unwrap();
/// }
/// assert_eq!(world.get_by_id(e, charge).unwrap().get_path::<f32>("level"), Ok(1.0));
/// ```
pub struct Script {
    file: String,
    engine: Engine,
    ast: AST,
    scope: Scope<'static>,
    systems: Vec<ScriptSystem>,
    declared: Arc<[Declared]>,
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script")
            .field("file", &self.file)
            .field("components", &self.declared.iter().map(|d| &d.name).collect::<Vec<_>>())
            .field("systems", &self.systems.iter().map(|s| &s.name).collect::<Vec<_>>())
            .finish()
    }
}

/// The engine every script runs on: the standard packages but no file access (`no_module`) and
/// no clock (`no_time`), floats are `f32` (`f32_float`), and limits on operations per call,
/// call depth, strings, arrays and maps.
fn engine() -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS_PER_ROW)
        .set_max_call_levels(32)
        .set_max_expr_depths(64, 32)
        .set_max_string_size(1 << 16)
        .set_max_array_size(1 << 12)
        .set_max_map_size(256)
        .set_max_functions(256)
        .set_max_variables(256);
    engine.on_print(|text| arena::say!("script: {text}"));
    engine.on_debug(|text, _, position| arena::say!("script: {position:?}: {text}"));
    engine.register_type_with_name::<Row>("Row");
    engine.register_get("entity", |row: &mut Row| row.entity.map_or(-1, |e| i64::from(e.index())));
    engine.register_indexer_get(|row: &mut Row, name: &str| row.get(None, name));
    engine.register_indexer_set(|row: &mut Row, name: &str, value: Dynamic| row.set(None, name, &value));
    engine.register_fn("add", |row: &mut Row, name: &str, fields: Map| row.add(name, &fields));
    engine.register_fn("remove", |row: &mut Row, name: &str| row.remove(name));
    engine
}

impl Script {
    /// Reads the script at `path` and loads it into `world` (see [`Script::load`]).
    ///
    /// # Errors
    /// [`ScriptError::Read`] if the file cannot be read, is over [`MAX_SCRIPT_BYTES`] or is not
    /// UTF-8; else as [`Script::load`].
    pub fn from_file(path: &Path, world: &mut World) -> Result<Self, ScriptError> {
        let file = path.display().to_string();
        let read = |reason: String| ScriptError::Read { file: file.clone(), reason };
        let bytes =
            arena::files::read_capped(path, MAX_SCRIPT_BYTES, "a script").map_err(|e| read(e.to_string()))?;
        let source = String::from_utf8(bytes).map_err(|_| read("not UTF-8 text".into()))?;
        Self::load(&file, &source, world)
    }

    /// Compiles `source` (called `file` in messages), runs its top level to collect its
    /// declarations, registers its components in `world` and builds its systems. O(size of the
    /// script + fields).
    ///
    /// # Errors
    /// [`ScriptError::Syntax`] with the line; [`ScriptError::Load`] with the line of the
    /// declaration at fault: a top-level runtime error, a component or field name refused
    /// (Mosaic's schema and name checks), a type that is not one of `bool`, `u8`, `u16`,
    /// `u32`, `i8`, `i16`, `i32`, `i64`, `f32`, a name the world already has, an unknown
    /// component in a system, a system with no `fn NAME()` in the script, or a limit passed.
    pub fn load(file: &str, source: &str, world: &mut World) -> Result<Self, ScriptError> {
        let mut engine = engine();
        let decls = Arc::new(Mutex::new(Declarations { open: true, ..Declarations::default() }));
        register_declarations(&mut engine, &decls);
        let ast = engine.compile(source).map_err(|e| ScriptError::Syntax {
            file: file.into(),
            place: Place::of(e.position()),
            message: e.err_type().to_string(),
        })?;
        let mut scope = Scope::new();
        engine.run_ast_with_scope(&mut scope, &ast).map_err(|e| {
            let (place, message) = unwrap_eval(&e);
            ScriptError::Load { file: file.into(), place, message }
        })?;
        let decls = {
            let mut decls = decls.lock().unwrap_or_else(|e| e.into_inner());
            decls.open = false;
            (std::mem::take(&mut decls.components), std::mem::take(&mut decls.systems))
        };
        let (components, system_decls) = decls;
        let load = |place, message| ScriptError::Load { file: file.into(), place, message };
        let mut declared = Vec::new();
        for (i, c) in components.iter().enumerate() {
            if let Some(first) = components[..i].iter().find(|d| d.name == c.name) {
                let at = first.place.map_or(String::new(), |p| format!(" (first at line {})", p.line));
                return Err(load(c.place, format!("component `{}` is declared twice{at}", c.name)));
            }
            if crate::bridge::Bridge::by_name(&c.name).is_some() {
                return Err(load(
                    c.place,
                    format!(
                        "component `{}`: the name is the arena's bridged component; choose another",
                        c.name
                    ),
                ));
            }
            declared.push(register_component(c, world).map_err(|m| load(c.place, m))?);
        }
        let declared: Arc<[Declared]> = declared.into();
        let mut names = Vec::new();
        let mut pending = Vec::new();
        for s in &system_decls {
            if !ast.iter_functions().any(|f| f.name == s.name && f.params.is_empty()) {
                return Err(load(
                    s.place,
                    format!("system `{}`: the script has no `fn {}()` to run on each row", s.name, s.name),
                ));
            }
            pending.push(Pending::build(s, world, &declared, &mut names).map_err(|m| load(s.place, m))?);
        }
        for (index, name) in names.iter().enumerate() {
            let (get_name, set_name) = (name.clone(), name.clone());
            engine.register_get(name, move |row: &mut Row| row.get(Some(index), &get_name));
            engine.register_set(name, move |row: &mut Row, value: Dynamic| {
                row.set(Some(index), &set_name, &value)
            });
        }
        let systems = pending
            .into_iter()
            .map(|p| {
                let mut system = p.finish(&names, Arc::clone(&declared));
                system.fn_place = fn_place(source, &system.name);
                system
            })
            .collect();
        scope.clear();
        Ok(Self { file: file.into(), engine, ast, scope, systems, declared })
    }

    /// The components the script declared, as registered in the world: name and id.
    pub fn components(&self) -> impl Iterator<Item = (&str, mosaic::ComponentId)> + '_ {
        self.declared.iter().map(|d| (d.name.as_str(), d.id))
    }

    /// The systems' names, in the order they run.
    pub fn systems(&self) -> impl Iterator<Item = &str> + '_ {
        self.systems.iter().map(|s| &*s.name)
    }

    /// Runs every system once, in the order declared: for each, the script's function on every
    /// matching row, then the row writes, the bridged writes and the `add` / `remove` asked
    /// for, in row order. Deterministic: rows are visited in query order, which depends only on
    /// the world's history, and the script keeps no state outside the world.
    ///
    /// # Errors
    /// [`ScriptError::Run`] with the line of the failing expression and the entity, for a
    /// runtime error, an unknown field, a value of the wrong type or range, a write to a
    /// read-only field, or too many operations; [`ScriptError::World`] if the world refuses an
    /// `add`, `remove` or query. The failing system writes nothing of that frame; the systems
    /// before it in the frame have run.
    pub fn run(&mut self, world: &mut World) -> Result<(), ScriptError> {
        let Self { engine, ast, scope, systems, file, .. } = self;
        for system in systems.iter_mut() {
            let name = Arc::clone(&system.name);
            let result = system.run(world, |this| {
                let options = CallFnOptions::new().eval_ast(false).rewind_scope(true).bind_this_ptr(this);
                engine.call_fn_with_options::<Dynamic>(options, scope, ast, &*name, ()).map(drop)
            });
            result.map_err(|failure| fail(file, &name, system.fn_place, failure))?;
        }
        Ok(())
    }

    /// Runs every system as [`Script::run`] does with each row's call of the script function
    /// replaced by a Rust body that reads every field of the row object as a Rhai value and
    /// writes every writable one back through the checked conversion `this.x = v` uses: the
    /// binding alone (the walks, the copies between the query rows and the row object, the
    /// conversions, the writes back, bridged ones included), for measuring it.
    ///
    /// # Errors
    /// As [`Script::run`], for the world's errors.
    pub fn run_binding_only(&mut self, world: &mut World) -> Result<(), ScriptError> {
        for system in &mut self.systems {
            let name = Arc::clone(&system.name);
            let place = system.fn_place;
            let touch =
                |this: &mut Dynamic| this.write_lock::<Row>().map_or(Ok(()), |mut row| row.touch_all());
            system.run(world, touch).map_err(|failure| fail(&self.file, &name, place, failure))?;
        }
        Ok(())
    }
}

/// The line of `fn name(` in `source`, if there is one on a line of its own.
fn fn_place(source: &str, name: &str) -> Option<Place> {
    let pattern = format!("fn {name}(");
    source.lines().enumerate().find_map(|(i, line)| {
        let column = line.find(&pattern)?;
        let before = &line[..column];
        before.trim().is_empty().then_some(Place { line: i + 1, column: column + 1 })
    })
}

/// The error of system `system` of script `file`, whose function is at `fn_place`.
fn fail(file: &str, system: &str, fn_place: Option<Place>, failure: Failure) -> ScriptError {
    match failure {
        Failure::Script(entity, error) => {
            let (place, mut message) = unwrap_eval(&error);
            if matches!(*error, EvalAltResult::ErrorTooManyOperations(..)) {
                message = format!(
                    "{message}: one call (one row) may take at most {MAX_OPERATIONS_PER_ROW} (a loop that does not end?)"
                );
            }
            if place.is_none() {
                message = format!("{message} (in `fn {system}()`; Rhai gives no line for this error)");
            }
            let place = place.or(fn_place);
            ScriptError::Run {
                file: file.into(),
                place,
                system: system.into(),
                entity: entity.index(),
                message,
            }
        }
        Failure::ReplacedThis(entity) => ScriptError::Run {
            file: file.into(),
            place: fn_place,
            system: system.into(),
            entity: entity.index(),
            message: "the function assigned to `this`: a system may change its row's fields, not the row"
                .into(),
        },
        Failure::World(source) => {
            ScriptError::World { file: file.into(), system: system.into(), source: Box::new(source) }
        }
    }
}

/// Registers `component(name, #{ field: "type", .. })` and `system(name, [components])`, which
/// record into `decls` while it is open.
fn register_declarations(engine: &mut Engine, decls: &Arc<Mutex<Declarations>>) {
    let d = Arc::clone(decls);
    engine.register_fn(
        "component",
        move |ctx: NativeCallContext, name: &str, fields: Map| -> Result<(), Box<EvalAltResult>> {
            let mut decls = d.lock().unwrap_or_else(|e| e.into_inner());
            if !decls.open {
                return Err(script_error("`component` declares at the script's top level only".into()));
            }
            if decls.components.len() >= MAX_COMPONENTS {
                return Err(script_error(format!("more than {MAX_COMPONENTS} components")));
            }
            let mut list = Vec::new();
            for (field, ty) in &fields {
                let ty = ty.clone().into_string().map_err(|found| {
                    script_error(format!(
                        "component `{name}`: field `{field}`: the type is a string such as \"f32\", not {found}"
                    ))
                })?;
                list.push((field.to_string(), ty));
            }
            let place = Place::of(ctx.call_position());
            decls.components.push(ComponentDecl { name: name.into(), fields: list, place });
            Ok(())
        },
    );
    let d = Arc::clone(decls);
    engine.register_fn(
        "system",
        move |ctx: NativeCallContext, name: &str, terms: rhai::Array| -> Result<(), Box<EvalAltResult>> {
            let mut decls = d.lock().unwrap_or_else(|e| e.into_inner());
            if !decls.open {
                return Err(script_error("`system` declares at the script's top level only".into()));
            }
            if decls.systems.len() >= MAX_SYSTEMS {
                return Err(script_error(format!("more than {MAX_SYSTEMS} systems")));
            }
            if decls.systems.iter().any(|s| s.name == name) {
                return Err(script_error(format!("system `{name}` is declared twice")));
            }
            let mut list = Vec::new();
            for term in terms {
                let term = term.into_string().map_err(|found| {
                    script_error(format!("system `{name}`: components are named by strings, not {found}"))
                })?;
                list.push(term);
            }
            let place = Place::of(ctx.call_position());
            decls.systems.push(SystemDecl { name: name.into(), terms: list, place });
            Ok(())
        },
    );
}

/// Registers component `c` in `world` through Mosaic's schema checks.
fn register_component(c: &ComponentDecl, world: &mut World) -> Result<Declared, String> {
    let mut fields = Vec::new();
    for (field, ty) in &c.fields {
        let scalar = Scalar::from_name(ty).filter(|&s| scriptable(s)).ok_or_else(|| {
            format!(
                "component `{}`: field `{field}`: unknown type \"{ty}\" (one of bool, u8, u16, u32, i8, i16, i32, i64, f32)",
                c.name
            )
        })?;
        fields.push(Field::new(field.as_str(), scalar));
    }
    let schema = Schema::new(fields).map_err(|e| format!("component `{}`: {e}", c.name))?;
    let id = world
        .register_dynamic(ComponentDescriptor::new(c.name.as_str(), schema))
        .map_err(|e| e.to_string())?;
    let schema = Arc::clone(world.dynamic_schema(id).map_err(|e| e.to_string())?);
    Ok(Declared { name: c.name.clone(), id, schema })
}

//! Systems: plain functions whose parameters say what they access, and exclusive systems.

use std::marker::PhantomData;
use std::sync::Arc;

use super::access::Access;
use super::param::{ParamConflict, ParamError, SystemParam, SystemParamItem};
use crate::storage::{ReaderTick, Tick};
use crate::world::{ApplyReport, World};

/// A unit of work the [`Schedule`](super::Schedule) runs once per frame.
///
/// Made from a function with [`IntoSystem`]; user code rarely implements it.
pub trait System: Send + Sync + 'static {
    /// The system's default name: the function's name without its module path.
    fn name(&self) -> &'static str;

    /// What the system reads and writes.
    fn access(&self) -> &Access;

    /// Creates parameter state. Called once before the first run.
    fn initialize(&mut self, world: &mut World);

    /// Checks every parameter can be fetched now.
    ///
    /// # Errors
    /// As [`SystemParam::validate`](super::SystemParam::validate): a missing resource, or a
    /// parameter whose condition does not hold this frame.
    fn validate(&self, world: &World) -> Result<(), ParamError>;

    /// Runs the system through a shared world.
    ///
    /// # Safety
    /// - the system is initialized and `validate` found no missing resource (an unmet
    ///   [`Single`](super::Single) or [`Populated`](super::Populated) is checked again here, against
    ///   the run's own window, and the call skipped);
    /// - while it runs, no other code accesses what [`System::access`] declares in a conflicting
    ///   way, and the world is not mutated structurally;
    /// - the system is not exclusive.
    unsafe fn run_shared(&mut self, world: &World);

    /// Runs the system with exclusive access (any system; exclusive ones need it).
    fn run(&mut self, world: &mut World);

    /// Applies deferred work (commands) to the world and reports what it did.
    fn apply_deferred(&mut self, world: &mut World) -> ApplyReport;

    /// The tick of the system's last run (what its change filters compare with next time), or
    /// `None` before its first run.
    fn last_run(&self) -> Option<Tick> {
        None
    }

    /// Clamps the ticks the system keeps outside the world to the clock's maximum age, so they
    /// stay comparable across the clock's wraparound; the schedule calls it when the world's
    /// periodic check ran. The systems of this crate keep their last run in the world (which
    /// clamps it, and rollback restores it), so theirs does nothing.
    fn check_change_tick(&mut self, _world: &World) {}
}

/// Converts a function into a [`System`]. `Marker` tells the two kinds apart; callers never name it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system",
    label = "not a system function",
    note = "a system is a function (or closure) whose every parameter is a system parameter \
            (`Query<..>`, `Res<T>`, `ResMut<T>`, `Local<T>`, `Commands`, events, \
            `RemovedComponents<T>`; at most 16), or a function taking only `&mut World`: check \
            each parameter type in the function's signature above"
)]
pub trait IntoSystem<Marker> {
    /// The system type.
    type System: System;

    /// Builds the system and computes its access set.
    ///
    /// # Errors
    /// The two parameter accesses that alias (e.g. `Query<&mut A>` and `Query<&A>`).
    fn into_system(self) -> Result<Self::System, ParamConflict>;
}

/// A function whose parameters are all [`SystemParam`]s. Implemented for functions of up to 16
/// parameters.
pub trait SystemParamFunction<Marker>: Send + Sync + 'static {
    /// The parameters, as a tuple.
    type Param: SystemParam;

    /// Calls the function.
    fn call(&mut self, params: SystemParamItem<'_, '_, Self::Param>);
}

macro_rules! impl_system_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case)]
        impl<Func, $($param: SystemParam),*> SystemParamFunction<fn($($param,)*)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut($($param),*) + FnMut($(SystemParamItem<$param>),*),
        {
            type Param = ($($param,)*);

            #[inline]
            fn call(&mut self, params: SystemParamItem<'_, '_, ($($param,)*)>) {
                // Calling through a helper makes the compiler pick the `FnMut(Item...)` bound.
                #[allow(clippy::too_many_arguments)]
                fn call_inner<$($param),*>(mut f: impl FnMut($($param),*), $($param: $param),*) {
                    f($($param),*)
                }
                let ($($param,)*) = params;
                call_inner(self, $($param),*)
            }
        }
    };
}

crate::macros::all_tuples!(impl_system_function);

/// What [`SystemConfig::before`](super::SystemConfig::before) and `after` accept: the name of a
/// system or set (`&str`, `String`), or a system function itself, which names the system it
/// became (its default name: the function's name without its module path), as bevy's typed
/// system labels do: `.after(movement)`. `Marker` tells the kinds apart; callers never name it.
pub trait IntoLabel<Marker> {
    /// The label as a name.
    fn into_label(self) -> String;
}

/// Marks labels given as names.
#[doc(hidden)]
pub struct NameLabel;

/// Marks labels given as system functions.
#[doc(hidden)]
pub struct SystemLabel;

impl IntoLabel<NameLabel> for &str {
    fn into_label(self) -> String {
        self.to_owned()
    }
}

impl IntoLabel<NameLabel> for String {
    fn into_label(self) -> String {
        self
    }
}

impl IntoLabel<NameLabel> for &String {
    fn into_label(self) -> String {
        self.clone()
    }
}

impl<M, F: IntoSystem<M>> IntoLabel<(SystemLabel, M)> for F {
    fn into_label(self) -> String {
        short_name(std::any::type_name::<F>()).to_owned()
    }
}

/// The last segment of a type name's path, keeping generics: `app::physics::movement` -> `movement`.
pub(crate) fn short_name(full: &'static str) -> &'static str {
    let head = full.split('<').next().unwrap_or(full);
    match head.rfind("::") {
        Some(at) => &full[at + 2..],
        None => full,
    }
}

/// A [`System`] made from a [`SystemParamFunction`].
pub struct FunctionSystem<Marker, F: SystemParamFunction<Marker>> {
    func: F,
    state: Option<<F::Param as SystemParam>::State>,
    access: Access,
    /// The tick of the previous run, kept by the world the system was initialized in (so a
    /// rollback restores it); none before the first run, which sees every change kept.
    last_run: Option<Arc<ReaderTick>>,
    _marker: PhantomData<fn() -> Marker>,
}

/// Marks systems made from parameter functions.
#[doc(hidden)]
pub struct FunctionMarker;

impl<Marker: 'static, F: SystemParamFunction<Marker>> IntoSystem<(FunctionMarker, Marker)> for F {
    type System = FunctionSystem<Marker, F>;

    fn into_system(self) -> Result<Self::System, ParamConflict> {
        let mut access = Access::default();
        F::Param::add_access(&mut access)?;
        Ok(FunctionSystem { func: self, state: None, access, last_run: None, _marker: PhantomData })
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> System for FunctionSystem<Marker, F> {
    fn name(&self) -> &'static str {
        short_name(std::any::type_name::<F>())
    }

    fn access(&self) -> &Access {
        &self.access
    }

    fn initialize(&mut self, world: &mut World) {
        if self.state.is_none() {
            self.state = Some(F::Param::init_state(world));
            self.last_run = Some(world.register_reader_tick(None));
        }
    }

    fn validate(&self, world: &World) -> Result<(), ParamError> {
        let state = self.state.as_ref().expect("system initialized before validation");
        let clock = world.components().clock();
        let last_run = self.last_run.as_ref().and_then(|cell| cell.get()).unwrap_or_else(|| clock.oldest());
        F::Param::validate(state, world, clock.ticks(last_run, clock.now()))
    }

    unsafe fn run_shared(&mut self, world: &World) {
        let state = self.state.as_mut().expect("system initialized before its run");
        let cell = self.last_run.as_ref().expect("system initialized before its run");
        let clock = world.components().clock();
        let last_run = cell.get().unwrap_or_else(|| clock.oldest());
        let this_run = clock.advance();
        let ticks = clock.ticks(last_run, this_run);
        // Checked again against the run's own window: a system earlier in the same batch may have
        // changed what a `Single` or `Populated` with a change filter matches. Skipped if unmet;
        // the previous run stays the system's last.
        if F::Param::CHECKED_AT_RUN && F::Param::validate(state, world, ticks).is_err() {
            return;
        }
        // SAFETY: forwarded from the caller: initialized, validated, and no conflicting access.
        let params = unsafe { F::Param::get_param(state, world, ticks) };
        self.func.call(params);
        cell.set(Some(this_run));
    }

    fn run(&mut self, world: &mut World) {
        self.initialize(world);
        // An unmet `Single` or `Populated` is checked, and the call skipped, by `run_shared`.
        if let Err(ParamError::MissingResource(missing)) = self.validate(world) {
            panic!("system `{}` cannot run: resource `{missing}` is missing", self.name())
        }
        // SAFETY: initialized and validated above; `&mut World` excludes every other access.
        unsafe { self.run_shared(world) }
    }

    fn apply_deferred(&mut self, world: &mut World) -> ApplyReport {
        match &mut self.state {
            Some(state) => F::Param::apply(state, world),
            None => ApplyReport::default(),
        }
    }

    fn last_run(&self) -> Option<Tick> {
        self.last_run.as_ref().and_then(|cell| cell.get())
    }
}

/// Marks exclusive systems (`FnMut(&mut World)`).
#[doc(hidden)]
pub struct ExclusiveMarker;

/// A system taking `&mut World`: it runs alone, between batches.
pub struct ExclusiveSystem<F> {
    func: F,
    access: Access,
    /// The tick its previous run's writes were stamped with, kept by the world (see
    /// [`FunctionSystem`]); none before the first run.
    last_run: Option<Arc<ReaderTick>>,
}

impl<F: FnMut(&mut World) + Send + Sync + 'static> IntoSystem<ExclusiveMarker> for F {
    type System = ExclusiveSystem<F>;

    fn into_system(self) -> Result<Self::System, ParamConflict> {
        Ok(ExclusiveSystem { func: self, access: Access::exclusive(), last_run: None })
    }
}

impl<F: FnMut(&mut World) + Send + Sync + 'static> System for ExclusiveSystem<F> {
    fn name(&self) -> &'static str {
        short_name(std::any::type_name::<F>())
    }
    fn access(&self) -> &Access {
        &self.access
    }
    fn initialize(&mut self, world: &mut World) {
        if self.last_run.is_none() {
            self.last_run = Some(world.register_reader_tick(None));
        }
    }
    fn validate(&self, _: &World) -> Result<(), ParamError> {
        Ok(())
    }
    unsafe fn run_shared(&mut self, _: &World) {
        unreachable!("exclusive systems run through `System::run`")
    }
    /// World-level change readers inside the system see what changed since its previous run
    /// (the world's window is swapped for the system's during the run, as bevy's exclusive
    /// systems do); its writes are stamped with the present tick, which the clock then leaves.
    fn run(&mut self, world: &mut World) {
        self.initialize(world);
        let cell = Arc::clone(self.last_run.as_ref().expect("initialized above"));
        let clock = Arc::clone(world.components().clock());
        let outer = clock.last_clear();
        clock.set_last_clear(cell.get().unwrap_or_else(|| clock.oldest()));
        // Restore the world's window even if the system panics.
        struct Restore<'a>(&'a crate::storage::Clock, Tick);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.set_last_clear(self.1);
            }
        }
        let restore = Restore(&clock, outer);
        (self.func)(world);
        drop(restore);
        cell.set(Some(clock.advance()));
    }
    fn apply_deferred(&mut self, _: &mut World) -> ApplyReport {
        ApplyReport::default()
    }
    fn last_run(&self) -> Option<Tick> {
        self.last_run.as_ref().and_then(|cell| cell.get())
    }
}

/// A type name without module paths or elided lifetimes, for messages:
/// `mosaic::query::Query<'_, &mut game::Position>` -> `Query<&mut Position>`.
pub(crate) fn pretty_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' || c == '\'' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
        } else {
            if word != "'_" {
                out.push_str(&word);
            } else if chars.peek() == Some(&' ') {
                chars.next();
                word.clear();
                continue;
            }
            word.clear();
            if !(c == ',' && out.ends_with('<')) {
                out.push(c);
            }
        }
    }
    out.push_str(&word);
    out
}

#[cfg(test)]
mod tests {
    use super::{pretty_type_name, short_name};

    #[test]
    fn pretty_names() {
        assert_eq!(pretty_type_name("mosaic::query::core::Query<'_, &mut game::A>"), "Query<&mut A>");
        assert_eq!(pretty_type_name("mosaic::Res<'_, u32>"), "Res<u32>");
        assert_eq!(pretty_type_name("(a::B, c::D<e::F>)"), "(B, D<F>)");
    }

    #[test]
    fn short_names() {
        assert_eq!(short_name("app::physics::movement"), "movement");
        assert_eq!(short_name("movement"), "movement");
        assert_eq!(short_name("a::b<c::D>"), "b<c::D>");
    }
}

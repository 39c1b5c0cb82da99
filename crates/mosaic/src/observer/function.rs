//! Observer functions: an [`On`] first, system parameters after; and the runner the world keeps
//! for each.

use std::marker::PhantomData;
use std::sync::Arc;

use super::{Event, On};
use crate::component::Bundle;
use crate::schedule::{SystemParam, SystemParamItem};
use crate::storage::ReaderTick;
use crate::world::{ObserverRunner, TriggerContext, World};

/// A function that can observe events `E` (of components `B` for lifecycle events): its first
/// parameter is [`On<E, B>`](On), the others (up to 15) are system parameters. Implemented for
/// every such function and closure; `Marker` tells the arities apart and callers never name it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an observer",
    label = "not an observer function",
    note = "an observer is a function (or closure) whose first parameter is `On<E>` (or `On<E, B>` \
            for lifecycle events such as `On<Add, Health>`) and whose other parameters are system \
            parameters (`Query<..>`, `Res<T>`, `ResMut<T>`, `Commands`, ...)"
)]
pub trait ObserverFunction<E: Event, B: Bundle, Marker>: Send + Sync + 'static {
    /// The system parameters after the [`On`], as a tuple.
    type Param: SystemParam;

    /// Calls the function.
    fn call(&mut self, on: On<'_, E, B>, params: SystemParamItem<'_, '_, Self::Param>);

    /// Whether the observer runs for this event: evaluated before its parameters are fetched,
    /// each time it would run. `true` unless run conditions were added ([`ObserverFunction::run_if`]).
    #[inline]
    fn should_run(&mut self, world: &World) -> bool {
        let _ = world;
        true
    }

    /// Runs the observer only when `condition` holds when the event reaches it (bevy's
    /// `run_if` on observers). Conditions are the schedule's: any `Fn(&World) -> bool`, such as
    /// [`resource_changed`](crate::schedule::resource_changed). Add more with
    /// [`Conditional::run_if`]: the observer runs when all hold, and every condition is
    /// evaluated each time, in the order added, even after one returned `false` (no
    /// short-circuit, as in bevy), so a condition that keeps state ("changed since last time")
    /// sees every event.
    ///
    /// # Examples
    /// ```
    /// use mosaic::observer::ObserverFunction;
    /// use mosaic::{Event, On, ResMut, World};
    ///
    /// #[derive(Event)]
    /// struct Ping;
    /// struct Enabled(bool);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Enabled(false));
    /// world.insert_resource(0u32);
    /// world.add_observer(
    ///     (|_: On<Ping>, mut pings: ResMut<u32>| *pings += 1)
    ///         .run_if(|world: &World| world.resource::<Enabled>().0),
    /// );
    /// world.trigger(Ping);
    /// world.resource_mut::<Enabled>().0 = true;
    /// world.trigger(Ping);
    /// assert_eq!(*world.resource::<u32>(), 1);
    /// ```
    fn run_if(self, condition: impl Fn(&World) -> bool + Send + Sync + 'static) -> Conditional<Self>
    where
        Self: Sized,
    {
        Conditional { func: self, conditions: vec![Box::new(condition)] }
    }
}

/// A run condition of an observer, as the schedule's are.
type Condition = Box<dyn Fn(&World) -> bool + Send + Sync>;

/// An observer function with run conditions: made by [`ObserverFunction::run_if`], itself an
/// observer function (pass it to [`World::add_observer`], [`World::observe`] ...).
pub struct Conditional<F> {
    func: F,
    conditions: Vec<Condition>,
}

impl<F> Conditional<F> {
    /// Adds another condition: the observer runs when every condition holds (all evaluated,
    /// in the order added; see [`ObserverFunction::run_if`]).
    pub fn run_if(mut self, condition: impl Fn(&World) -> bool + Send + Sync + 'static) -> Self {
        self.conditions.push(Box::new(condition));
        self
    }
}

/// Tells [`Conditional`]'s implementation of [`ObserverFunction`] apart from the function's own.
#[doc(hidden)]
pub struct ConditionalMarker<M>(PhantomData<M>);

impl<E: Event, B: Bundle, M: 'static, F: ObserverFunction<E, B, M>>
    ObserverFunction<E, B, ConditionalMarker<M>> for Conditional<F>
{
    type Param = F::Param;

    #[inline]
    fn call(&mut self, on: On<'_, E, B>, params: SystemParamItem<'_, '_, Self::Param>) {
        self.func.call(on, params);
    }

    fn should_run(&mut self, world: &World) -> bool {
        // Every condition, no short-circuit; then the function's own.
        let held = self.conditions.iter().fold(true, |all, condition| condition(world) & all);
        self.func.should_run(world) & held
    }
}

macro_rules! impl_observer_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case)]
        impl<Ev: Event, Bu: Bundle, Func, $($param: SystemParam),*> ObserverFunction<Ev, Bu, fn(On<Ev, Bu>, $($param,)*)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut(On<Ev, Bu>, $($param),*) + FnMut(On<Ev, Bu>, $(SystemParamItem<$param>),*),
        {
            type Param = ($($param,)*);

            #[inline]
            fn call(&mut self, on: On<'_, Ev, Bu>, params: SystemParamItem<'_, '_, ($($param,)*)>) {
                // Calling through a helper makes the compiler pick the `FnMut(On, Item...)` bound.
                #[allow(clippy::too_many_arguments)]
                fn call_inner<Ev: Event, Bu: Bundle, $($param),*>(
                    mut f: impl FnMut(On<Ev, Bu>, $($param),*),
                    on: On<Ev, Bu>,
                    $($param: $param),*
                ) {
                    f(on, $($param),*)
                }
                let ($($param,)*) = params;
                call_inner(self, on, $($param),*)
            }
        }
    };
}

impl_observer_function!();
impl_observer_function!(A);
impl_observer_function!(A, B);
impl_observer_function!(A, B, C);
impl_observer_function!(A, B, C, D);
impl_observer_function!(A, B, C, D, E);
impl_observer_function!(A, B, C, D, E, F);
impl_observer_function!(A, B, C, D, E, F, G);
impl_observer_function!(A, B, C, D, E, F, G, H);
impl_observer_function!(A, B, C, D, E, F, G, H, I);
impl_observer_function!(A, B, C, D, E, F, G, H, I, J);
impl_observer_function!(A, B, C, D, E, F, G, H, I, J, K);
impl_observer_function!(A, B, C, D, E, F, G, H, I, J, K, L);
impl_observer_function!(A, B, C, D, E, F, G, H, I, J, K, L, M);
impl_observer_function!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
impl_observer_function!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);

/// The type parameters an [`ObserverSystem`] carries without holding values of them.
type Types<E, B, M> = fn() -> (E, B, M);

/// The runner of one observer function: its parameters' state and its last run's tick, kept by
/// the world that registered it.
pub(super) struct ObserverSystem<E: Event, B: Bundle, M, F: ObserverFunction<E, B, M>> {
    func: F,
    state: <F::Param as SystemParam>::State,
    /// The tick of the previous run (what its change filters compare with).
    last_run: Arc<ReaderTick>,
    _marker: PhantomData<Types<E, B, M>>,
}

impl<E: Event, B: Bundle, M: 'static, F: ObserverFunction<E, B, M>> ObserverSystem<E, B, M, F> {
    /// Initializes `func`'s parameters on `world`.
    pub(super) fn new(func: F, world: &mut World) -> Self {
        let state = F::Param::init_state(world);
        let last_run = world.register_reader_tick(None);
        Self { func, state, last_run, _marker: PhantomData }
    }
}

impl<E: Event, B: Bundle, M: 'static, F: ObserverFunction<E, B, M>> ObserverRunner
    for ObserverSystem<E, B, M, F>
{
    fn run(&mut self, world_mut: &mut World, trigger: &mut TriggerContext<'_>) {
        self.run_shared(world_mut, trigger);
        F::Param::defer(&mut self.state, world_mut.deferred_buffer());
    }
}

impl<E: Event, B: Bundle, M: 'static, F: ObserverFunction<E, B, M>> ObserverSystem<E, B, M, F> {
    /// The run proper, with the world shared; the parameters are gone when it returns.
    #[inline]
    fn run_shared(&mut self, world: &World, trigger: &mut TriggerContext<'_>) {
        let clock = world.components().clock();
        let last_run = self.last_run.get().unwrap_or_else(|| clock.oldest());
        let this_run = trigger.this_run;
        let ticks = clock.ticks(last_run, this_run);
        if !self.func.should_run(world) {
            return;
        }
        let Some(event) = trigger.event.downcast_mut::<E>() else {
            unreachable!("the registry hands each observer its own event type")
        };
        let on = On {
            event,
            target: trigger.target,
            original: trigger.original,
            component: trigger.component,
            observer: trigger.observer.expect("the registry names the observer it runs"),
            propagate: &mut trigger.propagate,
            _bundle: PhantomData,
        };
        // SAFETY: `state` was made by `init_state` on this world (the world owns this runner, made
        // in `new` with it). The world is borrowed for the whole call by the registry, which
        // holds `&mut World` and lends it shared to this one observer: no system, query or other
        // observer runs meanwhile, so nothing accesses what the parameters declared, in any way,
        // while they are alive.
        let params = unsafe { F::Param::try_get_param(&mut self.state, world, ticks) };
        // An observer whose parameters cannot be fetched now (a missing resource, an unmet
        // `Single`) is skipped for this event, as bevy skips it.
        let Some(params) = params else { return };
        self.func.call(on, params);
        self.last_run.set(Some(this_run));
    }
}

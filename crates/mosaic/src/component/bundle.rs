//! Bundles: several components inserted together.

use super::{Component, ComponentId, Components};
use crate::entity::Entity;

/// Receives the components of a bundle one by one, in the bundle's order.
pub trait BundleSink {
    /// Takes one component of the bundle.
    fn put<T: Component>(&mut self, value: T);
}

/// Where a batch of `(entity, bundle)` rows goes (the world implements it for
/// `World::insert_batch`): a single component type takes the typed path, any other bundle the
/// row-by-row one.
pub trait BatchSink {
    /// Rows of one component type.
    fn component<T: Component>(&mut self, rows: impl Iterator<Item = (Entity, T)>);
    /// Rows of a bundle of several components (or none).
    fn bundle<B: Bundle>(&mut self, rows: impl Iterator<Item = (Entity, B)>);
}

/// Where a removed bundle's components come from, one by one: one entity's components (the
/// world implements it for `World::remove` and the command buffer's removals).
pub trait BundleSource {
    /// Whether the entity has a `T`.
    fn has<T: Component>(&self) -> bool;
    /// Removes the entity's `T` and returns it, or `None` if it has none.
    fn take<T: Component>(&mut self) -> Option<T>;
}

/// A set of components inserted (and removed) together: any [`Component`], a tuple of up to 16
/// bundles (tuples nest, so `((A, B), C)` is a bundle too; `()` is the empty bundle), or a
/// struct with `#[derive(Bundle)]` whose fields are bundles (bevy's derive; nested bundles
/// flatten).
///
/// A bundle must not hold the same component type twice; spawning, inserting or removing one
/// that does panics, naming the type. The methods are called by the world; implement the trait
/// through the derive.
///
/// # Examples
/// ```
/// use mosaic::{Bundle, Component, World};
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Position(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Velocity(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(u32);
///
/// #[derive(Bundle, Debug, PartialEq)]
/// struct Body {
///     position: Position,
///     velocity: Velocity,
/// }
///
/// let mut world = World::new();
/// let e = world.spawn((Body { position: Position(0.0), velocity: Velocity(1.0) }, Health(3)));
/// assert!(world.contains::<Velocity>(e));
/// let body = world.remove::<Body>(e).unwrap(); // all of it, or nothing
/// assert_eq!(body.velocity, Velocity(1.0));
/// ```
pub trait Bundle: Send + Sync + 'static {
    /// Registers the bundle's component types and reports their ids, in bundle order.
    fn register_ids(components: &mut Components, out: &mut impl FnMut(ComponentId));

    /// Hands each component to `sink`, in the same order as [`Bundle::register_ids`].
    fn put_each<S: BundleSink>(self, sink: &mut S);

    /// Names of the component types, in bundle order, for messages.
    fn type_names(out: &mut impl FnMut(&'static str));

    /// Number of components in the bundle, nested bundles flattened (`((A, B), C)`: 3).
    const COUNT: usize;

    /// The name of the first component type, in bundle order, that `source` lacks; `None` when
    /// it has every one.
    fn missing<S: BundleSource>(source: &S) -> Option<&'static str>;

    /// Takes every component out of `source`, in bundle order; `None` as soon as one is missing
    /// (those taken before it are dropped: callers check [`Bundle::missing`] first).
    fn take_each<S: BundleSource>(source: &mut S) -> Option<Self>
    where
        Self: Sized;

    /// Removes (and drops) each component `source` has; returns how many it had.
    fn remove_each<S: BundleSource>(source: &mut S) -> usize;

    /// Hands a batch of rows of this bundle to `sink`: [`BatchSink::component`] for a component
    /// type, [`BatchSink::bundle`] for anything else.
    fn insert_batch<S: BatchSink>(sink: &mut S, rows: impl Iterator<Item = (Entity, Self)>)
    where
        Self: Sized;
}

impl<C: Component> Bundle for C {
    #[inline]
    fn register_ids(components: &mut Components, out: &mut impl FnMut(ComponentId)) {
        out(components.register::<C>());
    }

    #[inline(always)]
    fn put_each<S: BundleSink>(self, sink: &mut S) {
        sink.put(self);
    }

    fn type_names(out: &mut impl FnMut(&'static str)) {
        out(std::any::type_name::<C>());
    }

    const COUNT: usize = 1;

    #[inline]
    fn missing<S: BundleSource>(source: &S) -> Option<&'static str> {
        (!source.has::<C>()).then(std::any::type_name::<C>)
    }

    #[inline]
    fn take_each<S: BundleSource>(source: &mut S) -> Option<Self> {
        source.take::<C>()
    }

    #[inline]
    fn remove_each<S: BundleSource>(source: &mut S) -> usize {
        usize::from(source.take::<C>().is_some())
    }

    #[inline]
    fn insert_batch<S: BatchSink>(sink: &mut S, rows: impl Iterator<Item = (Entity, Self)>) {
        sink.component(rows);
    }
}

macro_rules! tuple_bundle {
    ($($name:ident),*) => {
        impl<$($name: Bundle),*> Bundle for ($($name,)*) {
            #[inline]
            #[allow(unused_variables)]
            fn register_ids(components: &mut Components, out: &mut impl FnMut(ComponentId)) {
                $($name::register_ids(components, out);)*
            }

            #[inline(always)]
            #[allow(non_snake_case, unused_variables)]
            fn put_each<S: BundleSink>(self, sink: &mut S) {
                let ($($name,)*) = self;
                $($name.put_each(sink);)*
            }

            #[allow(unused_variables)]
            fn type_names(out: &mut impl FnMut(&'static str)) {
                $($name::type_names(out);)*
            }

            const COUNT: usize = 0 $(+ $name::COUNT)*;

            #[inline]
            #[allow(unused_variables)]
            fn missing<S: BundleSource>(source: &S) -> Option<&'static str> {
                $(if let Some(name) = $name::missing(source) {
                    return Some(name);
                })*
                None
            }

            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            fn take_each<S: BundleSource>(source: &mut S) -> Option<Self> {
                Some(($($name::take_each(source)?,)*))
            }

            #[inline]
            #[allow(unused_variables)]
            fn remove_each<S: BundleSource>(source: &mut S) -> usize {
                0 $(+ $name::remove_each(source))*
            }

            #[inline]
            fn insert_batch<S: BatchSink>(sink: &mut S, rows: impl Iterator<Item = (Entity, Self)>) {
                sink.bundle(rows);
            }
        }
    };
}

crate::macros::all_tuples!(tuple_bundle);

/// Receives the components of a [`TemplateBundle`] one by one, in bundle order, each with its
/// `Clone` bound (a [`Template`](crate::Template) keeps them to clone into every copy).
pub trait CloneSink {
    /// Takes one component of the bundle.
    fn put<T: Component + Clone>(&mut self, value: T);
}

/// A bundle whose every component is `Clone`, so a [`Template`](crate::Template) can be built
/// from it ([`Template::from_bundle`](crate::Template::from_bundle),
/// [`Template::with_bundle`](crate::Template::with_bundle)) and take it apart into typed
/// entries: any `Clone` component, a tuple of up to 16 template bundles, or a
/// `#[derive(Bundle)]` struct whose fields all are (the derive implements this trait with that
/// condition, so nothing more is written).
///
/// # Examples
/// ```
/// use mosaic::{Bundle, Component, Template, World};
///
/// #[derive(Component, Clone, Debug, PartialEq)]
/// struct Hull(u32);
/// #[derive(Component, Clone, Debug, PartialEq)]
/// struct Engine(f32);
///
/// #[derive(Bundle, Clone)]
/// struct Ship {
///     hull: Hull,
///     engine: Engine,
/// }
///
/// let template = Template::from_bundle(Ship { hull: Hull(100), engine: Engine(2.5) });
/// assert_eq!(template.get::<Engine>(), Some(&Engine(2.5)));
/// let mut world = World::new();
/// let ship = world.spawn_template(&template);
/// assert_eq!(world.get::<Hull>(ship), Ok(&Hull(100)));
/// ```
pub trait TemplateBundle: Bundle {
    /// Hands each component to `sink`, in the same order as [`Bundle::put_each`].
    fn put_each_clone<S: CloneSink>(self, sink: &mut S);
}

impl<C: Component + Clone> TemplateBundle for C {
    #[inline]
    fn put_each_clone<S: CloneSink>(self, sink: &mut S) {
        sink.put(self);
    }
}

macro_rules! tuple_template_bundle {
    ($($name:ident),*) => {
        impl<$($name: TemplateBundle),*> TemplateBundle for ($($name,)*) {
            #[inline]
            #[allow(non_snake_case, unused_variables)]
            fn put_each_clone<S: CloneSink>(self, sink: &mut S) {
                let ($($name,)*) = self;
                $($name.put_each_clone(sink);)*
            }
        }
    };
}

crate::macros::all_tuples!(tuple_template_bundle);

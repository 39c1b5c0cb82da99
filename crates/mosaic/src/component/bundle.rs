//! Bundles: several components inserted together.

use super::{Component, ComponentId, Components};

/// Receives the components of a bundle one by one, in the bundle's order.
pub trait BundleSink {
    /// Takes one component of the bundle.
    fn put<T: Component>(&mut self, value: T);
}

/// A set of components inserted together: any [`Component`], or a tuple of up to 16 bundles
/// (tuples nest, so `((A, B), C)` is a bundle too; `()` is the empty bundle).
///
/// A bundle must not hold the same component type twice; spawning or inserting one that does
/// panics, naming the type.
///
/// # Examples
/// ```
/// # use mosaic::{Component, World};
/// # #[derive(Component)] struct Position(f32);
/// # #[derive(Component)] struct Velocity(f32);
/// let mut world = World::new();
/// let e = world.spawn((Position(0.0), Velocity(1.0)));
/// assert!(world.contains::<Velocity>(e));
/// ```
pub trait Bundle: Send + Sync + 'static {
    /// Registers the bundle's component types and reports their ids, in bundle order.
    fn register_ids(components: &mut Components, out: &mut impl FnMut(ComponentId));

    /// Hands each component to `sink`, in the same order as [`Bundle::register_ids`].
    fn put_each<S: BundleSink>(self, sink: &mut S);

    /// Names of the component types, in bundle order, for messages.
    fn type_names(out: &mut impl FnMut(&'static str));
}

impl<C: Component> Bundle for C {
    #[inline]
    fn register_ids(components: &mut Components, out: &mut impl FnMut(ComponentId)) {
        out(components.register::<C>());
    }

    #[inline]
    fn put_each<S: BundleSink>(self, sink: &mut S) {
        sink.put(self);
    }

    fn type_names(out: &mut impl FnMut(&'static str)) {
        out(std::any::type_name::<C>());
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

            #[inline]
            #[allow(non_snake_case, unused_variables)]
            fn put_each<S: BundleSink>(self, sink: &mut S) {
                let ($($name,)*) = self;
                $($name.put_each(sink);)*
            }

            #[allow(unused_variables)]
            fn type_names(out: &mut impl FnMut(&'static str)) {
                $($name::type_names(out);)*
            }
        }
    };
}

crate::macros::all_tuples!(tuple_bundle);

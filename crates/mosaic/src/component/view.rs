//! Layout-agnostic access to component views.

use super::Component;

/// A view of one component value that can be copied out whole: `&T`, `&mut T`, or a generated
/// struct-of-arrays view (`TRef`, `TMut`). Code written against `read`/`write` compiles and
/// behaves the same whichever storage the component uses.
///
/// # Examples
/// ```
/// use mosaic::{Component, View, ViewMut, World};
///
/// #[derive(Component, Clone, Debug, PartialEq)]
/// #[component(storage = "soa")] // delete this line and the code below is unchanged
/// struct Position { x: f32, y: f32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Position { x: 1.0, y: 2.0 });
/// world.query::<&mut Position>().for_each(|mut view| {
///     let mut p = view.read();
///     p.x += 1.0;
///     view.write(p);
/// });
/// assert_eq!(world.get::<Position>(e).unwrap().read(), Position { x: 2.0, y: 2.0 });
/// ```
pub trait View {
    /// The component type.
    type Value;
    /// Copies the value out.
    fn read(&self) -> Self::Value;
}

/// A view that can also overwrite the value whole: `&mut T`, or a generated `TMut`.
pub trait ViewMut: View {
    /// Overwrites the value (every field, for struct-of-arrays storage).
    fn write(&mut self, value: Self::Value);
}

impl<T: Component + Clone> View for &T {
    type Value = T;
    fn read(&self) -> T {
        (**self).clone()
    }
}

impl<T: Component + Clone> View for &mut T {
    type Value = T;
    fn read(&self) -> T {
        (**self).clone()
    }
}

impl<T: Component + Clone> ViewMut for &mut T {
    fn write(&mut self, value: T) {
        **self = value;
    }
}

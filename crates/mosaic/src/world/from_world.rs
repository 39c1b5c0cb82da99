//! Values made from the world: the start of a system's `Local<T>` and of `init_resource`.

use super::World;

/// A value that can be made from the world, for [`Local<T>`](crate::Local) (its first value) and
/// [`World::init_resource`]. Every `Default` type is one (`T::default()`, the world unread); a
/// type that needs the world at its start (a handle to a resource, a count of entities)
/// implements it instead of `Default`. Bevy's `FromWorld`.
///
/// # Examples
/// ```
/// use mosaic::{FromWorld, Local, ResMut, World};
///
/// struct Seed(u64);
/// struct Rng(u64);
///
/// impl FromWorld for Rng {
///     fn from_world(world: &mut World) -> Self {
///         Rng(world.resource::<Seed>().0)
///     }
/// }
///
/// fn roll(mut rng: Local<Rng>, mut rolls: ResMut<Vec<u64>>) {
///     rng.0 += 1;
///     rolls.push(rng.0);
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Seed(42));
/// world.insert_resource(Vec::<u64>::new());
/// world.run_system(roll); // the local starts from the seed
/// assert_eq!(world.resource::<Vec<u64>>(), &vec![43]);
/// world.init_resource::<Rng>();
/// assert_eq!(world.resource::<Rng>().0, 42);
/// ```
pub trait FromWorld {
    /// Makes the value, reading (or preparing) what it needs in `world`.
    fn from_world(world: &mut World) -> Self;
}

impl<T: Default> FromWorld for T {
    fn from_world(_: &mut World) -> Self {
        T::default()
    }
}

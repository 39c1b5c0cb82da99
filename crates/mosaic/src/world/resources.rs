//! Resources: typed singletons stored beside the entities, and their change detection.

use super::{CommandBuffer, ResourceError, World};
use crate::storage::Tick;

/// The world's resources: one value per type, in the storage layer's `ResourceMap`.
pub(crate) type Resources = crate::storage::ResourceMap;

/// The error for a missing resource of type `R`.
pub(crate) fn missing<R>() -> ResourceError {
    ResourceError::Missing { resource: std::any::type_name::<R>() }
}

impl World {
    /// Stores resource `value`, returning the previous one of the same type. A new resource counts
    /// as added and changed now; a replaced one as changed now (see
    /// [`World::is_resource_changed`]).
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let now = self.change_tick();
        self.resources.insert(value, now)
    }

    /// Stores `R::from_world(world)` unless a resource of type `R` is present already (then it
    /// is left as it is, its change ticks too). Bevy's `init_resource`; `R` is any `Default`
    /// type, or one implementing [`FromWorld`](super::FromWorld).
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    ///
    /// #[derive(Default)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Score>();
    /// world.resource_mut::<Score>().0 = 5;
    /// world.init_resource::<Score>(); // present: kept
    /// assert_eq!(world.resource::<Score>().0, 5);
    /// ```
    pub fn init_resource<R: super::FromWorld + Send + Sync + 'static>(&mut self) {
        if !self.resources.contains::<R>() {
            let value = R::from_world(self);
            // `from_world` may have inserted one itself: that one is kept, as bevy does.
            if !self.resources.contains::<R>() {
                self.insert_resource(value);
            }
        }
    }

    /// Removes and returns the resource of type `R`, if any.
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) -> Option<R> {
        self.resources.remove()
    }

    /// Whether a resource of type `R` is present.
    pub fn contains_resource<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.contains::<R>()
    }

    /// The resource of type `R`.
    ///
    /// # Panics
    /// If there is none, naming the type; see [`World::get_resource`] for the fallible form.
    #[track_caller]
    pub fn resource<R: Send + Sync + 'static>(&self) -> &R {
        self.resources.get().unwrap_or_else(|| panic!("{}", missing::<R>()))
    }

    /// The resource of type `R`, mutably.
    ///
    /// # Panics
    /// If there is none, naming the type; see [`World::get_resource_mut`] for the fallible
    /// form.
    #[track_caller]
    pub fn resource_mut<R: Send + Sync + 'static>(&mut self) -> &mut R {
        self.get_resource_mut().unwrap_or_else(|| panic!("{}", missing::<R>()))
    }

    /// The resource of type `R`, or `None`.
    pub fn get_resource<R: Send + Sync + 'static>(&self) -> Option<&R> {
        self.resources.get()
    }

    /// The resource of type `R` mutably, or `None`. Counts as a change of the resource (see
    /// [`World::is_resource_changed`]), whether or not the caller writes through it.
    pub fn get_resource_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        let now = self.change_tick();
        self.resources.ticks::<R>()?.set_changed(now);
        self.resources.get_mut()
    }

    /// Takes resource `R` out of the world, calls `f` with the world and the resource, and puts
    /// the resource back: the way to use a resource and the world mutably at once (bevy's
    /// `World::resource_scope`). Returns what `f` returns. O(1) plus `f`.
    ///
    /// While `f` runs the world has no `R`.
    ///
    /// # Panics
    /// If there is no `R` (see [`World::try_resource_scope`]); if `f` inserts an `R` of its own
    /// (the scope's would silently replace it); if `f` panics, and then the resource is put back
    /// before the panic goes on (bevy's), unless `f` inserted an `R` of its own before panicking,
    /// which is kept.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Ship;
    /// struct Spawner { left: u32 }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Spawner { left: 3 });
    /// world.resource_scope(|world, spawner: &mut Spawner| {
    ///     while spawner.left > 0 {
    ///         world.spawn(Ship);
    ///         spawner.left -= 1;
    ///     }
    /// });
    /// assert_eq!((world.len(), world.resource::<Spawner>().left), (3, 0));
    /// ```
    #[track_caller]
    pub fn resource_scope<R: Send + Sync + 'static, U>(
        &mut self,
        f: impl FnOnce(&mut World, &mut R) -> U,
    ) -> U {
        self.try_resource_scope(f).unwrap_or_else(|error| panic!("{error}"))
    }

    /// [`World::resource_scope`], with an error instead of a panic when there is no `R`.
    ///
    /// # Errors
    /// [`ResourceError::Missing`] naming the type if there is none (`f` is not called).
    ///
    /// # Panics
    /// If `f` inserts an `R` of its own.
    #[track_caller]
    pub fn try_resource_scope<R: Send + Sync + 'static, U>(
        &mut self,
        f: impl FnOnce(&mut World, &mut R) -> U,
    ) -> Result<U, ResourceError> {
        let (mut resource, added, _) = self.resources.remove_with_ticks::<R>().ok_or_else(missing::<R>)?;
        // A panic in `f` puts the resource back before it goes on, so a caller that catches it
        // finds the world as `f` left it plus the resource.
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self, &mut resource)));
        let now = self.change_tick();
        let out = match out {
            Ok(out) => out,
            Err(payload) => {
                if !self.resources.contains::<R>() {
                    self.resources.insert_with_ticks(resource, added, now);
                }
                std::panic::resume_unwind(payload);
            }
        };
        assert!(
            self.resources.insert_with_ticks(resource, added, now).is_none(),
            "resource `{}` was inserted during `World::resource_scope`, which holds it; change the \
             scope's value instead",
            std::any::type_name::<R>()
        );
        Ok(out)
    }

    /// The old second fallible form of [`World::resource`]: one name per operation, bevy's
    /// [`World::get_resource`] (`Option`) is kept.
    ///
    /// # Errors
    /// [`ResourceError::Missing`] naming the type if there is none.
    #[deprecated(
        since = "0.2.0",
        note = "use `get_resource` (an `Option`), or `resource` to panic naming the type"
    )]
    pub fn try_resource<R: Send + Sync + 'static>(&self) -> Result<&R, ResourceError> {
        self.resources.get().ok_or_else(missing::<R>)
    }

    /// The old second fallible form of [`World::resource_mut`]: bevy's
    /// [`World::get_resource_mut`] (`Option`) is kept.
    ///
    /// # Errors
    /// [`ResourceError::Missing`] naming the type if there is none.
    #[deprecated(
        since = "0.2.0",
        note = "use `get_resource_mut` (an `Option`), or `resource_mut` to panic naming the type"
    )]
    pub fn try_resource_mut<R: Send + Sync + 'static>(&mut self) -> Result<&mut R, ResourceError> {
        self.get_resource_mut().ok_or_else(missing::<R>)
    }

    /// Whether resource `R` was inserted since the last
    /// [`World::clear_trackers`](crate::World::clear_trackers) (a world-level reader's window;
    /// systems use [`Res::is_added`](crate::Res::is_added) for their own). `false` when there is
    /// none. O(1).
    pub fn is_resource_added<R: Send + Sync + 'static>(&self) -> bool {
        let window = self.change_ticks();
        self.resources.ticks::<R>().is_some_and(|t| window.is_newer(t.added()))
    }

    /// Whether resource `R` was inserted, replaced or handed out mutably
    /// ([`World::resource_mut`], [`ResMut`](crate::ResMut) written through) since the last
    /// [`World::clear_trackers`](crate::World::clear_trackers) (bevy's
    /// `World::is_resource_changed`); systems use [`Res::is_changed`](crate::Res::is_changed),
    /// and run conditions [`resource_changed`](crate::schedule::resource_changed). `false` when
    /// there is none. O(1).
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    ///
    /// struct Difficulty(u8);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Difficulty(1));
    /// assert!(world.is_resource_added::<Difficulty>() && world.is_resource_changed::<Difficulty>());
    /// world.clear_trackers();
    /// assert!(!world.is_resource_changed::<Difficulty>());
    /// world.resource_mut::<Difficulty>().0 = 2;
    /// assert!(world.is_resource_changed::<Difficulty>() && !world.is_resource_added::<Difficulty>());
    /// ```
    pub fn is_resource_changed<R: Send + Sync + 'static>(&self) -> bool {
        let window = self.change_ticks();
        self.resources.ticks::<R>().is_some_and(|t| window.is_newer(t.changed()))
    }

    /// Resource `R`'s change ticks: when it was added, when it last changed. `None` when there is
    /// none. O(1).
    pub fn resource_change_ticks<R: Send + Sync + 'static>(&self) -> Option<(Tick, Tick)> {
        self.resources.ticks::<R>().map(|t| (t.added(), t.changed()))
    }
}

impl CommandBuffer {
    /// Records [`World::insert_resource`]: at apply, `value` is stored as `R`'s resource,
    /// replacing (and dropping) any previous one (bevy's `Commands::insert_resource`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, World};
    ///
    /// struct Gravity(f32);
    ///
    /// let mut world = World::new();
    /// let mut commands = CommandBuffer::new();
    /// commands.insert_resource(Gravity(9.8));
    /// assert!(!world.contains_resource::<Gravity>()); // recorded, not applied
    /// commands.apply(&mut world);
    /// assert_eq!(world.resource::<Gravity>().0, 9.8);
    /// ```
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) {
        self.queue(move |world: &mut World| {
            world.insert_resource(value);
        });
    }

    /// Records [`World::init_resource`]: at apply, `R` is made from the world
    /// ([`FromWorld`](super::FromWorld), so `Default` types too) unless the world has one
    /// already (bevy's `Commands::init_resource`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, World};
    ///
    /// #[derive(Default)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(7));
    /// let mut commands = CommandBuffer::new();
    /// commands.init_resource::<Score>();
    /// commands.apply(&mut world);
    /// assert_eq!(world.resource::<Score>().0, 7, "a present resource is kept");
    /// ```
    pub fn init_resource<R: super::FromWorld + Send + Sync + 'static>(&mut self) {
        self.queue(|world: &mut World| world.init_resource::<R>());
    }

    /// Records [`World::remove_resource`]: at apply, `R`'s resource is removed and dropped, if
    /// there is one (bevy's `Commands::remove_resource`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, World};
    ///
    /// struct Paused;
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Paused);
    /// let mut commands = CommandBuffer::new();
    /// commands.remove_resource::<Paused>();
    /// commands.apply(&mut world);
    /// assert!(!world.contains_resource::<Paused>());
    /// ```
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) {
        self.queue(|world: &mut World| {
            world.remove_resource::<R>();
        });
    }
}

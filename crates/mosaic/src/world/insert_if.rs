//! Conditional inserts: [`World::insert_if_new`] (only components the entity lacks) and
//! [`World::insert_if_neq`] (only a value that differs), and their command buffer forms
//! (bevy's `insert_if_new` and `insert_if_neq`).

use super::{CommandBuffer, ComponentError, World};
use crate::component::{AosComponent, Bundle, BundleSink, Component};
use crate::entity::Entity;

/// Inserts each component of a bundle that the entity does not have yet.
struct IfNewSink<'a> {
    world: &'a mut World,
    entity: Entity,
    inserted: usize,
}

impl BundleSink for IfNewSink<'_> {
    fn put<T: Component>(&mut self, value: T) {
        let id = self.world.components.register::<T>();
        if !self.world.components.pool(id).contains(self.entity) {
            self.world.insert_row(id, self.entity, value);
            self.inserted += 1;
        }
    }
}

impl World {
    /// Inserts each component of `bundle` that `entity` does not have yet, and drops the others
    /// unused: values already there stay, untouched (no replace hook, no change mark). Returns how
    /// many components were inserted. Each insert is as [`World::insert`] (add hooks and watches
    /// run per component). O(c) in the bundle's components. bevy's `insert_if_new`.
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive (the bundle is dropped).
    ///
    /// # Panics
    /// If the bundle holds a component type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Armor(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Health(3));
    /// // Defaults for what is missing: the existing health stays.
    /// assert_eq!(world.insert_if_new(e, (Health(100), Armor(5))), Ok(1));
    /// assert_eq!(world.get::<Health>(e), Ok(&Health(3)));
    /// assert_eq!(world.get::<Armor>(e), Ok(&Armor(5)));
    /// ```
    #[track_caller]
    pub fn insert_if_new<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<usize, ComponentError> {
        self.flush();
        self.check_alive(entity)?;
        super::spawn::check_bundle::<B>(self);
        let mut sink = IfNewSink { world: self, entity, inserted: 0 };
        bundle.put_each(&mut sink);
        Ok(sink.inserted)
    }

    /// Inserts `value` unless `entity` already has an equal `T`: an equal value is not written,
    /// so nothing marks it changed and no replace hook runs (bevy's `insert_if_neq`, for
    /// change-driven systems that must not wake on a no-op write). Returns whether it wrote.
    /// O(1). For array-of-structs components (compared as `&T == &T`).
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive (the value is dropped).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Changed, Component, Entity, World};
    ///
    /// #[derive(Component, PartialEq)]
    /// #[component(track_changes)]
    /// struct Mode(u8);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Mode(1));
    /// world.clear_trackers();
    /// assert_eq!(world.insert_if_neq(e, Mode(1)), Ok(false));
    /// assert_eq!(world.query_filtered::<Entity, Changed<Mode>>().count(), 0);
    /// assert_eq!(world.insert_if_neq(e, Mode(2)), Ok(true));
    /// assert_eq!(world.query_filtered::<Entity, Changed<Mode>>().count(), 1);
    /// ```
    pub fn insert_if_neq<T: AosComponent + PartialEq>(
        &mut self,
        entity: Entity,
        value: T,
    ) -> Result<bool, ComponentError> {
        self.flush();
        self.check_alive(entity)?;
        if self.get::<T>(entity).is_ok_and(|old| *old == value) {
            return Ok(false);
        }
        self.try_insert(entity, value).map(|_| true)
    }
}

/// The value of a recorded [`CommandBuffer::insert_if_new`]: its own queue type, apart from plain
/// inserts of the same bundle.
struct IfNew<B>(B);

/// The value of a recorded [`CommandBuffer::insert_if_neq`].
struct IfNeq<T>(T);

fn apply_if_new<B: Bundle>(IfNew(bundle): IfNew<B>, world: &mut World, entity: Option<Entity>) {
    let entity = entity.expect("a bundle is applied to an entity");
    let _ = world.insert_if_new(entity, bundle);
}

fn apply_if_neq<T: AosComponent + PartialEq>(
    IfNeq(value): IfNeq<T>,
    world: &mut World,
    entity: Option<Entity>,
) {
    let entity = entity.expect("a value is applied to an entity");
    let _ = world.insert_if_neq(entity, value);
}

impl World {
    /// [`World::insert_if_new`] on many entities: `rows` yields `(entity, bundle)`, and each
    /// entity gets the components of its bundle it does not have yet (bevy's
    /// `insert_batch_if_new`). Values already there stay, untouched. O(rows * components).
    ///
    /// # Panics
    /// If an entity is not alive (stale, despawned, or of another world), after the rows before
    /// it were inserted; its bundle is dropped. Also if `B` holds a type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let hurt = world.spawn(Health(3));
    /// let fresh = world.spawn_empty();
    /// world.insert_batch_if_new([(hurt, Health(100)), (fresh, Health(100))]);
    /// assert_eq!(world.get::<Health>(hurt), Ok(&Health(3)), "kept");
    /// assert_eq!(world.get::<Health>(fresh), Ok(&Health(100)), "added");
    /// ```
    #[track_caller]
    pub fn insert_batch_if_new<B: Bundle>(&mut self, rows: impl IntoIterator<Item = (Entity, B)>) {
        for (entity, bundle) in rows {
            if let Err(error) = self.insert_if_new(entity, bundle) {
                panic!("cannot insert `{}` on {entity}: {error}", std::any::type_name::<B>());
            }
        }
    }
}

impl CommandBuffer {
    /// Records [`World::insert_if_new`]: at apply, each component of `bundle` that `entity` does
    /// not have then is inserted; skipped (and counted) if `entity` is dead by then.
    pub fn insert_if_new<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        self.push_insert(entity, IfNew(bundle), apply_if_new::<B>);
    }

    /// Records [`World::insert_if_neq`]: at apply, `value` is written unless `entity` then has an
    /// equal `T`; skipped (and counted) if `entity` is dead by then.
    pub fn insert_if_neq<T: AosComponent + PartialEq>(&mut self, entity: Entity, value: T) {
        self.push_insert(entity, IfNeq(value), apply_if_neq::<T>);
    }
}

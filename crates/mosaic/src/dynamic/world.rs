//! `impl World` for components defined at run time: register, insert, get, remove by id.

use std::ptr::NonNull;
use std::sync::Arc;

use super::descriptor::{Storage, intern};
use super::{ComponentDescriptor, DynamicError, DynamicMut, DynamicRef, DynamicValue};
use crate::component::ComponentId;
use crate::component::schema::Schema;
use crate::entity::Entity;
use crate::storage::ColumnInfo;
use crate::world::{HookKind, World};

impl World {
    /// Registers a component type defined at run time (a script's, a mod's, an editor's) and
    /// returns its id: from here on it is a component like any other, stored in its own pool,
    /// seen by hooks, observers, watches and the component sets, found by
    /// [`World::component_id_by_name`]. O(1) amortised.
    ///
    /// # Errors
    /// [`DynamicError::InvalidName`], [`DynamicError::NameTaken`] (names are unique among a
    /// world's run-time components), or [`DynamicError::TooLarge`] for a raw layout over
    /// [`MAX_SCHEMA_SIZE`](super::MAX_SCHEMA_SIZE) bytes.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Field, Scalar, Schema};
    ///
    /// let mut world = World::new();
    /// let schema = Schema::new(vec![Field::new("absorb", Scalar::F32)]).unwrap();
    /// let shield = world.register_dynamic(ComponentDescriptor::new("Shield", schema)).unwrap();
    /// let absorb = world.dynamic_schema(shield).unwrap().field::<f32>("absorb").unwrap();
    ///
    /// let mut value = DynamicValue::new(world.dynamic_schema(shield).unwrap());
    /// value.set(absorb, 5.0);
    /// let e = world.spawn_empty();
    /// world.insert_by_id(e, shield, value).unwrap();
    /// world.get_mut_by_id(e, shield).unwrap().set(absorb, 3.0);
    /// assert_eq!(world.get_by_id(e, shield).unwrap().get(absorb), 3.0);
    /// assert_eq!(world.component_id_by_name("Shield"), Some(shield));
    /// ```
    pub fn register_dynamic(&mut self, descriptor: ComponentDescriptor) -> Result<ComponentId, DynamicError> {
        descriptor.check()?;
        if self.components().id_by_name(&descriptor.name).is_some() {
            return Err(DynamicError::NameTaken { name: descriptor.name });
        }
        let name = intern(&descriptor.name);
        let (info, schema) = match descriptor.storage {
            Storage::Schema(schema) => {
                // SAFETY: a schema describes plain bytes: no drop, no pointers, any bit pattern
                // readable, so its values may be moved by copying and shared across threads;
                // every value comes from a `DynamicValue` (zeroed, then written by field) or an
                // `insert_by_id_raw` whose caller promised initialized bytes, so it is plain.
                let info = unsafe { ColumnInfo::dynamic(schema.layout(), None, name, true) };
                (info, Some(schema))
            }
            Storage::Raw { layout, drop } => {
                // SAFETY: the descriptor's `unsafe` constructor put these obligations on its
                // caller.
                let info = unsafe { ColumnInfo::dynamic(layout, drop, name, false) };
                (info, None)
            }
        };
        self.flush();
        Ok(self.components_mut().register_dynamic(name, info, schema, descriptor.track_changes))
    }

    /// The run-time component named `name`, if the world has one. O(1) expected.
    pub fn component_id_by_name(&self, name: &str) -> Option<ComponentId> {
        self.components().id_by_name(name)
    }

    /// The name of component `id`: a run-time component's registered name, a Rust type's
    /// `type_name`; `None` if `id` is not a component of this world. O(1).
    pub fn component_name(&self, id: ComponentId) -> Option<&'static str> {
        if !self.components().contains_id(id) {
            return None;
        }
        match self.components().dynamic_info(id) {
            Some(info) => Some(info.name),
            None => Some(self.components().pool(id).type_name()),
        }
    }

    /// The schema of run-time component `id`: where [`FieldRef`](super::FieldRef)s and
    /// [`DynamicValue`]s for it come from. O(1).
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`], or [`DynamicError::NoSchema`] for a Rust type or a
    /// component registered from raw parts.
    pub fn dynamic_schema(&self, id: ComponentId) -> Result<&Arc<Schema>, DynamicError> {
        self.check_id(id)?;
        self.components()
            .dynamic_info(id)
            .and_then(|info| info.schema.as_ref())
            .ok_or_else(|| DynamicError::NoSchema { component: self.name_of(id) })
    }

    /// Turns change tracking on for component `id` (a Rust type or a run-time one), as
    /// [`World::track_changes`] does for a type. O(1) when on already, else O(len).
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`].
    pub fn track_changes_by_id(&mut self, id: ComponentId) -> Result<(), DynamicError> {
        self.check_id(id)?;
        self.components_mut().track_changes_by_id(id);
        Ok(())
    }

    /// Adds or replaces `entity`'s run-time component `id` with `value`; returns whether a
    /// value was replaced. Hooks, observers and watches of the component see an add or a
    /// replace, as for [`World::insert`]. O(1) amortised.
    ///
    /// # Errors
    /// [`DynamicError::Entity`] if `entity` is not alive, [`DynamicError::NoSuchComponent`],
    /// [`DynamicError::NoSchema`], or [`DynamicError::SchemaMismatch`] if `value` was made from
    /// another schema than the component's (make it from [`World::dynamic_schema`]).
    pub fn insert_by_id(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: DynamicValue,
    ) -> Result<bool, DynamicError> {
        self.flush();
        self.check_alive(entity)?;
        let schema = self.dynamic_schema(id)?;
        if schema.uid() != value.schema().uid() {
            let found =
                value.schema().leaves().iter().take(4).map(|l| &*l.path).collect::<Vec<_>>().join(", ");
            return Err(DynamicError::SchemaMismatch {
                component: self.name_of(id),
                found: format!("{{{found}}}"),
            });
        }
        // SAFETY: `id` is a run-time component of this world with this schema (checked above),
        // so its pool is array-of-structs of the schema's layout; `entity` is alive (checked);
        // `value`'s bytes are one value of that schema (a `DynamicValue` holds exactly one,
        // every byte initialized), and they are moved in: `value` is dropped after as plain bytes,
        // which never runs a component drop.
        Ok(unsafe { self.insert_row_raw(id, entity, value.bytes().as_ptr()) })
    }

    /// Adds or replaces `entity`'s run-time component `id` (with a schema or from raw parts)
    /// with the value whose bytes are at `src`, moved in; returns whether a value was replaced.
    ///
    /// # Safety
    /// `src` is valid for reads of the component's size and holds one value of the kind its
    /// descriptor promised (for a schema: initialized bytes of its layout); the caller neither
    /// uses nor drops it afterwards.
    ///
    /// # Errors
    /// [`DynamicError::Entity`], [`DynamicError::NoSuchComponent`], or
    /// [`DynamicError::NoSchema`] for a Rust type (whose values this cannot check).
    pub unsafe fn insert_by_id_raw(
        &mut self,
        entity: Entity,
        id: ComponentId,
        src: *const u8,
    ) -> Result<bool, DynamicError> {
        self.flush();
        self.check_alive(entity)?;
        self.check_id(id)?;
        if self.components().dynamic_info(id).is_none() {
            return Err(DynamicError::NoSchema { component: self.name_of(id) });
        }
        // SAFETY: a run-time component's pool is array-of-structs; `entity` is alive; the value
        // at `src` is the caller's obligation.
        Ok(unsafe { self.insert_row_raw(id, entity, src) })
    }

    /// A shared view of `entity`'s run-time component `id`. O(1).
    ///
    /// # Errors
    /// [`DynamicError::Entity`], [`DynamicError::NoSuchComponent`], [`DynamicError::NoSchema`],
    /// or [`DynamicError::Missing`] if the entity does not have it.
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Result<DynamicRef<'_>, DynamicError> {
        self.check_alive(entity)?;
        let schema = self.dynamic_schema(id)?;
        let ptr = self.components().pool(id).value_ptr(entity).ok_or_else(|| self.missing(entity, id))?;
        // SAFETY: the pool of a schema component holds values of the schema, every byte
        // initialized (they come from `DynamicValue`s or raw inserts promising as much); the
        // shared borrow of the world keeps every write out for the view's life.
        Ok(unsafe { DynamicRef::new(schema, ptr) })
    }

    /// An exclusive view of `entity`'s run-time component `id`; marks it changed (when its
    /// changes are tracked), as [`World::get_mut`] does. O(1) amortised.
    ///
    /// # Errors
    /// As [`World::get_by_id`].
    pub fn get_mut_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<DynamicMut<'_>, DynamicError> {
        self.check_alive(entity)?;
        self.dynamic_schema(id)?;
        if !self.components().pool(id).contains(entity) {
            return Err(self.missing(entity, id));
        }
        self.components_mut().pool_mut(id).mark_changed(entity);
        let components = self.components();
        let schema =
            components.dynamic_info(id).and_then(|info| info.schema.as_ref()).expect("checked above");
        let ptr = components.pool(id).value_ptr(entity).expect("checked above");
        // SAFETY: as in `get_by_id`; the exclusive borrow of the world (reborrowed shared for
        // the schema, which no write reaches) makes this the only access to the value.
        Ok(unsafe { DynamicMut::new(schema, ptr) })
    }

    /// The address of `entity`'s component `id` (any array-of-structs component: a Rust type or
    /// a run-time one), for code that reaches values as bytes. Dereferencing it is `unsafe`: the
    /// value is valid until the next structural change of its pool, and shared while the world
    /// is. O(1).
    ///
    /// # Errors
    /// [`DynamicError::Entity`], [`DynamicError::NoSuchComponent`], [`DynamicError::Missing`],
    /// or [`DynamicError::NoSchema`] for a struct-of-arrays Rust type (no single address).
    pub fn get_ptr_by_id(&self, entity: Entity, id: ComponentId) -> Result<NonNull<u8>, DynamicError> {
        self.check_alive(entity)?;
        self.check_id(id)?;
        let pool = self.components().pool(id);
        if pool.column_info().is_none() {
            return Err(DynamicError::NoSchema { component: self.name_of(id) });
        }
        pool.value_ptr(entity).ok_or_else(|| self.missing(entity, id))
    }

    /// Whether `entity` is alive and has component `id` (any component). O(1).
    pub fn contains_by_id(&self, entity: Entity, id: ComponentId) -> bool {
        self.is_alive(entity)
            && self.components().contains_id(id)
            && self.components().pool(id).contains(entity)
    }

    /// Removes `entity`'s component `id` (any component: a Rust type or a run-time one) and
    /// drops the value; returns whether it had one. Hooks, observers and watches see a removal,
    /// as for [`World::remove`]. O(1).
    ///
    /// # Errors
    /// [`DynamicError::Entity`] or [`DynamicError::NoSuchComponent`].
    pub fn remove_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<bool, DynamicError> {
        self.flush();
        self.check_alive(entity)?;
        self.check_id(id)?;
        Ok(self.remove_row_by_id(id, entity))
    }

    /// Removes `entity`'s run-time component `id` and returns its value, or `None` if it had
    /// none. O(size).
    ///
    /// # Errors
    /// [`DynamicError::Entity`], [`DynamicError::NoSuchComponent`] or [`DynamicError::NoSchema`].
    pub fn take_by_id(
        &mut self,
        entity: Entity,
        id: ComponentId,
    ) -> Result<Option<DynamicValue>, DynamicError> {
        self.flush();
        self.check_alive(entity)?;
        let schema = Arc::clone(self.dynamic_schema(id)?);
        let mut value = DynamicValue::new(&schema);
        // SAFETY: `id` is a schema component of this world (checked), so its pool is
        // array-of-structs of the schema's layout, and `value` holds exactly that many bytes to
        // write into; the bytes moved there are a value of the schema, which needs no drop.
        let taken = unsafe { self.take_row_raw(id, entity, value.bytes_mut_ptr()) };
        Ok(taken.then_some(value))
    }

    /// Spawns an entity with the run-time components `values` (a later value of the same id
    /// replaces an earlier one). O(values).
    ///
    /// # Errors
    /// As [`World::insert_by_id`]; on an error nothing is left spawned.
    pub fn spawn_dynamic(
        &mut self,
        values: impl IntoIterator<Item = (ComponentId, DynamicValue)>,
    ) -> Result<Entity, DynamicError> {
        let entity = self.spawn_empty();
        for (id, value) in values {
            if let Err(error) = self.insert_by_id(entity, id, value) {
                self.despawn(entity);
                return Err(error);
            }
        }
        Ok(entity)
    }

    /// Adds an observer of lifecycle event `E` ([`Add`](crate::Add), [`Insert`](crate::Insert),
    /// [`Replace`](crate::Replace), [`Remove`](crate::Remove), [`Despawn`](crate::Despawn)) on
    /// the components `ids` (run-time components or Rust types), for every entity: what
    /// `add_observer::<E, B>` does for a bundle type `B`, when the components are known only at
    /// run time. The observer's function takes `On<E>` and system parameters; `On::component`
    /// says which of `ids` changed. Returns the observer's entity (despawn it to remove the
    /// observer). O(ids).
    ///
    /// # Errors
    /// [`DynamicError::Observer`] if `ids` is empty, `E` is not a lifecycle event, or two of the
    /// function's parameters alias; [`DynamicError::NoSuchComponent`] for an unknown id.
    ///
    /// # Examples
    /// ```
    /// use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Schema};
    /// use mosaic::{Add, On, ResMut, World};
    ///
    /// let mut world = World::new();
    /// world.insert_resource(0u32);
    /// let tag = world.register_dynamic(ComponentDescriptor::new("Tag", Schema::new(vec![]).unwrap())).unwrap();
    /// world.add_observer_by_id(&[tag], |_: On<Add>, mut added: ResMut<u32>| *added += 1).unwrap();
    /// let value = DynamicValue::new(world.dynamic_schema(tag).unwrap());
    /// world.spawn_dynamic([(tag, value)]).unwrap();
    /// assert_eq!(*world.resource::<u32>(), 1);
    /// ```
    pub fn add_observer_by_id<E: crate::Event, M: 'static>(
        &mut self,
        ids: &[ComponentId],
        observer: impl crate::observer::ObserverFunction<E, (), M>,
    ) -> Result<Entity, DynamicError> {
        if ids.is_empty() {
            return Err(DynamicError::Observer { reason: "no component ids given".into() });
        }
        if E::LIFECYCLE == u8::MAX {
            return Err(DynamicError::Observer {
                reason: format!(
                    "`{}` is not a lifecycle event (Add, Insert, Replace, Discard, Remove, Despawn); observe a custom \
                     event with `add_observer`",
                    std::any::type_name::<E>()
                ),
            });
        }
        for &id in ids {
            self.check_id(id)?;
        }
        self.spawn_observer(observer, smallvec::SmallVec::new(), Some(ids.into()))
            .map_err(|error| DynamicError::Observer { reason: error.to_string() })
    }

    /// Registers a hook run right after component `id` (a run-time component or a Rust type) is
    /// added to an entity: [`World::on_add`] for a component known at run time. Returns its
    /// [`HookId`](crate::HookId) (remove it with `World::remove_hook`). O(1) amortised.
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`].
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use mosaic::World;
    /// use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Schema};
    ///
    /// let mut world = World::new();
    /// let tag = world.register_dynamic(ComponentDescriptor::new("Tag", Schema::new(vec![]).unwrap())).unwrap();
    /// let added = Arc::new(AtomicU32::new(0));
    /// let seen = Arc::clone(&added);
    /// world.on_add_by_id(tag, move |_| { seen.fetch_add(1, Ordering::Relaxed); }).unwrap();
    /// world.spawn_dynamic([(tag, DynamicValue::new(world.dynamic_schema(tag).unwrap()))]).unwrap();
    /// assert_eq!(added.load(Ordering::Relaxed), 1);
    /// ```
    pub fn on_add_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut crate::HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<crate::HookId, DynamicError> {
        self.hook_by_id(id, HookKind::Add, Arc::new(hook))
    }

    /// [`World::on_insert`] for component `id`: run after every add or replace. As
    /// [`World::on_add_by_id`].
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`].
    pub fn on_insert_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut crate::HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<crate::HookId, DynamicError> {
        self.hook_by_id(id, HookKind::Insert, Arc::new(hook))
    }

    /// [`World::on_replace`] for component `id`: run before an insert overwrites the value. As
    /// [`World::on_add_by_id`].
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`].
    pub fn on_replace_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut crate::HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<crate::HookId, DynamicError> {
        self.hook_by_id(id, HookKind::Replace, Arc::new(hook))
    }

    /// [`World::on_discard`] for component `id`: run before the value goes, whichever way. As
    /// [`World::on_add_by_id`].
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`].
    pub fn on_discard_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut crate::HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<crate::HookId, DynamicError> {
        self.hook_by_id(id, HookKind::Discard, Arc::new(hook))
    }

    /// [`World::on_remove`] for component `id`: run before the value is removed or its entity
    /// despawned. As [`World::on_add_by_id`].
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`].
    pub fn on_remove_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut crate::HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<crate::HookId, DynamicError> {
        self.hook_by_id(id, HookKind::Remove, Arc::new(hook))
    }

    /// Registers `hook` of `kind` for component `id` after checking it.
    fn hook_by_id(
        &mut self,
        id: ComponentId,
        kind: HookKind,
        hook: crate::world::Hook,
    ) -> Result<crate::HookId, DynamicError> {
        self.check_id(id)?;
        self.flush();
        Ok(self.add_hook_by_id(id, kind, hook))
    }

    /// Fails unless `id` is a component of this world.
    pub(super) fn check_id(&self, id: ComponentId) -> Result<(), DynamicError> {
        if self.components().contains_id(id) {
            Ok(())
        } else {
            Err(DynamicError::NoSuchComponent { index: id.index() })
        }
    }

    /// The name of `id` for messages (its index when it is not a component of this world).
    pub(super) fn name_of(&self, id: ComponentId) -> String {
        self.component_name(id).map_or_else(|| format!("#{}", id.index()), str::to_owned)
    }

    /// The error for an entity without component `id`.
    fn missing(&self, entity: Entity, id: ComponentId) -> DynamicError {
        DynamicError::Missing { entity, component: self.name_of(id) }
    }
}

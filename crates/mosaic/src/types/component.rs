//! [`ComponentDecl`]: what [`World::register`] returns, to declare what a component supports.

use std::marker::PhantomData;

use super::{TypeEntry, TypeKind};
use crate::component::{Component, View};
use crate::entity::Entity;
use crate::world::{Template, World};

/// The declaration of component type `T` in a world's [`TypeRegistry`](super::TypeRegistry),
/// returned by [`World::register`]. Each method records one thing `T` supports, at once (there
/// is nothing to finish: dropping the declaration is fine), and returns the declaration for the
/// next. Each is O(types) and checked at compile time: it exists only when `T` has the traits it
/// needs. See the [module docs](super) for what reads each.
///
/// # Examples
/// ```
/// use mosaic::{Component, World};
///
/// #[derive(Component, Clone, Hash, Debug, PartialEq)]
/// struct Name(String);
///
/// let mut world = World::new();
/// world.register::<Name>().name("name").clone().hash();
/// let probe = world.spawn(Name("probe".into()));
/// let copy = world.clone_entity(probe).unwrap();
/// assert_eq!(world.get::<Name>(copy), Ok(&Name("probe".into())));
/// assert!(world.types().component::<Name>().unwrap().supports.hash);
/// ```
pub struct ComponentDecl<'w, T: Component> {
    world: &'w mut World,
    _type: PhantomData<fn() -> T>,
}

impl<T: Component> std::fmt::Debug for ComponentDecl<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ComponentDecl").field(&self.world.types().component::<T>()).finish()
    }
}

impl<'w, T: Component> ComponentDecl<'w, T> {
    /// Registers `T` (its pool's id, and an entry under its default name) and starts its
    /// declaration.
    #[track_caller]
    pub(super) fn new(world: &'w mut World) -> Self {
        world.register_component::<T>();
        world.types_mut().entry::<T>(TypeKind::Component);
        Self { world, _type: PhantomData }
    }

    fn entry(&mut self) -> &mut TypeEntry {
        self.world.types_mut().entry::<T>(TypeKind::Component)
    }

    /// Names `T` `name`: the name snapshots, rollback, hashes and tools use (default: the type's
    /// name without its module path). Keep it when the type is renamed or moved, and saved files
    /// still load.
    ///
    /// # Panics
    /// If another component type has the name.
    #[track_caller]
    pub fn name(self, name: &str) -> Self {
        self.world.types_mut().rename::<T>(TypeKind::Component, name);
        self
    }

    /// `T` is `Clone`: [`World::clone_entity`] and [`Template::from_entity`] copy it (read
    /// through [`View::read`], so struct-of-arrays components clone too).
    pub fn clone(mut self) -> Self
    where
        T: Clone,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        self.entry().supports.clone = true;
        let id = self.world.register_component::<T>();
        self.world.types_mut().set_cloner(id, cloner::<T>);
        self
    }
}

/// The cloner of `T`: reads `entity`'s value into a template entry.
fn cloner<T>(world: &World, entity: Entity) -> Option<crate::world::TemplateEntry>
where
    T: Component + Clone,
    for<'r> T::Ref<'r>: View<Value = T>,
{
    let value: T = world.get::<T>(entity).ok()?.read();
    Some(Template::entry_of(value))
}

#[cfg(feature = "rollback")]
impl<T: Component> ComponentDecl<'_, T> {
    /// `T` is plain data (`NoUninit`: `Copy`, `#[repr(C)]`, no padding): rollback saves and
    /// restores its columns by copying bytes and the world hash hashes its bytes (the fast path,
    /// either layout); it also clones ([`ComponentDecl::clone`]).
    pub fn plain(mut self) -> Self
    where
        T: crate::rollback::NoUninit,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        let name = self.entry().name.clone();
        let entry = self.entry();
        entry.supports.plain = true;
        entry.supports.hash = true;
        entry.rollback.component = Some(crate::rollback::ComponentEntry::plain::<T>(&name));
        self.clone()
    }

    /// `T` hashes deterministically through [`Hash`](std::hash::Hash) (no pointers, no
    /// `HashMap` order): rollback saves and restores it by `clone_from` and the world hash
    /// covers it. Does not make it cloneable by [`World::clone_entity`] (say
    /// [`ComponentDecl::clone`] for that). A later [`ComponentDecl::plain`] takes precedence.
    ///
    /// # Panics
    /// If `T` is stored struct-of-arrays (declare it [`plain`](ComponentDecl::plain)).
    #[track_caller]
    pub fn hash(self) -> Self
    where
        T: Clone + std::hash::Hash,
    {
        self.hash_with(|value: &T, hasher| std::hash::Hash::hash(value, hasher))
    }

    /// As [`ComponentDecl::hash`], hashed by `hash` (for a type without `Hash`, such as one
    /// holding floats: hash their bits).
    ///
    /// # Panics
    /// As [`ComponentDecl::hash`].
    #[track_caller]
    pub fn hash_with(
        mut self,
        hash: impl Fn(&T, &mut crate::rollback::StableHasher) + Clone + Send + Sync + 'static,
    ) -> Self
    where
        T: Clone,
    {
        let entry = self.entry();
        if !entry.supports.plain {
            entry.supports.hash = true;
            entry.rollback.component = Some(crate::rollback::ComponentEntry::cloned::<T>(&entry.name, hash));
        }
        self
    }
}

#[cfg(feature = "serialize")]
impl<T: Component> ComponentDecl<'_, T> {
    /// `T` is serde: snapshots ([`World::save_ron`], [`World::save_binary`] and the loads) save
    /// and load it, and tools (the inspector) show and edit it as text. Entity handles inside
    /// values are kept as saved; see [`ComponentDecl::map_entities`].
    pub fn serde(mut self) -> Self
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        let entry = self.entry();
        entry.supports.serde = true;
        if !entry.supports.map_entities {
            entry.snapshot = Some(crate::serialize::SnapshotEntry::component::<T>(&entry.name));
        }
        self
    }

    /// `T` is serde and holds entity handles: as [`ComponentDecl::serde`], and when a snapshot
    /// loads into a world that already has entities, each handle is rewritten to its entity's
    /// new id ([`MapEntities`](crate::MapEntities)).
    pub fn map_entities(mut self) -> Self
    where
        T: serde::Serialize + serde::de::DeserializeOwned + crate::MapEntities,
        for<'r> T::Ref<'r>: View<Value = T>,
    {
        let entry = self.entry();
        entry.supports.serde = true;
        entry.supports.map_entities = true;
        entry.snapshot = Some(crate::serialize::SnapshotEntry::mapped_component::<T>(&entry.name));
        self
    }
}

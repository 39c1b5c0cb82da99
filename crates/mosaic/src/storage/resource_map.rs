//! Type-keyed singleton storage with interior mutability for the scheduler.

use std::any::{Any, TypeId};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, Ordering};

use rustc_hash::FxHashMap;

use super::Tick;

/// One stored resource: the value behind an `UnsafeCell`, so the scheduler can hand a `&mut` to
/// exactly one system while others read other resources through the same shared map.
struct ResourceCell<R>(UnsafeCell<R>);

/// A map entry: the resource's cell (a `ResourceCell<R>`) and its change ticks (when it was
/// inserted, when it was last handed out mutably), atomics so the system holding the value
/// mutably can stamp them through the shared map.
struct Slot {
    cell: Box<dyn Any + Send + Sync>,
    ticks: ResourceTicks,
}

/// The change ticks of one resource.
#[derive(Debug)]
pub struct ResourceTicks {
    added: AtomicU32,
    changed: AtomicU32,
}

impl ResourceTicks {
    fn new(added: Tick, changed: Tick) -> Self {
        Self { added: AtomicU32::new(added.get()), changed: AtomicU32::new(changed.get()) }
    }

    /// When the resource was inserted (a replacing insert keeps it).
    #[inline]
    pub fn added(&self) -> Tick {
        Tick::new(self.added.load(Ordering::Relaxed))
    }

    /// When the resource was last inserted or handed out mutably.
    #[inline]
    pub fn changed(&self) -> Tick {
        Tick::new(self.changed.load(Ordering::Relaxed))
    }

    /// Records a change at `tick`.
    #[inline]
    pub fn set_changed(&self, tick: Tick) {
        self.changed.store(tick.get(), Ordering::Relaxed);
    }

    /// Puts both ticks back (rollback), or clamps them (wraparound check).
    pub fn set(&self, added: Tick, changed: Tick) {
        self.added.store(added.get(), Ordering::Relaxed);
        self.changed.store(changed.get(), Ordering::Relaxed);
    }
}

// SAFETY: `R` is `Send + Sync`. Shared access (`get`) hands out `&R` only; the one path to a `&mut R`
// from `&self` is the `unsafe fn get_mut_unchecked`, whose caller guarantees exclusivity.
unsafe impl<R: Send + Sync> Sync for ResourceCell<R> {}

/// A map from type to one value of that type: the world's resources (time, settings, score...).
///
/// Complexity: every operation is one hash of the `TypeId`.
#[derive(Default)]
pub struct ResourceMap {
    /// Each value is a `ResourceCell<R>` stored under `TypeId::of::<R>()`, with its ticks.
    map: FxHashMap<TypeId, Slot>,
}

impl std::fmt::Debug for ResourceMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceMap").field("len", &self.map.len()).finish()
    }
}

impl ResourceMap {
    /// Stores `value`, returning the previous value of the same type. A new resource is added
    /// and changed at `tick`; a replaced one keeps its added tick and is changed at `tick`.
    pub fn insert<R: Send + Sync + 'static>(&mut self, value: R, tick: Tick) -> Option<R> {
        let added = self.ticks::<R>().map_or(tick, ResourceTicks::added);
        self.insert_with_ticks(value, added, tick)
    }

    /// Stores `value` with the given ticks, returning the previous value of the same type.
    pub fn insert_with_ticks<R: Send + Sync + 'static>(
        &mut self,
        value: R,
        added: Tick,
        changed: Tick,
    ) -> Option<R> {
        let slot = Slot {
            cell: Box::new(ResourceCell(UnsafeCell::new(value))),
            ticks: ResourceTicks::new(added, changed),
        };
        let old = self.map.insert(TypeId::of::<R>(), slot)?;
        Some(Self::unbox(old).0)
    }

    /// Removes and returns the value of type `R`.
    pub fn remove<R: Send + Sync + 'static>(&mut self) -> Option<R> {
        self.remove_with_ticks().map(|(value, _, _)| value)
    }

    /// Removes and returns the value of type `R` with its added and changed ticks.
    pub fn remove_with_ticks<R: Send + Sync + 'static>(&mut self) -> Option<(R, Tick, Tick)> {
        let (value, ticks) = self.map.remove(&TypeId::of::<R>()).map(Self::unbox)?;
        Some((value, ticks.added(), ticks.changed()))
    }

    fn unbox<R: Send + Sync + 'static>(slot: Slot) -> (R, ResourceTicks) {
        let cell = slot.cell.downcast::<ResourceCell<R>>().expect("resource stored under its own TypeId");
        (cell.0.into_inner(), slot.ticks)
    }

    /// The change ticks of the resource of type `R`.
    #[inline]
    pub fn ticks<R: Send + Sync + 'static>(&self) -> Option<&ResourceTicks> {
        Some(&self.map.get(&TypeId::of::<R>())?.ticks)
    }

    /// Every resource's change ticks, in no particular order (the wraparound check).
    pub fn every_ticks(&self) -> impl Iterator<Item = &ResourceTicks> {
        self.map.values().map(|slot| &slot.ticks)
    }

    #[inline]
    fn cell<R: Send + Sync + 'static>(&self) -> Option<&ResourceCell<R>> {
        Some(Self::typed(self.map.get(&TypeId::of::<R>())?))
    }

    /// The cell of `slot`, found under `TypeId::of::<R>()`, as the `ResourceCell<R>` it is,
    /// without asking the value's vtable for its type again (a dynamic call per resource fetch).
    #[inline]
    fn typed<R: Send + Sync + 'static>(slot: &Slot) -> &ResourceCell<R> {
        debug_assert!(slot.cell.is::<ResourceCell<R>>(), "resource stored under its own TypeId");
        let cell: *const (dyn Any + Send + Sync) = &*slot.cell;
        // SAFETY: the map's one writer, `insert_with_ticks`, stores a `ResourceCell<R>` under
        // `TypeId::of::<R>()` and nothing else under it; the caller found `slot` under that key,
        // so the value behind the (thin part of the) pointer is a `ResourceCell<R>`, borrowed
        // shared for as long as `slot` is.
        unsafe { &*cell.cast::<ResourceCell<R>>() }
    }

    /// The value of type `R`.
    #[inline]
    pub fn get<R: Send + Sync + 'static>(&self) -> Option<&R> {
        let cell = self.cell::<R>()?;
        // SAFETY: a `&mut` to this value exists only through `get_mut` (which needs `&mut self`,
        // excluded by our `&self`) or `get_mut_unchecked`, whose caller promises no other
        // reference is alive meanwhile.
        Some(unsafe { &*cell.0.get() })
    }

    /// The value of type `R`, mutably.
    #[inline]
    pub fn get_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        let cell = Self::typed::<R>(self.map.get_mut(&TypeId::of::<R>())?);
        // SAFETY: `&mut self` excludes every other reference to the map's values, so this is
        // the only reference to the value for the returned lifetime.
        Some(unsafe { &mut *cell.0.get() })
    }

    /// The value of type `R`, mutably, through a shared borrow of the map.
    ///
    /// # Safety
    /// - For the returned lifetime, no other reference to this resource may exist or be created:
    ///   no `get`, `get_mut_unchecked` or `get_mut` of `R` that overlaps. The scheduler upholds
    ///   this by running a system that writes `R` only when no running system accesses `R`.
    #[inline]
    #[expect(clippy::mut_from_ref, reason = "interior mutability, exclusivity is the caller's obligation")]
    pub unsafe fn get_mut_unchecked<R: Send + Sync + 'static>(&self) -> Option<&mut R> {
        let cell = self.cell::<R>()?;
        // SAFETY: the value lives in an `UnsafeCell`, and the caller guarantees this is the only
        // reference to it for the returned lifetime.
        Some(unsafe { &mut *cell.0.get() })
    }

    /// The value of type `R` and its change ticks, with one lookup (what `Res` fetches).
    #[inline]
    pub fn get_with_ticks<R: Send + Sync + 'static>(&self) -> Option<(&R, &ResourceTicks)> {
        let slot = self.map.get(&TypeId::of::<R>())?;
        let cell = Self::typed::<R>(slot);
        // SAFETY: as in `get`: a `&mut` to this value exists only through `get_mut` (excluded by
        // our `&self`) or `get_mut_unchecked` / `get_mut_with_ticks_unchecked`, whose callers
        // promise no other reference is alive meanwhile.
        Some((unsafe { &*cell.0.get() }, &slot.ticks))
    }

    /// The value of type `R`, mutably, and its change ticks, with one lookup, through a shared
    /// borrow of the map (what `ResMut` fetches).
    ///
    /// # Safety
    /// As [`ResourceMap::get_mut_unchecked`]: for the returned lifetime, no other reference to
    /// this resource's value may exist or be created. (The ticks are atomics, shared freely.)
    #[inline]
    #[expect(clippy::mut_from_ref, reason = "interior mutability, exclusivity is the caller's obligation")]
    pub unsafe fn get_mut_with_ticks_unchecked<R: Send + Sync + 'static>(
        &self,
    ) -> Option<(&mut R, &ResourceTicks)> {
        let slot = self.map.get(&TypeId::of::<R>())?;
        let cell = Self::typed::<R>(slot);
        // SAFETY: the value lives in an `UnsafeCell`, and the caller guarantees this is the only
        // reference to it for the returned lifetime.
        Some((unsafe { &mut *cell.0.get() }, &slot.ticks))
    }

    /// Whether a value of type `R` is stored.
    #[inline]
    pub fn contains<R: Send + Sync + 'static>(&self) -> bool {
        self.map.contains_key(&TypeId::of::<R>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_remove() {
        let mut map = ResourceMap::default();
        assert_eq!(map.insert(5u32, Tick::new(1)), None);
        assert_eq!(map.insert(7u32, Tick::new(4)), Some(5));
        let ticks = map.ticks::<u32>().unwrap();
        assert_eq!((ticks.added(), ticks.changed()), (Tick::new(1), Tick::new(4)), "a replace keeps the add");
        assert_eq!(map.every_ticks().count(), 1);
        assert_eq!(map.get::<u32>(), Some(&7));
        *map.get_mut::<u32>().unwrap() += 1;
        // SAFETY: no other reference to the `u32` resource is alive.
        *unsafe { map.get_mut_unchecked::<u32>() }.unwrap() += 1;
        assert_eq!(map.remove::<u32>(), Some(9));
        assert!(map.get::<u32>().is_none());
        assert_eq!(map.every_ticks().count(), 0);
        map.insert(String::from("dropped with the map"), Tick::new(9));
    }
}

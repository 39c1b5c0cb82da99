//! Type-keyed singleton storage with interior mutability for the scheduler.

use std::any::{Any, TypeId};
use std::cell::UnsafeCell;

use rustc_hash::FxHashMap;

/// One stored resource: the value behind an `UnsafeCell`, so the scheduler can hand a `&mut` to
/// exactly one system while others read other resources through the same shared map.
struct ResourceCell<R>(UnsafeCell<R>);

// SAFETY: `R` is `Send + Sync`. Shared access (`get`) hands out `&R` only; the one path to a `&mut R`
// from `&self` is the `unsafe fn get_mut_unchecked`, whose caller guarantees exclusivity.
unsafe impl<R: Send + Sync> Sync for ResourceCell<R> {}

/// A map from type to one value of that type: the world's resources (time, settings, score...).
///
/// Complexity: every operation is one hash of the `TypeId`.
#[derive(Default)]
pub struct ResourceMap {
    /// Each value is a `ResourceCell<R>` stored under `TypeId::of::<R>()`.
    map: FxHashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for ResourceMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceMap").field("len", &self.map.len()).finish()
    }
}

impl ResourceMap {
    /// Stores `value`, returning the previous value of the same type.
    pub fn insert<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let old = self.map.insert(TypeId::of::<R>(), Box::new(ResourceCell(UnsafeCell::new(value))))?;
        Some(Self::unbox(old))
    }

    /// Removes and returns the value of type `R`.
    pub fn remove<R: Send + Sync + 'static>(&mut self) -> Option<R> {
        self.map.remove(&TypeId::of::<R>()).map(Self::unbox)
    }

    fn unbox<R: Send + Sync + 'static>(cell: Box<dyn Any + Send + Sync>) -> R {
        let cell = cell.downcast::<ResourceCell<R>>().expect("resource stored under its own TypeId");
        cell.0.into_inner()
    }

    #[inline]
    fn cell<R: Send + Sync + 'static>(&self) -> Option<&ResourceCell<R>> {
        self.map.get(&TypeId::of::<R>())?.downcast_ref()
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
        let cell: &mut ResourceCell<R> = self.map.get_mut(&TypeId::of::<R>())?.downcast_mut()?;
        Some(cell.0.get_mut())
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
        assert_eq!(map.insert(5u32), None);
        assert_eq!(map.insert(7u32), Some(5));
        assert_eq!(map.get::<u32>(), Some(&7));
        *map.get_mut::<u32>().unwrap() += 1;
        // SAFETY: no other reference to the `u32` resource is alive.
        *unsafe { map.get_mut_unchecked::<u32>() }.unwrap() += 1;
        assert_eq!(map.remove::<u32>(), Some(9));
        assert!(map.get::<u32>().is_none());
        map.insert(String::from("dropped with the map"));
    }
}

//! The aliasing check: a query may not access a component mutably together with any other access
//! to the same component.

use std::any::TypeId;

use smallvec::SmallVec;

/// One component access of a query.
#[derive(Clone, Copy, Debug)]
pub struct ComponentAccess {
    /// The component type.
    pub type_id: TypeId,
    /// Its name, for messages.
    pub name: &'static str,
    /// Whether the access is mutable.
    pub write: bool,
}

impl ComponentAccess {
    /// The access of `T`.
    pub fn of<T: 'static>(write: bool) -> Self {
        Self { type_id: TypeId::of::<T>(), name: std::any::type_name::<T>(), write }
    }
}

/// Panics if the accesses reported by `visit` alias: the same component written twice, or written
/// and read. O(c^2) in the query's c components, no allocation for c <= 12.
#[track_caller]
pub fn assert_no_aliasing(query: &'static str, visit: impl FnOnce(&mut dyn FnMut(ComponentAccess))) {
    let mut seen = SmallVec::<[ComponentAccess; 12]>::new();
    visit(&mut |access| seen.push(access));
    for (i, a) in seen.iter().enumerate() {
        for b in &seen[..i] {
            if a.type_id == b.type_id && (a.write || b.write) {
                let how = if a.write && b.write { "mutably twice" } else { "mutably and immutably" };
                panic!(
                    "query `{query}` accesses component `{}` {how}, which would alias a `&mut`; \
                     fetch it once per query, or use a second query or `World::get` for the other access",
                    a.name
                );
            }
        }
    }
}

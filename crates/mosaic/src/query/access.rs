//! The aliasing check: a query may not access a component mutably together with any other access
//! to the same component.

use std::any::TypeId;

use smallvec::SmallVec;

use super::{QueryData, QueryFilter};

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

/// What a query's types promise about the entities it can yield: every one has each `with`
/// component and none of the `without` components. Two queries whose sets contradict (one's
/// `with` meets the other's `without`) can never yield the same entity, so they may write the
/// same component at the same time.
///
/// Built from `&T` / `&mut T` terms and [`With`](crate::With) (into `with`) and
/// [`Without`](crate::Without) (into `without`); `Option` terms, [`Entity`](crate::Entity) and filters that do
/// not report themselves add nothing, which only makes two queries look less disjoint than they
/// are. The design is bevy's `FilteredAccess` (`bevy_ecs::query::access`), cut down to the
/// `With`/`Without` conjunction this crate's filters express.
///
/// Sizes are a handful of types; every operation is O(w * v) in the two sets' sizes.
//
// Invariant: every type in `with` is one the query's iteration, `get` and chunk paths check
// for presence, and every type in `without` one they check for absence (the unsafe adders'
// contract), so disjointness here means disjoint yields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterSet {
    with: SmallVec<[TypeId; 4]>,
    without: SmallVec<[TypeId; 2]>,
}

impl FilterSet {
    /// The set of query data `Q` with filter `F`.
    pub fn of<Q: QueryData, F: QueryFilter>() -> Self {
        let mut set = Self::default();
        Q::visit_filter(&mut set);
        F::visit_filter(&mut set);
        set
    }

    /// Records that the query yields only entities with component `type_id`.
    ///
    /// # Safety
    /// The query's every path to an item (iteration, `get`, chunks, parallel chunks) must skip
    /// entities without that component; the scheduler lets it write alongside a query that
    /// excludes the component.
    pub unsafe fn add_with_unchecked(&mut self, type_id: TypeId) {
        if !self.with.contains(&type_id) {
            self.with.push(type_id);
        }
    }

    /// Records that the query yields only entities without component `type_id`.
    ///
    /// # Safety
    /// As [`FilterSet::add_with_unchecked`], for entities that have the component.
    pub unsafe fn add_without_unchecked(&mut self, type_id: TypeId) {
        if !self.without.contains(&type_id) {
            self.without.push(type_id);
        }
    }

    /// The components every yielded entity has.
    pub fn with(&self) -> &[TypeId] {
        &self.with
    }

    /// The components no yielded entity has.
    pub fn without(&self) -> &[TypeId] {
        &self.without
    }

    /// Whether no entity can be yielded by both queries: one requires a component the other
    /// excludes. Symmetric. A set that contradicts itself (`With<T>` and `Without<T>`) is
    /// disjoint from everything, itself included.
    pub fn is_disjoint(&self, other: &FilterSet) -> bool {
        self.with.iter().any(|t| other.without.contains(t))
            || other.with.iter().any(|t| self.without.contains(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Component, Entity, With, Without};

    #[derive(Component)]
    struct A;
    #[derive(Component)]
    struct B;
    #[derive(Component)]
    struct C;

    #[test]
    fn with_and_without_the_same_component_are_disjoint() {
        let with = FilterSet::of::<&mut A, With<B>>();
        let without = FilterSet::of::<&mut A, Without<B>>();
        assert!(with.is_disjoint(&without));
        assert!(without.is_disjoint(&with));
        // Fetching `&B` requires `B` as `With<B>` does.
        assert!(FilterSet::of::<(&mut A, &B), ()>().is_disjoint(&without));
    }

    #[test]
    fn overlapping_sets_are_not_disjoint() {
        let with = FilterSet::of::<&mut A, With<B>>();
        assert!(!with.is_disjoint(&FilterSet::of::<&mut A, ()>()));
        assert!(!with.is_disjoint(&FilterSet::of::<&mut A, Without<C>>()));
        assert!(!FilterSet::of::<&mut A, Without<B>>().is_disjoint(&FilterSet::of::<&mut A, Without<B>>()));
        // An optional term requires nothing.
        assert!(
            !FilterSet::of::<(&mut A, Option<&B>), ()>().is_disjoint(&FilterSet::of::<&mut A, Without<B>>())
        );
        assert_eq!(FilterSet::of::<(Entity, Option<&B>), ()>(), FilterSet::default());
    }

    #[test]
    fn tuples_collect_every_term() {
        let set = FilterSet::of::<(&A, &mut B), (With<C>, Without<A>)>();
        assert_eq!(set.with(), &[TypeId::of::<A>(), TypeId::of::<B>(), TypeId::of::<C>()]);
        assert_eq!(set.without(), &[TypeId::of::<A>()]);
        assert!(set.is_disjoint(&set), "a self-contradictory set matches nothing");
    }
}

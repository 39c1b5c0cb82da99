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

/// What a query's types promise about the entities it can yield, as alternatives: every entity
/// it yields satisfies at least one conjunction of required (`with`) and excluded (`without`)
/// components. Two queries whose every pair of conjunctions contradicts (one's `with` meets the
/// other's `without`) can never yield the same entity, so they may write the same component at
/// the same time.
///
/// Built from `&T` / `&mut T` terms and [`With`](crate::With) (into `with`),
/// [`Without`](crate::Without) (into `without`), and [`Or`](crate::Or), whose alternatives each
/// become conjunctions (so `Or<(With<A>, With<B>)>` is disjoint from `(Without<A>, Without<B>)`).
/// `Option` terms, [`Entity`](crate::Entity) and filters that do not report themselves add
/// nothing, which only makes two queries look less disjoint than they are. The design is bevy's
/// `FilteredAccess` (`bevy_ecs::query::access`): a disjunction of conjunctions.
///
/// Sizes are a handful of types and alternatives (past 64 conjunctions the set gives up its
/// promises, which is always safe); `is_disjoint` is O(a * b * w * v).
//
// Invariant: for every entity the query's iteration, `get` and chunk paths can yield, some
// conjunction holds: each of its `with` types is present and each `without` type absent (the
// unsafe adders' contract), so disjointness here means disjoint yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterSet {
    /// The alternatives; none: the query yields nothing (`Or<()>`).
    terms: SmallVec<[Conjunction; 1]>,
}

/// One alternative of a [`FilterSet`]: components all present, and components all absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Conjunction {
    with: SmallVec<[TypeId; 4]>,
    without: SmallVec<[TypeId; 2]>,
}

impl Conjunction {
    fn contradicts(&self, other: &Conjunction) -> bool {
        self.with.iter().any(|t| other.without.contains(t))
            || other.with.iter().any(|t| self.without.contains(t))
    }

    fn and(&self, other: &Conjunction) -> Conjunction {
        let mut out = self.clone();
        for &t in &other.with {
            if !out.with.contains(&t) {
                out.with.push(t);
            }
        }
        for &t in &other.without {
            if !out.without.contains(&t) {
                out.without.push(t);
            }
        }
        out
    }
}

/// Past this many alternatives a set drops its promises (one empty conjunction: may yield
/// anything), so nested `Or`s cannot grow it without bound.
const MAX_TERMS: usize = 64;

impl Default for FilterSet {
    /// The set that promises nothing: one empty conjunction.
    fn default() -> Self {
        Self { terms: smallvec::smallvec![Conjunction::default()] }
    }
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
        for term in &mut self.terms {
            if !term.with.contains(&type_id) {
                term.with.push(type_id);
            }
        }
    }

    /// Records that the query yields only entities without component `type_id`.
    ///
    /// # Safety
    /// As [`FilterSet::add_with_unchecked`], for entities that have the component.
    pub unsafe fn add_without_unchecked(&mut self, type_id: TypeId) {
        for term in &mut self.terms {
            if !term.without.contains(&type_id) {
                term.without.push(type_id);
            }
        }
    }

    /// Records that the query yields only entities that satisfy at least one of `alternatives`
    /// (an [`Or`](crate::Or) of filters, each alternative the set its filter reports from
    /// [`FilterSet::default`]): the set becomes the conjunction of itself with their disjunction.
    ///
    /// # Safety
    /// The query's every path to an item must skip entities that satisfy none of the
    /// alternatives' promises (each alternative's filter rejects the entities its set excludes,
    /// and the `Or` rejects what every alternative rejects).
    pub unsafe fn add_any_of_unchecked(&mut self, alternatives: &[FilterSet]) {
        let mut terms = SmallVec::new();
        for mine in &self.terms {
            for alternative in alternatives {
                for theirs in &alternative.terms {
                    terms.push(mine.and(theirs));
                }
            }
        }
        // Dropping contradictory alternatives loses nothing: they match no entity.
        terms.retain(|term: &mut Conjunction| !term.contradicts(term));
        self.terms =
            if terms.len() > MAX_TERMS { smallvec::smallvec![Conjunction::default()] } else { terms };
    }

    /// The components every yielded entity has: those required by every alternative. Empty when
    /// the query yields nothing.
    pub fn with(&self) -> Vec<TypeId> {
        self.common(|term| &term.with)
    }

    /// The components no yielded entity has: those excluded by every alternative. Empty when
    /// the query yields nothing.
    pub fn without(&self) -> Vec<TypeId> {
        self.common(|term| &term.without)
    }

    fn common(&self, side: impl Fn(&Conjunction) -> &[TypeId]) -> Vec<TypeId> {
        let Some((first, rest)) = self.terms.split_first() else { return Vec::new() };
        side(first).iter().copied().filter(|t| rest.iter().all(|term| side(term).contains(t))).collect()
    }

    /// Whether no entity can be yielded by both queries: every alternative of one contradicts
    /// every alternative of the other (one requires a component the other excludes). Symmetric.
    /// A set that yields nothing (a self-contradictory filter such as `(With<T>, Without<T>)`, or
    /// `Or<()>`) is disjoint from everything, itself included.
    pub fn is_disjoint(&self, other: &FilterSet) -> bool {
        self.terms.iter().all(|mine| other.terms.iter().all(|theirs| mine.contradicts(theirs)))
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
    #[derive(Component)]
    struct D;

    #[test]
    fn or_alternatives_are_each_checked() {
        use crate::Or;
        let either = FilterSet::of::<&mut C, Or<(With<A>, With<B>)>>();
        assert!(either.is_disjoint(&FilterSet::of::<&mut C, (Without<A>, Without<B>)>()));
        assert!(!either.is_disjoint(&FilterSet::of::<&mut C, Without<A>>()), "B-only entities overlap");
        assert!(either.is_disjoint(&FilterSet::of::<&mut C, Without<C>>()), "every alternative has C");
        assert_eq!(either.with(), [TypeId::of::<C>()]);
        // `Or<()>` yields nothing; an alternative that contradicts the rest is dropped.
        assert!(FilterSet::of::<&C, Or<()>>().is_disjoint(&FilterSet::of::<&C, ()>()));
        let one_left = FilterSet::of::<&C, (Without<A>, Or<(With<A>, With<B>)>)>();
        assert_eq!(one_left.with(), [TypeId::of::<C>(), TypeId::of::<B>()]);
        // Nested: (A or (B and not D)) against (not A and D).
        let nested = FilterSet::of::<&mut C, Or<(With<A>, (With<B>, Without<D>))>>();
        assert!(nested.is_disjoint(&FilterSet::of::<&mut C, (Without<A>, With<D>)>()));
        assert!(!nested.is_disjoint(&FilterSet::of::<&mut C, Without<A>>()));
    }

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
        let set = FilterSet::of::<(&A, &mut B), (With<C>, Without<C>)>();
        assert!(set.is_disjoint(&set), "a self-contradictory set matches nothing");
        let set = FilterSet::of::<(&A, &mut B), (With<C>, Without<D>)>();
        assert_eq!(set.with(), [TypeId::of::<A>(), TypeId::of::<B>(), TypeId::of::<C>()]);
        assert_eq!(set.without(), [TypeId::of::<D>()]);
        assert!(!set.is_disjoint(&set));
    }
}

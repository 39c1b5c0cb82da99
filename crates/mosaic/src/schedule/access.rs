//! Access sets: what a system reads and writes, and when two systems conflict.

use std::any::TypeId;

use crate::query::FilterSet;

/// What one access is to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessTarget {
    /// A component type's values.
    Component(TypeId),
    /// A resource.
    Resource(TypeId),
}

/// One read or write, with the type's name for messages.
#[derive(Clone, Copy, Debug)]
pub struct AccessItem {
    /// What is accessed.
    pub target: AccessTarget,
    /// The type's name.
    pub name: &'static str,
    /// Whether it is written.
    pub write: bool,
    /// The system parameter that makes the access (its type name), for messages.
    pub param: &'static str,
}

/// Everything a system reads and writes. Built when the system is added, from its parameters.
///
/// Two systems conflict when one writes something the other reads or writes, unless both
/// accesses come from queries whose [`FilterSet`]s are disjoint (`Query<&mut A, With<B>>` and
/// `Query<&mut A, Without<B>>` never touch the same entity: bevy's `FilteredAccess`); an exclusive
/// system (one taking `&mut World`) conflicts with every system.
#[derive(Clone, Debug, Default)]
pub struct Access {
    items: Vec<AccessItem>,
    /// Per item, the index in `filters` of the query that made it; `None` for resources and other
    /// unfiltered accesses (they may touch anything).
    scopes: Vec<Option<u32>>,
    filters: Vec<FilterSet>,
    exclusive: bool,
    /// A parameter records work applied at the next sync point (`Commands`, `ParCommands`).
    deferred: bool,
    /// A parameter reserves entity ids while the system runs (`Commands::spawn`).
    reserves: bool,
}

impl Access {
    /// An access set of an exclusive system.
    pub fn exclusive() -> Self {
        Self { exclusive: true, ..Self::default() }
    }

    /// Whether this is an exclusive (`&mut World`) access.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// Records that a parameter defers work to the sync point after the system's batch
    /// (`SystemParam::apply` does something): the executor then ends its run of overlapping
    /// batches there. A parameter whose `apply` changes the world must call this from
    /// `add_access`.
    pub fn mark_deferred(&mut self) {
        self.deferred = true;
    }

    /// Records that a parameter reserves entity ids while the system runs (`Commands::spawn`
    /// reserves through `&World`): two such systems conflict, so they run in system order and
    /// reserve the same ids on every run, whatever the executor and thread count.
    pub fn mark_reserves_entities(&mut self) {
        self.reserves = true;
    }

    /// Whether some parameter reserves entity ids while the system runs (see
    /// [`Access::mark_reserves_entities`]).
    pub fn reserves_entities(&self) -> bool {
        self.reserves
    }

    /// Whether some parameter defers work to the sync point (see [`Access::mark_deferred`]);
    /// exclusive systems count too, since they change the world directly.
    pub fn has_deferred(&self) -> bool {
        self.deferred || self.exclusive
    }

    /// The reads and writes, in parameter order.
    pub fn items(&self) -> &[AccessItem] {
        &self.items
    }

    /// Adds an access that may touch any entity (a resource, or a component outside a query).
    ///
    /// # Errors
    /// The existing item the new one conflicts with (same target, one of them a write), so a
    /// system whose own parameters alias is refused naming both.
    pub fn add(&mut self, item: AccessItem) -> Result<(), Box<(AccessItem, AccessItem)>> {
        if let Some(existing) = self.items.iter().find(|e| e.target == item.target && (e.write || item.write))
        {
            return Err(Box::new((*existing, item)));
        }
        self.items.push(item);
        self.scopes.push(None);
        Ok(())
    }

    /// Adds the accesses of one query, which touches only entities `filter` admits. O(i * n) for
    /// the query's i items and the n already added.
    ///
    /// The items are checked against each other whatever the filter (one query must not alias
    /// itself), and against earlier items unless both sides are queries with disjoint filters.
    ///
    /// # Errors
    /// As [`Access::add`]: the first conflicting pair, existing item first. Nothing is added then.
    pub fn add_query(
        &mut self,
        items: &[AccessItem],
        filter: FilterSet,
    ) -> Result<(), Box<(AccessItem, AccessItem)>> {
        for (i, item) in items.iter().enumerate() {
            if let Some(earlier) =
                items[..i].iter().find(|e| e.target == item.target && (e.write || item.write))
            {
                return Err(Box::new((*earlier, *item)));
            }
            if let Some(existing) = self.items.iter().zip(&self.scopes).find_map(|(e, scope)| {
                let clash = e.target == item.target
                    && (e.write || item.write)
                    && !scope.is_some_and(|s| self.filters[s as usize].is_disjoint(&filter));
                clash.then_some(e)
            }) {
                return Err(Box::new((*existing, *item)));
            }
        }
        let scope = u32::try_from(self.filters.len()).expect("fewer than 2^32 queries in one system");
        self.filters.push(filter);
        self.items.extend_from_slice(items);
        self.scopes.extend(std::iter::repeat_n(Some(scope), items.len()));
        Ok(())
    }

    /// Adds the accesses of a parameter set ([`ParamSet`](super::ParamSet)): members that may
    /// alias each other, since the set hands out one at a time. Each member's items are checked
    /// against the accesses added before the set (with filters, as [`Access::add_query`]), not
    /// against the other members; parameters added after the set are checked against all of
    /// them. O(m * n) for the members' m items and the n already added.
    ///
    /// # Errors
    /// As [`Access::add`]: the first conflicting pair, existing item first. Nothing is added then.
    pub fn add_set(&mut self, members: &[Access]) -> Result<(), Box<(AccessItem, AccessItem)>> {
        let before = self.items.len();
        for member in members {
            for (item, scope) in member.items.iter().zip(&member.scopes) {
                let filter = scope.map(|s| &member.filters[s as usize]);
                let clash = self.items[..before].iter().zip(&self.scopes[..before]).find(|(e, es)| {
                    e.target == item.target
                        && (e.write || item.write)
                        && !matches!((es, filter), (Some(x), Some(f)) if self.filters[*x as usize].is_disjoint(f))
                });
                if let Some((existing, _)) = clash {
                    return Err(Box::new((*existing, *item)));
                }
            }
        }
        for member in members {
            let offset = u32::try_from(self.filters.len()).expect("fewer than 2^32 queries in one system");
            self.filters.extend_from_slice(&member.filters);
            self.items.extend_from_slice(&member.items);
            self.scopes.extend(member.scopes.iter().map(|scope| scope.map(|s| s + offset)));
            self.exclusive |= member.exclusive;
            self.deferred |= member.deferred;
            self.reserves |= member.reserves;
        }
        Ok(())
    }

    /// The filter of the query that made `items()[index]`, or `None` for an unfiltered access.
    ///
    /// # Panics
    /// If `index >= items().len()`.
    #[track_caller]
    pub fn filter_of(&self, index: usize) -> Option<&FilterSet> {
        self.scopes[index].map(|s| &self.filters[s as usize])
    }

    /// The first conflict with `other`, if any: a target one writes and the other accesses,
    /// unless both accesses are queries with disjoint filters; or both reserve entity ids. O(a *
    /// b) in the two sets' sizes.
    pub fn conflict_with(&self, other: &Access) -> Option<Conflict> {
        if self.exclusive || other.exclusive {
            return Some(Conflict::Exclusive);
        }
        if self.reserves && other.reserves {
            return Some(Conflict::Reservations);
        }
        self.items.iter().zip(&self.scopes).find_map(|(a, sa)| {
            other
                .items
                .iter()
                .zip(&other.scopes)
                .find(|(b, sb)| {
                    a.target == b.target
                        && (a.write || b.write)
                        && !matches!((sa, sb), (Some(x), Some(y))
                            if self.filters[*x as usize].is_disjoint(&other.filters[*y as usize]))
                })
                .map(|_| Conflict::On(a.name))
        })
    }
}

/// Why two systems cannot run at the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// One of them takes `&mut World`.
    Exclusive,
    /// Both access this type and at least one writes it.
    On(&'static str),
    /// Both reserve entity ids while they run (`Commands`): they take turns, in system order, so
    /// the ids each gets do not depend on timing.
    Reservations,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<T: 'static>(write: bool) -> AccessItem {
        AccessItem {
            target: AccessTarget::Component(TypeId::of::<T>()),
            name: std::any::type_name::<T>(),
            write,
            param: "test",
        }
    }

    #[test]
    fn reads_share_writes_conflict() {
        let mut a = Access::default();
        a.add(item::<u8>(false)).unwrap();
        let mut b = Access::default();
        b.add(item::<u8>(false)).unwrap();
        assert_eq!(a.conflict_with(&b), None);
        b.add(item::<u16>(true)).unwrap();
        a.add(item::<u16>(false)).unwrap();
        assert_eq!(a.conflict_with(&b), Some(Conflict::On("u16")));
        assert!(a.add(item::<u8>(true)).is_err());
        assert_eq!(Access::exclusive().conflict_with(&Access::default()), Some(Conflict::Exclusive));
    }

    #[test]
    fn two_reservers_conflict_one_does_not() {
        let mut a = Access::default();
        a.mark_reserves_entities();
        let mut b = Access::default();
        assert_eq!(a.conflict_with(&b), None);
        b.mark_reserves_entities();
        assert_eq!(a.conflict_with(&b), Some(Conflict::Reservations));
        assert!(a.reserves_entities());
    }

    #[test]
    fn a_sets_members_may_alias_each_other_but_not_what_came_before() {
        let member = |write: bool| {
            let mut access = Access::default();
            access.add(item::<u8>(write)).unwrap();
            access
        };
        let mut access = Access::default();
        access.add_set(&[member(true), member(false)]).unwrap();
        assert_eq!(access.items().len(), 2);
        let mut with_read = Access::default();
        with_read.add(item::<u8>(false)).unwrap();
        let error = with_read.add_set(&[member(false), member(true)]).unwrap_err();
        assert!(!error.0.write && error.1.write);
        assert_eq!(with_read.items().len(), 1, "a refused set adds nothing");
        // After the set, a new access is checked against every member.
        assert!(access.add(item::<u8>(false)).is_err());
    }

    mod filtered {
        use super::*;
        use crate::{Component, With, Without};

        #[derive(Component)]
        pub struct A;
        #[derive(Component)]
        pub struct B;

        fn query<F: crate::query::QueryFilter>(write: bool) -> Access {
            let mut access = Access::default();
            access.add_query(&[item::<A>(write)], FilterSet::of::<&A, F>()).unwrap();
            access
        }

        #[test]
        fn disjoint_filters_do_not_conflict() {
            let with = query::<With<B>>(true);
            let without = query::<Without<B>>(true);
            assert_eq!(with.conflict_with(&without), None);
            assert_eq!(without.conflict_with(&with), None);
            assert_eq!(with.filter_of(0), Some(&FilterSet::of::<&A, With<B>>()));
        }

        #[test]
        fn overlapping_filters_and_unfiltered_accesses_conflict() {
            let with = query::<With<B>>(true);
            assert_eq!(
                with.conflict_with(&query::<()>(false)),
                Some(Conflict::On(std::any::type_name::<A>()))
            );
            assert!(with.conflict_with(&query::<With<B>>(true)).is_some());
            let mut plain = Access::default();
            plain.add(item::<A>(false)).unwrap();
            assert!(query::<Without<B>>(true).conflict_with(&plain).is_some());
            // Two reads never conflict, filtered or not.
            assert_eq!(query::<With<B>>(false).conflict_with(&query::<()>(false)), None);
        }

        #[test]
        fn one_system_takes_both_disjoint_queries_but_not_overlapping_ones() {
            let mut access = Access::default();
            access.add_query(&[item::<A>(true)], FilterSet::of::<&A, With<B>>()).unwrap();
            access.add_query(&[item::<A>(true)], FilterSet::of::<&A, Without<B>>()).unwrap();
            assert_eq!(access.items().len(), 2);
            let err = access.add_query(&[item::<A>(false)], FilterSet::of::<&A, ()>()).unwrap_err();
            assert!(err.0.write && !err.1.write);
            assert_eq!(access.items().len(), 2, "a refused query adds nothing");
            // A resource-like unfiltered write of the same target clashes with either query.
            assert!(access.add(item::<A>(true)).is_err());
        }

        #[test]
        fn a_query_never_aliases_itself_whatever_its_filter() {
            let mut access = Access::default();
            let both = [item::<A>(true), item::<A>(false)];
            assert!(access.add_query(&both, FilterSet::of::<&A, (With<B>, Without<B>)>()).is_err());
            assert!(access.items().is_empty());
        }
    }
}

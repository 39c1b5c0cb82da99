//! [`AnyOf`]: a query term that matches entities with at least one of several terms.

use std::marker::PhantomData;

use super::access::ComponentAccess;
use super::data::{Driving, QueryData, ReadOnlyQueryData};
use crate::component::{ComponentId, Components};
use crate::entity::Entity;
use crate::storage::{SparseSet, Ticks};

/// Query term: the entities that match at least one of the terms of the tuple `T` (up to 16;
/// `AnyOf<()>` matches nothing), with each term's item where it matches (bevy's `AnyOf`). `AnyOf<(&A, &mut B)>` yields
/// `(Option<&A>, Option<Mut<B>>)`-shaped items, `(Option<&A>, Option<&mut B>)` here, and skips
/// an entity with neither `A` nor `B`. Each member can be any term (`&T`, `&mut T`, `Has<T>`
/// always matches, a tuple matches when all of its members do).
///
/// Shape: one item per matching entity, in the order of the rest of the query (by the driving
/// pool's rows when another term requires a component; otherwise every live entity, in index
/// order). A member that writes stamps change ticks only on the entities whose item it is in.
///
/// Complexity: O(m) per entity for m members (a presence check each). Alone, or beside terms
/// that require nothing, the query walks every live entity (as [`Option`] terms alone do); beside
/// a required term, it walks that term's pool.
///
/// # Panics
/// Building the query panics, as a tuple's does, if two members alias a `&mut` (for example
/// `AnyOf<(&mut A, &A)>`).
///
/// # Examples
/// ```
/// use mosaic::{AnyOf, Component, World};
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Sword(u32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Shield(u32);
/// #[derive(Component)]
/// struct Name(&'static str);
///
/// let mut world = World::new();
/// world.spawn((Name("knight"), Sword(5), Shield(3)));
/// world.spawn((Name("archer"), Sword(2)));
/// world.spawn(Name("bard"));
/// let armed: Vec<(&str, Option<&Sword>, Option<&Shield>)> = world
///     .query::<(&Name, AnyOf<(&Sword, &Shield)>)>()
///     .into_iter()
///     .map(|(name, (sword, shield))| (name.0, sword, shield))
///     .collect();
/// assert_eq!(armed, [("knight", Some(&Sword(5)), Some(&Shield(3))), ("archer", Some(&Sword(2)), None)]);
/// ```
pub struct AnyOf<T>(PhantomData<fn() -> T>);

macro_rules! any_of_data {
    ($($name:ident),*) => {
        // SAFETY: reports the union of its members' accesses (checked for aliasing as a tuple's
        // are) and fetches only through them, each member at most once per entity.
        #[allow(unused_variables, clippy::unused_unit)]
        unsafe impl<$($name: QueryData),*> QueryData for AnyOf<($($name,)*)> {
            type Item<'w> = ($(Option<$name::Item<'w>>,)*);
            type Fetch<'w> = ($($name::Fetch<'w>,)*);

            fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
                $($name::visit_access(visit);)*
            }
            fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
                $($name::visit_mentioned(visit);)*
            }
            /// Nothing is required of every item's entity: only one member need match.
            fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
            fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
            fn init_fetch<'w>(components: &'w Components, driver: Option<Driving<'w>>, ticks: Ticks) -> Self::Fetch<'w> {
                ($($name::init_fetch(components, driver, ticks),)*)
            }
            #[inline]
            #[allow(non_snake_case)]
            unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Self::Item<'w>> {
                let ($($name,)*) = fetch;
                // Each member fetches only when it matches, so a writing member stamps no entity
                // it refuses; the item exists when one matches.
                let item = ($(
                    if $name::matches($name, entity, row) {
                        // SAFETY: forwarded from the caller to each member, each fetched once.
                        unsafe { $name::fetch($name, entity, row) }
                    } else {
                        None
                    },
                )*);
                let ($($name,)*) = &item;
                if false $(|| $name.is_some())* { Some(item) } else { None }
            }
            #[inline]
            #[allow(non_snake_case)]
            fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
                let ($($name,)*) = fetch;
                false $(|| $name::matches($name, entity, row))*
            }
            const SELECTIVE: bool = true;
            /// No aligned run: which members an entity matches decides its lookups.
            fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
                0
            }
            unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
                // SAFETY: forwarded from the caller. Never reached: `row < aligned_rows == 0`
                // cannot hold.
                match unsafe { Self::fetch(fetch, entity, row) } {
                    Some(item) => item,
                    None => unreachable!("AnyOf has no aligned rows"),
                }
            }
            #[inline]
            #[allow(non_snake_case)]
            fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
                let ($($name,)*) = fetch;
                false $(|| $name::marks_changes($name))*
            }
        }

        // SAFETY: every member is read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for AnyOf<($($name,)*)> {}
    };
}

crate::macros::all_tuples!(any_of_data);

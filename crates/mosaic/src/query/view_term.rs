//! Struct-of-arrays views as query terms of their own, so a `#[derive(QueryData)]` struct can
//! hold them: `position: PositionMut<'w>` in place of `&'w mut Position`, whose item is that view.

/// Makes the generated view `$view<'v>` of a struct-of-arrays component a [`QueryData`] term
/// that fetches exactly as `$term` does (its item is `$view<'w>`): `PositionRef` as
/// `&Position`, `PositionMut` as `&mut Position`, `PositionTracked` as `Mut<Position>`; with
/// `read_only`, also a [`ReadOnlyQueryData`]. `#[derive(Component)]` invokes it for each view of
/// a struct-of-arrays component; it is not meant to be called by hand.
///
/// [`QueryData`]: crate::query::QueryData
/// [`ReadOnlyQueryData`]: crate::query::ReadOnlyQueryData
#[doc(hidden)]
#[macro_export]
macro_rules! __view_query_data {
    ($view:ident, $term:ty $(, $read_only:ident)?) => {
        // SAFETY: every method forwards to `$term`'s, so this term reports the accesses,
        // filters and required pools `$term` does and hands out exactly its items (the view is
        // `$term`'s item type).
        #[allow(unsafe_code)]
        unsafe impl<'v> $crate::query::QueryData for $view<'v> {
            type Item<'w> = <$term as $crate::query::QueryData>::Item<'w>;
            type Fetch<'w> = <$term as $crate::query::QueryData>::Fetch<'w>;

            fn visit_access(visit: &mut dyn FnMut($crate::query::ComponentAccess)) {
                <$term as $crate::query::QueryData>::visit_access(visit)
            }
            fn visit_filter(filter: &mut $crate::query::FilterSet) {
                <$term as $crate::query::QueryData>::visit_filter(filter)
            }
            fn visit_required<'w>(
                components: &'w $crate::component::Components,
                visit: &mut dyn FnMut(::core::option::Option<&'w $crate::__private::SparseSet>),
            ) {
                <$term as $crate::query::QueryData>::visit_required(components, visit)
            }
            fn register_required(
                components: &mut $crate::component::Components,
                out: &mut dyn FnMut($crate::ComponentId),
            ) {
                <$term as $crate::query::QueryData>::register_required(components, out)
            }
            fn init_fetch<'w>(
                components: &'w $crate::component::Components,
                driver: ::core::option::Option<$crate::query::Driving<'w>>,
                ticks: $crate::Ticks,
            ) -> Self::Fetch<'w> {
                <$term as $crate::query::QueryData>::init_fetch(components, driver, ticks)
            }
            #[inline(always)]
            unsafe fn fetch<'w>(
                fetch: &Self::Fetch<'w>,
                entity: $crate::Entity,
                row: usize,
            ) -> ::core::option::Option<Self::Item<'w>> {
                // SAFETY: forwarded from the caller.
                unsafe { <$term as $crate::query::QueryData>::fetch(fetch, entity, row) }
            }
            #[inline(always)]
            fn matches(fetch: &Self::Fetch<'_>, entity: $crate::Entity, row: usize) -> bool {
                <$term as $crate::query::QueryData>::matches(fetch, entity, row)
            }
            const SELECTIVE: bool = <$term as $crate::query::QueryData>::SELECTIVE;
            #[inline(always)]
            fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
                <$term as $crate::query::QueryData>::aligned_rows(fetch)
            }
            #[inline(always)]
            unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: $crate::Entity, row: usize) -> Self::Item<'w> {
                // SAFETY: forwarded from the caller.
                unsafe { <$term as $crate::query::QueryData>::fetch_aligned(fetch, entity, row) }
            }
            #[inline(always)]
            fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
                <$term as $crate::query::QueryData>::marks_changes(fetch)
            }
            #[inline(always)]
            unsafe fn fetch_aligned_unmarked<'w>(
                fetch: &Self::Fetch<'w>,
                entity: $crate::Entity,
                row: usize,
            ) -> Self::Item<'w> {
                // SAFETY: forwarded from the caller.
                unsafe { <$term as $crate::query::QueryData>::fetch_aligned_unmarked(fetch, entity, row) }
            }
        }
        $(
            $crate::__view_query_data!(@$read_only $view);
        )?
    };
    (@read_only $view:ident) => {
        // SAFETY: forwards to a read-only term, so it reports no write.
        #[allow(unsafe_code)]
        unsafe impl<'v> $crate::query::ReadOnlyQueryData for $view<'v> {}
    };
}

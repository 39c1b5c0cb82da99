//! `#[derive(QueryData)]`: a struct of query terms fetched as one item (hecs' derived queries).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DataEnum, DeriveInput, Fields, Lifetime};

/// Expands the derive: the struct, with its one lifetime as the item's, is both the query's
/// term and its item; every field's type is a query term whose item is the same type with the
/// lifetime swapped (`&'w T`, `&'w mut T` and `Mut<'w, T>` of array-of-structs components,
/// `Option` of the references, `Entity`, and the generated views of struct-of-arrays components,
/// which are terms of their own: `mosaic::query::view_term`).
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let lifetimes: Vec<_> = input.generics.lifetimes().collect();
    if lifetimes.len() != 1 || input.generics.params.len() != 1 {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "a derived `QueryData` type has exactly one generic parameter, the lifetime of its references: \
             `struct Movement<'w> { position: &'w mut Position, velocity: &'w Velocity }`",
        ));
    }
    let lifetime = &lifetimes[0].lifetime;
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(data) => return derive_enum(name, lifetime, data),
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "`QueryData` can be derived for structs with named fields and for enums",
            ));
        }
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`QueryData` can be derived for structs with named fields (and for enums)",
        ));
    };
    let names: Vec<_> = fields.named.iter().map(|f| f.ident.clone().expect("named fields")).collect();
    let types: Vec<_> = fields.named.iter().map(|f| f.ty.clone()).collect();
    let indices: Vec<syn::Index> = (0..names.len()).map(syn::Index::from).collect();
    let q = quote!(::mosaic::query::QueryData);
    Ok(quote! {
        // SAFETY: reports the union of its fields' accesses and filters (the query checks them
        // for aliasing as it does a tuple's) and fetches only through the fields' own terms.
        #[allow(unsafe_code)]
        unsafe impl<#lifetime> #q for #name<#lifetime> {
            type Item<'__w> = #name<'__w>;
            type Fetch<'__w> = (#(<#types as #q>::Fetch<'__w>,)*);

            fn visit_access(visit: &mut dyn FnMut(::mosaic::query::ComponentAccess)) {
                #(<#types as #q>::visit_access(visit);)*
            }
            fn visit_mentioned(visit: &mut dyn FnMut(::core::any::TypeId)) {
                #(<#types as #q>::visit_mentioned(visit);)*
            }
            fn visit_filter(filter: &mut ::mosaic::query::FilterSet) {
                #(<#types as #q>::visit_filter(filter);)*
            }
            fn visit_required<'__w>(
                components: &'__w ::mosaic::component::Components,
                visit: &mut dyn FnMut(::core::option::Option<&'__w ::mosaic::__private::SparseSet>),
            ) {
                #(<#types as #q>::visit_required(components, visit);)*
            }
            fn register_required(
                components: &mut ::mosaic::component::Components,
                out: &mut dyn FnMut(::mosaic::ComponentId),
            ) {
                #(<#types as #q>::register_required(components, out);)*
            }
            fn init_fetch<'__w>(
                components: &'__w ::mosaic::component::Components,
                driver: ::core::option::Option<::mosaic::query::Driving<'__w>>,
                ticks: ::mosaic::Ticks,
            ) -> Self::Fetch<'__w> {
                (#(<#types as #q>::init_fetch(components, driver, ticks),)*)
            }
            #[inline(always)]
            unsafe fn fetch<'__w>(
                fetch: &Self::Fetch<'__w>,
                entity: ::mosaic::Entity,
                row: usize,
            ) -> ::core::option::Option<Self::Item<'__w>> {
                // A field that stamps changes must not stamp an entity a later field refuses.
                if <Self as #q>::marks_changes(fetch) && !<Self as #q>::matches(fetch, entity, row) {
                    return ::core::option::Option::None;
                }
                // SAFETY: forwarded from the caller to each field's term; no field stamps, or
                // every one matches. (Written out rather than calling `fetch_matched`: the call,
                // though inlined, changed the register allocation of `for` loops over tuples.)
                ::core::option::Option::Some(#name {
                    #(#names: unsafe { <#types as #q>::fetch(&fetch.#indices, entity, row) }?,)*
                })
            }
            #[inline(always)]
            unsafe fn fetch_matched<'__w>(
                fetch: &Self::Fetch<'__w>,
                entity: ::mosaic::Entity,
                row: usize,
            ) -> ::core::option::Option<Self::Item<'__w>> {
                // SAFETY: forwarded from the caller to each field's term.
                ::core::option::Option::Some(#name {
                    #(#names: unsafe { <#types as #q>::fetch(&fetch.#indices, entity, row) }?,)*
                })
            }
            #[inline(always)]
            fn matches(fetch: &Self::Fetch<'_>, entity: ::mosaic::Entity, row: usize) -> bool {
                true #(&& <#types as #q>::matches(&fetch.#indices, entity, row))*
            }
            const SELECTIVE: bool = false #(|| <#types as #q>::SELECTIVE)*;
            #[inline(always)]
            fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
                usize::MAX #(.min(<#types as #q>::aligned_rows(&fetch.#indices)))*
            }
            #[inline(always)]
            unsafe fn fetch_aligned<'__w>(fetch: &Self::Fetch<'__w>, entity: ::mosaic::Entity, row: usize) -> Self::Item<'__w> {
                // SAFETY: forwarded from the caller to each field's term.
                #name { #(#names: unsafe { <#types as #q>::fetch_aligned(&fetch.#indices, entity, row) },)* }
            }
            #[inline(always)]
            fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
                false #(|| <#types as #q>::marks_changes(&fetch.#indices))*
            }
            #[inline(always)]
            unsafe fn fetch_aligned_unmarked<'__w>(
                fetch: &Self::Fetch<'__w>,
                entity: ::mosaic::Entity,
                row: usize,
            ) -> Self::Item<'__w> {
                // SAFETY: forwarded from the caller to each field's term (none marks: caller).
                #name { #(#names: unsafe { <#types as #q>::fetch_aligned_unmarked(&fetch.#indices, entity, row) },)* }
            }
        }

        // SAFETY: every field's term is read-only (the bounds), so the struct reports no write.
        #[allow(unsafe_code)]
        unsafe impl<#lifetime> ::mosaic::query::ReadOnlyQueryData for #name<#lifetime>
        where
            #(#types: ::mosaic::query::ReadOnlyQueryData,)*
        {
        }
    })
}

/// Expands the derive on an enum (hecs' enum queries): each variant's fields are query terms;
/// an entity's item is the first variant, in declaration order, whose terms all match it, and an
/// entity no variant matches is not yielded (a unit variant matches every entity). Nothing is
/// required, so the query walks its other terms' smallest pool, or every live entity.
fn derive_enum(name: &syn::Ident, lifetime: &Lifetime, data: &DataEnum) -> syn::Result<TokenStream> {
    if data.variants.is_empty() {
        return Err(syn::Error::new_spanned(name, "a derived `QueryData` enum needs at least one variant"));
    }
    let q = quote!(::mosaic::query::QueryData);
    let mut fetch_types = Vec::new();
    let mut variant_access = Vec::new();
    let mut init = Vec::new();
    let mut tries = Vec::new();
    let mut matches = Vec::new();
    let mut marks = Vec::new();
    let mut all_types = Vec::new();
    let mut has_unit = false;
    for (v, variant) in data.variants.iter().enumerate() {
        let ident = &variant.ident;
        let v = syn::Index::from(v);
        let fields: Vec<_> = variant.fields.iter().collect();
        has_unit |= fields.is_empty();
        let types: Vec<_> = fields.iter().map(|f| f.ty.clone()).collect();
        let indices: Vec<syn::Index> = (0..fields.len()).map(syn::Index::from).collect();
        let members: Vec<syn::Member> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| match &f.ident {
                Some(ident) => syn::Member::Named(ident.clone()),
                None => syn::Member::Unnamed(syn::Index::from(i)),
            })
            .collect();
        let label = format!("{name}::{ident}");
        fetch_types.push(quote!((#(<#types as #q>::Fetch<'__w>,)*)));
        variant_access.push(quote!((#label, |visit: &mut dyn FnMut(::mosaic::query::ComponentAccess)| {
            #(<#types as #q>::visit_access(visit);)*
        })));
        init.push(quote!((#(<#types as #q>::init_fetch(components, driver, ticks),)*)));
        let all_match = quote!(true #(&& <#types as #q>::matches(&fetch.#v.#indices, entity, row))*);
        tries.push(quote! {
            if #all_match {
                // SAFETY: forwarded from the caller to each field's term; the variant's terms all
                // match, so none refuses after another has stamped a change.
                return ::core::option::Option::Some(#name::#ident {
                    #(#members: unsafe { <#types as #q>::fetch(&fetch.#v.#indices, entity, row) }?,)*
                });
            }
        });
        matches.push(all_match);
        marks.push(quote!(false #(|| <#types as #q>::marks_changes(&fetch.#v.#indices))*));
        all_types.extend(types);
    }
    let selective = !has_unit;
    Ok(quote! {
        // SAFETY: reports the union of its variants' accesses (each variant checked for aliasing
        // on its own; one entity's item is one variant, so variants never alias each other),
        // and fetches only through the fields' own terms, for one variant per entity.
        #[allow(unsafe_code)]
        unsafe impl<#lifetime> #q for #name<#lifetime> {
            type Item<'__w> = #name<'__w>;
            type Fetch<'__w> = (#(#fetch_types,)*);

            #[track_caller]
            fn visit_access(visit: &mut dyn FnMut(::mosaic::query::ComponentAccess)) {
                ::mosaic::query::visit_enum_access(&[#(#variant_access),*], visit);
            }
            fn visit_mentioned(visit: &mut dyn FnMut(::core::any::TypeId)) {
                #(<#all_types as #q>::visit_mentioned(visit);)*
            }
            fn visit_required<'__w>(
                _: &'__w ::mosaic::component::Components,
                _: &mut dyn FnMut(::core::option::Option<&'__w ::mosaic::__private::SparseSet>),
            ) {
            }
            fn register_required(
                _: &mut ::mosaic::component::Components,
                _: &mut dyn FnMut(::mosaic::ComponentId),
            ) {
            }
            fn init_fetch<'__w>(
                components: &'__w ::mosaic::component::Components,
                driver: ::core::option::Option<::mosaic::query::Driving<'__w>>,
                ticks: ::mosaic::Ticks,
            ) -> Self::Fetch<'__w> {
                (#(#init,)*)
            }
            #[inline]
            unsafe fn fetch<'__w>(
                fetch: &Self::Fetch<'__w>,
                entity: ::mosaic::Entity,
                row: usize,
            ) -> ::core::option::Option<Self::Item<'__w>> {
                #(#tries)*
                ::core::option::Option::None
            }
            #[inline]
            fn matches(fetch: &Self::Fetch<'_>, entity: ::mosaic::Entity, row: usize) -> bool {
                false #(|| #matches)*
            }
            const SELECTIVE: bool = #selective;
            /// No aligned run: which variant an entity is decides its lookups.
            fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
                0
            }
            unsafe fn fetch_aligned<'__w>(fetch: &Self::Fetch<'__w>, entity: ::mosaic::Entity, row: usize) -> Self::Item<'__w> {
                // SAFETY: forwarded from the caller. Never reached: `row < aligned_rows == 0`
                // cannot hold.
                match unsafe { <Self as #q>::fetch(fetch, entity, row) } {
                    ::core::option::Option::Some(item) => item,
                    ::core::option::Option::None => ::core::unreachable!("an enum query has no aligned rows"),
                }
            }
            #[inline]
            fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
                false #(|| #marks)*
            }
        }

        // SAFETY: every variant's terms are read-only (the bounds), so the enum reports no write.
        #[allow(unsafe_code)]
        unsafe impl<#lifetime> ::mosaic::query::ReadOnlyQueryData for #name<#lifetime>
        where
            #(#all_types: ::mosaic::query::ReadOnlyQueryData,)*
        {
        }
    })
}

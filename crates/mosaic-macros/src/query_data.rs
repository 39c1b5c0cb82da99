//! `#[derive(QueryData)]`: a struct of query terms fetched as one item (hecs' derived queries).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

/// Expands the derive: the struct, with its one lifetime as the item's, is both the query's
/// term and its item; every field's type is a query term whose item is the same type with the
/// lifetime swapped (`&'w T`, `&'w mut T` and `Mut<'w, T>` of array-of-structs components,
/// `Option` of the references, `Entity`, and the generated views of struct-of-arrays components,
/// which are terms of their own: `mosaic::query::view_term`).
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`QueryData` can be derived for structs with named fields only",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`QueryData` can be derived for structs with named fields only",
        ));
    };
    let lifetimes: Vec<_> = input.generics.lifetimes().collect();
    if lifetimes.len() != 1 || input.generics.params.len() != 1 {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "a derived `QueryData` struct has exactly one generic parameter, the lifetime of its references: \
             `struct Movement<'w> { position: &'w mut Position, velocity: &'w Velocity }`",
        ));
    }
    let lifetime = &lifetimes[0].lifetime;
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
                // SAFETY: forwarded from the caller to each field's term.
                ::core::option::Option::Some(#name {
                    #(#names: unsafe { <#types as #q>::fetch(&fetch.#indices, entity, row) }?,)*
                })
            }
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

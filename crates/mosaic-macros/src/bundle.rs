//! `#[derive(Bundle)]`: a struct whose fields are bundles (components, tuples, other derived
//! bundles) is a bundle of all their components, in field order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields};

pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`#[derive(Bundle)]` needs a struct: each field is a bundle (a component, a tuple, or another derived bundle)",
        ));
    };
    let name = &input.ident;
    let mut generics = input.generics.clone();
    let types: Vec<&syn::Type> = data.fields.iter().map(|field| &field.ty).collect();
    {
        let where_clause = generics.make_where_clause();
        for ty in &types {
            where_clause.predicates.push(syn::parse_quote!(#ty: ::mosaic::Bundle));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // `TemplateBundle` when every field is one. The bound is higher-ranked (`for<'__t>`) so that
    // a field type that is not `Clone` makes the impl inapplicable instead of a compile error
    // (stable Rust rejects a where-clause on concrete types that does not hold).
    let mut clone_generics = generics.clone();
    {
        let where_clause = clone_generics.make_where_clause();
        for ty in &types {
            where_clause.predicates.push(syn::parse_quote!(for<'__t> #ty: ::mosaic::TemplateBundle));
        }
    }
    let (clone_impl_generics, _, clone_where_clause) = clone_generics.split_for_impl();
    let b = quote!(::mosaic::Bundle);
    // How the fields are named when the value is taken apart and built again.
    let (bindings, pattern, build) = match &data.fields {
        Fields::Named(fields) => {
            let idents: Vec<_> = fields.named.iter().map(|f| f.ident.clone().expect("named")).collect();
            (
                idents.clone(),
                quote!(Self { #(#idents),* }),
                quote!(Self { #(#idents: <#types as #b>::take_each(source)?),* }),
            )
        }
        Fields::Unnamed(fields) => {
            let idents: Vec<_> = (0..fields.unnamed.len()).map(|i| format_ident!("__field{}", i)).collect();
            (
                idents.clone(),
                quote!(Self(#(#idents),*)),
                quote!(Self(#(<#types as #b>::take_each(source)?),*)),
            )
        }
        Fields::Unit => (Vec::new(), quote!(Self), quote!(Self)),
    };
    Ok(quote! {
        impl #impl_generics #b for #name #ty_generics #where_clause {
            #[inline]
            #[allow(unused_variables)]
            fn register_ids(
                components: &mut ::mosaic::component::Components,
                out: &mut impl FnMut(::mosaic::ComponentId),
            ) {
                #(<#types as #b>::register_ids(components, out);)*
            }

            #[inline]
            #[allow(unused_variables)]
            fn put_each<__S: ::mosaic::component::BundleSink>(self, sink: &mut __S) {
                let #pattern = self;
                #(#b::put_each(#bindings, sink);)*
            }

            #[allow(unused_variables)]
            fn type_names(out: &mut impl FnMut(&'static str)) {
                #(<#types as #b>::type_names(out);)*
            }

            const COUNT: usize = 0 #(+ <#types as #b>::COUNT)*;

            #[inline]
            #[allow(unused_variables)]
            fn missing<__S: ::mosaic::component::BundleSource>(source: &__S) -> ::core::option::Option<&'static str> {
                #(if let ::core::option::Option::Some(name) = <#types as #b>::missing(source) {
                    return ::core::option::Option::Some(name);
                })*
                ::core::option::Option::None
            }

            #[inline]
            #[allow(unused_variables)]
            fn take_each<__S: ::mosaic::component::BundleSource>(source: &mut __S) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(#build)
            }

            #[inline]
            #[allow(unused_variables)]
            fn remove_each<__S: ::mosaic::component::BundleSource>(source: &mut __S) -> usize {
                0 #(+ <#types as #b>::remove_each(source))*
            }

            #[inline]
            fn insert_batch<__S: ::mosaic::component::BatchSink>(
                sink: &mut __S,
                rows: impl ::core::iter::Iterator<Item = (::mosaic::Entity, Self)>,
            ) {
                sink.bundle(rows);
            }
        }

        impl #clone_impl_generics ::mosaic::TemplateBundle for #name #ty_generics #clone_where_clause {
            #[inline]
            #[allow(unused_variables)]
            fn put_each_clone<__S: ::mosaic::component::CloneSink>(self, sink: &mut __S) {
                let #pattern = self;
                #(::mosaic::TemplateBundle::put_each_clone(#bindings, sink);)*
            }
        }
    })
}

//! `#[derive(Event)]`: implements `mosaic::Event`, with `#[event(propagate)]` for events that
//! propagate up the hierarchy by default.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// Expands the derive.
pub(crate) fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let mut propagate = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("event")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("propagate") {
                propagate = true;
                Ok(())
            } else {
                Err(meta.error("unknown event option; supported: `propagate`"))
            }
        })?;
    }
    let name = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let propagate = propagate.then(|| {
        quote!(
            const AUTO_PROPAGATE: bool = true;
        )
    });
    Ok(quote! {
        impl #impl_generics ::mosaic::Event for #name #type_generics #where_clause {
            #propagate
        }
    })
}

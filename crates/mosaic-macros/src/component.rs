//! `#[derive(Component)]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, LitStr};

/// Expands the derive: parses `#[component(...)]` options and implements the trait.
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("component")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("storage") {
                let value: LitStr = meta.value()?.parse()?;
                match value.value().as_str() {
                    "aos" => Ok(()),
                    other => Err(syn::Error::new_spanned(
                        &value,
                        format!("unknown component storage `{other}`; supported: \"aos\""),
                    )),
                }
            } else {
                Err(meta.error("unknown component option; supported: `storage = \"aos\"`"))
            }
        })?;
    }
    let name = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::mosaic::Component for #name #type_generics #where_clause {}
    })
}

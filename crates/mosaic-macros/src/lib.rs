//! Derive macros for Mosaic. One module per derive; this file only routes.

mod component;

use proc_macro::TokenStream;

/// Derives `mosaic::Component` for a struct or enum.
///
/// Options go in `#[component(...)]`; today `storage = "aos"` (array of structs, the default) is
/// accepted and anything else is a compile error naming the option.
///
/// ```ignore
/// #[derive(Component)]
/// struct Position { x: f32, y: f32 }
/// ```
#[proc_macro_derive(Component, attributes(component))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    component::derive(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

//! `#[derive(Component)]`: implements `mosaic::component::Stored` (the layout protocol) and
//! `mosaic::Component`, with views generated for struct-of-arrays components.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, LitStr};

/// Which layout the component asked for.
enum Storage {
    Aos,
    Soa,
}

/// The parsed `#[component(...)]` options.
struct Options {
    storage: Storage,
    lazy: bool,
    immutable: bool,
    track_changes: bool,
}

/// Reads `#[component(storage = "...", cleanup = "...", immutable, track_changes)]`.
fn parse_options(input: &DeriveInput) -> syn::Result<Options> {
    let mut storage = Storage::Aos;
    let mut lazy = false;
    let mut immutable = false;
    let mut track_changes = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("component")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("storage") {
                let value: LitStr = meta.value()?.parse()?;
                storage = match value.value().as_str() {
                    "aos" => Storage::Aos,
                    "soa" => Storage::Soa,
                    other => {
                        return Err(syn::Error::new_spanned(
                            &value,
                            format!("unknown component storage `{other}`; supported: \"aos\", \"soa\""),
                        ));
                    }
                };
                Ok(())
            } else if meta.path.is_ident("cleanup") {
                let value: LitStr = meta.value()?.parse()?;
                lazy = match value.value().as_str() {
                    "eager" => false,
                    "lazy" => true,
                    other => {
                        return Err(syn::Error::new_spanned(
                            &value,
                            format!("unknown component cleanup `{other}`; supported: \"eager\", \"lazy\""),
                        ));
                    }
                };
                Ok(())
            } else if meta.path.is_ident("immutable") {
                immutable = true;
                Ok(())
            } else if meta.path.is_ident("track_changes") {
                track_changes = true;
                Ok(())
            } else {
                Err(meta.error(
                    "unknown component option; supported: `storage = \"aos\" | \"soa\"`, `cleanup = \"eager\" | \"lazy\"`, `immutable`, `track_changes`",
                ))
            }
        })?;
    }
    Ok(Options { storage, lazy, immutable, track_changes })
}

/// One `#[require(...)]` entry: a component type, and the expression making its value (its
/// `Default` when absent). bevy's three forms: `Health` (its `Default`), `Health = expr`, and
/// the constructor shorthands `Health(100)` and `Armor { value: 3 }`, which name the type and
/// build the value at once.
struct Requirement {
    path: syn::Path,
    value: Option<syn::Expr>,
}

impl syn::parse::Parse for Requirement {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let path: syn::Path = input.parse()?;
        let value = if input.peek(syn::Token![=]) {
            input.parse::<syn::Token![=]>()?;
            Some(input.parse()?)
        } else if input.peek(syn::token::Paren) {
            let args;
            syn::parenthesized!(args in input);
            let args: TokenStream = args.parse()?;
            Some(syn::parse_quote!(#path(#args)))
        } else if input.peek(syn::token::Brace) {
            let fields;
            syn::braced!(fields in input);
            let fields: TokenStream = fields.parse()?;
            Some(syn::parse_quote!(#path { #fields }))
        } else {
            None
        };
        Ok(Self { path, value })
    }
}

/// Reads every `#[require(A, B = expr, ...)]` into the body of `Component`'s required-component
/// methods (empty when there is none).
fn required_methods(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut entries = Vec::new();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("require")) {
        let list = attr
            .parse_args_with(syn::punctuated::Punctuated::<Requirement, syn::Token![,]>::parse_terminated)?;
        for requirement in list {
            let path = &requirement.path;
            entries.push(match &requirement.value {
                Some(value) => quote! { required.require::<#path>(|| #value); },
                None => quote! { required.require::<#path>(<#path as ::core::default::Default>::default); },
            });
        }
    }
    if entries.is_empty() {
        return Ok(TokenStream::new());
    }
    Ok(quote! {
        fn register_required(required: &mut ::mosaic::component::RequiredComponents) {
            #(#entries)*
        }
        fn declares_required() -> bool {
            true
        }
    })
}

/// What `#[register(...)]` may list besides `name = "..."`: each becomes the method of the same
/// name on `mosaic::types::ComponentDecl`.
const REGISTER_FLAGS: [&str; 5] = ["clone", "plain", "hash", "serde", "map_entities"];

/// Reads every `#[register(name = "...", clone, plain, hash, serde, map_entities)]` into
/// `Component::declare` (nothing when there is none): the name first, then the flags in the
/// order written.
fn declare_method(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut calls = Vec::new();
    let mut name = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("register")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                let value: LitStr = meta.value()?.parse()?;
                if value.value().is_empty() {
                    return Err(syn::Error::new_spanned(&value, "a registered name cannot be empty"));
                }
                name = Some(value);
                return Ok(());
            }
            match REGISTER_FLAGS.iter().find(|flag| meta.path.is_ident(flag)) {
                Some(flag) => {
                    let method = format_ident!("{}", flag);
                    calls.push(quote! { .#method() });
                    Ok(())
                }
                None => Err(meta.error(
                    "unknown register option; supported: `name = \"...\"`, `clone`, `plain`, `hash`, `serde`, `map_entities`",
                )),
            }
        })?;
    }
    if name.is_none() && calls.is_empty() {
        return Ok(TokenStream::new());
    }
    let name = name.map(|name| quote! { .name(#name) });
    Ok(quote! {
        fn declare(decl: ::mosaic::types::ComponentDecl<'_, Self>) -> ::mosaic::types::ComponentDecl<'_, Self> {
            decl #name #(#calls)*
        }
    })
}

/// Expands the derive.
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let options = parse_options(&input)?;
    let mut required = required_methods(&input)?;
    required.extend(declare_method(&input)?);
    let mut lazy = if options.lazy {
        quote! {
            fn lazy_cleanup() -> bool {
                true
            }
        }
    } else {
        TokenStream::new()
    };
    if options.track_changes {
        lazy.extend(quote! {
            fn track_changes() -> bool {
                true
            }
        });
    }
    if input.generics.params.is_empty() {
        // One slot per concrete type: a static inside a generic impl would be shared by every
        // instantiation, so generic components keep the registry's hash lookup.
        lazy.extend(quote! {
            #[inline(always)]
            fn type_slot() -> ::core::option::Option<&'static ::core::sync::atomic::AtomicU32> {
                static SLOT: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);
                ::core::option::Option::Some(&SLOT)
            }
        });
    }
    let mutable = !options.immutable;
    match options.storage {
        Storage::Aos => Ok(derive_aos(&input, &lazy, mutable, &required)),
        Storage::Soa => derive_soa(&input, &lazy, mutable, &required),
    }
}

fn derive_aos(input: &DeriveInput, lazy: &TokenStream, mutable: bool, required: &TokenStream) -> TokenStream {
    let name = &input.ident;
    let mut generics = input.generics.clone();
    generics
        .make_where_clause()
        .predicates
        .push(syn::parse_quote!(Self: ::core::marker::Send + ::core::marker::Sync + 'static));
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let mutable_impl = mutable.then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics ::mosaic::MutableComponent for #name #type_generics #where_clause {}
        }
    });
    // An immutable component has no `Mut<T>` term: its tracked view is a shared reference.
    let (tracked_type, tracked_body) = if mutable {
        (
            quote! { ::mosaic::Mut<'a, Self> },
            quote! { unsafe { ::mosaic::Mut::from_stamp(columns.get_mut(row), stamp) } },
        )
    } else {
        (quote! { &'a Self }, quote! { { let _ = stamp; unsafe { columns.get(row) } } })
    };
    quote! {
        // SAFETY: array-of-structs storage through the pool's own checked column; every view is
        // built from the row the caller vouches for.
        #[allow(unsafe_code)]
        #[automatically_derived]
        unsafe impl #impl_generics ::mosaic::__private::Stored for #name #type_generics #where_clause {
            type Ref<'a> = &'a Self;
            type Mut<'a> = &'a mut Self;
            type Slice<'a> = &'a [Self];
            type SliceMut<'a> = &'a mut [Self];
            type Columns<'a> = ::mosaic::__private::FieldColumn<'a, Self>;
            type Tracked<'a> = #tracked_type;

            fn storage_info() -> ::mosaic::__private::StorageInfo {
                ::mosaic::__private::StorageInfo::aos::<Self>()
            }
            #[inline]
            fn columns(pool: &::mosaic::__private::SparseSet) -> Self::Columns<'_> {
                pool.aos_column::<Self>()
            }
            #[inline(always)]
            unsafe fn row_ref<'a>(columns: Self::Columns<'a>, row: usize) -> &'a Self {
                unsafe { columns.get(row) }
            }
            #[inline(always)]
            unsafe fn row_mut<'a>(columns: Self::Columns<'a>, row: usize) -> &'a mut Self {
                unsafe { columns.get_mut(row) }
            }
            #[inline(always)]
            unsafe fn row_tracked<'a>(
                columns: Self::Columns<'a>,
                row: usize,
                stamp: ::mosaic::__private::RowStamp<'a>,
            ) -> Self::Tracked<'a> {
                #tracked_body
            }
            #[inline(always)]
            unsafe fn slice<'a>(columns: Self::Columns<'a>, start: usize, len: usize) -> &'a [Self] {
                unsafe { columns.slice(start, len) }
            }
            #[inline(always)]
            unsafe fn slice_mut<'a>(columns: Self::Columns<'a>, start: usize, len: usize) -> &'a mut [Self] {
                unsafe { columns.slice_mut(start, len) }
            }
            #[inline(always)]
            fn insert(pool: &mut ::mosaic::__private::SparseSet, entity: ::mosaic::Entity, value: Self) -> ::core::option::Option<Self> {
                pool.insert(entity, value)
            }
            #[inline(always)]
            fn push_new(pool: &mut ::mosaic::__private::SparseSet, entity: ::mosaic::Entity, value: Self) {
                pool.push_new(entity, value)
            }
            #[inline(always)]
            fn insert_rows(
                pool: &mut ::mosaic::__private::SparseSet,
                rows: impl ::core::iter::Iterator<Item = (::mosaic::Entity, Self)>,
                keep: impl ::core::ops::FnMut(::mosaic::Entity) -> bool,
                added: impl ::core::ops::FnMut(::mosaic::Entity),
            ) {
                pool.insert_rows(rows, keep, added)
            }
            #[inline(always)]
            fn remove_rows(
                pool: &mut ::mosaic::__private::SparseSet,
                entities: impl ::core::iter::Iterator<Item = ::mosaic::Entity>,
                check: impl ::core::ops::FnMut(::mosaic::Entity),
                removed: impl ::core::ops::FnMut(::mosaic::Entity, Self),
            ) {
                pool.remove_rows(entities, check, removed)
            }
            #[inline(always)]
            fn remove(pool: &mut ::mosaic::__private::SparseSet, entity: ::mosaic::Entity) -> ::core::option::Option<Self> {
                pool.remove(entity)
            }
            #lazy
        }

        #[automatically_derived]
        impl #impl_generics ::mosaic::Component for #name #type_generics #where_clause { #required }
        #mutable_impl
    }
}

fn derive_soa(
    input: &DeriveInput,
    lazy: &TokenStream,
    mutable: bool,
    required: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => &fields.named,
            _ => {
                return Err(syn::Error::new_spanned(
                    name,
                    "`storage = \"soa\"` needs a struct with named fields: each field becomes a column \
                     and the views name them; use the default `aos` storage for tuple and unit structs",
                ));
            }
        },
        _ => {
            return Err(syn::Error::new_spanned(
                name,
                "`storage = \"soa\"` needs a struct with named fields; enums and unions are stored \
                 whole, with the default `aos` storage",
            ));
        }
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "`storage = \"soa\"` components cannot be generic",
        ));
    }
    let mutable_impl = mutable.then(|| {
        quote! {
            #[automatically_derived]
            impl ::mosaic::MutableComponent for #name {}
        }
    });
    let vis = &input.vis;
    let names: Vec<_> = fields.iter().map(|f| f.ident.clone().expect("named field")).collect();
    let types: Vec<_> = fields.iter().map(|f| &f.ty).collect();
    let vises: Vec<_> = fields.iter().map(|f| &f.vis).collect();
    let indices: Vec<_> = (0..fields.len()).collect();
    let ref_name = format_ident!("{}Ref", name);
    let mut_name = format_ident!("{}Mut", name);
    let slices_name = format_ident!("{}Slices", name);
    let slices_mut_name = format_ident!("{}SlicesMut", name);
    let columns_name = format_ident!("{}Columns", name);
    let tracked_name = format_ident!("{}Tracked", name);
    // The views as query terms of their own (see `mosaic::query::view_term`), so a derived
    // `QueryData` struct can hold them: `&T` as `TRef`, and for mutable components `&mut T` as
    // `TMut` and `Mut<T>` as `TTracked`.
    let view_terms = {
        let mutable_terms = mutable.then(|| {
            quote! {
                ::mosaic::__view_query_data!(#mut_name, &'static mut #name);
                ::mosaic::__view_query_data!(#tracked_name, ::mosaic::Mut<'static, #name>);
            }
        });
        quote! {
            ::mosaic::__view_query_data!(#ref_name, &'static #name, read_only);
            #mutable_terms
        }
    };
    let field_consts: Vec<_> = names
        .iter()
        .map(|n| format_ident!("FIELD_{}", n.to_string().trim_start_matches("r#").to_uppercase()))
        .collect();
    let field_const_docs: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(
                "Index of the `{n}` field ({i}, declaration order), for \
                 [`FieldChanged<{name}, {{ {name}::FIELD_{} }}>`](::mosaic::FieldChanged).",
                n.to_string().trim_start_matches("r#").to_uppercase()
            )
        })
        .collect();
    let doc = |what: &str| {
        format!(
            "{what} of one or more `{name}` values stored struct-of-arrays (generated by `#[derive(Component)]`)."
        )
    };
    let ref_doc = doc("Shared view");
    let mut_doc = doc("Exclusive view");
    let slices_doc = doc("Per-field slices");
    let slices_mut_doc = doc("Per-field mutable slices");
    let field_docs: Vec<_> = names.iter().map(|n| format!("The `{n}` field.")).collect();
    let tracked_doc = format!(
        "Change-detecting exclusive view of one `{name}` value stored struct-of-arrays, as a \
         `Mut<{name}>` query term hands it out: each field records its own write \
         (`FieldChanged`) and the row's (`Changed`) when written through (generated by \
         `#[derive(Component)]`)."
    );
    let (tracked_type, tracked_body) = if mutable {
        (
            quote! { #tracked_name<'a> },
            quote! {
                #tracked_name {
                    #( #names: unsafe { ::mosaic::FieldMut::from_stamp(columns.#names.get_mut(row), stamp, #indices) }, )*
                    __stamp: stamp,
                }
            },
        )
    } else {
        (quote! { #ref_name<'a> }, quote! { { let _ = stamp; unsafe { Self::row_ref(columns, row) } } })
    };
    // `View` (via `cloned`) and `ViewMut` (via `set`) for a generated view type.
    // The `Clone` bounds here and below are higher-ranked (`for<'__clone> F: Clone`): a plain bound on a
    // concrete field type that is not `Clone` would be a compile error ("trivial bound",
    // rust-lang/rust#48214); this way the impl simply does not apply.
    let view_impl = |view: &syn::Ident| {
        quote! {
            impl ::mosaic::View for #view<'_> where #( for<'__clone> #types: ::core::clone::Clone, )* {
                type Value = #name;
                fn read(&self) -> #name {
                    self.cloned()
                }
            }
        }
    };
    let view_mut_impl = |view: &syn::Ident| {
        let read = view_impl(view);
        quote! {
            #read

            impl ::mosaic::ViewMut for #view<'_> where #( for<'__clone> #types: ::core::clone::Clone, )* {
                fn write(&mut self, value: #name) {
                    self.set(value);
                }
            }
        }
    };
    let tracked_views = view_mut_impl(&tracked_name);
    let ref_view = view_impl(&ref_name);
    let mut_views = view_mut_impl(&mut_name);
    let tracked_items = mutable.then(|| {
        quote! {
            #[doc = #tracked_doc]
            #[allow(dead_code)]
            #vis struct #tracked_name<'a> {
                #( #[doc = #field_docs] #vises #names: ::mosaic::FieldMut<'a, #types>, )*
                __stamp: ::mosaic::__private::RowStamp<'a>,
            }

            impl #tracked_name<'_> {
                /// Records every field (and the row) as changed without writing. O(fields).
                #vis fn set_changed(&mut self) {
                    #( self.#names.set_changed(); )*
                    self.__stamp.mark_row();
                }

                /// Whether any field changed (or the value was added) within the reader's
                /// window; `true` when the component's changes are not tracked. O(1).
                #vis fn is_changed(&self) -> bool {
                    self.__stamp.is_changed()
                }

                /// Whether the value was added within the reader's window; `true` when the
                /// component's changes are not tracked. O(1).
                #vis fn is_added(&self) -> bool {
                    self.__stamp.is_added()
                }

                /// The fields, mutably, without recording a change.
                #vis fn bypass_change_detection(&mut self) -> #mut_name<'_> {
                    #mut_name { #( #names: self.#names.bypass_change_detection(), )* }
                }

                /// Copies the fields out into an owned value.
                #vis fn cloned(&self) -> #name where #( for<'__clone> #types: ::core::clone::Clone, )* {
                    #name { #( #names: ::core::clone::Clone::clone(&*self.#names), )* }
                }

                /// Overwrites every field with `value`'s, recording each field's change.
                #vis fn set(&mut self, value: #name) {
                    #( *self.#names = value.#names; )*
                    self.__stamp.mark_row();
                }
            }

            #tracked_views
        }
    });

    Ok(quote! {
        #[doc = #ref_doc]
        #[derive(Clone, Copy)]
        #[allow(dead_code)]
        #vis struct #ref_name<'a> { #( #[doc = #field_docs] #vises #names: &'a #types, )* }

        #[doc = #mut_doc]
        #[allow(dead_code)]
        #vis struct #mut_name<'a> { #( #[doc = #field_docs] #vises #names: &'a mut #types, )* }

        #[doc = #slices_doc]
        #[derive(Clone, Copy)]
        #[allow(dead_code)]
        #vis struct #slices_name<'a> { #( #[doc = #field_docs] #vises #names: &'a [#types], )* }

        #[doc = #slices_mut_doc]
        #[allow(dead_code)]
        #vis struct #slices_mut_name<'a> { #( #[doc = #field_docs] #vises #names: &'a mut [#types], )* }

        #tracked_items

        impl #name {
            #( #[doc = #field_const_docs] #[allow(dead_code)] #vis const #field_consts: usize = #indices; )*
        }

        #[doc(hidden)]
        #[derive(Clone, Copy)]
        #[allow(dead_code)]
        #vis struct #columns_name<'a> { #( #names: ::mosaic::__private::FieldColumn<'a, #types>, )* }

        impl #ref_name<'_> {
            /// Copies the fields out into an owned value.
            #vis fn cloned(&self) -> #name where #( for<'__clone> #types: ::core::clone::Clone, )* {
                #name { #( #names: ::core::clone::Clone::clone(self.#names), )* }
            }
        }

        impl #mut_name<'_> {
            /// Copies the fields out into an owned value.
            #vis fn cloned(&self) -> #name where #( for<'__clone> #types: ::core::clone::Clone, )* {
                #name { #( #names: ::core::clone::Clone::clone(&*self.#names), )* }
            }

            /// Overwrites every field with `value`'s.
            #vis fn set(&mut self, value: #name) {
                #( *self.#names = value.#names; )*
            }
        }

        #ref_view

        #mut_views

        // SAFETY: `fields`, `split` and `join` list every field once, in declaration order, with
        // its own type.
        #[allow(unsafe_code)]
        #[automatically_derived]
        unsafe impl ::mosaic::__private::SoaLayout for #name {
            fn fields(out: &mut ::std::vec::Vec<::mosaic::__private::ColumnInfo>) {
                #( out.push(::mosaic::__private::ColumnInfo::of::<#types>()); )*
            }
            fn split(self, writer: &mut ::mosaic::__private::SoaWriter<'_>) {
                #( writer.put::<#types>(self.#names); )*
            }
            fn join(reader: &mut ::mosaic::__private::SoaReader<'_>) -> Self {
                Self { #( #names: reader.take::<#types>(), )* }
            }
        }

        // SAFETY: struct-of-arrays storage; `columns` checks the pool's layout and each field's
        // type, and every view is built from the rows the caller vouches for.
        #[allow(unsafe_code)]
        #[automatically_derived]
        unsafe impl ::mosaic::__private::Stored for #name {
            type Ref<'a> = #ref_name<'a>;
            type Mut<'a> = #mut_name<'a>;
            type Slice<'a> = #slices_name<'a>;
            type SliceMut<'a> = #slices_mut_name<'a>;
            type Columns<'a> = #columns_name<'a>;
            type Tracked<'a> = #tracked_type;

            fn storage_info() -> ::mosaic::__private::StorageInfo {
                ::mosaic::__private::StorageInfo::soa::<Self>()
            }
            #[inline]
            fn columns(pool: &::mosaic::__private::SparseSet) -> Self::Columns<'_> {
                let soa = pool.soa();
                #columns_name { #( #names: soa.field::<#types>(#indices), )* }
            }
            #[inline(always)]
            unsafe fn row_ref<'a>(columns: Self::Columns<'a>, row: usize) -> Self::Ref<'a> {
                #ref_name { #( #names: unsafe { columns.#names.get(row) }, )* }
            }
            #[inline(always)]
            unsafe fn row_mut<'a>(columns: Self::Columns<'a>, row: usize) -> Self::Mut<'a> {
                #mut_name { #( #names: unsafe { columns.#names.get_mut(row) }, )* }
            }
            #[inline(always)]
            unsafe fn row_tracked<'a>(
                columns: Self::Columns<'a>,
                row: usize,
                stamp: ::mosaic::__private::RowStamp<'a>,
            ) -> Self::Tracked<'a> {
                #tracked_body
            }
            #[inline(always)]
            unsafe fn slice<'a>(columns: Self::Columns<'a>, start: usize, len: usize) -> Self::Slice<'a> {
                #slices_name { #( #names: unsafe { columns.#names.slice(start, len) }, )* }
            }
            #[inline(always)]
            unsafe fn slice_mut<'a>(columns: Self::Columns<'a>, start: usize, len: usize) -> Self::SliceMut<'a> {
                #slices_mut_name { #( #names: unsafe { columns.#names.slice_mut(start, len) }, )* }
            }
            #[inline(always)]
            fn insert(pool: &mut ::mosaic::__private::SparseSet, entity: ::mosaic::Entity, value: Self) -> ::core::option::Option<Self> {
                pool.insert_soa(entity, value)
            }
            #[inline(always)]
            fn remove(pool: &mut ::mosaic::__private::SparseSet, entity: ::mosaic::Entity) -> ::core::option::Option<Self> {
                pool.remove_soa(entity)
            }
            #lazy
        }

        #[automatically_derived]
        impl ::mosaic::Component for #name { #required }
        #mutable_impl
        #view_terms
    })
}

//! Derive macros for Mosaic. One module per derive; this file only routes.

mod bundle;
mod component;
mod event;
mod query_data;

use proc_macro::TokenStream;

/// Derives `mosaic::Component` (and its layout protocol `mosaic::component::Stored`) for a struct
/// or enum.
///
/// Options go in `#[component(...)]`:
/// - `storage = "aos"` (the default): values stored whole; views are `&T` / `&mut T`.
/// - `storage = "soa"`: for structs with named fields and no generics, every field `Send + Sync`;
///   each field gets its own
///   column, and the derive generates the views `TRef<'a>` / `TMut<'a>` (one reference per field,
///   same field names and visibility), `TTracked<'a>` (the `Mut<T>` item, marking each field
///   written through) and `TSlices<'a>` / `TSlicesMut<'a>` (one slice per field). `TRef`, `TMut`
///   and `TTracked` are also query terms fetched as `&T`, `&mut T` and `Mut<T>` are, so a
///   `#[derive(QueryData)]` struct can hold them as fields. A tuple struct, enum or generic
///   struct is a compile error saying why.
///
/// - `cleanup = "lazy"`: despawn leaves the entity's value in place; `World::collect_lazy`
///   (called by every schedule run) removes dead entities' values by random sampling. Queries
///   never yield dead entities. `cleanup = "eager"` is the default.
/// - `immutable`: no `&mut` access (`Query<&mut T>`, `World::get_mut::<T>` do not compile); the
///   value changes only by `World::insert` replacing it whole, or by removal.
/// - `track_changes`: the pool records added and changed ticks and removals from the type's
///   registration on, so `Added<T>`, `Changed<T>` and `RemovedComponents<T>` are exact from the
///   first entity. Without it, tracking starts with the first change reader of the type (the rows
///   present then count as added and changed), and types nobody reads changes of pay nothing.
///
/// Anything else is a compile error naming the option. The expansion contains `unsafe impl`s
/// (allowed locally with `#[allow(unsafe_code)]`) that uphold `Stored`'s contract by building views
/// only from rows the query engine vouches for.
///
/// ```ignore
/// #[derive(Component)]
/// struct Position { x: f32, y: f32 }
///
/// #[derive(Component)]
/// #[component(storage = "soa")]
/// struct Velocity { x: f32, y: f32 }   // queries yield VelocityRef { x: &f32, y: &f32 }
/// ```
///
/// `#[require(Velocity, Health = Health(100))]` declares required components (bevy 0.15): an
/// entity given this component also gets each listed one it lacks, made by its `Default` or by
/// the expression after `=`, recursively; bevy's shorthands `Health(100)` and
/// `Armor { value: 3 }` name the type and its value at once. A cycle of requirements panics when
/// a world first registers the types.
///
/// `#[register(name = "health", plain, serde)]` declares what the type supports in a world's
/// type registry (`mosaic::types`): `World::register::<T>()` applies it (`name`, and the flags
/// `clone`, `plain`, `hash`, `serde`, `map_entities`, each the `ComponentDecl` method of that
/// name, so each needs the trait that method needs).
#[proc_macro_derive(Component, attributes(component, require, register))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    component::derive(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Derives `mosaic::Event` for a type observers can watch (`World::trigger`,
/// `World::trigger_targets`). `#[event(propagate)]` makes an event triggered at an entity go on
/// to its parent in the hierarchy after each level, unless an observer stops it
/// (`On::propagate(false)`); implement `Event` by hand to choose another traversal.
///
/// ```ignore
/// #[derive(Event)]
/// #[event(propagate)]
/// struct Clicked { button: u8 }
/// ```
#[proc_macro_derive(Event, attributes(event))]
pub fn derive_event(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    event::derive(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Derives `QueryData` for a struct of query terms with named fields and one lifetime, so a query
/// yields the struct itself (hecs' derived queries), or for an enum of such variants (below):
///
/// ```ignore
/// #[derive(QueryData)]
/// struct Movement<'w> {
///     position: &'w mut Position,
///     velocity: &'w Velocity,
///     owner: Option<&'w Owner>,
///     entity: Entity,
/// }
/// for m in world.query::<Movement>() {
///     m.position.x += m.velocity.x;
/// }
/// ```
///
/// Every field's type must be a term whose item is that type with the lifetime swapped: `&'w T`,
/// `&'w mut T` and `Mut<'w, T>` of array-of-structs components, `Option`s of the references,
/// `Entity`, and for a struct-of-arrays component `T` its generated views `TRef<'w>`, `TMut<'w>`
/// and `TTracked<'w>` (fetched as `&T`, `&mut T` and `Mut<T>`; `&'w T` itself is refused there,
/// since its item is the view). Not `Has<T>`, whose item is a `bool`. The fields' accesses are
/// checked for aliasing when a query or system is made, as a tuple's are; the struct is also
/// `ReadOnlyQueryData` when every field is.
///
/// On an enum (hecs' enum queries), each variant's fields (named, unnamed, or none) are such
/// terms, and an entity's item is the first variant, in declaration order, whose terms all match
/// it; an entity no variant matches is not yielded, and a unit variant matches every entity:
///
/// ```ignore
/// #[derive(QueryData)]
/// enum Shape<'w> {
///     Circle { radius: &'w Radius },
///     Rect(&'w Width, &'w Height),
///     Other,
/// }
/// ```
///
/// Nothing is required by an enum, so alone it walks every live entity with lookups; put a
/// required term beside it (`(&Position, Shape)`) to walk that pool. Each variant is checked for
/// aliasing on its own; `&mut A` in one variant and `&A` in another is allowed (one entity's item
/// is one variant) and declares a write of `A` to the scheduler. A writing variant stamps
/// changes only on the entity it is chosen for. Watches refuse enum queries. Anything else is a
/// compile error.
#[proc_macro_derive(QueryData)]
pub fn derive_query_data(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    query_data::derive(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Derives `mosaic::Bundle` for a struct whose fields are bundles: components, tuples of them, or
/// other derived bundles (nested bundles flatten, as bevy's `#[derive(Bundle)]`). Spawning or
/// inserting it adds every field's components, in field order; `World::remove::<ItsType>` takes
/// them all out again (all or nothing) and builds the struct. Named, tuple and unit structs;
/// generic ones get a `Field: Bundle` bound per field. An enum or union is a compile error. A
/// struct whose fields hold one component type twice panics when used, naming the type, as a
/// tuple does.
///
/// ```ignore
/// #[derive(Bundle)]
/// struct Body { position: Position, velocity: Velocity }
///
/// #[derive(Bundle)]
/// struct Player { body: Body, health: Health, tag: PlayerTag }
///
/// let e = world.spawn(Player { .. });
/// ```
#[proc_macro_derive(Bundle)]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    bundle::derive(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

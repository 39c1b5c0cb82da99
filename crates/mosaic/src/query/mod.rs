//! Queries: iterate the entities that have a set of components.
//!
//! A query is a [`QueryData`] (what each item holds: `&T`, `&mut T`, `Option<&T>`,
//! `Option<&mut T>`, [`Has<T>`], [`Mut<T>`], [`Ref<T>`], [`Entity`](crate::Entity), or a tuple of those) and a
//! [`QueryFilter`] ([`With`], [`Without`], [`Or`], [`Added`], [`Changed`], [`FieldChanged`], or a
//! tuple of those). Iteration walks the smallest pool among the fetched components (or a much
//! smaller `With` pool) and looks the entity up in the others (O(1) each), so its cost is
//! O(n * c) for the walked pool's n entities and the query's c components.

mod access;
mod alignment;
mod any_of;
mod change;
mod chunk;
mod combinations;
mod core;
mod data;
mod default_filter;
mod enum_data;
mod error;
mod field_mut;
mod filter;
mod iter;
mod many;
mod matching;
mod mut_ref;
mod par;
mod plan;
mod reduce;
mod shared_ref;
mod sorted;
mod view_term;
mod watch;
#[cfg(feature = "parallel")]
mod work;
mod world_query;

pub use self::core::{ExclusiveQuery, Query};
#[doc(hidden)]
pub use access::ComponentAccess;
pub use access::FilterSet;
#[cfg(feature = "transform")]
pub(crate) use alignment::aligned;
pub use any_of::AnyOf;
pub use change::{Added, ChangeFetch, Changed, FieldChanged};
pub use chunk::ChunkQueryData;
pub use combinations::QueryCombinations;
pub use data::{Driving, Has, QueryData, ReadOnlyQueryData};
#[doc(hidden)]
pub use enum_data::visit_enum_access;
pub use error::QueryError;
pub use field_mut::FieldMut;
pub use filter::{Allow, Or, QueryFilter, With, Without};
pub use iter::QueryIter;
pub use many::QueryManyIter;
pub use mut_ref::{Mut, MutFetch};
pub use reduce::FOLD_CHUNK;
pub use shared_ref::{Ref, RefFetch};
pub use sorted::QuerySortedIter;

//! Queries: iterate the entities that have a set of components.
//!
//! A query is a [`QueryData`] (what each item holds: `&T`, `&mut T`, `Option<&T>`,
//! `Option<&mut T>`, [`Entity`](crate::Entity), or a tuple of those) and a [`QueryFilter`]
//! ([`With`], [`Without`], or a tuple of those). Iteration walks the smallest pool among the
//! required components and looks the entity up in the others (O(1) each), so its cost is
//! O(n_min * c) for the smallest required pool's n_min entities and the query's c components.

mod access;
mod chunk;
mod core;
mod data;
mod error;
mod filter;
mod iter;
mod par;
mod reduce;
mod watch;

pub use self::core::Query;
pub use access::FilterSet;
pub use chunk::ChunkQueryData;
pub use data::{Driving, QueryData, ReadOnlyQueryData};
pub use error::QueryError;
pub use filter::{QueryFilter, With, Without};
pub use iter::QueryIter;
pub use reduce::FOLD_CHUNK;

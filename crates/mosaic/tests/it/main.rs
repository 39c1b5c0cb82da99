//! Mosaic's integration tests: one test crate, one module per area (spawn, query, despawn ...),
//! so the suite links one binary instead of one per file. The tests that install a global
//! allocator (`steady_state_alloc`, `rollback_alloc`) and the compile-fail cases stay crates of
//! their own.
//!
//! A module's tests are named `module::test`, so `cargo test --test it spawn::` runs one area.

mod any_of;
mod change_detection;
mod children;
mod column_batch;
mod command_buffer;
mod command_runs;
mod common;
mod derive_bundle;
mod derive_query;
mod despawn;
mod despawn_batch;
mod determinism;
mod disabled;
mod disjoint_access;
mod drop;
mod dynamic;
mod dynamic_model;
mod dynamic_property;
mod dynamic_snapshot;
mod enum_query;
mod events;
mod field_changes;
mod filtered_walk;
mod foreign_world;
mod group;
mod hierarchy;
mod hooks;
mod index;
mod index_property;
mod insert_remove;
mod layout;
mod layouts;
mod lazy;
mod lifecycle_property;
mod observers;
mod pairs;
mod pairs_snapshot;
mod panic_safety;
mod par_iter;
mod param_set;
mod ported_change_detection;
mod ported_commands;
mod ported_disabling;
mod ported_observers;
mod ported_queries;
mod ported_relations;
mod ported_required;
mod ported_world;
mod property;
mod query;
mod query_sort;
mod query_terms;
mod ref_items;
mod relationship;
mod remove_bundle;
mod required;
mod resources;
mod rollback;
mod rollback_changes;
mod rollback_property;
mod saved_frame;
mod schedule;
mod set_conditions;
mod single;
mod size_hints;
mod snapshot;
mod snapshot_checksum;
mod snapshot_continuation;
mod sort;
mod spawn;
mod type_registry;

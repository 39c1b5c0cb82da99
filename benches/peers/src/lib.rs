//! Mosaic beside its peers: bevy_ecs, hecs, shipyard, specs, legion, sparsey, flecs and a
//! plain-`Vec` baseline, each behind one trait ([`Library`]), measured in one run.
//!
//! - [`library`]: the [`Library`] trait every peer implements, the [`Bench`] protocol (prepare,
//!   run, settle) and the founding [`Profile`]s.
//! - [`components`]: the component shapes every library gets (ecs_bench_suite's), one macro.
//! - [`libs`]: one module per library.
//! - [`timing`]: interleaved rounds, medians.
//! - [`suite`]: the workloads, the scaling grid, memory and cachegrind, put together.
//! - [`report`] and [`chart`]: `docs/benchmarks.md` and `docs/benchmarks.svg`.
//! - [`machine`]: `nproc`, the CPU model, rustc, library versions from `Cargo.lock`.

pub mod chart;
pub mod components;
pub mod library;
pub mod libs;
pub mod machine;
pub mod report;
pub mod suite;
pub mod timing;

pub use library::{Bench, Library, PROFILES, Profile, Workload};

//! `mosaic-scripting`: the arena with systems written in [Rhai](https://rhai.rs), as a user of
//! Mosaic would add scripting: a script declares run-time components (Mosaic's
//! [`mosaic::dynamic`]) and per-row systems, and they run every frame beside the arena's Rust
//! systems, deterministically (the same checksum on any thread count and under rollback).
//!
//! ```text
//! component("Shield", #{ absorb: "f32", charges: "u8", last: "i32" });
//! system("shield", ["Shield", "Health"]);     // every entity with both
//! fn shield() {
//!     let lost = this.last - this.health;      // damage taken since the last frame
//!     if lost > 0 && this.absorb >= 1.0 { ... } // give some of it back from `absorb`
//!     this.absorb = min(this.absorb + 0.25, 4.0);
//!     this.last = this.health;
//! }
//! ```
//!
//! The whole sample is `scripts/shield.rhai`; run it with
//! `cargo run --release -p mosaic-scripting -- --script demos/scripting/scripts/shield.rhai`
//! (`--frames`, `--entities`, `--seed`, `--threads`, `--rollback K`; `--bench-script ROUNDS`
//! times a scripted system against Rust, see [`mod@bench`]). Where the script runs in the frame and
//! why: [`ScriptedSim`].
//!
//! The script API, all of it:
//! - `component(NAME, #{ FIELD: "TYPE", .. })` at the top level registers a component (types
//!   `bool`, `u8`, `u16`, `u32`, `i8`, `i16`, `i32`, `i64`, `f32`; names and layout checked by
//!   [`mosaic::dynamic::Schema::new`]).
//! - `system(NAME, [COMPONENT, "!COMPONENT", ..])` at the top level declares a system that runs
//!   `fn NAME()` once per entity that has every listed component and none of the `!` ones, in
//!   query order, with the entity's row as `this`.
//! - In a system, `this.FIELD` reads and `this.FIELD = v` writes a field of any listed
//!   component (field names must differ across them); `this.entity` is the entity's index;
//!   `this.add(NAME, #{ FIELD: v })` and `this.remove(NAME)` add or remove a script component,
//!   applied after the walk in row order.
//! - The arena's own components are reached through a small explicit bridge ([`bridge`]):
//!   `Health` as `this.health` (`i32`, read and written) and `Team` as `this.team` (`u8`,
//!   read-only).
//!
//! Numbers: integers are `i64`, floats `f32` (Rhai's `f32_float`), as the components hold
//! them; a write is checked against the field's type and range. Every error (syntax, runtime,
//! unknown field, wrong type, too many operations) is a [`ScriptError`] that names the script
//! file, the line and, for a system, the entity; never a panic.
//!
//! Binding: each system resolves its queries and field handles once at load
//! ([`mosaic::dynamic::DynamicQuery::field`]); a frame walks the query reading each row into the
//! row object, calls the script function, then walks again writing the values back. Mosaic's
//! side allocates nothing per row (`tests/alloc.rs`); Rhai's call does.

pub mod bench;
pub mod bridge;
mod error;
mod row;
mod run;
mod script;
mod system;
mod value;

pub use error::{Place, ScriptError};
pub use row::{MAX_DEFERRED_PER_FRAME, Row, SlotInfo};
pub use run::{Checksums, Outcome, RunError, ScriptedSim};
pub use script::{MAX_COMPONENTS, MAX_OPERATIONS_PER_ROW, MAX_SCRIPT_BYTES, MAX_SYSTEMS, Script};
pub use system::MAX_ROW_FIELDS;
pub use value::Value;

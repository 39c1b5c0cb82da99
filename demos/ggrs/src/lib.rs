//! `mosaic-ggrs`: the arena driven by [GGRS](https://github.com/gschup/ggrs), the Rust
//! rollback-netcode library behind bevy_ggrs, as a two-player game.
//!
//! GGRS runs a game through three requests: save the state of a frame, load it back, and advance
//! one frame with every player's input. Here they map onto Mosaic's own rollback parts:
//! - save: [`mosaic::rollback::RollbackRing::save`] of the arena's world, and the world hash
//!   ([`mosaic::rollback::RollbackRing::hash`]) as GGRS's checksum;
//! - load: [`mosaic::rollback::RollbackRing::restore`];
//! - advance: each player's [`Steer`] applied to its team's velocities, then one
//!   [`arena::sim::Sim::step`].
//!
//! GGRS's `SyncTestSession` is then an outside check of Mosaic's determinism and rollback: it
//! rolls back every frame, re-simulates and compares checksums ([`synctest`]). [`peer`] runs one
//! side of a peer-to-peer session over UDP on loopback, with a simulated network latency so that
//! predictions miss and GGRS rolls back.
//!
//! Every datagram of a peer-to-peer session carries a MAC under a session key derived from a
//! match secret both peers are given, and a sequence number against replay; anything else is
//! dropped and counted ([`auth`]).
//!
//! Modules: [`input`] (the players' input), [`game`] (the request handler), [`synctest`],
//! [`auth`] (the session key, datagram MACs and the replay window), [`socket`] (the loopback
//! UDP socket with latency), [`peer`].

pub mod auth;
pub mod game;
pub mod input;
pub mod peer;
pub mod socket;
pub mod synctest;

pub use game::{ArenaConfig, GgrsArena, GgrsArenaError, RequestCounts};
pub use input::Steer;

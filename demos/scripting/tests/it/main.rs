//! The scripted arena's integration tests: one binary (`run`: determinism over threads and
//! rollback; `errors`: every script error names its line; `cli`: the binary's exit codes;
//! `readme`: the README's script runs).

mod cli;
mod errors;
mod readme;
mod run;

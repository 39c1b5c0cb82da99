//! `arena`: a headless, deterministic 2D game simulation written against Mosaic's public API.
//!
//! Loads a scene (the bundled `scenes/arena.ron` or `--scene PATH`), optionally rescales it to
//! `--entities N`, runs `--frames N` frames seeded by `--seed S` as systems in a
//! [`mosaic::Schedule`] (`--executor single|parallel`), and prints a summary table and a
//! per-system profile. `--trace PATH` also writes a Chrome trace of the run. A scene that cannot
//! be read or is invalid, or a trace file that cannot be created, exits with code 2 and a message
//! on stderr. `--inspect [ADDR]` serves the running simulation to a browser (see [`inspect`]).
//! `--rollback K`, `--hash-log PATH`, `--compare A B` and `--rollback-timing N` exercise
//! rollback (see [`rollback`]).
//!
//! Features: `cli` (the default: the command line, `--trace` and `--inspect`, with `parallel` and
//! `inspect`); `parallel` (Mosaic's rayon executor and parallel queries); `inspect` (the
//! inspector). Without them the library is the simulation alone, which builds for
//! `wasm32-unknown-unknown` (`demos/web`).

/// `eprintln!` that never panics: a line for a closed or full stderr is dropped, so a parent that
/// stopped reading (or `2>/dev/full`) cannot turn a warning into a crash of the simulation.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `println!` that never panics: a line for a closed stdout (piped into `head`) is dropped.
#[macro_export]
macro_rules! print_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

#[cfg(feature = "cli")]
pub mod cli;
pub mod components;
pub mod files;
pub mod grid;
#[cfg(feature = "inspect")]
pub mod inspect;
pub mod report;
pub mod rollback;
pub mod scene;
pub mod sim;
pub mod systems;
#[cfg(feature = "cli")]
pub mod trace;
pub mod validate;

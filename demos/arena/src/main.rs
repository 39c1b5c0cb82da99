//! `arena`: a headless, deterministic 2D game simulation written against Mosaic's public API.
//!
//! Loads a scene (the bundled `scenes/arena.ron` or `--scene PATH`), optionally rescales it to
//! `--entities N`, runs `--frames N` frames seeded by `--seed S` as systems in a
//! [`mosaic::Schedule`] (`--executor single|parallel`), and prints a summary table and a
//! per-system profile. `--trace PATH` also writes a Chrome trace of the run. A scene that cannot
//! be read or is invalid, or a trace file that cannot be created, exits with code 2 and a message
//! on stderr.

mod cli;
mod components;
mod grid;
mod report;
mod scene;
mod sim;
mod systems;
mod trace;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

fn main() -> ExitCode {
    let args = cli::Args::parse();
    let scene = match scene::Scene::load(args.scene.as_deref()) {
        Ok(scene) => scene,
        Err(error) => {
            eprintln!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    let scene = match args.entities {
        Some(total) => scene.scaled(total),
        None => scene,
    };
    let trace = match args.trace.as_deref().map(trace::start).transpose() {
        Ok(trace) => trace,
        Err(error) => {
            eprintln!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    let summary = sim::run(&scene, args.seed, args.frames, args.executor.into());
    // Dropping the guard writes the rest of the trace and closes it.
    drop(trace);
    let mut out = std::io::stdout().lock();
    let executor = args.executor.to_possible_value().map_or_else(String::new, |v| v.get_name().to_owned());
    let header = format!(
        "arena: {}, {:.1} x {:.1} arena, seed {}, {executor} executor",
        scene.file, scene.width, scene.height, args.seed
    );
    match writeln!(out, "{header}").and_then(|()| write!(out, "{summary}")) {
        Ok(()) => ExitCode::SUCCESS,
        // stdout closed early (e.g. piped into `head`): nothing more to say.
        Err(_) => ExitCode::FAILURE,
    }
}

//! `arena`: a headless, deterministic 2D game simulation written against Mosaic's public API.
//!
//! Loads a scene (the bundled `scenes/arena.ron` or `--scene PATH`), optionally rescales it to
//! `--entities N`, runs `--frames N` frames seeded by `--seed S`, and prints a summary table. A
//! scene that cannot be read or is invalid exits with code 2 and a message on stderr.

mod cli;
mod components;
mod grid;
mod report;
mod scene;
mod sim;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

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
    let summary = sim::run(&scene, args.seed, args.frames);
    let mut out = std::io::stdout().lock();
    let header =
        format!("arena: {}, {:.1} x {:.1} arena, seed {}", scene.file, scene.width, scene.height, args.seed);
    match writeln!(out, "{header}").and_then(|()| write!(out, "{summary}")) {
        Ok(()) => ExitCode::SUCCESS,
        // stdout closed early (e.g. piped into `head`): nothing more to say.
        Err(_) => ExitCode::FAILURE,
    }
}
